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
