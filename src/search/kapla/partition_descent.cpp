// Partition descent (see partition_descent.hpp).
#include "search/kapla/partition_descent.hpp"

#include <algorithm>
#include <cmath>

#include "search/kapla/solver_steps.hpp"

namespace kapla::search::directive::detail {

void descend_partition(const LayerOracle& o, const SolverOptions& opt,
                       const std::vector<std::array<PerLoopDim<int>, 2>>& pairs, LayerSolution& sol) {
  const auto& parts = o.partitions();
  const auto totals = data_totals(o.layer(), o.batch());
  const PhyDim2 nodes = o.node_dims();
  double max_prime = 2;
  for (auto n : {nodes.h, nodes.w})
    for (std::int64_t f = n; f > 1; f /= min_factor(f)) max_prime = std::max(max_prime, static_cast<double>(min_factor(f)));
  const double step = 2 * std::log2(max_prime) + 1e-9;
  auto repl_of = [&](const CanonicalScheme& c) {
    return o.nests(c.part)[static_cast<std::size_t>(c.nest_index)].repl_ifm;
  };
  auto consider = [&](const std::optional<CanonicalScheme>& c, std::optional<CanonicalScheme>& best,
                      Score& best_score) {
    if (!c) return;
    ++sol.stats.evaluated;
    const auto sc = o.evaluate(*c);
    if (sc && (!best || better(*sc, best_score, opt.goal))) best = c, best_score = *sc;
  };
  for (int iter = 0; iter < opt.refine_steps; ++iter) {
    const CanonicalScheme cur = *sol.scheme;
    std::optional<CanonicalScheme> best;
    Score best_score;
    for (const auto& p : parts) {
      if (p == cur.part || size_gap(p, cur.part) > step) continue;
      consider(fit_on_partition(o, p, repl_of(cur), cur.blocking.bl_ords[0], cur.blocking.bl_ords[1],
                                totals, sol.stats),
               best, best_score);
      for (const auto& pr : pairs)
        consider(fit_on_partition(o, p, repl_of(cur), pr[0], pr[1], totals, sol.stats), best, best_score);
    }
    if (!best || !better(best_score, sol.score, opt.goal)) break;
    sol.scheme = best;
    sol.score = best_score;
  }
  const CanonicalScheme cur = *sol.scheme;
  const int num_nests = static_cast<int>(o.nests(cur.part).size());
  for (int ni = 0; ni < num_nests; ++ni)
    for (const auto& og : loop_orders())
      for (const auto& orr : loop_orders()) {
        const auto c = fit_on_partition(o, cur.part, 1, og, orr, totals, sol.stats, ni);
        if (!c) continue;
        ++sol.stats.evaluated;
        const auto sc = o.evaluate(*c);
        if (sc && better(*sc, sol.score, opt.goal)) sol.scheme = c, sol.score = *sc;
      }
}

void descend_blocking(const LayerOracle& o, const SolverOptions& opt, LayerSolution& sol) {
  const auto top = o.top_constraint();
  for (int iter = 0; iter < opt.blocking_steps; ++iter) {
    const CanonicalScheme cur = *sol.scheme;
    std::optional<CanonicalScheme> best;
    Score best_score;
    // Neighbours: one prime factor of one loop moved between two adjacent levels (the top
    // level only for unconstrained loops), in loop, level-pair, direction order.
    for (auto l : all_values<LoopDim>()) {
      for (int lv = 0; lv < 2; ++lv) {
        if (lv == 0 && top[l] > 0) continue;
        for (int dir = 0; dir < 2; ++dir) {
          const int from = dir == 0 ? lv : lv + 1, to = dir == 0 ? lv + 1 : lv;
          auto c = cur;
          auto& ts = c.blocking.bl_ts;
          const auto f = min_factor(ts[static_cast<std::size_t>(from)][l]);
          if (f <= 1) continue;
          ts[static_cast<std::size_t>(from)][l] /= f;
          ts[static_cast<std::size_t>(to)][l] *= f;
          ++sol.stats.evaluated;
          const auto sc = o.evaluate(c);
          if (sc && (!best || better(*sc, best_score, opt.goal))) best = c, best_score = *sc;
        }
      }
    }
    if (!best || !better(best_score, sol.score, opt.goal)) break;
    sol.scheme = best;
    sol.score = best_score;
  }
}

}  // namespace kapla::search::directive::detail
