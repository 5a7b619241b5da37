// Capacity of a blocking (nn_dataflow-spec.md §7.2, §7.4 step 2) and the loop orders.
#include "search/kapla/canonical.hpp"

#include "core/math.hpp"

namespace kapla::search::kapla {

std::array<PerLoopDim<int>, 6> loop_orders() {
  // permutations((0,1,2)) in lexicographic order, as nn_dataflow's itertools.permutations.
  return {{PerLoopDim<int>{{0, 1, 2}}, PerLoopDim<int>{{0, 2, 1}}, PerLoopDim<int>{{1, 0, 2}},
           PerLoopDim<int>{{1, 2, 0}}, PerLoopDim<int>{{2, 0, 1}}, PerLoopDim<int>{{2, 1, 0}}}};
}

std::int64_t data_factor(const NodeNest& n, const PerLoopDim<std::int64_t>& t, DataCategory d) {
  std::int64_t f = 1;
  for (auto l : all_values<LoopDim>())
    if (n.data_loops[d].contains(l)) f *= t[l];
  return f;
}

std::int64_t regf_occupancy(const NodeNest& n, const PerLoopDim<std::int64_t>& t2) {
  std::int64_t s = 0;
  for (auto d : all_values<DataCategory>()) s += data_factor(n, t2, d) * n.usize_regf[d];
  return s;
}

std::int64_t gbuf_occupancy(const NodeNest& n, const PerLoopDim<std::int64_t>& t12,
                            const PerDataCategory<std::int64_t>& share,
                            const PerDataCategory<bool>& stored) {
  std::int64_t s = 0;
  for (auto d : all_values<DataCategory>()) {
    if (!stored[d]) continue;
    const std::int64_t words = data_factor(n, t12, d) * n.usize_gbuf[d];
    s += share[d] == 1 ? words : ceil_div(words, share[d]);  // no division when unshared
  }
  return s;
}

bool regf_tile_fits(const NodeNest& n, const PerLoopDim<std::int64_t>& t2, const Capacity& cap) {
  return regf_occupancy(n, t2) <= cap.regf_words &&
         gbuf_occupancy(n, t2, cap.gbuf_share, cap.always_in_gbuf) <= cap.gbuf_words;
}

PerDataCategory<bool> gbuf_stored(const NodeNest& n, const Blocking& b, const Capacity& cap) {
  PerDataCategory<bool> stored = cap.always_in_gbuf;
  if (stored[DataCategory::Fil] && stored[DataCategory::Ifm] && stored[DataCategory::Ofm])
    return stored;  // nothing may bypass (the KAPLA presets): no fetch counts needed
  const auto fetch = cost::fetch_counts(n.data_loops, n.regf_reusable, n.rw_data, b);
  for (auto d : all_values<DataCategory>())
    if (!stored[d] && cost::reused_in_gbuf(fetch, d)) stored[d] = true;
  return stored;
}

bool fits_tiles(const NodeNest& n, const PerLoopDim<std::int64_t>& t1,
                const PerLoopDim<std::int64_t>& t2, const Capacity& cap,
                FunctionRef<Blocking()> whole) {
  if (regf_occupancy(n, t2) > cap.regf_words) return false;
  PerLoopDim<std::int64_t> t12{};
  for (auto l : all_values<LoopDim>()) t12[l] = t1[l] * t2[l];
  const auto& always = cap.always_in_gbuf;
  const bool all_stored =
      always[DataCategory::Fil] && always[DataCategory::Ifm] && always[DataCategory::Ofm];
  return gbuf_occupancy(n, t12, cap.gbuf_share,
                        all_stored ? always : gbuf_stored(n, whole(), cap)) <= cap.gbuf_words;
}

bool fits(const NodeNest& n, const Blocking& b, const Capacity& cap) {
  return fits_tiles(n, b.bl_ts[1], b.bl_ts[2], cap, [&] { return b; });
}

}  // namespace kapla::search::kapla
