// The canonical scheme a directive scheme lowers to: a point of B's search space that the one
// cost model prices (kapla-spec.md §1.5; nn_dataflow-spec.md §6-§8). KAPLA's searches choose
// directives; this is what they report, so "K never beats B" holds by construction.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "core/enum_array.hpp"
#include "core/function_ref.hpp"
#include "core/math.hpp"
#include "cost/loop_blocking.hpp"
#include "mapping/data_loops.hpp"
#include "mapping/partition_scheme.hpp"

namespace kapla::search::kapla {

/// Loop blocking of one nested-loop description: factors per level (0 = DRAM/top, 1 = GBUF,
/// 2 = REGF) and loop positions per level (0 = innermost), nn_dataflow bl_ts / bl_ords: the
/// cost model's own type.
using Blocking = cost::LoopBlocking;

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
  /// Whether a category's REGF copy survives unrelated REGF-level loops (the fork's §12.2
  /// rule); it decides the fetch counts, hence which categories may bypass GBUF.
  PerDataCategory<bool> regf_reusable{{true, true, true}};
  std::int64_t repl_ifm = 1;  // PE replication over input channels (ifms)
  std::int64_t repl_ofm = 1;  // PE replication over output channels (ofms)
  bool fold_variant = false;  // from a fold variant of the row-stationary mapping (kapla's)
};

/// Buffer capacities and sharing for the capacity check (words; nn_dataflow §7.2/§7.4).
struct Capacity {
  std::int64_t regf_words = 0;
  std::int64_t gbuf_words = 0;
  PerDataCategory<std::int64_t> gbuf_share{{1, 1, 1}};  // buffer-sharing group size per data
  /// Categories GBUF always stores: bypass not allowed by the options, or on-chip data of a
  /// pipelined segment that lives in this layer's own region (nn_dataflow §7.4 steps 1, 5).
  /// The others bypass GBUF unless the blocking reuses their GBUF copy (§7.4 step 6).
  PerDataCategory<bool> always_in_gbuf{{true, true, true}};
  /// Nothing may bypass GBUF (the KAPLA presets): the GBUF occupancy of a blocking needs no
  /// fetch counts and grows with every factor.
  bool all_in_gbuf() const {
    return always_in_gbuf[DataCategory::Fil] && always_in_gbuf[DataCategory::Ifm] &&
           always_in_gbuf[DataCategory::Ofm];
  }
};

/// What a capacity predicate promises about growing factors (fill_tensor uses it). Monotone:
/// a tile that fails fails with any factor grown, as the occupancies (sums of products of
/// factors, the shared ones ceil-divided) grow: regf_tile_fits, and fits_tiles when every
/// category stays in GBUF. Any: no promise; fits_tiles where a category may bypass GBUF is
/// not monotone (it takes GBUF space or not by the whole blocking's fetch counts; a tile can
/// fail where a larger one fits, test_greedy.cpp).
enum class FitsOrder : std::uint8_t { Any, Monotone };

/// The 36 loop-order pairs in itertools.product(permutations, permutations) order; an order
/// gives each loop's position, 0 = innermost.
std::array<PerLoopDim<int>, 6> loop_orders();
/// The innermost loop of an order (position 0; IFM if none is). The loop fill_tensor grows
/// last and takes its knobs from, so FitMemo's key reads an order through it too.
inline LoopDim innermost(const PerLoopDim<int>& order) {
  for (auto l : all_values<LoopDim>())
    if (order[l] == 0) return l;
  return LoopDim::Ifm;
}

// The occupancies and fits_tiles are inline: the greedy's fills ask for ~10^8 tiles per
// network, and a call per category costs more than the arithmetic.

/// `ord` with the loops of trip count 1 placed outside the others (in enum order) and the
/// others kept in their relative order: orders equal so give one schedule at that level.
PerLoopDim<int> canonical_order(const PerLoopDim<std::int64_t>& trips, const PerLoopDim<int>& ord);
/// Whether `ord` is its class's canonical order (the trivial loops outermost in LoopDim order);
/// S enumerates only those, as the others give the same schedules.
inline bool is_canonical_order(const PerLoopDim<std::int64_t>& trips, const PerLoopDim<int>& ord) {
  return canonical_order(trips, ord) == ord;
}
/// `c` with each level's order in canonical_order's form: schemes equal so are one schedule.
CanonicalScheme without_trivial_orders(CanonicalScheme c);

