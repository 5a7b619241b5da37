// Blocking refinement (see blocking_descent.hpp).
#include "search/kapla/blocking_descent.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "core/math.hpp"
#include "cost/loop_blocking_search.hpp"
#include "search/kapla/best_candidate.hpp"
#include "search/kapla/solver_steps.hpp"

namespace kapla::search::kapla::detail {

namespace {

/// One prime factor of one loop moved from one level to another.
struct Move {
  LoopDim loop;
  int from;
  int to;
  std::int64_t prime;
};

/// The distinct primes of n, ascending.
std::vector<std::int64_t> primes_of(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t f = n; f > 1; f /= min_factor(f))
    if (out.empty() || out.back() != min_factor(f)) out.push_back(min_factor(f));
  return out;
}

/// Every single move of `b` (the top level only for unconstrained loops), in loop, from, to,
/// prime order.
std::vector<Move> single_moves(const Blocking& b, const PerLoopDim<std::int64_t>& top) {
  std::vector<Move> out;
  for (auto l : all_values<LoopDim>())
    for (int from = 0; from < 3; ++from)
      for (int to = 0; to < 3; ++to) {
        if (from == to || ((from == 0 || to == 0) && top[l] > 0)) continue;
        for (auto p : primes_of(b.bl_ts[static_cast<std::size_t>(from)][l]))
          out.push_back({l, from, to, p});
      }
  return out;
}

bool apply(Blocking& b, const Move& m) {
  auto& from = b.bl_ts[static_cast<std::size_t>(m.from)][m.loop];
  if (from % m.prime != 0) return false;
  from /= m.prime;
  b.bl_ts[static_cast<std::size_t>(m.to)][m.loop] *= m.prime;
  return true;
}

/// The step's pick (best_candidate.hpp) among the candidates that pass the fast capacity
/// check (the cost model would reject the others, so they are not counted).
struct BestOf {
  const NodeNest& nest;
  const Capacity& cap;
  BestCandidate pick;
  void consider(const CanonicalScheme& c) {
    if (fits(nest, c.blocking, cap)) pick.consider(c);
  }
  bool improve(LayerSolution& sol) const { return pick.improve(sol); }
};

/// Every REGF tensor of nest `ni` of `cur`'s partition that fits (all divisor combinations of
/// the loops below the constraint), each completed by the GBUF fill under `og`, `orr` and
/// offered to `pick`. A nest other than cur's whose loops the constraint's top factors do not
/// divide cannot meet the constraint, and offers nothing.
void regf_beam(const LayerOracle& o, const CanonicalScheme& cur, int ni, const PerLoopDim<int>& og,
               const PerLoopDim<int>& orr, BestCandidate& pick, SolveStats& stats) {
  const auto nests_ref = o.nests(cur.part);
  const NodeNest& n = nests_ref->at(static_cast<std::size_t>(ni));
  const auto cap = o.capacity(cur.part, ni);
  const auto top = o.top_constraint();
  PerLoopDim<std::vector<std::int64_t>> divs;
  for (auto l : all_values<LoopDim>()) {
    if (ni != cur.nest_index && top[l] > 0 && n.loopcnt[l] % top[l] != 0) return;
    divs[l] = divisors(top[l] > 0 ? n.loopcnt[l] / top[l] : n.loopcnt[l]);
  }
  // Divisors ascend, so the first factor that overflows ends its loop's range.
  for (auto fi : divs[LoopDim::Ifm]) {
    if (regf_occupancy(n, {{fi, 1, 1}}) > cap.regf_words) break;
    for (auto fo : divs[LoopDim::Ofm]) {
      if (regf_occupancy(n, {{fi, fo, 1}}) > cap.regf_words) break;
      for (auto fb : divs[LoopDim::Bat]) {
        const PerLoopDim<std::int64_t> t2{{fi, fo, fb}};
        if (regf_occupancy(n, t2) > cap.regf_words) break;
        if (!regf_tile_fits(n, t2, cap)) continue;
        const auto c = fit_gbuf(o, cur.part, ni, n, cap, t2, og, orr, stats);
        // The fast capacity check first (BestOf's): the cost model would reject the rest.
        if (c && fits(n, c->blocking, cap)) pick.consider(*c);
      }
    }
  }
}

/// Step 8b: where the layer has one partition, the partition steps (7a-b) have nothing to
/// choose and the final nest is the greedy's and step 8's alone. The REGF beam on every nest
/// under the final orders ranks the nests; the best `keep` of them get the beam again under
/// one order pair per pair of innermost loops (the fills and the fetch counts turn on the
/// innermost loops; one pair per innermost pair found what all 36 find on the measured
/// layers: docs/kapla.md §4, "Step 8b").
void beam_over_nests(const LayerOracle& o, const SolverOptions& opt, int keep, LayerSolution& sol) {
  const CanonicalScheme cur = *sol.scheme;
  const auto& ords = cur.blocking.bl_ords;
  struct Ranked {
    Score score;
    int nest;
  };
  std::vector<Ranked> ranked;
  const int num_nests = static_cast<int>(o.nests(cur.part)->size());
  for (int ni = 0; ni < num_nests; ++ni) {
    BestCandidate one(o, opt, &sol.stats);
    regf_beam(o, cur, ni, ords[0], ords[1], one, sol.stats);
    if (one.scheme()) ranked.push_back({one.score(), ni});
  }
  // Ties keep the nest order, so the kept nests do not depend on anything but the prices.
  std::stable_sort(ranked.begin(), ranked.end(), [&](const Ranked& a, const Ranked& b) {
    return better(a.score, b.score, opt.goal);
  });
  if (ranked.size() > static_cast<std::size_t>(keep)) ranked.resize(static_cast<std::size_t>(keep));
  // The first order of loop_orders() with each loop innermost, in loop_orders()'s order.
  std::vector<PerLoopDim<int>> per_innermost;
  for (const auto& ord : loop_orders())
    if (std::none_of(per_innermost.begin(), per_innermost.end(),
                     [&](const auto& o2) { return innermost(o2) == innermost(ord); }))
      per_innermost.push_back(ord);
  BestCandidate pick(o, opt, &sol.stats, sol.score);
  for (const auto& r : ranked)
    for (const auto& og : per_innermost)
      for (const auto& orr : per_innermost) regf_beam(o, cur, r.nest, og, orr, pick, sol.stats);
  pick.improve(sol);
}

}  // namespace

