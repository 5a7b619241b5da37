// fill_stack / fill_tensor (kapla-spec.md §3.3, §3.4). Deviations from the reference, all
// deliberate: the non-divisible branch of fill_stack reduces the refetch of the data whose
// estimate it used (§10.19); loops play the role of the reference's loop-type dim lists.
#include "search/kapla/greedy.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "core/inline_vector.hpp"
#include "core/math.hpp"

namespace kapla::search::kapla {

std::int64_t min_factor(std::int64_t n) {
  for (std::int64_t f = 2; f * f <= n; ++f)
    if (n % f == 0) return f;
  return n > 1 ? n : 1;
}

namespace {

double rw_scale(DataCategory d, DataCategory rw) { return d == rw ? 2.0 : 1.0; }

/// A prefix of a number's ascending divisors: inline for the usual loop counts (at most 128
/// divisors: every number below 110880), on the heap beyond.
using DivisorPrefix = InlineVector<std::int64_t, 128>;

}  // namespace

StackFill fill_stack(const std::vector<StackItem>& items, std::array<std::int64_t, 2> hw,
                     const PerLoopDim<int>& order, const PerDataCategory<mapping::LoopSet>& loops,
                     DataCategory rw, const DataTotals& totals) {
  StackFill out;
  out.factor.assign(items.size(), {1, 1});
  for (const auto& it : items) out.remaining.push_back(it.remaining);
  const LoopDim inner = innermost(order);

  // Remaining count of a loop = product over its items.
  auto loop_remaining = [&](LoopDim l) {
    std::int64_t r = 1;
    for (std::size_t i = 0; i < items.size(); ++i)
      if (items[i].loop == l) r *= out.remaining[i];
    return r;
  };
  std::array<bool, 3> outer_irr{};
  PerDataCategory<double> ref{};
  for (auto d : all_values<DataCategory>()) {
    outer_irr[index_of(d)] = loops[d].contains(inner);
    ref[d] = totals[d] * rw_scale(d, rw);
    if (!outer_irr[index_of(d)]) continue;
    for (auto l : all_values<LoopDim>())
      if (!loops[d].contains(l)) ref[d] *= static_cast<double>(loop_remaining(l));
  }
  auto stack_on = [&](std::size_t i, int dir, std::int64_t f) {
    out.remaining[i] = ceil_div(out.remaining[i], f);
    out.factor[i][static_cast<std::size_t>(dir)] *= f;
    hw[static_cast<std::size_t>(dir)] /= f;
  };
  auto padding = [&](std::size_t i, std::int64_t f) {
    const auto r = out.remaining[i];
    return static_cast<double>(ceil_div(r, f) * f) / static_cast<double>(r);
  };

  for (int dir = 0; dir < 2; ++dir) {
    while (hw[static_cast<std::size_t>(dir)] > 1) {
      const std::int64_t f = min_factor(hw[static_cast<std::size_t>(dir)]);
      bool outer_trivial = true;
      for (auto d : all_values<DataCategory>()) {
        if (!outer_irr[index_of(d)]) continue;
        for (auto l : all_values<LoopDim>())
          if (!loops[d].contains(l) && loop_remaining(l) > 1) outer_trivial = false;
      }
      std::size_t pick = items.size();
      if (outer_trivial) {
        double best = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < items.size(); ++i) {
          if (items[i].loop != inner || !items[i].allowed[static_cast<std::size_t>(dir)]) continue;
          if (out.remaining[i] <= 1) continue;
          const double p = padding(i, f);
          if (p < best) best = p, pick = i;
        }
        if (pick == items.size()) break;  // nothing left to stack here: leave it unused
        stack_on(pick, dir, f);
        continue;
      }
      // The outer data with the largest refetch; stack the loop irrelevant to it.
      DataCategory dt = DataCategory::Fil;
      double dt_ref = -1;
      for (auto d : all_values<DataCategory>())
        if (outer_irr[index_of(d)] && ref[d] > dt_ref) dt_ref = ref[d], dt = d;
      for (std::size_t i = 0; i < items.size() && pick == items.size(); ++i) {
        if (loops[dt].contains(items[i].loop) || !items[i].allowed[static_cast<std::size_t>(dir)])
          continue;
        if (out.remaining[i] > 1 && out.remaining[i] % f == 0) pick = i;
      }
      if (pick != items.size()) {
        stack_on(pick, dir, f);
        ref[dt] /= static_cast<double>(f);
        continue;
      }
      // Nothing divisible: the item that minimises the padded total refetch.
      double best = std::numeric_limits<double>::infinity();
      DataCategory best_d = dt;
      for (auto d : all_values<DataCategory>()) {
        for (std::size_t i = 0; i < items.size(); ++i) {
          if (loops[d].contains(items[i].loop) || !items[i].allowed[static_cast<std::size_t>(dir)])
            continue;
          if (out.remaining[i] <= 1) continue;
          const double p = padding(i, f);
          double sum = 0;
          for (auto e : all_values<DataCategory>()) {
            double r = ref[e];
            if (loops[e].contains(items[i].loop)) r *= p;
            if (e == d) r /= static_cast<double>(f);
            sum += r;
          }
          if (sum < best) best = sum, pick = i, best_d = d;
        }
      }
      if (pick == items.size()) break;
      stack_on(pick, dir, f);
      ref[best_d] /= static_cast<double>(f);
    }
    out.unused[static_cast<std::size_t>(dir)] = hw[static_cast<std::size_t>(dir)];
  }
  return out;
}

