// Enumeration of the partition schemes of a layer over a node array, in the reference's
// exact order (nn_dataflow partition.gen_partition; the KAPLA fork's rules for back and
// depthwise layers). Spec: nn_dataflow-spec.md §8.2, §12.4.
#pragma once

#include <cstdint>
#include <vector>

#include "core/phy_dim2.hpp"
#include "mapping/partition_scheme.hpp"
#include "model/layer.hpp"
#include "model/options.hpp"

namespace kapla::mapping {

/// All partition schemes of `layer` (batch `batch`) over `dim_nodes` nodes, in generation
/// order (ties in the search are broken by this order). With `guaranteed`, yields the naive
/// OFMP-only (or OUTP-only for 1x1 outputs) scheme when nothing else qualifies.
std::vector<PartitionScheme> gen_partition(const model::Layer& layer, std::int64_t batch,
                                           PhyDim2 dim_nodes, const model::SearchOptions& options,
                                           bool guaranteed = true);

/// The same for the network's input layer (nn_dataflow InputLayer: nofm channels of size
/// `sofm`, no filter, no input channels). Upstream and the fork differ for 1x1 inputs; the
/// variant follows options.cost_model.
std::vector<PartitionScheme> gen_input_partition(std::int64_t nofm, PhyDim2 sofm,
                                                 std::int64_t batch, PhyDim2 dim_nodes,
                                                 const model::SearchOptions& options,
                                                 bool guaranteed = true);

}  // namespace kapla::mapping
