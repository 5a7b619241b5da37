// fill_stack / fill_tensor (kapla-spec.md §3.3, §3.4). Deviations from the reference, all
// deliberate: the non-divisible branch of fill_stack reduces the refetch of the data whose
// estimate it used (§10.19); loops play the role of the reference's loop-type dim lists.
#include "search/kapla/greedy.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "core/math.hpp"

namespace kapla::search::kapla {

std::int64_t min_factor(std::int64_t n) {
  for (std::int64_t f = 2; f * f <= n; ++f)
    if (n % f == 0) return f;
  return n > 1 ? n : 1;
}

namespace {

LoopDim innermost(const PerLoopDim<int>& order) {
  for (auto l : all_values<LoopDim>())
    if (order[l] == 0) return l;
  return LoopDim::Ifm;
}

double rw_scale(DataCategory d, DataCategory rw) { return d == rw ? 2.0 : 1.0; }

/// A prefix of a number's ascending divisors: inline for the usual loop counts (at most 128
/// divisors: every number below 110880), on the heap beyond. Left uninitialised: only the
/// first size() are read.
class DivisorPrefix {
 public:
  void push_back(std::int64_t v) {
    if (n_ < small_.size()) {
      small_[n_] = v;
    } else {
      if (big_.empty()) big_.assign(small_.begin(), small_.end());
      big_.push_back(v);
    }
    ++n_;
  }
  std::size_t size() const { return n_; }
  std::int64_t operator[](std::size_t i) const { return big_.empty() ? small_[i] : big_[i]; }

 private:
  std::array<std::int64_t, 128> small_;
  std::size_t n_ = 0;
  std::vector<std::int64_t> big_;
};

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
    const DataTotals& totals, FunctionRef<bool(const PerLoopDim<std::int64_t>&)> fits) {
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
  // Cartesian product, joint fit, minimise the summed refetch estimate; first wins ties.
  std::array<std::size_t, 3> idx{};
  double best = std::numeric_limits<double>::infinity();
  PerLoopDim<std::int64_t> best_f{{1, 1, 1}};
  bool any = nknobs > 0;
  for (std::size_t k = 0; k < nknobs; ++k) any = any && cands[k].size() > 0;
  while (any) {
    PerLoopDim<std::int64_t> f{{1, 1, 1}};
    auto g = t;
    for (std::size_t k = 0; k < nknobs; ++k) {
      f[knobs[k]] *= cands[k][idx[k]];
      g[knobs[k]] *= cands[k][idx[k]];
    }
    if (fits(g)) {
      double sum = 0;
      for (auto d : all_values<DataCategory>()) {
        if (!outer[index_of(d)]) continue;
        double prod = 1;
        for (auto l : all_values<LoopDim>())
          if (!loops[d].contains(l)) prod *= static_cast<double>(f[l]);
        sum += std::ceil(oref[d] / prod);
      }
      if (sum < best) best = sum, best_f = f;
    }
    std::size_t k = 0;
    for (; k < nknobs; ++k) {
      if (++idx[k] < cands[k].size()) break;
      idx[k] = 0;
    }
    if (k == nknobs) break;
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
