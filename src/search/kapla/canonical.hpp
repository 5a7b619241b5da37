// The canonical scheme a directive scheme lowers to: a point of B's search space that the one
// cost model prices (kapla-spec.md §1.5; nn_dataflow-spec.md §6-§8). KAPLA's searches choose
// directives; this is what they report, so "K never beats B" holds by construction.
#pragma once

#include <array>
#include <cstdint>

#include "core/enum_array.hpp"
#include "mapping/data_loops.hpp"
#include "mapping/partition_scheme.hpp"

namespace kapla::search::kapla {

/// Loop blocking of one nested-loop description: factors per level (0 = DRAM/top, 1 = GBUF,
/// 2 = REGF) and loop positions per level (0 = innermost), nn_dataflow bl_ts / bl_ords.
struct Blocking {
  std::array<PerLoopDim<std::int64_t>, 3> bl_ts{};
  std::array<PerLoopDim<int>, 2> bl_ords{};
  friend bool operator==(const Blocking&, const Blocking&) = default;
};

/// partition -> Eyeriss nested-loop description (index into the map strategy's list for the
/// partitioned layer) -> blocking.
struct CanonicalScheme {
  mapping::PartitionScheme part;
  int nest_index = 0;
  Blocking blocking;
  friend bool operator==(const CanonicalScheme&, const CanonicalScheme&) = default;
};

/// What K's greedy needs to know of one nested-loop description (a view of the cost model's
/// NestedLoopDesc): loop counts, per-unit buffer sizes, data loops, PE replication.
struct NodeNest {
  PerLoopDim<std::int64_t> loopcnt{{1, 1, 1}};
  PerDataCategory<std::int64_t> usize_gbuf{};
  PerDataCategory<std::int64_t> usize_regf{};
  PerDataCategory<mapping::LoopSet> data_loops{};
  DataCategory rw_data = DataCategory::Ofm;
  std::int64_t repl_ifm = 1;  // PE replication over input channels (ifms)
  std::int64_t repl_ofm = 1;  // PE replication over output channels (ofms)
  bool fold_variant = false;  // from a fold variant of the row-stationary mapping (kapla's)
};

/// Buffer capacities and sharing for the capacity check (words; nn_dataflow §7.2/§7.4).
struct Capacity {
  std::int64_t regf_words = 0;
  std::int64_t gbuf_words = 0;
  PerDataCategory<std::int64_t> gbuf_share{{1, 1, 1}};  // buffer-sharing group size per data
};

/// The 36 loop-order pairs in itertools.product(permutations, permutations) order; an order
/// gives each loop's position, 0 = innermost.
std::array<PerLoopDim<int>, 6> loop_orders();

/// Product of the factors of d's loops in `t`.
std::int64_t data_factor(const NodeNest& n, const PerLoopDim<std::int64_t>& t, DataCategory d);
/// REGF words for REGF-level factors t2; GBUF words for the factors below the top (t1*t2).
std::int64_t regf_occupancy(const NodeNest& n, const PerLoopDim<std::int64_t>& t2);
std::int64_t gbuf_occupancy(const NodeNest& n, const PerLoopDim<std::int64_t>& t12,
                            const PerDataCategory<std::int64_t>& share);
/// The fast capacity check: exactly nn_dataflow's §7.4 step 2 with every category stored in
/// GBUF (the KAPLA options disable bypass).
bool fits(const NodeNest& n, const Blocking& b, const Capacity& cap);

}  // namespace kapla::search::kapla
