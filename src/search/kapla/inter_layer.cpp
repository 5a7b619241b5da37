// kapla-spec.md §4.2 (_estimate_layer_occp) and §4.3 (gen_segment_set's chain DP).
#include "search/kapla/inter_layer.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "core/math.hpp"

namespace kapla::search::kapla {

double estimated_min_occupancy(const OccupancyQuery& q) {
  const auto& l = *q.layer;
  const std::int64_t b = q.topbat > 0 ? q.batch / q.topbat : 1;
  const double ofm = static_cast<double>(l.ofmap_size(b));
  const double ifm = static_cast<double>(l.ifmap_size(b));
  const double fil = static_cast<double>(l.filter_size());
  if (l.is_local_region()) {
    if (l.is_back()) {  // LocalRegionBack: channels of the input side resident
      const double i = q.topifm > 0 ? static_cast<double>(l.nifm / q.topifm) : 1.0;
      return (ofm + ifm) * i;
    }
    const double o = q.topofm > 0 ? static_cast<double>(l.nofm / q.topofm) : 1.0;
    return (ofm + ifm) * o;
  }
  if (l.is_depthwise()) {
    if (l.is_back()) {
      const double i = q.topifm > 0 ? static_cast<double>(l.nifm / q.topifm) : 1.0;
      return (ofm + ifm) * i + i * fil;
    }
    const double o = q.topofm > 0 ? static_cast<double>(l.nofm / q.topofm) : 1.0;
    return (ofm + ifm) * o + o * fil;
  }
  // Conv-like: an upper bound TIO on topifm * topofm from the PE count.
  const std::int64_t total_pes = q.region_nodes * q.pes_per_node;
  const std::int64_t per = std::max<std::int64_t>(
      1, total_pes / std::max<std::int64_t>(1, l.filter_size() * l.ofmap_size(b)));
  const std::int64_t tio = ceil_div(l.nifm * l.nofm, per);
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
  if (q.topifm > 0 && q.topofm > 0) {
    pairs.emplace_back(q.topifm, q.topofm);
  } else if (q.topifm <= 0 && q.topofm <= 0) {
    pairs.emplace_back(1, tio);
    pairs.emplace_back(tio, 1);
  } else if (q.topifm > 0) {
    pairs.emplace_back(q.topifm, q.topifm == 1 ? tio : 1);
  } else {
    pairs.emplace_back(q.topofm == 1 ? tio : 1, q.topofm);
  }
  double best = std::numeric_limits<double>::infinity();
  for (const auto& [ti, to] : pairs) {
    const double ni = static_cast<double>(l.nifm / ti), no = static_cast<double>(l.nofm / to);
    best = std::min(best, ni * ifm + no * ofm + ni * no * fil);
  }
  return best;
}

bool occupancy_may_fit(const OccupancyQuery& q) {
  return estimated_min_occupancy(q) <=
         static_cast<double>(q.region_nodes * q.gbuf_words) * q.capacity_factor;
}

namespace {

// Keep-flags of the segments on a chain within (1 + margin) of the cheapest chain: the
// cheapest cover of the layers before (prefix) and after (suffix) each segment.
void keep_near_best_chains(const std::vector<SegmentEstimate>& segs, std::size_t n, double margin,
                           std::vector<bool>& keep) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> prefix(n + 1, inf), suffix(n + 1, inf);  // prefix[i]: layers [0, i)
  prefix[0] = 0;
  suffix[n] = 0;  // suffix[i]: layers [i, n)
  for (std::size_t end = 1; end <= n; ++end)
    for (const auto& s : segs)
      if (s.last + 1 == end) prefix[end] = std::min(prefix[end], prefix[s.first] + s.cost);
  for (std::size_t beg = n; beg-- > 0;)
    for (const auto& s : segs)
      if (s.first == beg) suffix[beg] = std::min(suffix[beg], s.cost + suffix[s.last + 1]);
  if (!(prefix[n] < inf)) return;
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const auto& s = segs[i];
    if (prefix[s.first] + s.cost + suffix[s.last + 1] <= prefix[n] * (1 + margin)) keep[i] = true;
  }
}

}  // namespace

std::vector<bool> select_segments(const std::vector<SegmentEstimate>& segs, std::size_t num_layers,
                                  std::size_t k, double margin) {
  std::vector<bool> keep(segs.size(), false);
  if (segs.size() < k) {  // the reference keeps all only when k > the number of segments
    std::fill(keep.begin(), keep.end(), true);
    return keep;
  }
  struct Chain {
    double cost;
    std::vector<std::size_t> segs;
  };
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<Chain>> best(num_layers);
  // Segments in the order of their last layer (stable: input order among equals).
  std::vector<std::size_t> order(segs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return segs[a].last < segs[b].last; });
  for (auto si : order) {
    const auto& s = segs[si];
    std::vector<Chain> base;
    if (s.first == 0) {
      base.push_back({0.0, {}});
    } else {
      base = best[s.first - 1];
    }
    auto& dst = best[s.last];
    for (const auto& c : base) {
      if (!(c.cost < inf) && s.first != 0) continue;
      Chain n{c.cost + s.cost, c.segs};
      n.segs.push_back(si);
      dst.push_back(std::move(n));
    }
    std::stable_sort(dst.begin(), dst.end(),
                     [](const Chain& a, const Chain& b) { return a.cost < b.cost; });
    if (dst.size() > k) dst.resize(k);
  }
  if (num_layers > 0)
    for (const auto& c : best[num_layers - 1])
      if (c.cost < inf)
        for (auto si : c.segs) keep[si] = true;
  for (std::size_t i = 0; i < segs.size(); ++i)
    if (segs[i].single_layer) keep[i] = true;
  if (margin > 0) keep_near_best_chains(segs, num_layers, margin, keep);
  return keep;
}

}  // namespace kapla::search::kapla