void refit_regf(const LayerOracle& o, const SolverOptions& opt, LayerSolution& sol) {
  const CanonicalScheme cur = *sol.scheme;
  const auto nests_ref = o.nests(cur.part);
  const auto& nests = *nests_ref;
  const auto top = o.top_constraint();
  BestCandidate pick(o, opt, &sol.stats, sol.score);
  regf_beam(o, cur, cur.nest_index, cur.blocking.bl_ords[0], cur.blocking.bl_ords[1], pick,
            sol.stats);
  pick.improve(sol);
  if (opt.refine.nest_beam > 0 && o.partitions().size() == 1)
    beam_over_nests(o, opt, opt.refine.nest_beam, sol);
  // nn_dataflow's analytical bypass schemes (one category resides in GBUF, the others stream
  // past it), on every nest of the partition: the fills' refetch estimates assume everything
  // is in GBUF and rarely land there. Empty where the options forbid bypass.
  for (int ni = 0; ni < static_cast<int>(nests.size()); ++ni) {
    const auto ncap = o.capacity(cur.part, ni);
    BestOf seeds{nests[static_cast<std::size_t>(ni)], ncap,
                 BestCandidate(o, opt, &sol.stats, sol.score)};
    for (const auto& b : o.bypass_blockings(cur.part, ni)) {
      bool meets = true;
      for (auto l : all_values<LoopDim>())
        if (top[l] > 0 && b.bl_ts[0][l] != top[l]) meets = false;
      if (meets) seeds.consider({cur.part, ni, b});
    }
    seeds.improve(sol);
  }
}

void descend_blocking(const LayerOracle& o, const SolverOptions& opt, LayerSolution& sol) {
  const auto top = o.top_constraint();
  const auto nests_ref = o.nests(sol.scheme->part);
  const auto& nests = *nests_ref;
  const NodeNest& n = nests.at(static_cast<std::size_t>(sol.scheme->nest_index));
  const auto cap = o.capacity(sol.scheme->part, sol.scheme->nest_index);
  for (int iter = 0; iter < opt.refine.blocking_steps; ++iter) {
    const CanonicalScheme cur = *sol.scheme;
    const auto moves = single_moves(cur.blocking, top);
    BestOf single{n, cap, BestCandidate(o, opt, &sol.stats, sol.score)};
    for (const auto& m : moves) {
      auto c = cur;
      if (apply(c.blocking, m)) single.consider(c);
    }
    if (single.improve(sol)) continue;
    if (!opt.refine.compound_moves) break;
    // Stalled: other orders for the same factors, then two loops' factors moved at once.
    BestOf compound{n, cap, BestCandidate(o, opt, &sol.stats, sol.score)};
    for (const auto& og : loop_orders())
      for (const auto& orr : loop_orders()) {
        auto c = cur;
        c.blocking.bl_ords = {og, orr};
        if (c.blocking.bl_ords != cur.blocking.bl_ords) compound.consider(c);
      }
    for (std::size_t i = 0; i < moves.size(); ++i)
      for (std::size_t j = i + 1; j < moves.size(); ++j) {
        if (moves[i].loop == moves[j].loop) continue;
        auto c = cur;
        if (apply(c.blocking, moves[i]) && apply(c.blocking, moves[j])) compound.consider(c);
      }
    if (!compound.improve(sol)) break;
  }
}

void descend_remainders(const LayerOracle& o, const SolverOptions& opt, LayerSolution& sol) {
  const auto top = o.top_constraint();
  const auto nests_ref = o.nests(sol.scheme->part);
  const NodeNest& n = nests_ref->at(static_cast<std::size_t>(sol.scheme->nest_index));
  const auto cap = o.capacity(sol.scheme->part, sol.scheme->nest_index);
  // S's lists (exhaustive.cpp): the exact factors, then B's covers from Ruby-T block sizes.
  // A loop fixed by the constraint keeps its exact factors (its list stays empty).
  PerLoopDim<std::vector<std::array<std::int64_t, 3>>> lists;
  for (auto l : all_values<LoopDim>())
    if (top[l] <= 0) lists[l] = cost::loop_blockings3(n.loopcnt[l], true);
  for (int iter = 0; iter < opt.refine.blocking_steps; ++iter) {
    const CanonicalScheme cur = *sol.scheme;
    BestOf step{n, cap, BestCandidate(o, opt, &sol.stats, sol.score)};
    for (auto l : all_values<LoopDim>()) {
      const auto& bt = cur.blocking.bl_ts;
      const std::array<std::int64_t, 3> now{bt[0][l], bt[1][l], bt[2][l]};
      for (const auto& t : lists[l]) {
        // One tile size at a time: the REGF block kept (another GBUF block), or the REGF
        // blocks per GBUF block kept (another REGF block).
        if (t == now || (t[2] != now[2] && t[1] != now[1])) continue;
        auto c = cur;
        for (std::size_t k = 0; k < 3; ++k) c.blocking.bl_ts[k][l] = t[k];
        step.consider(c);
      }
    }
    if (!step.improve(sol)) break;
  }
}

}  // namespace kapla::search::kapla::detail
