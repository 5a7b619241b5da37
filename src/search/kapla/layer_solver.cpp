// Algorithm 1 of KAPLA (kapla-spec.md §3.2) in canonical coordinates: the 36 loop-order pairs
// of the greedy (steps 1-6), then K's refinement (steps 7-9: partition screen and descent,
// REGF beam, blocking descent; all off in Refinement::paper()). Differences from the reference are
// deliberate and documented in docs/kapla.md §3-4: PE stacking is restricted to the map strategy's
// replication choices, the node stacking is snapped to the nearest partitions B's generator
// yields (so unused nodes never reject an order pair, §10.20), the tensors are re-fitted on
// the partitioned layer with the cost model's capacities, and candidates are compared by the
// one cost model.
#include "search/kapla/layer_solver.hpp"

#include <algorithm>
#include <vector>

#include "core/math.hpp"
#include "search/kapla/best_candidate.hpp"
#include "search/kapla/blocking_descent.hpp"
#include "search/kapla/exhaustive.hpp"
#include "search/kapla/greedy.hpp"
#include "search/kapla/layout_free_memo.hpp"
#include "search/kapla/memo_oracle.hpp"
#include "search/kapla/partition_descent.hpp"
#include "search/kapla/solver_steps.hpp"

namespace kapla::search::kapla {

using detail::data_totals;
using detail::fit_on_partition;
using detail::pick_nest;

namespace {
constexpr std::size_t kGuidePairs = 4;  // the greedy's best order pairs guide steps 7a-7b

// Whether any of the partition steps 7a-7c run (Refinement::paper() turns them off).
bool partition_steps_on(const Refinement& ref) {
  return ref.refine_steps > 0 || ref.size_screen || ref.partition_starts > 0;
}

// The best kGuidePairs pairs of `ranked` (the greedy's pairs, best first) whose greedy bests
// differ as schedules.
std::vector<std::size_t> distinct_guides(const std::vector<std::optional<CanonicalScheme>>& best,
                                         const std::vector<std::size_t>& ranked) {
  std::vector<std::size_t> out;
  std::vector<CanonicalScheme> seen;
  for (auto k : ranked) {
    if (out.size() >= kGuidePairs) break;
    const auto c = without_trivial_orders(*best[k]);
    if (std::find(seen.begin(), seen.end(), c) != seen.end()) continue;
    seen.push_back(c);
    out.push_back(k);
  }
  return out;
}

// Whether `guides` are the first `n` of `ranked` (then a second screen would repeat the first).
bool same_guides(const std::vector<std::size_t>& guides, const std::vector<std::size_t>& ranked,
                 std::size_t n) {
  const std::size_t m = std::min(n, ranked.size());
  return guides.size() == m && std::equal(guides.begin(), guides.end(), ranked.begin());
}

// Steps 7a-7b (docs/kapla.md §4) from the greedy's per-pair bests `best`: the size screen and
// partition descents from its pick and the greedy's best distinct partitions, guided by the
// greedy's best pairs; then, where those pairs are one schedule twice, again with pairs of
// distinct greedy bests. Returns each run's pick (one or two; `out`'s scheme if nothing
// moved), for steps 7c-9 to finish. Sequential; `out` holds the greedy's best on entry and
// gets the counts.
std::vector<LayerSolution> refine_partition(const MemoOracle& o, const SolverOptions& opt,
                                            const std::vector<std::optional<CanonicalScheme>>& best,
                                            const std::vector<Score>& best_score,
                                            LayerSolution& out) {
  const auto& ref = opt.refine;
  if (!partition_steps_on(ref)) return {out};
  const auto orders = loop_orders();
  const std::size_t num_pairs = best.size();
  // The best few order pairs of the greedy (by score, pair order on ties) guide the partition
  // steps; the descents start from the size screen's pick and from the best candidate on
  // each of the greedy's best few distinct partitions.
  std::vector<std::size_t> idx;
  for (std::size_t k = 0; k < num_pairs; ++k)
    if (best[k]) idx.push_back(k);
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    return better(best_score[a], best_score[b], opt.goal);
  });
  std::vector<detail::OrderPair> pairs;
  for (std::size_t j = 0; j < idx.size() && pairs.size() < kGuidePairs; ++j)
    pairs.push_back({orders[idx[j] / 6], orders[idx[j] % 6]});
  auto guided_by = [&](const std::vector<detail::OrderPair>& guides, bool greedy_starts) {
    LayerSolution top = out;
    std::vector<LayerSolution> starts;
    if (ref.size_screen) {
      LayerSolution run = out;
      detail::screen_partition_sizes(o, o, opt, guides, run);
      out.stats = run.stats;
      starts.push_back(run);
    }
    const std::size_t num_starts =
        (greedy_starts ? static_cast<std::size_t>(ref.partition_starts) : 0) + starts.size();
    for (auto k : idx) {
      if (starts.size() >= num_starts) break;
      bool seen = false;
      for (const auto& s0 : starts) seen = seen || s0.scheme->part == best[k]->part;
      if (seen) continue;
      LayerSolution run = out;
      run.scheme = best[k];
      run.score = best_score[k];
      starts.push_back(run);
    }
    for (auto& run : starts) {
      run.stats = out.stats;
      detail::descend_partition(o, o, opt, guides, run);
      out.stats = run.stats;
      if (better(run.score, top.score, opt.goal)) top.scheme = run.scheme, top.score = run.score;
    }
    return top;
  };
  std::vector<LayerSolution> picks{guided_by(pairs, true)};
  // The best pairs often differ only in the order of loops that are trivial at that level
  // (one schedule, so one guide); their greedy bests then agree, and the screen sees one
  // order pair. A second screen with guides whose greedy bests differ gives it the variety
  // (docs/kapla.md §4, "Guides with variety"); separate, so its candidates do not crowd the
  // first screen's full-priced few, and finished apart: a better pick here may end worse.
  const auto variety = distinct_guides(best, idx);
  if (variety.size() > 1 && !same_guides(variety, idx, kGuidePairs)) {
    std::vector<detail::OrderPair> guides;
    for (auto k : variety) guides.push_back({orders[k / 6], orders[k % 6]});
    auto pick = guided_by(guides, false);
    // On the first pick's partition, step 7c fits every nest and order pair for both picks;
    // finishing both there gave the same totals on 20 configurations (docs/kapla.md §4).
    if (pick.scheme->part != picks[0].scheme->part) picks.push_back(std::move(pick));
  }
  return picks;
}

