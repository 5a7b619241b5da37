// One loop-blocking scheme and its evaluation (nn_dataflow LoopBlockingScheme): blocking
// factors and loop orders for one nested-loop description -> validity, buffered sizes, fetch
// counts, GBUF bypass, buffer sharing, access forwarding, filter pinning, access counts, ops and
// time. A pure, allocation-free function: strategy B calls it millions of times.
// Spec: nn_dataflow-spec.md §7.1-7.5, §8.8, §8.9.3, §11.6-7, §11.14, §12.2; kapla-spec.md §1.6.
#pragma once

#include <array>
#include <cstdint>
#include <limits>

#include "core/enum_array.hpp"
#include "cost/nested_loop_desc.hpp"
#include "mapping/buffer_sharing_scheme.hpp"
#include "mapping/resource.hpp"
#include "model/hardware.hpp"
#include "model/options.hpp"

namespace kapla::cost {

/// Blocking factors and loop orders (the reference's bl_ts, bl_ords).
struct LoopBlocking {
  /// bl_ts[level][loop]: trip counts, level 0 = outermost (DRAM->GBUF), 1 = GBUF->REGF,
  /// 2 = inside REGF. Π over levels = the NLD's loopcnt (exact factors), or, with
  /// `imperfect: full`, a cover of it with a remainder (blocks_cover, docs/imperfect.md).
  std::array<PerLoopDim<std::int64_t>, 3> bl_ts{};
  /// bl_ords[level][loop] for levels 0 and 1: the loop's position, 0 = innermost.
  std::array<PerLoopDim<int>, 2> bl_ords{};
  friend bool operator==(const LoopBlocking&, const LoopBlocking&) = default;
};

/// Why a scheme is invalid (§7.4; the golden records' invalid_reason).
enum class InvalidReason : std::uint8_t {
  None,
  CapacityInitial,    // REGF or GBUF overflow with the initial GBUF-storage flags
  SrcNotDramRefetch,  // on-chip ifmaps would be fetched more than once
  DstNotDramRefetch,  // on-chip read-write data would be fetched more than once
  CapacityFinal,      // overflow after the bypass decision
  RwFilDstNotDram,    // fork: a weight-gradient layer must write to DRAM (the reference asserts)
};
std::string_view invalid_reason_name(InvalidReason r);  // "capacity_initial", ...; "" for None

/// Buffer-sharing state of a scheme (§8.9.3); the unshared defaults when sharing is off.
struct BufShrState {
  PerDataCategory<std::int64_t> grp_size{{1, 1, 1}};
  PerDataCategory<std::int64_t> subgrp_size{{1, 1, 1}};
  PerLoopDim<std::int64_t> bs_t{{1, 1, 1}};
  PerLoopDim<int> bs_ord{{0, 1, 2}};
  PerDataCategory<double> rot_fetch{};
  PerDataCategory<std::int64_t> rot_round_cnt{};
  PerDataCategory<std::int64_t> rot_unit_cnt{{1, 1, 1}};
  PerDataCategory<double> wide_fetch{};
  PerDataCategory<double> wide_fetch_width{};
  /// Whether the sweep over sharing schemes ran, and how many candidates it scored.
  bool swept = false;
  std::int64_t num_candidates = 0;
  friend bool operator==(const BufShrState&, const BufShrState&) = default;
};

/// Everything the reference's LoopBlockingScheme knows after construction and _calc_stats.
/// For an invalid scheme only `invalid`, `blocking`, `lcnt`, `unit_cnt`, and the values
/// computed before the rejection (stored_in_gbuf, size, fetch) are meaningful; access_cost and
/// time are +inf.
struct LoopBlockingEval {
  InvalidReason invalid = InvalidReason::None;
  /// The scheme; bl_ords[1] as rewritten by buffer sharing.
  LoopBlocking blocking;
  bool ords_changed_by_bufshr = false;
  /// Processing passes run: Π loopcnt (a blocking with a remainder runs no padded pass).
  std::int64_t lcnt = 0;
  std::array<PerDataCategory<std::int64_t>, 2> unit_cnt{};
  PerDataCategory<bool> stored_in_gbuf{};
  /// fetch[bl][d]: fetches across the boundary above level bl (after filter pinning).
  std::array<PerDataCategory<std::int64_t>, 2> fetch{};
  bool fetch_computed = false;
  /// data_size(bl, d): per-node buffered words (GBUF: 0 if bypassed, / sharing subgroup).
  std::array<PerDataCategory<double>, 2> size{};
  bool src_is_dram = true;
  bool dst_is_dram = true;
  bool filter_pinned = false;
  std::int64_t num_nodes = 0;
  PerDataCategory<std::int64_t> accfwd_reduction{{1, 1, 1}};
  BufShrState bufshr;
  PerDataCategory<double> bufshr_rotation_access{};
  PerDataCategory<double> bufshr_wide_fetch_access{};
  /// Buffer-sharing NoC traffic (node hops), per category.
  PerDataCategory<double> noc_access{};
  // Statistics (§7.5).
  double ops = 0;
  std::int64_t proc_time = 0;
  std::int64_t bus_time = 0;
  std::int64_t dram_time = 0;
  PerMemLevel<PerDataCategory<double>> access{};
  PerDataCategory<double> remote_gbuf_access{};
  /// Σ_m mem_hier[m] Σ_d access[m][d] + mem_hier[GBUF] Σ remote (§3.2); +inf if invalid.
  double access_cost = std::numeric_limits<double>::infinity();

