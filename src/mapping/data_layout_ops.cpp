// Data-layout operations. Spec: nn_dataflow-spec.md §8.5, §8.7.
#include "mapping/data_layout_ops.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>

#include "core/errors.hpp"
#include "core/math.hpp"
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

namespace {

// Prim from the pre-connected sources [src, src + num_src) (see mst_weight).
std::int64_t prim_weight(const PhyDim2* src, std::size_t num_src, const std::vector<PhyDim2>& dests,
                         HopScratch& scratch) {
  // Distinct destinations not already connected. The weight of a minimum spanning forest is
  // unique, so neither their order nor Prim's tie-breaks change the result.
  std::vector<PhyDim2>& todo = scratch.todo;
  todo.assign(dests.begin(), dests.end());
  std::sort(todo.begin(), todo.end());
  todo.erase(std::unique(todo.begin(), todo.end()), todo.end());
  todo.erase(std::remove_if(todo.begin(), todo.end(),
                            [&](const PhyDim2& d) {
                              return std::find(src, src + num_src, d) != src + num_src;
                            }),
             todo.end());
  // Prim: best[i] = distance of todo[i] to the connected set; the first m entries are not
  // connected yet (a picked node is swapped behind them).
  constexpr std::int64_t kBig = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int64_t>& best = scratch.best;
  best.assign(todo.size(), kBig);
  for (std::size_t i = 0; i < todo.size(); ++i)
    for (std::size_t k = 0; k < num_src; ++k) best[i] = std::min(best[i], todo[i].hop_dist(src[k]));
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

void sort_unique(std::vector<std::int64_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

std::size_t index_in(const std::vector<std::int64_t>& sorted, std::int64_t x) {
  return static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), x) -
                                  sorted.begin());
}

// Whether `nodes` are a full grid: scratch.rows x scratch.cols (their distinct coordinates,
// sorted), every pair present (duplicates allowed).
bool is_full_grid(const std::vector<PhyDim2>& nodes, HopScratch& scratch) {
  std::vector<std::int64_t>& rows = scratch.rows;
  std::vector<std::int64_t>& cols = scratch.cols;
  rows.clear();
  cols.clear();
  for (const PhyDim2& n : nodes) {
    rows.push_back(n.h);
    cols.push_back(n.w);
  }
  sort_unique(rows);
  sort_unique(cols);
  const std::size_t nr = rows.size();
  const std::size_t nc = cols.size();
  // A full grid has nr * nc distinct nodes: with fewer nodes than that it cannot be one.
  if (nr * nc > nodes.size()) return false;
  std::vector<unsigned char>& seen = scratch.seen;
  seen.assign(nr * nc, 0);
  std::size_t distinct = 0;
  for (const PhyDim2& n : nodes) {
    unsigned char& c = seen[index_in(rows, n.h) * nc + index_in(cols, n.w)];
    distinct += c == 0;
    c = 1;
  }
  return distinct == nr * nc;
}

// Why a grid's spanning trees need only its neighbour edges: every Manhattan distance between
// two grid nodes is the length of a monotone path through neighbouring grid nodes, and no edge
// of that path is longer than the distance, so replacing the direct edge by the path never
// makes a spanning tree heavier. (Weights are exact integers; a minimum spanning forest's
// weight does not depend on how equal edges are ordered.)

