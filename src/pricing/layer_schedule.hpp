// One priced layer (nn_dataflow SchedulingResult): what the fixed-scheme evaluator returns
// and every strategy ranks. Spec: nn_dataflow-spec.md §3.2-3.5, §9.2.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "core/enum_array.hpp"
#include "cost/energy_breakdown.hpp"
#include "cost/loop_blocking.hpp"
#include "mapping/data_layout.hpp"
#include "mapping/partition_scheme.hpp"
#include "mapping/resource.hpp"
#include "model/options.hpp"

namespace kapla::pricing {

/// One scheduled layer (nn_dataflow SchedulingResult): the figures the network search and
/// the reports need, the chosen scheme, and where the ofmaps end up.
struct LayerSchedule {
  // Cost parts (§3.2) and time (§3.3).
  double cost = 0;
  double cost_op = 0;
  double cost_access = 0;
  double cost_noc = 0;
  double cost_static = 0;
  /// Where `cost` goes, as the cost model split it (parts sum to `cost` up to rounding).
  cost::EnergyBreakdown energy;
  double time = 0;
  double proc_time = 0;
  double bus_time = 0;
  double dram_time = 0;
  double ops = 0;
  std::int64_t num_nodes = 0;
  std::array<bool, 2> is_dram{true, true};  // ifmaps from / ofmaps to DRAM
  PerMemLevel<PerDataCategory<double>> access{};
  PerDataCategory<double> remote_gbuf_access{};
  PerDataCategory<double> total_nhops{};
  PerDataCategory<double> mem_nhops{};
  PerDataCategory<double> node_nhops{};
  PerDataCategory<double> unit_nhops{};
  std::array<PerDataCategory<double>, 2> fetch{};
  // The scheme.
  mapping::PartitionScheme part;
  int nld_index = 0;
  std::array<PerLoopDim<std::int64_t>, 3> tvals{};  // blocking factors per level
  std::array<PerLoopDim<int>, 2> orders{};          // loop orders (final), 0 = innermost
  // Placement.
  mapping::DataLayout ofmap_layout;
  std::array<int, 3> sched_seq{0, 0, 0};
  /// The resource the scheme was priced on (its segment's node region, where its data come from
  /// and go to): with the layer, batch, costs and options, what re-prices the scheme
  /// (`kapla emit`).
  mapping::Resource resource;
  /// The evaluated loop-blocking scheme behind these figures (sizes, unit counts, buffer
  /// sharing), when the strategy has one.
  std::shared_ptr<const cost::LoopBlockingEval> detail;

  double node_time() const { return proc_time > bus_time ? proc_time : bus_time; }
  /// Σ_d access[m][d], with the remote GBUF accesses added to GBUF.
  PerMemLevel<double> total_accesses() const;
  double total_noc_hops() const;
};

/// Comparison key of the goal (§3.5): e (cost, time), d (time, cost), ed cost*time.
bool goal_less(const LayerSchedule& a, const LayerSchedule& b, model::Goal goal);

}  // namespace kapla::pricing
