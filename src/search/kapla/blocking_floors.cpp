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

std::optional<Score> blocking_floor(const BoundPricer& bounds, const CanonicalScheme& s,
                                    const InlineVector<cost::FetchCounts, 36>& fetch,
                                    bool on_chip) {
  return bounds.evaluate_bound_at_fetch(s, least_fetch(fetch), on_chip);
}

std::optional<Score> top_level_floor(const BoundPricer& bounds, const NodeNest& n,
                                     CanonicalScheme s, const OrderPairs& pairs) {
  std::optional<PerDataCategory<std::int64_t>> least;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (i > 0 && pairs[i][0] == pairs[i - 1][0]) continue;  // one top order's pairs in a row
    s.blocking.bl_ords = {pairs[i][0], pairs[i][0]};        // fetch[0] reads the top order only
    const auto f0 = fetch_counts_of(n, s.blocking)[0];
    if (!least) least = f0;
    for (auto d : all_values<DataCategory>()) (*least)[d] = std::min((*least)[d], f0[d]);
  }
  if (!least) return std::nullopt;
  return bounds.evaluate_bound_at_fetch(s, {*least, *least}, true);
}

}  // namespace kapla::search::kapla
