// Writes a canonical scheme (partition, nested loop, blocking) as directives (kapla-spec.md
// §1.2 form) for printing (and for KAPLA's estimator in the tests): GBUF stacks from the partition,
// the row-stationary base stacks/updates plus the replication stacks at REGF, tensors from the
// blocking factors, updates in the blocking's loop orders. Back kinds are written on their
// forward-equivalent per-node layer (the map strategy's view).
#pragma once

#include <string>

#include "cost/map_strategy.hpp"
#include "mapping/part_layer.hpp"
#include "search/kapla/canonical.hpp"
#include "search/kapla/directives.hpp"

namespace kapla::search::kapla {

/// Row-stationary folding of the per-node layer on the PE array (nn_dataflow-spec.md §6.2):
/// logical PE set (filter rows x output rows), folds and the folded set.
struct RsGeometry {
  PhyDim2 logical;  // (h = filter/window rows, w = output rows)
  PhyDim2 fold{1, 1};
  PhyDim2 folded;  // flpe
};
/// The folding of a map-strategy geometry (the one a nest was built from:
/// cost::MapResult::nld_geometry).
RsGeometry rs_geometry(const cost::MapGeometry& g);
/// nn_dataflow's folding of `p_layer` on `pe_array` (the geometry of its first nests).
RsGeometry rs_geometry(const model::Layer& p_layer, PhyDim2 pe_array);

/// `nest`'s directives, with the folding `g` it was mapped with.
DirectiveSchedule build_directives(const model::Layer& layer, const mapping::PartLayer& pl,
                                   const CanonicalScheme& s, const NodeNest& nest,
                                   const RsGeometry& g, std::string layer_name);
/// The same for a nest of nn_dataflow's folding on `pe_array`.
DirectiveSchedule build_directives(const model::Layer& layer, const mapping::PartLayer& pl,
                                   const CanonicalScheme& s, const NodeNest& nest, PhyDim2 pe_array,
                                   std::string layer_name);

}  // namespace kapla::search::kapla
