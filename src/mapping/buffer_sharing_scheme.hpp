// Buffer sharing among the nodes that need the same data (nn_dataflow BufShrScheme): per data
// category, the node group that shares it, its neighbour distances, and the NoC hops of
// rotating the shared data around a sub-group or fetching it "wide" from upstream neighbours.
// Spec: nn_dataflow-spec.md §8.9.1-§8.9.2.
#pragma once

#include <cstdint>

#include "core/enum_array.hpp"
#include "core/phy_dim2.hpp"
#include "mapping/data_loops.hpp"
#include "mapping/node_region.hpp"
#include "mapping/partition.hpp"
#include "mapping/partition_scheme.hpp"

namespace kapla::mapping {

/// The buffer-sharing scheme. A plain value: all queries are const and allocation-free, so
/// the loop-blocking hot loop may call them freely (the reference's per-object memo is not
/// needed: each query is a few integer operations).
struct BufShrScheme {
  /// Node-group dims sharing each category; (1, 1) = not shared.
  PerDataCategory<PhyDim2> dims{{PhyDim2{1, 1}, PhyDim2{1, 1}, PhyDim2{1, 1}}};
  /// Average hop distance between logical neighbours of each group, per dimension.
  PerDataCategory<Dist2> nbr_dists;
  /// The nodes of the partition that compute (its part.size()); the others of the region idle
  /// (a spatially imperfect scheme on a sub-grid, docs/imperfect.md). 0 = every node of the
  /// processing region, as in the reference, whose partitions always fill their region.
  std::int64_t used_nodes = 0;

  /// The unshared scheme: every group (1, 1), distances +inf.
  BufShrScheme();
  /// Directly from the per-category dims and neighbour distances. Throws InternalError if a
  /// distance is NaN, or +inf along a dimension of size > 1 (the reference's assertion).
  BufShrScheme(const PerDataCategory<PhyDim2>& dims, const PerDataCategory<Dist2>& nbr_dists);

  /// Size of the node group sharing `d`.
  std::int64_t size(DataCategory d) const { return dims[d].size(); }

  /// What the hop queries below compute from (d, M) alone, before they look at the rotation
  /// unit count or the fetch width. Buffer sharing prices hundreds of loop orders of one
  /// scheme with a handful of (d, M) pairs, so it computes these once per pair.
  struct RotationPath {
    DataCategory d = DataCategory::Fil;
    std::int64_t subgrp_size = 1;  // M
    double round_hops = 0;         // neighbour chain + loop-back hops of one sub-group
  };
  RotationPath rotation_path(DataCategory d, std::int64_t subgrp_size) const;
  /// nhops_rotate_all(path.d, path.subgrp_size, rotation_unit_cnt), bit for bit.
  double nhops_rotate_all(const RotationPath& path, double rotation_unit_cnt) const;
  /// nhops_wide_fetch_once(path.d, path.subgrp_size, fetch_width), bit for bit.
  double nhops_wide_fetch_once(const RotationPath& path, double fetch_width) const;

  /// Hops of one whole rotation round of `d` among sub-groups of `subgrp_size` (M) nodes,
  /// with `rotation_unit_cnt` (U) rotation units, relative to the unique data size
  /// (§8.9.2). Throws InternalError if no multiple of M up to size(d) divides size(d).
  double nhops_rotate_all(DataCategory d, std::int64_t subgrp_size,
                          double rotation_unit_cnt) const {
    return nhops_rotate_all(rotation_path(d, subgrp_size), rotation_unit_cnt);
  }
  /// Same with U = M.
  double nhops_rotate_all(DataCategory d, std::int64_t subgrp_size) const {
    return nhops_rotate_all(d, subgrp_size, static_cast<double>(subgrp_size));
  }
  /// Hops of one wide fetch of width W (fraction of the sub-group's data a node reads),
  /// relative to the unique data size (§8.9.2). 0 if W <= 1; InternalError if W > M.
  double nhops_wide_fetch_once(DataCategory d, std::int64_t subgrp_size, double fetch_width) const {
    if (fetch_width <= 1) return 0.0;
    return nhops_wide_fetch_once(rotation_path(d, subgrp_size), fetch_width);
  }

  friend bool operator==(const BufShrScheme&, const BufShrScheme&) = default;
};

/// The scheme of a partitioned layer on `region` (§8.9.1): each category is shared by the
/// nodes of the first loop that is not one of its data loops (BAT ~ OFMP/BATP, OFM ~ OUTP,
/// IFM ~ INPP). Throws InternalError if the partition does not fit in the region.
BufShrScheme make_bufshr_scheme(const NodeRegion& region, const PartitionScheme& part,
                                const PerDataCategory<LoopSet>& data_loops);

}  // namespace kapla::mapping
