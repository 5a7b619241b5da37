// Functions over data layouts (nn_dataflow DataLayout methods) and the layouts a layer
// produces: hop counts to destinations (plain, or forwarded along a minimum spanning tree),
// concatenation, the ofmap layout and the network input layouts.
// Spec: nn_dataflow-spec.md §8.5, §8.7, §11.18, §11.26.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "core/phy_dim2.hpp"
#include "mapping/data_layout.hpp"
#include "mapping/node_region.hpp"
#include "mapping/partition_scheme.hpp"
#include "model/layer.hpp"
#include "model/options.hpp"

namespace kapla::mapping {

/// Number of elements in the intersection of two ranges (0 if disjoint).
std::int64_t overlap_size(const FmapRange& a, const FmapRange& b);

/// From frngs.front().beg to frngs.back().end.
FmapRange complete_fmap_range(const DataLayout& layout);

/// Concatenation along the channel dimension, channel offsets accumulating in order.
/// The layout of data read as another shape (a MatMul operand, a change of heads;
/// docs/transformers.md §5.1): `layout` itself if its complete range is `full`, else one piece
/// `full` stored on the first piece's region and split by its partition, which spreads the
/// words over the same nodes as the producer spread them.
DataLayout reshaped(const DataLayout& layout, const FmapRange& full);

DataLayout concat(const std::vector<DataLayout>& layouts);

/// Hops to bring `frng` to every destination. Without forwarding: the sum over destinations
/// of Σ overlap * distance from each stored piece. With forwarding: the destination with the
/// fewest such hops (ties: smaller coordinate) fetches, then the complete-range overlap size
/// times the Manhattan MST weight of the distinct destinations.
std::int64_t nhops_to(const DataLayout& layout, const FmapRange& frng,
                      const std::vector<PhyDim2>& dests, bool forwarding = false);

/// A layout flattened into its stored pieces (each node's fmap range and coordinate), so that
/// the many hop queries of one partition (one per data group) enumerate the layout once.
struct LayoutPieces {
  struct Piece {
    FmapRange frng;
    PhyDim2 node;
  };
  std::vector<Piece> pieces;
  FmapRange complete;  // complete_fmap_range(layout); empty range for an empty layout
  /// Per layout entry, its pieces (from `first`, in gen_pidx order) and how its partition
  /// splits its range: along dimension d (batch by BATP, channels by OUTP, height and width by
  /// OFMP), piece i spans [bounds[d][i], bounds[d][i + 1]). A hop query then finds the pieces
  /// a range overlaps, and the overlap sizes, dimension by dimension instead of testing every
  /// piece of the layout.
  struct Block {
    std::size_t first = 0;
    std::array<std::vector<std::int64_t>, 4> bounds;
    std::int64_t replicas = 1;  // INPP: nodes holding the same piece, innermost in gen_pidx
  };
  std::vector<Block> blocks;
  /// The smallest box holding every piece's node (node_lo > node_hi when there is none).
  PhyDim2 node_lo{0, 0}, node_hi{-1, -1};
};
LayoutPieces layout_pieces(const DataLayout& layout);

/// Buffers the hop functions below reuse from call to call: the placement of one partition
/// asks them once per data group (K's GoogLeNet inference run: 2.2 M groups), and their
/// vectors, allocated per call, were 9.5 M of the run's 21 M allocations. One per caller and
/// thread; the results never depend on what the buffers held.
struct HopScratch {
  std::vector<std::int64_t> per_dest;
  // Per dimension, the overlap lengths of the pieces a range meets.
  std::array<std::vector<std::int64_t>, 4> overlaps;
  // Minimum spanning trees: Prim's state, or a grid's distinct rows, columns and gaps.
  std::vector<PhyDim2> todo;
  std::vector<std::int64_t> best;
  std::vector<std::int64_t> rows, cols, row_gaps, col_gaps;
  std::vector<unsigned char> seen;
  std::vector<std::uint64_t> edges;
  std::vector<std::uint32_t> roots;
  // Per axis (rows, columns) of a layout's node box: the overlap stored on each line, then
  // its prefix sums of weight and of weight times position.
  std::array<std::vector<std::int64_t>, 2> line_weight, line_moment;
};

/// The last range nhops_per_dest looked up per block and dimension of ONE layout, with the
/// pieces it met there (two binary searches and their overlaps): a partition's data groups,
/// priced one after the other, mostly differ in one dimension (82 % of the lookups repeat the
/// last one on GPT-2 prefill 2-D). Keep one per layout, next to it, while pricing that
/// layout's groups; never pass it with another layout.
struct OverlapMemo {
  struct Interval {
    bool known = false;
    std::int64_t beg = 0, end = 0;  // the range along the dimension
    std::size_t lo = 0, num = 0;    // its pieces: [lo, lo + num) of the block's splits
    std::vector<std::int64_t> overlaps;
  };
  std::vector<std::array<Interval, 4>> last;  // per block of the layout
};

/// Per destination, Σ overlap * distance from each stored piece (nhops_to without forwarding,
/// destination by destination), into `per_dest`. `memo`: see OverlapMemo (the same numbers).
void nhops_per_dest(const LayoutPieces& layout, const FmapRange& frng,
                    std::span<const PhyDim2> dests, std::vector<std::int64_t>& per_dest,
                    HopScratch& scratch, OverlapMemo* memo = nullptr);
/// nhops_to with forwarding, from the per-destination hops nhops_per_dest returned and
/// `tree` = tree_weight(dests) (callers that price one group under many layouts keep it).
std::int64_t nhops_forwarded(const LayoutPieces& layout, const FmapRange& frng,
                             std::span<const PhyDim2> dests,
                             const std::vector<std::int64_t>& per_dest, std::int64_t tree);
/// nhops_to on a flattened layout.
std::int64_t nhops_to(const LayoutPieces& layout, const FmapRange& frng,
                      const std::vector<PhyDim2>& dests, bool forwarding, HopScratch& scratch);

/// Weight of the Manhattan-metric minimum spanning forest that connects every `dests` node to
/// the pre-connected `sources` (Prim from the sources; duplicates collapse). With a scratch:
/// the same weight, by Kruskal over a grid's neighbour edges when many destinations form a
/// full grid (a filter group on an unfolded region).
std::int64_t mst_weight(const std::vector<PhyDim2>& sources, const std::vector<PhyDim2>& dests);
std::int64_t mst_weight(const std::vector<PhyDim2>& sources, const std::vector<PhyDim2>& dests,
                        HopScratch& scratch);
/// Weight of the Manhattan minimum spanning tree of the distinct `nodes` (non-empty): what
/// mst_weight({nodes[0]}, nodes) returns. A closed form when the nodes are a full grid
/// (every pair of a row coordinate and a column coordinate present), as the nodes of one data
/// group on an unfolded region are; Prim otherwise.
std::int64_t tree_weight(const std::vector<PhyDim2>& nodes, HopScratch& scratch);

/// The ofmap layout of a layer: the full ofmap range on `dst_region`, split by `part`
/// projected onto it (INPP dropped).
DataLayout ofmap_layout(const model::Layer& layer, std::int64_t batch, const PartitionScheme& part,
                        const NodeRegion& dst_region);

/// The candidate network input layouts: one per scheme of gen_input_partition(nofm, sofm,
/// batch, src_region.dim, options), each projected onto `src_region`.
std::vector<DataLayout> input_layouts(std::int64_t nofm, PhyDim2 sofm, std::int64_t batch,
                                      const NodeRegion& src_region,
                                      const model::SearchOptions& options);

}  // namespace kapla::mapping
