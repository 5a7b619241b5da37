// Data-layout operations. Spec: nn_dataflow-spec.md §8.5, §8.7.
#include "mapping/data_layout_ops.hpp"

#include <algorithm>
#include <limits>

#include "core/errors.hpp"
#include "mapping/gen_partition.hpp"
#include "mapping/partition.hpp"

namespace kapla::mapping {

std::int64_t overlap_size(const FmapRange& a, const FmapRange& b) {
  std::int64_t sz = 1;
  for (int i = 0; i < 4; ++i) {
    const std::int64_t lo = std::max(a.beg[i], b.beg[i]);
    const std::int64_t hi = std::min(a.end[i], b.end[i]);
    if (lo >= hi) return 0;
    sz *= hi - lo;
  }
  return sz;
}

FmapRange complete_fmap_range(const DataLayout& layout) {
  KAPLA_ASSERT(!layout.frngs.empty(), "DataLayout: no frngs");
  return FmapRange{layout.frngs.front().beg, layout.frngs.back().end};
}

DataLayout reshaped(const DataLayout& layout, const FmapRange& full) {
  if (complete_fmap_range(layout) == full) return layout;
  return DataLayout{{full}, {layout.regions.front()}, {layout.parts.front()}};
}

DataLayout concat(const std::vector<DataLayout>& layouts) {
  DataLayout out;
  std::int64_t n_offset = 0;
  for (const DataLayout& dl : layouts) {
    for (const FmapRange& fr : dl.frngs) {
      FmapRange f = fr;
      f.beg[1] += n_offset;
      f.end[1] += n_offset;
      out.frngs.push_back(f);
      n_offset += fr.end[1] - fr.beg[1];
    }
    out.regions.insert(out.regions.end(), dl.regions.begin(), dl.regions.end());
    out.parts.insert(out.parts.end(), dl.parts.begin(), dl.parts.end());
  }
  return out;
}

std::int64_t mst_weight(const std::vector<PhyDim2>& sources, const std::vector<PhyDim2>& dests) {
  // Distinct destinations not already connected. The weight of a minimum spanning forest is
  // unique, so neither their order nor Prim's tie-breaks change the result.
  std::vector<PhyDim2> todo(dests);
  std::sort(todo.begin(), todo.end());
  todo.erase(std::unique(todo.begin(), todo.end()), todo.end());
  todo.erase(std::remove_if(todo.begin(), todo.end(),
                            [&](const PhyDim2& d) {
                              return std::find(sources.begin(), sources.end(), d) != sources.end();
                            }),
             todo.end());
  // Prim: best[i] = distance of todo[i] to the connected set; the first m entries are not
  // connected yet (a picked node is swapped behind them).
  constexpr std::int64_t kBig = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int64_t> best(todo.size(), kBig);
  for (std::size_t i = 0; i < todo.size(); ++i)
    for (const PhyDim2& s : sources) best[i] = std::min(best[i], todo[i].hop_dist(s));
  std::int64_t total = 0;
  for (std::size_t m = todo.size(); m > 0; --m) {
    std::size_t pick = 0;
    for (std::size_t i = 1; i < m; ++i)
      if (best[i] < best[pick]) pick = i;
    KAPLA_ASSERT(best[pick] != kBig, "mst_weight: no source");
    total += best[pick];
    std::swap(todo[pick], todo[m - 1]);
    std::swap(best[pick], best[m - 1]);
    const PhyDim2 joined = todo[m - 1];
    for (std::size_t i = 0; i + 1 < m; ++i) best[i] = std::min(best[i], todo[i].hop_dist(joined));
  }
  return total;
}

LayoutPieces layout_pieces(const DataLayout& layout) {
  LayoutPieces out;
  if (!layout.frngs.empty()) out.complete = complete_fmap_range(layout);
  for (std::size_t k = 0; k < layout.frngs.size(); ++k) {
    const PartitionScheme& part = layout.parts[k];
    for (const PartIndex& pidx : gen_pidx(part)) {
      out.pieces.push_back(
          {fmap_range(part, layout.frngs[k], pidx), coordinate(part, layout.regions[k], pidx)});
    }
  }
  return out;
}

std::vector<std::int64_t> nhops_per_dest(const LayoutPieces& layout, const FmapRange& frng,
                                         const std::vector<PhyDim2>& dests) {
  std::vector<std::int64_t> per_dest(dests.size(), 0);
  for (const auto& piece : layout.pieces) {
    const std::int64_t size = overlap_size(frng, piece.frng);
    if (size == 0) continue;
    for (std::size_t i = 0; i < dests.size(); ++i)
      per_dest[i] += size * dests[i].hop_dist(piece.node);
  }
  return per_dest;
}

std::int64_t nhops_forwarded(const LayoutPieces& layout, const FmapRange& frng,
                             const std::vector<PhyDim2>& dests,
                             const std::vector<std::int64_t>& per_dest) {
  KAPLA_ASSERT(!dests.empty(), "nhops_to: forwarding needs a destination");
  // The first fetcher: fewest hops, then the smaller coordinate.
  std::size_t first = 0;
  for (std::size_t i = 1; i < dests.size(); ++i) {
    if (per_dest[i] < per_dest[first] ||
        (per_dest[i] == per_dest[first] && dests[i] < dests[first]))
      first = i;
  }
  const std::int64_t total_size = overlap_size(layout.complete, frng);
  return per_dest[first] + total_size * mst_weight({dests[first]}, dests);
}

std::int64_t nhops_to(const LayoutPieces& layout, const FmapRange& frng,
                      const std::vector<PhyDim2>& dests, bool forwarding) {
  const std::vector<std::int64_t> per_dest = nhops_per_dest(layout, frng, dests);
  if (forwarding) return nhops_forwarded(layout, frng, dests, per_dest);
  std::int64_t s = 0;
  for (auto v : per_dest) s += v;
  return s;
}

std::int64_t nhops_to(const DataLayout& layout, const FmapRange& frng,
                      const std::vector<PhyDim2>& dests, bool forwarding) {
  return nhops_to(layout_pieces(layout), frng, dests, forwarding);
}

DataLayout ofmap_layout(const model::Layer& layer, std::int64_t batch, const PartitionScheme& part,
                        const NodeRegion& dst_region) {
  DataLayout out;
  out.frngs.push_back(FmapRange{{0, 0, 0, 0}, {batch, layer.nofm, layer.sofm.h, layer.sofm.w}});
  out.regions.push_back(dst_region);
  out.parts.push_back(projection(part, dst_region, /*appl2frng=*/true));
  return out;
}

std::vector<DataLayout> input_layouts(std::int64_t nofm, PhyDim2 sofm, std::int64_t batch,
                                      const NodeRegion& src_region,
                                      const model::SearchOptions& options) {
  std::vector<DataLayout> out;
  for (const PartitionScheme& part :
       gen_input_partition(nofm, sofm, batch, src_region.dim, options, true)) {
    DataLayout dl;
    dl.frngs.push_back(FmapRange{{0, 0, 0, 0}, {batch, nofm, sofm.h, sofm.w}});
    dl.regions.push_back(src_region);
    dl.parts.push_back(projection(part, src_region, /*appl2frng=*/true));
    out.push_back(dl);
  }
  return out;
}

}  // namespace kapla::mapping
