// Capacity of a blocking (nn_dataflow-spec.md §7.2, §7.4 step 2) and the loop orders.
#include "search/kapla/canonical.hpp"

#include "core/math.hpp"

namespace kapla::search::kapla {

std::array<PerLoopDim<int>, 6> loop_orders() {
  // permutations((0,1,2)) in lexicographic order, as nn_dataflow's itertools.permutations.
  return {{PerLoopDim<int>{{0, 1, 2}}, PerLoopDim<int>{{0, 2, 1}}, PerLoopDim<int>{{1, 0, 2}},
           PerLoopDim<int>{{1, 2, 0}}, PerLoopDim<int>{{2, 0, 1}}, PerLoopDim<int>{{2, 1, 0}}}};
}

PerLoopDim<int> canonical_order(const PerLoopDim<std::int64_t>& trips, const PerLoopDim<int>& ord) {
  int nontrivial = 0;
  for (auto l : all_values<LoopDim>()) nontrivial += trips[l] > 1 ? 1 : 0;
  PerLoopDim<int> out{};
  int next = nontrivial;
  for (auto l : all_values<LoopDim>()) {
    if (trips[l] > 1) {
      int inside = 0;  // non-trivial loops inside l
      for (auto m : all_values<LoopDim>()) inside += trips[m] > 1 && ord[m] < ord[l] ? 1 : 0;
      out[l] = inside;
    } else {
      out[l] = next++;
    }
  }
  return out;
}

CanonicalScheme without_trivial_orders(CanonicalScheme c) {
  for (std::size_t lv = 0; lv < c.blocking.bl_ords.size(); ++lv)
    c.blocking.bl_ords[lv] = canonical_order(c.blocking.bl_ts[lv], c.blocking.bl_ords[lv]);
  return c;
}

bool regf_tile_fits(const NodeNest& n, const PerLoopDim<std::int64_t>& t2, const Capacity& cap) {
  return regf_occupancy(n, t2) <= cap.regf_words &&
         gbuf_occupancy(n, t2, cap.gbuf_share, cap.always_in_gbuf) <= cap.gbuf_words;
}

PerDataCategory<bool> gbuf_stored(const NodeNest& n, const Blocking& b, const Capacity& cap) {
  PerDataCategory<bool> stored = cap.always_in_gbuf;
  if (cap.all_in_gbuf()) return stored;  // no fetch counts needed
  const auto fetch = cost::fetch_counts(n.data_loops, n.regf_reusable, n.rw_data, b);
  for (auto d : all_values<DataCategory>())
    if (!stored[d] && cost::reused_in_gbuf(fetch, d)) stored[d] = true;
  return stored;
}

bool fits(const NodeNest& n, const Blocking& b, const Capacity& cap) {
  return fits_tiles(n, b.bl_ts[1], b.bl_ts[2], cap, [&] { return b; });
}

}  // namespace kapla::search::kapla
