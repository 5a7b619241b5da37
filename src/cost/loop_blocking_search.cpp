// Spec: nn_dataflow-spec.md §7.6-7.8, §9.3, §12.5.
#include "cost/loop_blocking_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.hpp"
#include "core/math.hpp"

namespace kapla::cost {

bool TopBlockingConstraint::is_valid_top_bl(const PerLoopDim<std::int64_t>& top_t,
                                            const PerLoopDim<int>& top_ord) const {
  if (topbat != 0 && topbat != top_t[LoopDim::Bat]) return false;
  if (topifm != 0 && topifm != top_t[LoopDim::Ifm]) return false;
  if (topofm != 0 && topofm != top_t[LoopDim::Ofm]) return false;
  // Non-trivial loops from outer to inner.
  std::array<LoopDim, 3> ord{};
  int n = 0;
  for (int pos = 2; pos >= 0; --pos)
    for (auto l : all_values<LoopDim>())
      if (top_t[l] > 1 && top_ord[l] == pos) ord[static_cast<std::size_t>(n++)] = l;
  int next = 0;
  auto pop_is = [&](LoopDim l) { return next < n && ord[static_cast<std::size_t>(next++)] == l; };
  if (topbat > 1 && !pop_is(LoopDim::Bat)) return false;
  if (topifm > 1 && !pop_is(LoopDim::Ifm)) return false;
  if (topofm > 1 && !pop_is(LoopDim::Ofm)) return false;
  return true;
}

bool skip_conv(const LoopBlocking& b) {
  int outer_inn = -1;
  for (int k = 0; k < 3; ++k) {
    const auto& t = b.bl_ts[static_cast<std::size_t>(k)];
    const bool has_ord = k < 2;
    unsigned nt = 0;
    for (auto l : all_values<LoopDim>())
      if (t[l] > 1) nt |= 1u << static_cast<unsigned>(l);
    int inn = -1;
    if (has_ord) {
      const auto& ord = b.bl_ords[static_cast<std::size_t>(k)];
      for (auto l : all_values<LoopDim>())
        if ((nt >> static_cast<unsigned>(l)) & 1u)
          if (inn < 0 || ord[l] < ord[static_cast<LoopDim>(inn)]) inn = static_cast<int>(l);
    }
    // The outer level's innermost loop re-appearing as a non-innermost loop here.
    if (outer_inn != inn && outer_inn >= 0 && ((nt >> static_cast<unsigned>(outer_inn)) & 1u))
      return true;
    if (inn >= 0) outer_inn = inn;
    if (has_ord) {
      // Canonical inner->outer order: innermost, other non-trivial loops, trivial loops.
      const auto& ord = b.bl_ords[static_cast<std::size_t>(k)];
      std::array<int, 3> canon{};
      int c = 0;
      if (inn >= 0) canon[static_cast<std::size_t>(c++)] = inn;
      for (int l = 0; l < 3; ++l)
        if (l != inn && ((nt >> static_cast<unsigned>(l)) & 1u))
          canon[static_cast<std::size_t>(c++)] = l;
      for (int l = 0; l < 3; ++l)
        if (l != inn && !((nt >> static_cast<unsigned>(l)) & 1u))
          canon[static_cast<std::size_t>(c++)] = l;
      for (auto l : all_values<LoopDim>())
        if (canon[static_cast<std::size_t>(ord[l])] != static_cast<int>(l)) return true;
    }
  }
  return false;
}

std::vector<std::array<std::int64_t, 3>> factorize3(std::int64_t n) {
  std::vector<std::array<std::int64_t, 3>> out;
  for (std::int64_t a : divisors(n))
    for (std::int64_t b : divisors(n / a)) out.push_back({a, b, n / a / b});
  return out;
}

std::vector<std::int64_t> block_candidates(std::int64_t m) {
  std::vector<std::int64_t> out;
  // ceil(m / q) is non-increasing in q: collect it where it changes, then reverse.
  for (std::int64_t q = 1; q <= m; ++q) {
    const std::int64_t b = (m + q - 1) / q;
    if (out.empty() || out.back() != b) out.push_back(b);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<std::array<std::int64_t, 3>> loop_blockings3(std::int64_t n, bool remainders) {
  auto out = factorize3(n);
  if (!remainders) return out;
  for (std::int64_t t2 : block_candidates(n)) {
    const std::int64_t m = (n + t2 - 1) / t2;
    for (std::int64_t t1 : block_candidates(m)) {
      const std::int64_t t0 = (m + t1 - 1) / t1;
      if (t0 * t1 * t2 == n) continue;  // exact: already listed, in the reference's order
      out.push_back({t0, t1, t2});
    }
  }
  return out;
}

bool loop_blocking_better(const LoopBlockingEval& a, const LoopBlockingEval& b, model::Goal goal) {
  const double ca = a.access_cost, cb = b.access_cost, ta = a.time(), tb = b.time();
  switch (goal) {
    case model::Goal::Energy:
      return ca < cb || (ca == cb && ta < tb);
    case model::Goal::Delay:
      return ta < tb || (ta == tb && ca < cb);
    case model::Goal::EnergyDelay:
      return ca * ta < cb * tb;
  }
  return false;
}

namespace {

/// Stable top-k: a newcomer enters only if strictly better than the current k-th; among equal
/// keys the earlier one stays ahead (heapq.nsmallest semantics).
class TopK {
 public:
  TopK(std::size_t k, model::Goal goal) : k_(k), goal_(goal) { items_.reserve(k + 1); }
  void offer(const LoopBlockingEval& e) {
    if (k_ == 0) return;
    if (items_.size() == k_ && !loop_blocking_better(e, items_.back(), goal_)) return;
    // Insert after every element that is not worse than e (keeps generation order on ties).
    auto pos = items_.end();
    while (pos != items_.begin() && loop_blocking_better(e, *(pos - 1), goal_)) --pos;
    items_.insert(pos, e);
    if (items_.size() > k_) items_.pop_back();
  }
  std::vector<LoopBlockingEval> take() { return std::move(items_); }

 private:
  std::size_t k_;
  model::Goal goal_;
  std::vector<LoopBlockingEval> items_;
};

/// Largest divisor of v that is <= f if f >= 1, else 1 (util.closest_factor(v, f)[0]).
std::int64_t closest_factor_first(std::int64_t v, double f) {
  if (f < 1) return 1;
  std::int64_t best = 1;
  for (std::int64_t d : divisors(v))
    if (static_cast<double>(d) <= f) best = d;
  return best;
}

bool solve_reside(const NestedLoopDesc& nld, const mapping::Resource& res, DataCategory reside,
                  LoopBlocking& out) {
  using DC = DataCategory;
  std::array<LoopDim, 3> lp{};
  std::array<DC, 3> dc{};
  std::array<double, 3> facc{};
  switch (reside) {
    case DC::Fil:
      lp = {LoopDim::Ifm, LoopDim::Ofm, LoopDim::Bat};
      dc = {DC::Fil, DC::Ofm, DC::Ifm};
      facc = {1., 2., 1.};
      break;
    case DC::Ifm:
      lp = {LoopDim::Ifm, LoopDim::Bat, LoopDim::Ofm};
      dc = {DC::Ifm, DC::Ofm, DC::Fil};
      facc = {1., 2., 1.};
      break;
    case DC::Ofm:
      lp = {LoopDim::Ofm, LoopDim::Bat, LoopDim::Ifm};
      dc = {DC::Ofm, DC::Ifm, DC::Fil};
      facc = {2., 1., 1.};
      break;
  }
  const std::int64_t nx = nld.loopcnt[lp[0]], ny = nld.loopcnt[lp[1]], nz = nld.loopcnt[lp[2]];
  std::array<double, 3> sg{}, sr{};
  for (std::size_t i = 0; i < 3; ++i) {
    sg[i] = nld.usize_gbuf[dc[i]];
    sr[i] = nld.usize_regf[dc[i]];
  }
  const double size_gbuf = static_cast<double>(res.size_gbuf);
  const double size_regf = static_cast<double>(res.size_regf);
  // Opt I: exhaustive over divisors, first strictly better wins.
  const std::array<std::int64_t, 3> numloops{nx * ny, ny * nz, nx * nz};
  double min_goal = std::numeric_limits<double>::infinity();
  std::int64_t tx0 = 0, ty0 = 0;
  for (std::int64_t a : divisors(nx)) {
    for (std::int64_t b : divisors(ny)) {
      if (static_cast<double>((nx / a) * (ny / b)) * sg[0] > size_gbuf) continue;
      const double r1 = static_cast<double>(nx / a) * (sr[0] + sr[2]) + sr[1];
      const double r2 = static_cast<double>(ny / b) * (sr[0] + sr[1]) + sr[2];
      if (std::min(r1, r2) > size_regf) continue;
      const std::array<std::int64_t, 3> tl{1, a, b};
      double goal = 0;
      for (std::size_t i = 0; i < 3; ++i)
        goal += ((static_cast<double>(numloops[i]) * sg[i]) * facc[i]) * static_cast<double>(tl[i]);
      if (goal < min_goal) {
        min_goal = goal;
        tx0 = a;
        ty0 = b;
      }
    }
  }
  if (tx0 == 0) return false;  // the reference fails here (no feasible point)
  // Opt II: the largest REGF-feasible divisor tz2 of Nz.
  constexpr double kNegInf = -std::numeric_limits<double>::infinity();
  auto g = [&](std::int64_t tx2, std::int64_t ty2) {
    const double tz2 = (size_regf - static_cast<double>(tx2 * ty2) * sr[0]) * 1. /
                       (static_cast<double>(ty2) * sr[1] + static_cast<double>(tx2) * sr[2]);
    if (tz2 < 0) return kNegInf;
    const std::int64_t c = closest_factor_first(nz, tz2);
    return static_cast<double>(c) <= tz2 ? static_cast<double>(c) : kNegInf;
  };
  std::int64_t tx2 = nx / tx0, ty2 = ny / ty0;
  double tz2 = g(tx2, ty2);
  if (std::isinf(tz2)) {
    const double g1 = g(1, ny / ty0), g2 = g(nx / tx0, 1);
    if (g2 > g1)
      tx2 = nx / tx0, ty2 = 1;
    else
      tx2 = 1, ty2 = ny / ty0;
    tz2 = g(tx2, ty2);
  }
  if (std::isinf(tz2)) return false;  // the reference's assertion
  const auto tz2i = static_cast<std::int64_t>(tz2);
  const std::int64_t tz0 = nz / tz2i;
  std::int64_t tx1 = nx / tx0 / tx2, ty1 = ny / ty0 / ty2;
  PerLoopDim<int> ord0{}, ord1{};
  ord0[lp[0]] = 2;
  ord0[lp[1]] = 1;
  ord0[lp[2]] = 0;
  ord1[lp[0]] = tx1 > 1 ? 0 : 1;
  ord1[lp[1]] = tx1 > 1 ? 1 : 0;
  ord1[lp[2]] = 2;
  if (tz0 == 1) {
    tx0 *= tx1;
    tx1 = 1;
    ty0 *= ty1;
    ty1 = 1;
    ord0 = ord1;
  }
  const std::array<std::array<std::int64_t, 3>, 3> lts{
      {{tx0, tx1, tx2}, {ty0, ty1, ty2}, {tz0, 1, tz2i}}};
  for (std::size_t k = 0; k < 3; ++k)
    for (std::size_t i = 0; i < 3; ++i) out.bl_ts[k][lp[i]] = lts[i][k];
  out.bl_ords = {ord0, ord1};
  return true;
}

}  // namespace

std::vector<LoopBlocking> solve_loop_blocking(const NestedLoopDesc& nld,
                                              const mapping::Resource& resource,
                                              const model::SearchOptions& options) {
  KAPLA_ASSERT(nld.has_conv_data_loops(), "loop-blocking solver: Conv loops only");
  std::vector<LoopBlocking> out;
  for (auto reside : all_values<DataCategory>()) {
    bool others_bypass = true;
    for (auto d : all_values<DataCategory>())
      if (d != reside && !options.sw_gbuf_bypass[d]) others_bypass = false;
    if (!others_bypass) continue;
    LoopBlocking b;
    if (solve_reside(nld, resource, reside, b)) out.push_back(b);
  }
  return out;
}

std::vector<LoopBlockingEval> search_loop_blocking(const NestedLoopDesc& nld,
                                                   const mapping::Resource& resource,
                                                   const mapping::BufShrScheme& bufshr,
                                                   const TopBlockingConstraint& constraint,
                                                   const model::SearchOptions& options,
                                                   const model::UnitCosts& costs,
                                                   LoopBlockingSearchStats* stats) {
  LoopBlockingSearchStats st;
  std::vector<LoopBlockingEval> out;
  if (options.sw_solve_loopblocking && nld.has_conv_data_loops()) {
    for (const auto& b : solve_loop_blocking(nld, resource, options)) {
      if (!constraint.is_valid_top_bl(b.bl_ts[0], b.bl_ords[0])) continue;
      auto ev = evaluate_loop_blocking(nld, b, resource, bufshr, options, costs);
      ++st.evaluated;
      if (ev.valid()) {
        ++st.valid;
        out.push_back(ev);
      }
    }
  } else {
    // Invalid schemes never displace valid ones whatever the variant (§12.5: the fork drops
    // them first; upstream ranks them last with key +inf), so one stable top-k serves both.
    TopK top(static_cast<std::size_t>(std::max(options.ntops, 0)), options.opt_goal);
    for_each_loop_blocking(
        nld, constraint,
        [&](const LoopBlocking& b) {
          auto ev = evaluate_loop_blocking(nld, b, resource, bufshr, options, costs);
          ++st.evaluated;
          if (!ev.valid()) return;
          ++st.valid;
          top.offer(ev);
        },
        options.imperfect == model::Imperfect::Full);
    out = top.take();
  }
  if (stats) *stats = st;
  return out;
}

}  // namespace kapla::cost