// The spanning tree of the full grid scratch.rows x scratch.cols, by Kruskal over its
// neighbour edges: one per pair of neighbouring rows (gap g) and column, one per pair of
// neighbouring columns and row. While c column classes are apart, a row gap joins c pairs of
// components, one edge each, and the other way round.
std::int64_t grid_tree_weight(HopScratch& scratch) {
  const std::vector<std::int64_t>& rows = scratch.rows;
  const std::vector<std::int64_t>& cols = scratch.cols;
  std::vector<std::int64_t>& rg = scratch.row_gaps;
  std::vector<std::int64_t>& cg = scratch.col_gaps;
  rg.clear();
  cg.clear();
  for (std::size_t i = 1; i < rows.size(); ++i) rg.push_back(rows[i] - rows[i - 1]);
  for (std::size_t i = 1; i < cols.size(); ++i) cg.push_back(cols[i] - cols[i - 1]);
  std::sort(rg.begin(), rg.end());
  std::sort(cg.begin(), cg.end());
  auto row_classes = static_cast<std::int64_t>(rows.size());
  auto col_classes = static_cast<std::int64_t>(cols.size());
  std::int64_t total = 0;
  std::size_t i = 0, j = 0;
  while (i < rg.size() || j < cg.size()) {
    if (j == cg.size() || (i < rg.size() && rg[i] <= cg[j])) {
      total += rg[i++] * col_classes;
      --row_classes;
    } else {
      total += cg[j++] * row_classes;
      --col_classes;
    }
  }
  return total;
}

// The spanning forest joining the full grid scratch.rows x scratch.cols to the pre-connected
// `sources`: Kruskal over the grid's neighbour edges and one edge per grid node to its nearest
// source (the sources as one node; a grid node that is a source gets a 0 edge). nullopt when
// a weight does not fit the packed edges (Prim then).
std::optional<std::int64_t> grid_forest_weight(const std::vector<PhyDim2>& sources,
                                               HopScratch& scratch) {
  const std::vector<std::int64_t>& rows = scratch.rows;
  const std::vector<std::int64_t>& cols = scratch.cols;
  const std::size_t nr = rows.size(), nc = cols.size(), n = nr * nc;
  // Edges packed as (weight, a, b) in one word (24, 20, 20 bits): grid nodes r * nc + c, the
  // sources node n.
  constexpr std::int64_t kMaxWeight = (std::int64_t{1} << 24) - 1;
  if (n >= (std::size_t{1} << 20)) return std::nullopt;
  std::vector<std::uint64_t>& edges = scratch.edges;
  edges.clear();
  bool fits = true;
  auto edge = [&](std::int64_t w, std::size_t a, std::size_t b) {
    fits = fits && w >= 0 && w <= kMaxWeight;
    edges.push_back(static_cast<std::uint64_t>(w) << 40 | static_cast<std::uint64_t>(a) << 20 |
                    static_cast<std::uint64_t>(b));
  };
  for (std::size_t r = 0; r < nr; ++r) {
    for (std::size_t c = 0; c < nc; ++c) {
      const PhyDim2 node{rows[r], cols[c]};
      std::int64_t d = std::numeric_limits<std::int64_t>::max();
      for (const PhyDim2& s : sources) d = std::min(d, node.hop_dist(s));
      edge(d, r * nc + c, n);
      if (r + 1 < nr) edge(rows[r + 1] - rows[r], r * nc + c, (r + 1) * nc + c);
      if (c + 1 < nc) edge(cols[c + 1] - cols[c], r * nc + c, r * nc + c + 1);
    }
  }
  if (!fits) return std::nullopt;
  std::sort(edges.begin(), edges.end());
  std::vector<std::uint32_t>& root = scratch.roots;
  root.resize(n + 1);
  for (std::size_t i = 0; i <= n; ++i) root[i] = static_cast<std::uint32_t>(i);
  auto find = [&](std::uint32_t x) {
    while (root[x] != x) x = root[x] = root[root[x]];
    return x;
  };
  constexpr std::uint64_t kMask = (std::uint64_t{1} << 20) - 1;
  std::int64_t total = 0;
  std::size_t joined = 0;
  for (const std::uint64_t e : edges) {
    const std::uint32_t ra = find(static_cast<std::uint32_t>(e >> 20 & kMask));
    const std::uint32_t rb = find(static_cast<std::uint32_t>(e & kMask));
    if (ra == rb) continue;
    root[ra] = rb;
    total += static_cast<std::int64_t>(e >> 40);
    if (++joined == n) break;
  }
  return total;
}

// Below this many destinations Prim's n^2 steps cost less than finding and sorting a grid's
// edges (both give the same weight).
constexpr std::size_t kGridMin = 24;

}  // namespace