std::optional<PerLoopDim<std::int64_t>> fill_tensor(
    PerLoopDim<std::int64_t> t, const PerLoopDim<std::int64_t>& remaining,
    const PerLoopDim<int>& order, const PerDataCategory<mapping::LoopSet>& loops, DataCategory rw,
    const DataTotals& totals, FunctionRef<bool(const PerLoopDim<std::int64_t>&)> fits,
    FitsOrder fits_order) {
  if (!fits(t)) return std::nullopt;
  PerLoopDim<std::int64_t> rem = remaining;
  const LoopDim inner = innermost(order);

  // Knobs: the loops irrelevant to some data the innermost loop touches (deduplicated); at
  // most the three loops, so fixed-size storage (K calls this ~10^5 times per network).
  std::array<LoopDim, 3> knobs{};
  std::size_t nknobs = 0;
  PerDataCategory<double> oref{};
  std::array<bool, 3> outer{};
  for (auto d : all_values<DataCategory>()) {
    outer[index_of(d)] = loops[d].contains(inner);
    if (!outer[index_of(d)]) continue;
    oref[d] = totals[d] * rw_scale(d, rw);
    for (auto l : all_values<LoopDim>()) {
      if (loops[d].contains(l)) continue;
      oref[d] *= static_cast<double>(rem[l]);
      bool seen = false;
      for (std::size_t k = 0; k < nknobs; ++k) seen = seen || knobs[k] == l;
      if (!seen && rem[l] > 1) knobs[nknobs++] = l;
    }
  }
  // Candidates per knob: ascending divisors, cut before the first that overflows alone.
  std::array<DivisorPrefix, 3> cands;
  for (std::size_t k = 0; k < nknobs; ++k) {
    const LoopDim l = knobs[k];
    for_each_divisor(rem[l], [&](std::int64_t f) {
      auto g = t;
      g[l] *= f;
      if (!fits(g)) return false;
      cands[k].push_back(f);
      return true;
    });
  }
  // Cartesian product, joint fit, minimise the summed refetch estimate; first wins ties. The
  // walk goes row by row (a row: the points that share every knob but the first), the first
  // knob fastest. A point with at most one knob off its first candidate (1) fits: the
  // candidates passed that very test. With a monotone `fits`, a row's fitting points are a
  // prefix no longer than those of the rows it dominates (the previous row, or at the start of
  // a row slice the previous slice's first row): its end is found walking down from there.
  double best = std::numeric_limits<double>::infinity();
  PerLoopDim<std::int64_t> best_f{{1, 1, 1}};
  auto refetch = [&](const PerLoopDim<std::int64_t>& f) {
    double sum = 0;
    for (auto d : all_values<DataCategory>()) {
      if (!outer[index_of(d)]) continue;
      double prod = 1;
      for (auto l : all_values<LoopDim>())
        if (!loops[d].contains(l)) prod *= static_cast<double>(f[l]);
      sum += std::ceil(oref[d] / prod);
    }
    return sum;
  };
  auto consider = [&](const PerLoopDim<std::int64_t>& f) {
    const double sum = refetch(f);
    if (sum < best) best = sum, best_f = f;
  };
  const std::size_t n0 = nknobs > 0 ? cands[0].size() : 0;
  std::array<std::size_t, 3> idx{};  // the row's candidates (idx[0] unused)
  std::size_t prev_end = n0;         // fitting prefix of the previous row (monotone)
  std::size_t slice_end = n0;        // ... of the last row whose second knob is at 1
  while (nknobs > 0) {
    PerLoopDim<std::int64_t> row{{1, 1, 1}};
    std::size_t moved = 0;  // knobs of the row off their first candidate
    for (std::size_t k = 1; k < nknobs; ++k) {
      row[knobs[k]] = cands[k][idx[k]];
      moved += idx[k] != 0 ? 1 : 0;
    }
    auto point = [&](std::size_t i) {
      auto f = row;
      f[knobs[0]] = cands[0][i];
      return f;
    };
    auto fits_at = [&](std::size_t i) {
      const auto f = point(i);
      auto g = t;
      for (auto l : all_values<LoopDim>()) g[l] *= f[l];
      return fits(g);
    };
    if (fits_order == FitsOrder::Monotone) {
      std::size_t end = moved == 0 ? n0 : (idx[1] > 0 ? prev_end : slice_end);
      const std::size_t known = moved == 0 ? n0 : (moved == 1 ? 1 : 0);
      while (end > known && !fits_at(end - 1)) --end;
      // The estimate never rises with a factor (correctly rounded, monotone operations on
      // ascending factors), so the row's first point with its last point's estimate is the
      // one a point-by-point walk would keep: found by bisection.
      const double last = end > 0 ? refetch(point(end - 1)) : best;
      if (last < best) {
        std::size_t lo = 0, hi = end - 1;
        while (lo < hi) {
          const std::size_t mid = lo + (hi - lo) / 2;
          if (refetch(point(mid)) <= last)
            hi = mid;
          else
            lo = mid + 1;
        }
        best = last;
        best_f = point(lo);
      }
      prev_end = end;
      if (idx[1] == 0) slice_end = end;
    } else {
      for (std::size_t i = 0; i < n0; ++i)
        if (moved == 0 || (moved == 1 && i == 0) || fits_at(i)) consider(point(i));
    }
    std::size_t k = 1;
    for (; k < nknobs; ++k) {
      if (++idx[k] < cands[k].size()) break;
      idx[k] = 0;
    }
    if (k >= nknobs) break;
  }
  for (auto l : all_values<LoopDim>()) {
    t[l] *= best_f[l];
    rem[l] /= best_f[l];
  }
  // Then the innermost loop alone, one smallest prime factor at a time.
  while (rem[inner] > 1) {
    const std::int64_t f = min_factor(rem[inner]);
    auto g = t;
    g[inner] *= f;
    if (!fits(g)) break;
    t = g;
    rem[inner] /= f;
  }
  return t;
}

}  // namespace kapla::search::kapla