// The next best valid schemes the search priced (LayerSolution::runners_up): up to
// 16 (ntops - 1), since schemes that differ only in the order of unit loops give one schedule.
std::vector<CanonicalScheme> runners_up(const MemoOracle& o, const SolverOptions& opt,
                                        const CanonicalScheme& best) {
  auto all = o.valid_priced();
  std::sort(all.begin(), all.end(), [&](const auto& a, const auto& b) {
    if (better(a.second, b.second, opt.goal)) return true;
    if (better(b.second, a.second, opt.goal)) return false;
    return MemoOracle::key_of(a.first) < MemoOracle::key_of(b.first);
  });
  std::vector<CanonicalScheme> out;
  for (const auto& [c, sc] : all) {
    if (static_cast<int>(out.size()) >= 16 * (opt.ntops - 1)) break;
    if (!(c == best)) out.push_back(c);
  }
  return out;
}

}  // namespace

std::vector<CanonicalScheme> greedy_candidates(const LayerOracle& o,
                                               const PerLoopDim<int>& ord_gbuf,
                                               const PerLoopDim<int>& ord_regf, SolveStats& stats,
                                               CandidateTrace* trace, TopFactors top_factors) {
  const auto& layer = o.layer();
  const auto totals = data_totals(layer, o.batch());

  // (1) Unit mapping on the whole layer: the map strategy's replication choices.
  const mapping::PartitionScheme whole{};
  const auto whole_nests_ref = o.nests(whole);
  const auto& whole_nests = *whole_nests_ref;
  if (whole_nests.empty()) return {};
  std::int64_t max_repl_ifm = 1;
  for (const auto& n : whole_nests) max_repl_ifm = std::max(max_repl_ifm, n.repl_ifm);
  const NodeNest& n0 = whole_nests[0];

  // (2) PE-array stacking: spend the input-channel-capable replication on C or K (§3.3).
  std::int64_t want_ifm = 1;
  if (max_repl_ifm > 1) {
    std::vector<StackItem> items{
        {LoopDim::Ifm, {false, true}, n0.loopcnt[LoopDim::Ifm] * n0.repl_ifm},
        {LoopDim::Ofm, {false, true}, n0.loopcnt[LoopDim::Ofm]}};
    const auto sf =
        fill_stack(items, {1, max_repl_ifm}, ord_regf, n0.data_loops, n0.rw_data, totals);
    want_ifm = std::max<std::int64_t>(1, sf.factor[0][1]);
  }
  const int wi = pick_nest(whole_nests, want_ifm);
  const NodeNest& wn = whole_nests[static_cast<std::size_t>(wi)];

  // Reserved: the constraint's top factors are taken first (remain = loopcnt / top), or the
  // snapped partitions may leave loop counts the constraint cannot divide.
  const bool reserve = top_factors == TopFactors::Reserved;
  const auto top = o.top_constraint();
  PerLoopDim<std::int64_t> remain = wn.loopcnt;
  std::int64_t batch_remain = o.batch();
  for (auto l : all_values<LoopDim>()) {
    if (!reserve || top[l] <= 0) continue;
    if (wn.loopcnt[l] < top[l]) {
      ++stats.constraint_fail;
      return {};
    }
    remain[l] = ceil_div(wn.loopcnt[l], top[l]);
  }
  if (reserve && top[LoopDim::Bat] > 0) batch_remain = ceil_div(o.batch(), top[LoopDim::Bat]);

  // (3) REGF tensor on the whole layer, to know what is left for the nodes.
  const auto wcap = o.capacity(whole, wi);
  const auto wt2 = fill_tensor(
      {{1, 1, 1}}, remain, ord_regf, wn.data_loops, wn.rw_data, totals,
      [&](const PerLoopDim<std::int64_t>& t) { return regf_tile_fits(wn, t, wcap); },
      FitsOrder::Monotone);  // regf_tile_fits keeps only always-stored categories
  if (!wt2) {
    ++stats.capacity_fail;
    return {};
  }

  // (4) Node stacking over what remains (§3.2 d), then the nearest partition of B's list.
  const bool back = layer.is_back();
  const PhyDim2 fmap = back ? layer.sifm : layer.sofm;
  const bool inpp_ok = layer.has_filter() && !layer.is_depthwise();
  const auto wt2v = *wt2;
  std::vector<StackItem> nitems{
      {LoopDim::Ifm, {inpp_ok, inpp_ok}, inpp_ok ? remain[LoopDim::Ifm] / wt2v[LoopDim::Ifm] : 1},
      {LoopDim::Ofm, {true, true}, remain[LoopDim::Ofm] / wt2v[LoopDim::Ofm]},
      {LoopDim::Bat,
       {true, true},
       std::max<std::int64_t>(1, ceil_div(batch_remain, wt2v[LoopDim::Bat]))},
      {LoopDim::Bat, {false, true}, fmap.h},
      {LoopDim::Bat, {true, false}, fmap.w}};
  const PhyDim2 nodes = o.node_dims();
  auto nf = fill_stack(nitems, {nodes.w, nodes.h}, ord_gbuf, wn.data_loops, wn.rw_data, totals);
  if (nf.unused[0] * nf.unused[1] > 1) {
    // Bottom-up left nodes idle (reference §10.20): reserve node factors first instead.
    nitems[0].remaining = inpp_ok ? remain[LoopDim::Ifm] : 1;
    nitems[1].remaining = remain[LoopDim::Ofm];
    nitems[2].remaining = batch_remain;
    nf = fill_stack(nitems, {nodes.w, nodes.h}, ord_gbuf, wn.data_loops, wn.rw_data, totals);
  }
  PerParallelDim<PhyDim2> want{};
  const std::array<ParallelDim, 5> pae_of{ParallelDim::Inpp, ParallelDim::Outp, ParallelDim::Batp,
                                          ParallelDim::Ofmp, ParallelDim::Ofmp};
  for (auto& p : want) p = {1, 1};
  for (std::size_t i = 0; i < nitems.size(); ++i) {
    want[pae_of[i]].w *= nf.factor[i][0];
    want[pae_of[i]].h *= nf.factor[i][1];
  }
  if (trace) {
    trace->want_repl_ifm = want_ifm;
    trace->whole_regf = wt2v;
    trace->want_part = want;
    trace->reserved_nodes = nitems[2].remaining == batch_remain && wt2v[LoopDim::Bat] > 1;
  }
  std::vector<CanonicalScheme> out;
  for (auto pi : o.nearest_partitions(want)) {
    auto c = fit_on_partition(o, o.partitions()[pi], wn.repl_ifm, ord_gbuf, ord_regf, stats, -1,
                              reserve);
    if (c) out.push_back(*c);
  }
  return out;
}