std::int64_t mst_weight(const std::vector<PhyDim2>& sources, const std::vector<PhyDim2>& dests) {
  HopScratch scratch;
  return mst_weight(sources, dests, scratch);
}

std::int64_t mst_weight(const std::vector<PhyDim2>& sources, const std::vector<PhyDim2>& dests,
                        HopScratch& scratch) {
  if (dests.size() >= kGridMin && !sources.empty() && is_full_grid(dests, scratch)) {
    if (const auto w = grid_forest_weight(sources, scratch)) return *w;
  }
  return prim_weight(sources.data(), sources.size(), dests, scratch);
}

std::int64_t tree_weight(const std::vector<PhyDim2>& nodes, HopScratch& scratch) {
  KAPLA_ASSERT(!nodes.empty(), "tree_weight: no node");
  if (nodes.size() == 1) return 0;
  if (nodes.size() == 2) return nodes[0].hop_dist(nodes[1]);
  if (is_full_grid(nodes, scratch)) return grid_tree_weight(scratch);
  return prim_weight(nodes.data(), 1, nodes, scratch);
}

LayoutPieces layout_pieces(const DataLayout& layout) {
  LayoutPieces out;
  if (!layout.frngs.empty()) out.complete = complete_fmap_range(layout);
  for (std::size_t k = 0; k < layout.frngs.size(); ++k) {
    const PartitionScheme& part = layout.parts[k];
    const FmapRange& frng = layout.frngs[k];
    const auto& pd = part.pdims;
    LayoutPieces::Block block;
    block.first = out.pieces.size();
    block.replicas = pd[ParallelDim::Inpp].size();
    // fmap_range's splits (ith_range): piece i of n spans [beg + i * len / n, ...).
    const std::array<std::int64_t, 4> splits{pd[ParallelDim::Batp].size(),
                                             pd[ParallelDim::Outp].size(), pd[ParallelDim::Ofmp].h,
                                             pd[ParallelDim::Ofmp].w};
    for (int d = 0; d < 4; ++d) {
      for (std::int64_t i = 0; i <= splits[d]; ++i)
        block.bounds[d].push_back(ith_range(frng.beg[d], frng.end[d], i, splits[d]).first);
    }
    out.blocks.push_back(std::move(block));
    for (const PartIndex& pidx : gen_pidx(part))
      out.pieces.push_back(
          {fmap_range(part, frng, pidx), coordinate(part, layout.regions[k], pidx)});
  }
  for (std::size_t i = 0; i < out.pieces.size(); ++i) {
    const PhyDim2& n = out.pieces[i].node;
    out.node_lo = i == 0 ? n : PhyDim2{std::min(out.node_lo.h, n.h), std::min(out.node_lo.w, n.w)};
    out.node_hi = i == 0 ? n : PhyDim2{std::max(out.node_hi.h, n.h), std::max(out.node_hi.w, n.w)};
  }
  return out;
}

