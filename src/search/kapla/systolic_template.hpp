// The systolic array-mapping template (kapla-spec.md §2.2) on the cost model's systolic nests:
// which PE replication a nest of cost::map_systolic stands for, and a canonical scheme
// (partition, nest, blocking) written as KAPLA directives over the systolic dims N, C, K,
// XY (output positions), F (filter window). Like directive_builder.hpp for row stationary, it
// only describes a scheme; every strategy prices schemes through pricing/fixed_scheme.hpp, and
// K's greedy already works on the systolic nests through the layer oracle (docs/kapla_systolic.md).
#pragma once

#include <cstdint>
#include <string>

#include "cost/map_strategy.hpp"
#include "mapping/part_layer.hpp"
#include "search/kapla/canonical.hpp"
#include "search/kapla/directives.hpp"

namespace kapla::search::kapla {

/// The PE replication of one systolic nest: copies of the folded logical PE set (XY x K) over
/// batch (h) and, for Conv/FC, input channels (w); channelwise kinds replicate over batch and
/// output channels instead.
struct SystolicReplication {
  std::int64_t batches = 1;
  std::int64_t ifms = 1;    // Conv/FC only
  std::int64_t ofmaps = 1;  // channelwise kinds only
  friend bool operator==(const SystolicReplication&, const SystolicReplication&) = default;
};

/// The replication of nest `nest_index` of cost::map_systolic(p_layer, batch, ...) with geometry
/// `g`: Conv/FC have one nest (all of repl.w on input channels, repl.h on batch); channelwise
/// kinds have one nest per (h0, w0) in divisors(repl.h) x divisors(repl.w), batches =
/// min(h0*w0, batch), ofmaps = min((repl.h/h0)*(repl.w/w0), nofm), in map_systolic's order.
SystolicReplication systolic_replication(const model::Layer& p_layer, std::int64_t batch,
                                         const cost::MapGeometry& g, int nest_index);

/// The directives of a canonical scheme on a systolic array (kapla-spec.md §2.2): REGF base
/// stacks ("K",1,"F",1, logic.w) and ("XY",1,"F",1, logic.h), the nest's replication stacks,
/// base update ("F",1) x window, then the REGF loop updates (the BAT loop iterates the folds of
/// output positions, then images); GBUF stacks from the partition (OFMP on XY) and the top
/// loop updates. `g` is the map strategy's geometry of the partitioned layer.
DirectiveSchedule build_systolic_directives(const model::Layer& layer, const mapping::PartLayer& pl,
                                            const CanonicalScheme& s, const NodeNest& nest,
                                            const cost::MapGeometry& g, std::string layer_name);

}  // namespace kapla::search::kapla
