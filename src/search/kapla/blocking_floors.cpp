// Floors of the exhaustive search's bound over many schemes at once (see blocking_floors.hpp).
#include "search/kapla/blocking_floors.hpp"

#include <algorithm>

namespace kapla::search::kapla {

cost::FetchCounts fetch_counts_of(const NodeNest& n, const Blocking& b) {
  return cost::fetch_counts(n.data_loops, n.regf_reusable, n.rw_data, b, n.loopcnt);
}

cost::FetchCounts least_fetch(const InlineVector<cost::FetchCounts, 36>& fetch) {
  cost::FetchCounts least = fetch[0];
  for (const auto& f : fetch)
    for (std::size_t bl = 0; bl < 2; ++bl)
      for (auto d : all_values<DataCategory>()) least[bl][d] = std::min(least[bl][d], f[bl][d]);
  return least;
}

PerDataCategory<std::int64_t> least_top_fetch(const NodeNest& n, const CanonicalScheme& s,
                                              const OrderPairs& pairs) {
  PerDataCategory<std::int64_t> least{};
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (i > 0 && pairs[i][0] == pairs[i - 1][0]) continue;  // one top order's pairs in a row
    const auto f0 =
        cost::top_fetch_counts(n.data_loops, n.rw_data, s.blocking.bl_ts[0], pairs[i][0]);
    for (auto d : all_values<DataCategory>()) least[d] = i == 0 ? f0[d] : std::min(least[d], f0[d]);
  }
  return least;
}

std::size_t nontrivial_loops(const PerLoopDim<std::int64_t>& t) {
  std::size_t m = 0;
  for (auto l : all_values<LoopDim>())
    if (t[l] > 1) m |= std::size_t{1} << static_cast<int>(l);
  return m;
}

std::optional<Score> top_level_floor(const BoundPricer& bounds, const NodeNest& n,
                                     const CanonicalScheme& s,
                                     const PerDataCategory<std::int64_t>& top, bool same_gbuf_loops,
                                     bool on_chip) {
  // fetch_counts_of's REGF level is at least its top level's, whatever the factors.
  const auto gbuf = same_gbuf_loops ? cost::least_gbuf_fetch(n.data_loops, n.regf_reusable,
                                                             n.rw_data, s.blocking, top)
                                    : top;
  return bounds.evaluate_bound_at_fetch(s, {top, gbuf}, on_chip);
}

}  // namespace kapla::search::kapla