namespace {

// Calls visit(size, node) for every stored piece of `layout` that overlaps `frng` (size > 0),
// in layout order. Along each dimension the pieces meeting [frng.beg, frng.end) are an index
// interval of the block's bounds (both ends of piece i are non-decreasing in i), and a piece's
// overlap is the product of its per-dimension overlaps.
template <class Visit>
void for_each_overlapping(const LayoutPieces& layout, const FmapRange& frng, HopScratch& scratch,
                          OverlapMemo* memo, Visit visit) {
  if (memo != nullptr && memo->last.size() != layout.blocks.size())
    memo->last.assign(layout.blocks.size(), {});
  for (std::size_t bi = 0; bi < layout.blocks.size(); ++bi) {
    const LayoutPieces::Block& b = layout.blocks[bi];
    std::array<std::size_t, 4> lo{}, num{};
    std::array<const std::vector<std::int64_t>*, 4> ovs{};
    bool met = true;
    for (std::size_t d = 0; d < 4 && met; ++d) {
      OverlapMemo::Interval* last = memo != nullptr ? &memo->last[bi][d] : nullptr;
      if (last != nullptr && last->known && last->beg == frng.beg[d] && last->end == frng.end[d]) {
        lo[d] = last->lo;
        num[d] = last->num;
        ovs[d] = &last->overlaps;
        met = num[d] > 0;
        continue;
      }
      const std::vector<std::int64_t>& bd = b.bounds[d];
      const std::size_t n = bd.size() - 1;
      // First piece ending after frng.beg; first starting at or after frng.end.
      const auto l = static_cast<std::size_t>(
          std::upper_bound(bd.begin() + 1, bd.end(), frng.beg[d]) - (bd.begin() + 1));
      const auto h = static_cast<std::size_t>(
          std::lower_bound(bd.begin(), bd.begin() + static_cast<std::ptrdiff_t>(n), frng.end[d]) -
          bd.begin());
      std::vector<std::int64_t>& ov = last != nullptr ? last->overlaps : scratch.overlaps[d];
      ov.clear();
      for (std::size_t i = l; i < h; ++i)
        ov.push_back(std::max<std::int64_t>(
            0, std::min(bd[i + 1], frng.end[d]) - std::max(bd[i], frng.beg[d])));
      lo[d] = l;
      num[d] = h > l ? h - l : 0;
      ovs[d] = &ov;
      if (last != nullptr) {
        last->known = true;
        last->beg = frng.beg[d];
        last->end = frng.end[d];
        last->lo = lo[d];
        last->num = num[d];
      }
      met = num[d] > 0;
    }
    if (!met) continue;
    // gen_pidx order: OUTP, OFMP (h, w), BATP, INPP, each flattened h-major.
    const std::size_t nfh = b.bounds[2].size() - 1, nfw = b.bounds[3].size() - 1;
    const std::size_t nb = b.bounds[0].size() - 1;
    const auto ni = static_cast<std::size_t>(b.replicas);
    const std::array<const std::int64_t*, 4> ov{ovs[0]->data(), ovs[1]->data(), ovs[2]->data(),
                                                ovs[3]->data()};
    for (std::size_t o = 0; o < num[1]; ++o)
      for (std::size_t fh = 0; fh < num[2]; ++fh)
        for (std::size_t fw = 0; fw < num[3]; ++fw)
          for (std::size_t bt = 0; bt < num[0]; ++bt) {
            const std::int64_t size = ov[1][o] * ov[2][fh] * ov[3][fw] * ov[0][bt];
            if (size == 0) continue;
            const std::size_t at =
                b.first +
                ((((lo[1] + o) * nfh + lo[2] + fh) * nfw + lo[3] + fw) * nb + lo[0] + bt) * ni;
            for (std::size_t r = 0; r < ni; ++r) visit(size, layout.pieces[at + r].node);
          }
  }
}

// nhops_per_dest prices groups of this many destinations or more by lines; smaller ones piece
// by piece, which is fewer operations there (K's GoogLeNet inference: 1.86 M queries, 60.8 M
// piece x destination terms, 49.7 M of them in groups of 4 or more).
constexpr std::size_t kByLinesMin = 8;
// ... and only layouts whose nodes spread over at most this many lines (an array per line).
constexpr std::int64_t kMaxLines = 1024;

// Prefix sums over one axis: weight[j] becomes Σ_{k<=j} weight[k], moment[j] Σ_{k<=j}
// weight[k] * k.
void prefix_sums(std::vector<std::int64_t>& weight, std::vector<std::int64_t>& moment) {
  moment.resize(weight.size());
  std::int64_t w = 0, m = 0;
  for (std::size_t k = 0; k < weight.size(); ++k) {
    m += weight[k] * static_cast<std::int64_t>(k);
    w += weight[k];
    weight[k] = w;
    moment[k] = m;
  }
}

// Σ_k weight_k * |x - k| over the lines k of one axis, from its prefix sums (x may lie outside).
std::int64_t line_distance(const std::vector<std::int64_t>& weight,
                           const std::vector<std::int64_t>& moment, std::int64_t x) {
  const std::int64_t wt = weight.back(), mt = moment.back();
  if (x < 0) return mt - x * wt;
  const auto last = static_cast<std::int64_t>(weight.size()) - 1;
  if (x >= last) return x * wt - mt;
  const auto j = static_cast<std::size_t>(x);
  return (x * weight[j] - moment[j]) + ((mt - moment[j]) - x * (wt - weight[j]));
}

}  // namespace

