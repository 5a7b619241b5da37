// The loop-blocking search for one (partition, nested-loop description): the skip rules, the
// exhaustive enumeration in the reference's order with a stable top-k by the goal key (first
// generated wins ties), and the analytical bypass solver. Without the reference's goal-d NaN
// quirk: a true minimiser for every goal.
// Spec: nn_dataflow-spec.md §7.6-7.8, §9.3 (is_valid_top_bl), §11.11-13, §12.5.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "cost/loop_blocking.hpp"

namespace kapla::cost {

/// The top-level blocking constraint of inter-layer pipelining (nn_dataflow
/// SchedulingConstraintLayerPipeline after its lazy rules are resolved); 0 = unconstrained.
struct TopBlockingConstraint {
  std::int64_t topbat = 0;
  std::int64_t topifm = 0;
  std::int64_t topofm = 0;
  /// Constrained factors match; among the non-trivial top loops (outer to inner) BAT comes
  /// first if topbat > 1, then IFM if topifm > 1 / OFM if topofm > 1.
  bool is_valid_top_bl(const PerLoopDim<std::int64_t>& top_t, const PerLoopDim<int>& top_ord) const;
  friend bool operator==(const TopBlockingConstraint&, const TopBlockingConstraint&) = default;
};

/// skip_conv (§7.6): whether a Conv-loop scheme has a regularised equivalent or is suboptimal.
bool skip_conv(const LoopBlocking& b);

/// The 3-level factorisations of n in the reference's order (util.factorize(n, 3)).
std::vector<std::array<std::int64_t, 3>> factorize3(std::int64_t n);

/// Ruby-T block sizes of a count m (docs/imperfect.md): for each trip count q = 1..m the
/// smallest block that makes it, ceil(m / q); distinct, ascending. A larger block with the same
/// trip count only pads more.
std::vector<std::int64_t> block_candidates(std::int64_t m);

/// The 3-level trip counts of a loop count n: factorize3(n), then with `remainders` (imperfect:
/// full) every cover with a remainder built from Ruby-T blocks: t2 in block_candidates(n),
/// t1 in block_candidates(ceil(n / t2)), t0 = ceil(ceil(n / t2) / t1) (blocks_cover), ascending
/// in (t2, t1), each triple once.
std::vector<std::array<std::int64_t, 3>> loop_blockings3(std::int64_t n, bool remainders);

/// Calls f(const LoopBlocking&) for every scheme the exhaustive search evaluates, in its order:
/// (tifm, tofm) sub-spaces, then tbat, then (ord0, ord1) lexicographic; skip_conv applied to
/// Conv-loop NLDs; constraint applied. With `remainders` a loop not fixed by the constraint
/// also takes trip counts with a remainder (loop_blockings3); a constrained loop keeps exact
/// factors (the pipeline's blocks are equal).
template <class F>
void for_each_loop_blocking(const NestedLoopDesc& nld, const TopBlockingConstraint& constraint,
                            F&& f, bool remainders = false);

/// Comparison key of the goal (§7.7.1): e (access_cost, time), d (time, access_cost),
/// ed access_cost * time. Strict "better than".
bool loop_blocking_better(const LoopBlockingEval& a, const LoopBlockingEval& b, model::Goal goal);

struct LoopBlockingSearchStats {
  std::int64_t evaluated = 0;
  std::int64_t valid = 0;
};

/// The loop-blocking search of one NLD (gen_loopblocking + the layer scheduler's validity
/// filter): with options.sw_solve_loopblocking and Conv loops, the valid solver schemes in
/// solver order; otherwise the best options.ntops valid schemes, best first.
std::vector<LoopBlockingEval> search_loop_blocking(const NestedLoopDesc& nld,
                                                   const mapping::Resource& resource,
                                                   const mapping::BufShrScheme& bufshr,
                                                   const TopBlockingConstraint& constraint,
                                                   const model::SearchOptions& options,
                                                   const model::UnitCosts& costs,
                                                   LoopBlockingSearchStats* stats = nullptr);

/// The analytical bypass solver (§7.8): one scheme per reside category whose others may bypass
/// GBUF (FIL, IFM, OFM order); a category for which the reference would fail (no feasible
/// opt-I point, or no REGF-feasible opt-II point) yields nothing. Conv-loop NLDs only.
std::vector<LoopBlocking> solve_loop_blocking(const NestedLoopDesc& nld,
                                              const mapping::Resource& resource,
                                              const model::SearchOptions& options);

// ---- implementation of the template ----

template <class F>
void for_each_loop_blocking(const NestedLoopDesc& nld, const TopBlockingConstraint& constraint,
                            F&& f, bool remainders) {
  static constexpr int kPerm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                      {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  const auto ti = loop_blockings3(nld.loopcnt[LoopDim::Ifm], remainders && constraint.topifm == 0);
  const auto to = loop_blockings3(nld.loopcnt[LoopDim::Ofm], remainders && constraint.topofm == 0);
  const auto tb = loop_blockings3(nld.loopcnt[LoopDim::Bat], remainders && constraint.topbat == 0);
  const bool conv = nld.has_conv_data_loops();
  LoopBlocking b;
  for (const auto& fi : ti) {
    if (constraint.topifm != 0 && fi[0] != constraint.topifm) continue;
    for (const auto& fo : to) {
      if (constraint.topofm != 0 && fo[0] != constraint.topofm) continue;
      for (const auto& fb : tb) {
        if (constraint.topbat != 0 && fb[0] != constraint.topbat) continue;
        for (std::size_t k = 0; k < 3; ++k) b.bl_ts[k] = {{fi[k], fo[k], fb[k]}};
        for (const auto& o0 : kPerm) {
          b.bl_ords[0] = {{o0[0], o0[1], o0[2]}};
          for (const auto& o1 : kPerm) {
            b.bl_ords[1] = {{o1[0], o1[1], o1[2]}};
            if (conv && skip_conv(b)) continue;
            if (!constraint.is_valid_top_bl(b.bl_ts[0], b.bl_ords[0])) continue;
            f(static_cast<const LoopBlocking&>(b));
          }
        }
      }
    }
  }
}

}  // namespace kapla::cost
