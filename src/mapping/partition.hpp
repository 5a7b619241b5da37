// Geometry of a partition scheme over a node region (nn_dataflow PartitionScheme methods):
// partition indices, node coordinates, fmap splits, projection onto another region, and
// neighbour distances. Spec: nn_dataflow-spec.md §8.1.
#pragma once

#include <vector>

#include "core/enum_array.hpp"
#include "core/phy_dim2.hpp"
#include "mapping/data_layout.hpp"
#include "mapping/node_region.hpp"
#include "mapping/partition_scheme.hpp"

namespace kapla::mapping {

/// A partition index: the (h, w) position within each parallelism's factor.
using PartIndex = PerParallelDim<PhyDim2>;

/// A 2D distance (h, w) in hops; fractional (an average) and possibly +inf (no neighbour
/// along that dimension).
struct Dist2 {
  double h = 0;
  double w = 0;
  double operator[](int i) const { return i == 0 ? h : w; }
  friend bool operator==(const Dist2&, const Dist2&) = default;
};

/// All partition indices: Cartesian product over OUTP, OFMP, BATP, INPP (first varies
/// slowest), each over h (outer) then w (inner); not in `order` (spec §11.16).
std::vector<PartIndex> gen_pidx(const PartitionScheme& part);

/// Absolute node coordinate of a partition index: levels composed in `order`, top first.
PhyDim2 coordinate(const PartitionScheme& part, const NodeRegion& region, const PartIndex& pidx);

/// The sub-range of `frng` (b, n, h, w) for `pidx`: floor-based even splits by BATP (b),
/// OUTP (n), OFMP (h, w); INPP does not split fmaps.
FmapRange fmap_range(const PartitionScheme& part, const FmapRange& frng, const PartIndex& pidx);

/// Whether only BATP, OUTP and OFMP partition (INPP trivial).
bool is_applicable_to_fmap_range(const PartitionScheme& part);

/// The same scheme re-fitted onto `region` (extend BATP; shrink bottom levels first); with
/// `appl2frng`, INPP is first reset to (1, 1). Throws InternalError for an empty region.
PartitionScheme projection(const PartitionScheme& part, const NodeRegion& region,
                           bool appl2frng = false);

/// Average hop distance between logically adjacent partitions of `pae`, per dimension;
/// +inf along a dimension with no neighbours.
Dist2 part_neighbor_dist(const PartitionScheme& part, const NodeRegion& region, ParallelDim pae);
/// part_neighbor_dist for every parallelism kind at once (a closed form on an unfolded region,
/// one pass over the nodes on a folded one; the same values bit for bit): buffer sharing needs
/// three or four of them per partition.
PerParallelDim<Dist2> part_neighbor_dists(const PartitionScheme& part, const NodeRegion& region);
/// The same by walking every node's coordinate (what part_neighbor_dists does for a folded
/// region; an unfolded one has a closed form). Exposed for the test that compares the two.
PerParallelDim<Dist2> part_neighbor_dists_walked(const PartitionScheme& part,
                                                 const NodeRegion& region);

}  // namespace kapla::mapping