void nhops_per_dest(const LayoutPieces& layout, const FmapRange& frng,
                    std::span<const PhyDim2> dests, std::vector<std::int64_t>& per_dest,
                    HopScratch& scratch, OverlapMemo* memo) {
  per_dest.assign(dests.size(), 0);
  const PhyDim2 lo = layout.node_lo, span = layout.node_hi - layout.node_lo + PhyDim2{1, 1};
  if (dests.size() < kByLinesMin || span.h <= 0 || span.w <= 0 || span.h > kMaxLines ||
      span.w > kMaxLines) {
    for_each_overlapping(layout, frng, scratch, memo, [&](std::int64_t size, const PhyDim2& node) {
      for (std::size_t i = 0; i < dests.size(); ++i) per_dest[i] += size * dests[i].hop_dist(node);
    });
    return;
  }
  // A hop distance is |dh| + |dw|: a destination's sum over the pieces is the sum of its row
  // distances weighted by the overlap on each row of nodes, plus the same over the columns,
  // found from prefix sums in constant time. Integer sums, so the same numbers.
  auto& rows = scratch.line_weight[0];
  auto& cols = scratch.line_weight[1];
  rows.assign(static_cast<std::size_t>(span.h), 0);
  cols.assign(static_cast<std::size_t>(span.w), 0);
  for_each_overlapping(layout, frng, scratch, memo, [&](std::int64_t size, const PhyDim2& node) {
    rows[static_cast<std::size_t>(node.h - lo.h)] += size;
    cols[static_cast<std::size_t>(node.w - lo.w)] += size;
  });
  prefix_sums(rows, scratch.line_moment[0]);
  prefix_sums(cols, scratch.line_moment[1]);
  for (std::size_t i = 0; i < dests.size(); ++i)
    per_dest[i] = line_distance(rows, scratch.line_moment[0], dests[i].h - lo.h) +
                  line_distance(cols, scratch.line_moment[1], dests[i].w - lo.w);
}

std::int64_t nhops_forwarded(const LayoutPieces& layout, const FmapRange& frng,
                             std::span<const PhyDim2> dests,
                             const std::vector<std::int64_t>& per_dest, std::int64_t tree) {
  KAPLA_ASSERT(!dests.empty(), "nhops_to: forwarding needs a destination");
  // The first fetcher: fewest hops, then the smaller coordinate.
  std::size_t first = 0;
  for (std::size_t i = 1; i < dests.size(); ++i) {
    if (per_dest[i] < per_dest[first] ||
        (per_dest[i] == per_dest[first] && dests[i] < dests[first]))
      first = i;
  }
  const std::int64_t total_size = overlap_size(layout.complete, frng);
  // mst_weight({dests[first]}, dests): the first fetcher is a destination, so this is the
  // spanning tree of the destinations whichever fetches.
  return per_dest[first] + total_size * tree;
}

std::int64_t nhops_to(const LayoutPieces& layout, const FmapRange& frng,
                      const std::vector<PhyDim2>& dests, bool forwarding, HopScratch& scratch) {
  std::vector<std::int64_t>& per_dest = scratch.per_dest;
  nhops_per_dest(layout, frng, dests, per_dest, scratch);
  if (forwarding)
    return nhops_forwarded(layout, frng, dests, per_dest, tree_weight(dests, scratch));
  std::int64_t s = 0;
  for (auto v : per_dest) s += v;
  return s;
}

std::int64_t nhops_to(const DataLayout& layout, const FmapRange& frng,
                      const std::vector<PhyDim2>& dests, bool forwarding) {
  HopScratch scratch;
  return nhops_to(layout_pieces(layout), frng, dests, forwarding, scratch);
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