  bool valid() const { return invalid == InvalidReason::None; }
  /// max(proc, bus, dram); +inf if invalid.
  double time() const {
    if (!valid()) return std::numeric_limits<double>::infinity();
    std::int64_t t = proc_time > bus_time ? proc_time : bus_time;
    return static_cast<double>(t > dram_time ? t : dram_time);
  }
};

/// Whether trip counts (t0, t1, t2) of one loop block its count n (docs/imperfect.md, `full`):
/// exact factors (t0 t1 t2 = n), or a cover with a remainder in which no block is empty:
/// REGF blocks of t2 units (t2 <= n) make m = ceil(n / t2) of them, GBUF blocks of t1 of those
/// (t1 <= m), t0 = ceil(m / t1) of those; only the last block of each level may be partial.
bool blocks_cover(std::int64_t t0, std::int64_t t1, std::int64_t t2, std::int64_t n);

/// How many blocks of each level run in all, per loop: trips_above[k][l] = the reference's
/// T_l^{0:k} (Π of the trip counts of the levels above k), which for a blocking with a
/// remainder is the real count ceil(n_l / T_l^{k:3}) (no padded block counted): it differs from
/// the product only at k = 2 (ceil(n / t2) <= t0 t1).
std::array<PerLoopDim<std::int64_t>, 3> trips_above(const LoopBlocking& b,
                                                    const PerLoopDim<std::int64_t>& loopcnt);

/// fetch[bl][d]: how often data category d crosses the boundary above level bl.
using FetchCounts = std::array<PerDataCategory<std::int64_t>, 2>;

/// Fetch counts of a blocking (§7.3, with the fork's REGF rule §12.2): fetch[0][d] brings d
/// from DRAM into GBUF, fetch[1][d] from GBUF into REGF (before filter pinning). The cost
/// model's own, exported so that the directive searches decide GBUF storage as it does.
/// `loopcnt` is the NLD's (the real counts a blocking with a remainder covers).
std::array<PerDataCategory<std::int64_t>, 2> fetch_counts(
    const PerDataCategory<mapping::LoopSet>& data_loops, const PerDataCategory<bool>& regf_reusable,
    DataCategory rw_data, const LoopBlocking& b, const PerLoopDim<std::int64_t>& loopcnt);
/// fetch_counts(...)[0] alone, from the top level's factors `t0` and order `ord0`, which are
/// all it reads (the directive enumerator's top-level checks need no more; fetch_counts takes
/// its level 0 from here).
PerDataCategory<std::int64_t> top_fetch_counts(const PerDataCategory<mapping::LoopSet>& data_loops,
                                               DataCategory rw_data,
                                               const PerLoopDim<std::int64_t>& t0,
                                               const PerLoopDim<int>& ord0);
/// The same for a blocking of exact factors (K's directives): the loop counts are its products.
std::array<PerDataCategory<std::int64_t>, 2> fetch_counts(
    const PerDataCategory<mapping::LoopSet>& data_loops, const PerDataCategory<bool>& regf_reusable,
    DataCategory rw_data, const LoopBlocking& b);

/// A lower bound of fetch_counts(...)[1] over every blocking with `b`'s top-level factors and
/// the same non-trivial loops (factor > 1) at the GBUF level, whatever their factors there and
/// at REGF and whatever the orders, given `top`, a lower bound of their fetch_counts(...)[0]:
/// a category without a non-trivial loop of its own at the GBUF level whose REGF copy is
/// reusable crosses into REGF as often as into GBUF (at least `top`); any other at least once
/// per top-level trip of the loops it does not depend on (the trips above the GBUF level and
/// above REGF include the top level's, whatever the order), twice less once if read and written.
PerDataCategory<std::int64_t> least_gbuf_fetch(const PerDataCategory<mapping::LoopSet>& data_loops,
                                               const PerDataCategory<bool>& regf_reusable,
                                               DataCategory rw_data, const LoopBlocking& b,
                                               const PerDataCategory<std::int64_t>& top);

/// §7.4 step 5: data on chip (ifmaps read from, ofmaps written to, a processing region rather
/// than DRAM) cross the top level once only, as nothing spills them: the reason top-level
/// fetch counts `fetch0` (fetch_counts()[0]) break that, or None. The loop-blocking evaluation
/// rejects with it, and the directive enumerator (search/kapla/exhaustive.cpp) skips the top
/// levels it rejects before trying their lower levels.
InvalidReason on_chip_refetch(const PerDataCategory<std::int64_t>& fetch0, DataCategory rw_data,
                              bool src_is_dram, bool dst_is_dram);

/// §7.4 step 6: a category that may bypass GBUF is kept there only if its GBUF copy is reused
/// (fewer fetches into GBUF than out of it).
inline bool reused_in_gbuf(const std::array<PerDataCategory<std::int64_t>, 2>& fetch,
                           DataCategory d) {
  return fetch[0][d] < fetch[1][d];
}

/// Evaluates one scheme. `bufshr` is the partition's sharing scheme (used only with
/// options.hw_gbuf_sharing / hw_access_forwarding); `costs` prices access_cost.
/// Preconditions (InternalError otherwise): Π_level bl_ts = nld.loopcnt, or blocks_cover with
/// options.imperfect == full; bl_ords are permutations. Never throws for infeasible schemes.
LoopBlockingEval evaluate_loop_blocking(const NestedLoopDesc& nld, const LoopBlocking& blocking,
                                        const mapping::Resource& resource,
                                        const mapping::BufShrScheme& bufshr,
                                        const model::SearchOptions& options,
                                        const model::UnitCosts& costs);

/// evaluate_loop_blocking without the buffer-sharing sweep (apply_bufshr), for a cheap lower
/// bound of a scheme's price: the sweep only chooses sharing subgroups and the GBUF-level
/// order among those that change no fetch count, so validity, fetch counts, accesses, times
/// and access_cost are the full evaluation's, and the sweep's NoC traffic (noc_access, >= 0:
/// hop counts times rotation rounds and wide fetches) is left at 0. Equal to the full
/// evaluation without options.hw_gbuf_sharing.
LoopBlockingEval evaluate_loop_blocking_unswept(const NestedLoopDesc& nld,
                                                const LoopBlocking& blocking,
                                                const mapping::Resource& resource,
                                                const mapping::BufShrScheme& bufshr,
                                                const model::SearchOptions& options,
                                                const model::UnitCosts& costs);

/// evaluate_loop_blocking_unswept with `fetch` in place of the blocking's fetch counts: the
/// loop orders are not read (the fetch counts are all the unswept evaluation reads of them).
/// Where the storage in GBUF does not depend on the fetch counts (storage_fixed), validity,
/// accesses, times and access_cost only grow with each count (every use is a product by, a
/// sum of or a maximum with nonnegative figures, each of which IEEE rounding keeps monotonic,
/// and a scheme rejected for refetching on-chip data is rejected at larger counts too), so at
/// the least of several order pairs' counts, level by level and category by category, it is
/// a floor of each pair's unswept evaluation: invalid only if every pair is.
LoopBlockingEval evaluate_loop_blocking_at_fetch(
    const NestedLoopDesc& nld, const LoopBlocking& blocking, const FetchCounts& fetch,
    const mapping::Resource& resource, const mapping::BufShrScheme& bufshr,
    const model::SearchOptions& options, const model::UnitCosts& costs);

/// Whether no category may bypass GBUF, so that every category is stored whatever the fetch
/// counts (§7.4 steps 1 and 6): evaluate_loop_blocking_at_fetch is then monotonic in them.
inline bool storage_fixed(const model::SearchOptions& options) {
  for (bool bypass : options.sw_gbuf_bypass)
    if (bypass) return false;
  return true;
}

}  // namespace kapla::cost
