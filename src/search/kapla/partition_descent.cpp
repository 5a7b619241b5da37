// Partition steps 7a-7c of K (see partition_descent.hpp).
#include "search/kapla/partition_descent.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>

#include "core/flat_map.hpp"
#include "search/kapla/best_candidate.hpp"
#include "search/kapla/fit_memo.hpp"
#include "search/kapla/layout_free_memo.hpp"
#include "search/kapla/solver_steps.hpp"

namespace kapla::search::kapla::detail {

namespace {

/// Input-channel replication of a scheme's nest (what the fits on other partitions keep).
std::int64_t repl_of(const LayerOracle& o, const CanonicalScheme& c) {
  return (*o.nests(c.part))[static_cast<std::size_t>(c.nest_index)].repl_ifm;
}

using SizeKey = std::array<std::int64_t, 4>;
SizeKey size_key(const mapping::PartitionScheme& p) {
  SizeKey k{};
  std::size_t i = 0;
  for (auto d : all_values<ParallelDim>()) k[i++] = p.size(d);
  return k;
}

// The n-th best (1-based) of `scores` under the goal, if there are n; a candidate that does
// not beat it strictly cannot be among the n best that a stable sort of them puts first, since
// it would come after every one of those already listed. The screens' floors below are the
// bounded picks' idea one level up, and go with them (bounded_picks_on; off for tests).
std::optional<Score> nth_best(std::vector<Score> scores, std::size_t n, model::Goal goal) {
  if (n == 0 || scores.size() < n) return std::nullopt;
  std::nth_element(scores.begin(), scores.begin() + static_cast<std::ptrdiff_t>(n - 1),
                   scores.end(),
                   [&](const Score& a, const Score& b) { return better(a, b, goal); });
  return scores[n - 1];
}

// The guide pairs a screen key holds (the solver passes at most 4, kGuidePairs); a screen
// with more is not remembered.
constexpr std::size_t kMaxScreenPairs = 4;

// What the screen's ranking reads besides the layer problem without its layout: the top
// constraint, the guide pairs it fits (FitMemo's packing), the goal and the options it uses.
LayoutFreeMemo::Screens::Key screen_key(const LayerOracle& o, const SolverOptions& opt,
                                        const std::vector<OrderPair>& pairs, std::size_t npairs) {
  LayoutFreeMemo::Screens::Key k{};
  std::size_t i = 0;
  for (auto v : o.top_constraint()) k[i++] = v;
  for (std::size_t j = 0; j < kMaxScreenPairs; ++j)
    k[i++] = j < npairs ? FitMemo::packed_orders(pairs[j][0], pairs[j][1]) : -1;
  k[i++] = static_cast<std::int64_t>(opt.goal);
  k[i++] = opt.refine.screen_placed;
  k[i++] = std::bit_cast<std::int64_t>(opt.refine.variant_margin);
  k[i++] = bounded_picks_on(opt) ? 1 : 0;
  k[i++] = static_cast<std::int64_t>(npairs);
  return k;
}

}  // namespace

std::vector<OrderPair> covering_pairs(const std::vector<OrderPair>& pairs, std::size_t n) {
  std::vector<OrderPair> out(pairs.begin(), pairs.begin() + static_cast<std::ptrdiff_t>(n));
  if (out.empty()) return out;
  for (auto d : all_values<LoopDim>()) {
    const bool inner = std::any_of(pairs.begin(), pairs.begin() + static_cast<std::ptrdiff_t>(n),
                                   [&](const OrderPair& p) { return p[1][d] == 0; });
    if (inner) continue;
    OrderPair q = out.front();
    for (auto e : all_values<LoopDim>())
      if (q[1][e] < out.front()[1][d]) ++q[1][e];
    q[1][d] = 0;
    out.push_back(q);
  }
  return out;
}

void screen_partition_sizes(const LayerOracle& o, const OnChipPricer& pricer,
                            const SolverOptions& opt, const std::vector<OrderPair>& pairs,
                            LayerSolution& sol) {
  const auto& parts = o.partitions();
  const auto repl = repl_of(o, *sol.scheme);
  // Groups in order of first appearance in B's list.
  // (A map, not a scan of the groups so far: a full-chip region has hundreds of partitions in
  // tens of groups, and every search groups them.)
  std::vector<std::vector<std::size_t>> members;  // per group, its partitions
  FlatMap<SizeKey, std::size_t> group_of;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto [it, fresh] = group_of.emplace(size_key(parts[i]), members.size());
    if (fresh)
      members.push_back({i});
    else
      members[it->second].push_back(i);
  }
  const std::size_t num_groups = members.size();
  const std::size_t npairs =
      std::min(pairs.size(), static_cast<std::size_t>(opt.refine.screen_pairs));
  const auto cover = covering_pairs(pairs, npairs);
  // (1) Every group's representative, priced on chip (no NoC placement); remembered for the
  // other searches of the layer where the oracle offers (layout_free_memo.hpp).
  using Ranked = LayoutFreeMemo::Ranked;
  auto by_score = [&](const Ranked& a, const Ranked& b) {
    return better(a.score, b.score, opt.goal);
  };
  auto rank = [&](SolveStats& fit_stats) {
    std::vector<Ranked> out;
    // Every nest (PE replication choice) of each representative: replication and node
    // partition trade the same channels, so the current scheme's choice may not carry over.
    // nn_dataflow's nests are fitted with every guide pair, on every group. The fold variants
    // (up to ~30 more nests per partition) only on the groups whose best canonical nest is
    // within Refinement::variant_margin of the best group's, with the first pair only, and
    // the best of them, if it leads, with the others: a variant lowers a layer's price by a
    // few per cent, so it does not lift a group from far behind (docs/kapla.md §4, measured).
    std::vector<BestCandidate> best_of;  // per group, by the on-chip price
    best_of.reserve(num_groups);
    auto try_fit = [&](std::size_t g, int ni, std::size_t j) {
      best_of[g].consider(fit_on_partition(o, parts[members[g].front()], repl, cover[j][0],
                                           cover[j][1], fit_stats, ni));
    };
    std::vector<NestList> nests_of(num_groups);
    std::optional<Score> lead_canonical;
    std::size_t gl = num_groups;   // the group that holds lead_canonical (none: num_groups)
    std::vector<Score> canonical;  // the groups' canonical bests so far
    const auto placed = static_cast<std::size_t>(opt.refine.screen_placed);
    const bool floors = bounded_picks_on(opt);
    for (std::size_t g = 0; g < num_groups; ++g) {
      // A group whose canonical best does not beat the screen_placed-th best so far is not
      // placed, unless fold variants lift it, which they may only on a group close to the
      // lead: where that bar is above the closeness margin, the group is fitted with it as its
      // floor (no sweep for candidates whose bound does not beat it; none kept if none does).
      auto bar = floors ? nth_best(canonical, placed, opt.goal) : std::nullopt;
      if (bar &&
          !(lead_canonical && goal_value(*bar, opt.goal) > goal_value(*lead_canonical, opt.goal) *
                                                               (1 + opt.refine.variant_margin)))
        bar.reset();
      best_of.emplace_back(o, opt, nullptr, bar, &pricer);
      nests_of[g] = o.nests(parts[members[g].front()]);
      for (std::size_t ni = 0; ni < nests_of[g]->size(); ++ni)
        if (!(*nests_of[g])[ni].fold_variant)
          for (std::size_t j = 0; j < npairs; ++j) try_fit(g, static_cast<int>(ni), j);
      const auto& r = best_of[g];
      if (r.scheme() && (!lead_canonical || better(r.score(), *lead_canonical, opt.goal)))
        lead_canonical = r.score(), gl = g;
      if (r.scheme()) canonical.push_back(r.score());
    }
    // The leading group's variants first, with every covering pair. Where they lift it by
    // more than the margin, the variants decide the layer (1x1 filters on a small fmap, where
    // folding the ofmap rows changes how the PE array is used), and a group far behind on its
    // canonical nests may be lifted further than the lead (ViT's Q projection on 84 nodes:
    // OUTP 7 x INPP 12, 48 % behind, ends first). Every group's variants are then fitted,
    // with the first pair and the covering ones (docs/kapla.md §4, "Wide variant screens").
    bool wide = false;
    if (gl < num_groups && npairs > 0) {
      const auto& nests = *nests_of[gl];
      for (std::size_t ni = 0; ni < nests.size(); ++ni)
        if (nests[ni].fold_variant)
          for (std::size_t j = 0; j < cover.size(); ++j) try_fit(gl, static_cast<int>(ni), j);
      wide = goal_value(*lead_canonical, opt.goal) >
             goal_value(best_of[gl].score(), opt.goal) * (1 + opt.refine.variant_margin);
    }
    for (std::size_t g = 0; g < num_groups; ++g) {
      const auto& r = best_of[g];
      const auto& nests = *nests_of[g];
      const bool close = wide || (r.scheme() && goal_value(r.score(), opt.goal) <=
                                                    goal_value(*lead_canonical, opt.goal) *
                                                        (1 + opt.refine.variant_margin));
      if (close && npairs > 0 && g != gl) {
        for (std::size_t ni = 0; ni < nests.size(); ++ni) {
          if (!nests[ni].fold_variant) continue;
          try_fit(g, static_cast<int>(ni), 0);
          for (std::size_t j = npairs; wide && j < cover.size(); ++j)
            try_fit(g, static_cast<int>(ni), j);
        }
        // The group's best, if a variant, with the other guide pairs too (the covering ones it
        // had above when wide).
        const int best_nest = r.scheme() ? r.scheme()->nest_index : -1;
        if (best_nest >= 0 && nests[static_cast<std::size_t>(best_nest)].fold_variant)
          for (std::size_t j = 1; j < npairs; ++j) try_fit(g, best_nest, j);
      }
      if (r.scheme()) out.push_back({r.score(), g, *r.scheme()});
    }
    std::stable_sort(out.begin(), out.end(), by_score);
    return out;
  };
  // The memo holds on-chip prices of this oracle: only when the pricer is the oracle itself.
  const LayoutFreeMemo* memo = opt.share_across_layouts ? o.layout_free_memo() : nullptr;
  if (dynamic_cast<const void*>(&pricer) != dynamic_cast<const void*>(&o) ||
      npairs > kMaxScreenPairs)
    memo = nullptr;
  const auto ranking =
      memo != nullptr ? memo->screens.remembered(screen_key(o, opt, pairs, npairs), sol.stats, rank)
                      : std::make_shared<const std::vector<Ranked>>(rank(sol.stats));
  const std::vector<Ranked>& on_chip = *ranking;
  // (2) The best few representatives with the full price (placing their partitions).
  std::vector<Ranked> priced;
  for (std::size_t r = 0;
       r < on_chip.size() && r < static_cast<std::size_t>(opt.refine.screen_placed); ++r) {
    ++sol.stats.evaluated;
    if (const auto sc = o.evaluate(on_chip[r].scheme))
      priced.push_back({*sc, on_chip[r].group, on_chip[r].scheme});
  }
  std::stable_sort(priced.begin(), priced.end(), by_score);
  // (3) Every partition of the best few groups, with every guide pair.
  BestCandidate best(o, opt, &sol.stats, sol.score);
  for (std::size_t r = 0; r < priced.size() && r < static_cast<std::size_t>(opt.refine.screen_open);
       ++r) {
    best.consider(priced[r].scheme);
    const int ni = priced[r].scheme.nest_index;
    for (auto pi : members[priced[r].group])
      for (const auto& pr : cover)
        best.consider(fit_on_partition(o, parts[pi], repl, pr[0], pr[1], sol.stats, ni));
  }
  best.improve(sol);
}