namespace {

// The greedy's best per order pair (steps 1-6 over the 36 pairs).
struct GreedyPass {
  static constexpr int kPairs = 36;
  std::vector<std::optional<CanonicalScheme>> best =
      std::vector<std::optional<CanonicalScheme>>(kPairs);
  std::vector<Score> best_score = std::vector<Score>(kPairs);
};

// Adds the search counters of one run to another's (the flags are each caller's to merge).
void add_counts(SolveStats& to, const SolveStats& from) {
  to.order_pairs += from.order_pairs;
  to.capacity_fail += from.capacity_fail;
  to.constraint_fail += from.constraint_fail;
  to.invalid += from.invalid;
  to.evaluated += from.evaluated;
}

GreedyPass greedy_pass(const MemoOracle& o, const SolverOptions& opt, TopFactors top_factors,
                       LayerSolution& out) {
  const auto orders = loop_orders();
  GreedyPass g;
  std::vector<SolveStats> st(GreedyPass::kPairs);
  // The candidates read no placement: remembered for the layer's other searches (with the
  // fit failures they counted) where the oracle offers.
  const LayoutFreeMemo* memo = opt.share_across_layouts ? o.layout_free_memo() : nullptr;
  const auto top = o.top_constraint();
  auto candidates = [&](std::size_t k) {
    auto make = [&](SolveStats& stats) {
      return greedy_candidates(o, orders[k / 6], orders[k % 6], stats, nullptr, top_factors);
    };
    if (memo == nullptr) return make(st[k]);
    return *memo->candidates.remembered(
        {top[LoopDim::Ifm], top[LoopDim::Ofm], top[LoopDim::Bat], static_cast<std::int64_t>(k),
         top_factors == TopFactors::Reserved ? 1 : 0},
        st[k], make);
  };
  // Each pair is independent; results land in per-pair slots and are reduced in pair order
  // (and within a pair in snap order), so the answer does not depend on the thread count.
#pragma omp parallel for schedule(dynamic) num_threads(opt.num_threads > 0 ? opt.num_threads : 1)
  for (int i = 0; i < GreedyPass::kPairs; ++i) {
    const auto k = static_cast<std::size_t>(i);
    st[k].order_pairs = 1;
    BestCandidate pick(o, opt, &st[k]);
    for (const auto& c : candidates(k)) pick.consider(c);
    g.best[k] = pick.scheme();
    g.best_score[k] = pick.score();
  }
  for (std::size_t k = 0; k < static_cast<std::size_t>(GreedyPass::kPairs); ++k) {
    add_counts(out.stats, st[k]);
    if (g.best[k] && (!out.scheme || better(g.best_score[k], out.score, opt.goal))) {
      out.scheme = g.best[k];
      out.score = g.best_score[k];
    }
  }
  return g;
}

// The greedy and its refinement on one oracle (without the exhaustive fallback).
LayerSolution solve_greedy(const MemoOracle& o, const SolverOptions& opt) {
  LayerSolution out;
  auto g = greedy_pass(o, opt, TopFactors::Remaining, out);
  if (!out.scheme && opt.reserved_retry) {
    // Where leaving the top factors to the remains misses the pipeline constraint, reserve
    // them as the reference does before the exhaustive fallback (docs/kapla.md §4).
    g = greedy_pass(o, opt, TopFactors::Reserved, out);
    out.stats.reserved_retry = true;
  }
  if (!out.scheme) return out;
  const bool refine = partition_steps_on(opt.refine);
  // Steps 7c-9 on each pick of the partition steps; the first pick wins ties.
  LayerSolution done = out;
  bool first = true;
  for (auto& run : refine_partition(o, opt, g.best, g.best_score, out)) {
    run.stats = out.stats;
    if (refine) detail::sweep_nests_and_orders(o, opt, run);
    if (opt.refine.regf_beam) detail::refit_regf(o, opt, run);
    if (opt.refine.blocking_steps > 0) detail::descend_blocking(o, opt, run);
    if (opt.refine.blocking_steps > 0 && o.remainders()) detail::descend_remainders(o, opt, run);
    out.stats = run.stats;
    if (first || better(run.score, done.score, opt.goal))
      done.scheme = run.scheme, done.score = run.score;
    first = false;
  }
  done.stats = out.stats;
  return done;
}

bool may_bypass(const LayerOracle& o) {
  const auto cap = o.capacity(o.partitions().front(), 0);
  for (bool stored : cap.always_in_gbuf)
    if (!stored) return true;
  return false;
}

}  // namespace