/// Product of the factors of d's loops in `t`.
inline std::int64_t data_factor(const NodeNest& n, const PerLoopDim<std::int64_t>& t,
                                DataCategory d) {
  std::int64_t f = 1;
  for (auto l : all_values<LoopDim>())
    if (n.data_loops[d].contains(l)) f *= t[l];
  return f;
}
/// REGF words for REGF-level factors t2; GBUF words for the factors below the top (t1*t2).
inline std::int64_t regf_occupancy(const NodeNest& n, const PerLoopDim<std::int64_t>& t2) {
  std::int64_t s = 0;
  for (auto d : all_values<DataCategory>()) s += data_factor(n, t2, d) * n.usize_regf[d];
  return s;
}
/// ceil_div(words, group) for words >= 0, without a division when the buffer-sharing group is
/// a power of two (nearly always: node counts), which the fills ask ~10^8 times per network.
inline std::int64_t ceil_div_by_group(std::int64_t words, std::int64_t group) {
  const auto g = static_cast<std::uint64_t>(group);
  if (g != 0 && (g & (g - 1)) == 0) return (words + group - 1) >> std::countr_zero(g);  // 1 too
  return ceil_div(words, group);
}
/// (`stored`: the categories GBUF keeps; the others take no GBUF space.)
inline std::int64_t gbuf_occupancy(const NodeNest& n, const PerLoopDim<std::int64_t>& t12,
                                   const PerDataCategory<std::int64_t>& share,
                                   const PerDataCategory<bool>& stored = {{true, true, true}}) {
  std::int64_t s = 0;
  for (auto d : all_values<DataCategory>()) {
    if (!stored[d]) continue;
    const std::int64_t words = data_factor(n, t12, d) * n.usize_gbuf[d];
    s += ceil_div_by_group(words, share[d]);
  }
  return s;
}
/// Whether a REGF tile can be part of a valid scheme at all: it fits REGF, and GBUF holds the
/// categories it must always store at their smallest (GBUF tile = REGF tile; the cost model's
/// §7.4 step 2). A tile that fails fails with every GBUF tile around it.
bool regf_tile_fits(const NodeNest& n, const PerLoopDim<std::int64_t>& t2, const Capacity& cap);
/// The categories the cost model keeps in GBUF under blocking `b` (§7.4 steps 1, 5, 6).
PerDataCategory<bool> gbuf_stored(const NodeNest& n, const Blocking& b, const Capacity& cap);
/// The capacity check, exactly the cost model's (§7.4 step 7, after the bypass decision): a
/// scheme that fails it is invalid, one that passes it fails only on the spilling rules.
bool fits(const NodeNest& n, const Blocking& b, const Capacity& cap);
/// What fits_tiles promises under `cap`.
inline FitsOrder fits_tiles_order(const Capacity& cap) {
  return cap.all_in_gbuf() ? FitsOrder::Monotone : FitsOrder::Any;
}
/// fits_tiles' GBUF half, for a REGF tile known to fit REGF (the GBUF fill, whose REGF tile is
/// fixed, checks that once).
inline bool gbuf_tiles_fit(const NodeNest& n, const PerLoopDim<std::int64_t>& t1,
                           const PerLoopDim<std::int64_t>& t2, const Capacity& cap,
                           FunctionRef<Blocking()> whole) {
  PerLoopDim<std::int64_t> t12{};
  for (auto l : all_values<LoopDim>()) t12[l] = t1[l] * t2[l];
  return gbuf_occupancy(n, t12, cap.gbuf_share,
                        cap.all_in_gbuf() ? cap.always_in_gbuf : gbuf_stored(n, whole(), cap)) <=
         cap.gbuf_words;
}
/// fits() of the blocking with GBUF- and REGF-level factors t1 and t2 that `whole` builds,
/// asking for it only when a category may bypass GBUF (its fetch counts decide): the
/// greedy's fills test many tiles per network and rarely need it.
inline bool fits_tiles(const NodeNest& n, const PerLoopDim<std::int64_t>& t1,
                       const PerLoopDim<std::int64_t>& t2, const Capacity& cap,
                       FunctionRef<Blocking()> whole) {
  return regf_occupancy(n, t2) <= cap.regf_words && gbuf_tiles_fit(n, t1, t2, cap, whole);
}

}  // namespace kapla::search::kapla