void descend_partition(const LayerOracle& o, const OnChipPricer& pricer, const SolverOptions& opt,
                       const std::vector<OrderPair>& pairs, LayerSolution& sol) {
  const auto& parts = o.partitions();
  const PhyDim2 nodes = o.node_dims();
  double max_prime = 2;
  for (auto n : {nodes.h, nodes.w})
    for (std::int64_t f = n; f > 1; f /= min_factor(f))
      max_prime = std::max(max_prime, static_cast<double>(min_factor(f)));
  const double step = 2 * std::log2(max_prime) + 1e-9;
  for (int iter = 0; iter < opt.refine.refine_steps; ++iter) {
    const CanonicalScheme cur = *sol.scheme;
    const auto repl = repl_of(o, cur);
    // Each neighbour's best fit by the on-chip price, then the best few priced in full (only
    // those pay for a NoC placement).
    std::vector<std::pair<Score, CanonicalScheme>> near;
    std::vector<Score> near_scores;
    const auto placed = static_cast<std::size_t>(opt.refine.descent_placed);
    for (const auto& p : parts) {
      if (p == cur.part || size_gap(p, cur.part) > step) continue;
      // By the on-chip price; only the best descent_placed neighbours are priced in full, so a
      // neighbour is fitted with the descent_placed-th best so far as its floor.
      BestCandidate nb(
          o, opt, nullptr,
          bounded_picks_on(opt) ? nth_best(near_scores, placed, opt.goal) : std::nullopt, &pricer);
      nb.consider(fit_on_partition(o, p, repl, cur.blocking.bl_ords[0], cur.blocking.bl_ords[1],
                                   sol.stats));
      for (std::size_t j = 0;
           j < pairs.size() && j < static_cast<std::size_t>(opt.refine.screen_pairs); ++j)
        nb.consider(fit_on_partition(o, p, repl, pairs[j][0], pairs[j][1], sol.stats));
      if (nb.scheme()) {
        near.emplace_back(nb.score(), *nb.scheme());
        near_scores.push_back(nb.score());
      }
    }
    std::stable_sort(near.begin(), near.end(), [&](const auto& a, const auto& b) {
      return better(a.first, b.first, opt.goal);
    });
    BestCandidate best(o, opt, &sol.stats, sol.score);
    for (std::size_t r = 0;
         r < near.size() && r < static_cast<std::size_t>(opt.refine.descent_placed); ++r)
      best.consider(near[r].second);
    if (!best.improve(sol)) break;
  }
}

void sweep_nests_and_orders(const LayerOracle& o, const SolverOptions& opt, LayerSolution& sol) {
  const CanonicalScheme cur = *sol.scheme;
  const int num_nests = static_cast<int>(o.nests(cur.part)->size());
  BestCandidate best(o, opt, &sol.stats, sol.score);
  for (int ni = 0; ni < num_nests; ++ni)
    for (const auto& og : loop_orders())
      for (const auto& orr : loop_orders())
        best.consider(fit_on_partition(o, cur.part, 1, og, orr, sol.stats, ni));
  best.improve(sol);
}

}  // namespace kapla::search::kapla::detail