LayerSolution solve_layer(const LayerOracle& oracle, const SolverOptions& opt) {
  const MemoOracle o(oracle);  // each distinct scheme is priced once per call
  LayerSolution out = solve_greedy(o, opt);
  if (may_bypass(o)) {
    // Where the options let data bypass GBUF, the fills size GBUF by the model's storage rule
    // (a category without GBUF reuse takes no space), which opens the schemes B finds with
    // bypass. The greedy's refetch estimates do not see bypass, though, and on some layers
    // the fill that keeps every category in GBUF lands on the better scheme (docs/kapla.md
    // §4): K runs both and keeps the better (the model-rule one on ties).
    const MemoOracle all_in_gbuf(o, MemoOracle::Storage::AllInGbuf);
    const auto alt = solve_greedy(all_in_gbuf, opt);
    add_counts(out.stats, alt.stats);
    out.stats.reserved_retry = out.stats.reserved_retry || alt.stats.reserved_retry;
    if (alt.scheme && (!out.scheme || better(alt.score, out.score, opt.goal))) {
      out.scheme = alt.scheme;
      out.score = alt.score;
    }
  }
  if (out.scheme && opt.ntops > 1) out.runners_up = runners_up(o, opt, *out.scheme);
  out.stats.priced = static_cast<std::int64_t>(o.priced());
  out.stats.partitions = static_cast<std::int64_t>(o.partitions_priced());
  if (!out.scheme && opt.fallback) {
    const auto ex = search_exhaustive(oracle, {opt.goal, opt.num_threads});
    out.scheme = ex.scheme;
    out.score = ex.score;
    out.stats.evaluated += ex.evaluated;
    out.stats.fell_back = true;
  }
  return out;
}

}  // namespace kapla::search::kapla
