// A (partial) schedule of a network: the chosen layer schedules in scheduling order, their
// segment timings, and the network totals (nn_dataflow NNDataflowScheme).
// Spec: nn_dataflow-spec.md §3.4, §9.8 (adding a layer).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "cost/energy_breakdown.hpp"
#include "mapping/data_layout.hpp"
#include "model/network.hpp"
#include "schedule/pipeline_segment.hpp"
#include "schedule/segment_timing.hpp"
#include "search/strategy.hpp"

namespace kapla::schedule {

class NetworkScheme {
 public:
  NetworkScheme(const model::Network& net, mapping::DataLayout input_layout,
                std::vector<mapping::DataLayout> ext_layouts);

  /// Adds a layer's schedule. Its sched_seq[0] must be last_seg_idx() or last_seg_idx() + 1
  /// (a new segment); sched_seq[1..2] place it in the segment for the timing model.
  void add(std::size_t layer, std::shared_ptr<const pricing::LayerSchedule> sched);

  const model::Network& network() const { return *net_; }
  int last_seg_idx() const { return last_seg_idx_; }
  std::size_t size() const { return order_.size(); }
  /// Scheduled layers in insertion order.
  const std::vector<std::size_t>& order() const { return order_; }
  const pricing::LayerSchedule* get(std::size_t layer) const { return by_layer_[layer].get(); }
  const mapping::DataLayout& input_layout() const { return inputs_->input_layout; }
  const std::vector<mapping::DataLayout>& ext_layouts() const { return inputs_->ext_layouts; }
  /// The layout of a source's data (network input, external input or scheduled layer).
  const mapping::DataLayout& source_layout(const model::LayerSource& s) const;
  /// The concatenated layout of a layer's predecessors (its ifmap layout).
  mapping::DataLayout fmap_layout(std::size_t layer) const;
  const std::vector<SegmentTiming>& segment_timings() const { return timings_; }

  // Totals (§3.4).
  double total_cost() const;
  double total_time() const;
  double total_ops() const;
  PerMemLevel<double> total_accesses() const;
  double total_noc_hops() const;
  /// Where total_cost() goes: the layers' breakdowns summed, with the static part for the
  /// network's time (pipelined layers overlap, so it is less than the layers' sum). The parts
  /// sum to total_cost() up to rounding.
  cost::EnergyBreakdown energy() const;

 private:
  const model::Network* net_;
  // Heads folded into the batch of a source's data (1 for the network input and externals).
  std::int64_t source_heads(const model::LayerSource& s) const;
  // The network's input layouts, which no layer changes: shared by the copies the search
  // makes of a scheme for each layer it adds (their copying was 1.7 % of K's instructions
  // on GPT-2 decode).
  struct Inputs {
    mapping::DataLayout input_layout;
    std::vector<mapping::DataLayout> ext_layouts;
  };
  std::shared_ptr<const Inputs> inputs_;
  std::vector<std::shared_ptr<const pricing::LayerSchedule>> by_layer_;
  std::vector<std::size_t> order_;
  double sum_cost_ = 0;
  double sum_static_cost_ = 0;
  double sum_time_ = 0;
  /// The layers' static energy beyond the network's time (0 without pipelining).
  double static_overcount() const;
  std::vector<SegmentTiming> timings_;
  /// Layers of the current (last) segment with their positions, for on-chip predecessors.
  std::vector<std::pair<std::size_t, SegIndex>> cur_seg_layers_;
  int last_seg_idx_ = -1;
};

/// The goal's comparison on network schemes (§3.5): e (total_cost, total_time),
/// d (total_time, total_cost), ed total_cost*total_time.
bool network_goal_less(const NetworkScheme& a, const NetworkScheme& b, model::Goal goal);

}  // namespace kapla::schedule
