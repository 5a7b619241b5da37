// NoC hops of moving each data category once between memory and the processing nodes
// (nn_dataflow unit_nhops_to_proc_region), computed exactly: no memo, so none of the
// reference's key-collision (spec §8.6.1). Spec: nn_dataflow-spec.md §8.6, §11.18-22.
#pragma once

#include <vector>

#include "core/enum_array.hpp"
#include "core/phy_dim2.hpp"
#include "mapping/data_layout.hpp"
#include "mapping/data_layout_ops.hpp"
#include "mapping/node_region.hpp"
#include "mapping/partition_scheme.hpp"
#include "model/layer.hpp"
#include "model/options.hpp"

namespace kapla::mapping {

/// The filter sources: the distinct node coordinates of the memory region, sorted (every
/// memory node holds a copy of the weights; spec §8.6, §11.20).
std::vector<PhyDim2> filter_nodes(const NodeRegion& dram_region);

/// What the placements of every partition of one problem share: the filter sources
/// (filter_nodes) and the pieces of the ifmap layout (K and B place hundreds of partitions
/// per problem).
struct PlacementSources {
  std::vector<PhyDim2> filter_nodes;
  LayoutPieces ifmap_pieces;
};
PlacementSources placement_sources(const NodeRegion& dram_region, const DataLayout& ifmap_layout);

/// The hops of one partition that do not depend on the ifmap layout: the filters' and the
/// ofmaps' (unit_nhops_to_proc_region's FIL and OFM), and the ifmap groups (each distinct
/// ifmap range with the nodes that read it, in gen_pidx order, and with forwarding their
/// spanning tree), from which ifmap_nhops prices the ifmaps of any layout. K prices one
/// partition under many ifmap layouts (one per producer partition of the segments ending at
/// the layer): these are found once for all of them.
struct PartitionHops {
  /// One ifmap group: its nodes are ifm_nodes[first, first + count), in gen_pidx order (one
  /// vector for all groups: a 256-node partition has up to 256 groups).
  struct IfmGroup {
    FmapRange range;
    std::size_t first = 0;
    std::size_t count = 0;
    std::int64_t tree = 0;  // tree_weight(nodes) with forwarding, else 0
  };
  std::int64_t fil = 0;
  std::int64_t ofm = 0;
  bool forwarding = false;
  std::vector<IfmGroup> ifm_groups;
  std::vector<PhyDim2> ifm_nodes;
};
PartitionHops partition_hops(const model::Layer& layer, std::int64_t batch,
                             const NodeRegion& proc_region, const PartitionScheme& part,
                             const std::vector<PhyDim2>& filter_nodes,
                             const DataLayout& ofmap_layout, const model::SearchOptions& options);
/// The IFM hops of unit_nhops_to_proc_region from the partition's hops and the pieces of the
/// ifmap layout.
std::int64_t ifmap_nhops(const PartitionHops& hops, const LayoutPieces& ifmap_pieces,
                         HopScratch& scratch);
/// (FIL, IFM, OFM) as unit_nhops_to_proc_region returns them.
PerDataCategory<double> unit_nhops(const PartitionHops& hops, const LayoutPieces& ifmap_pieces);

/// Hops (FIL, IFM, OFM) for fetching the filters from `filter_nodes` (the distinct memory
/// node coordinates), the ifmaps from `ifmap_layout`, and storing the ofmaps into
/// `ofmap_layout`, for `layer` partitioned by `part` on `proc_region`. Forwarding variants
/// (MST) apply with options.hw_access_forwarding or options.hw_gbuf_sharing.
PerDataCategory<double> unit_nhops_to_proc_region(const model::Layer& layer, std::int64_t batch,
                                                  const NodeRegion& proc_region,
                                                  const PartitionScheme& part,
                                                  const std::vector<PhyDim2>& filter_nodes,
                                                  const DataLayout& ifmap_layout,
                                                  const DataLayout& ofmap_layout,
                                                  const model::SearchOptions& options);
/// The same from the problem's placement sources.
PerDataCategory<double> unit_nhops_to_proc_region(const model::Layer& layer, std::int64_t batch,
                                                  const NodeRegion& proc_region,
                                                  const PartitionScheme& part,
                                                  const PlacementSources& sources,
                                                  const DataLayout& ofmap_layout,
                                                  const model::SearchOptions& options);

}  // namespace kapla::mapping
