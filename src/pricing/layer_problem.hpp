// One per-layer pricing problem (nn_dataflow Scheduling + SchedulingCondition): the layer, the
// resource it runs on, the scheduling constraint, the ifmap layout, the unit costs and options.
// Every strategy searches one of these and prices its schemes through pricing/fixed_scheme.hpp.
// Spec: nn_dataflow-spec.md §9.2-9.3.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "core/enum_array.hpp"
#include "cost/loop_blocking_search.hpp"
#include "mapping/data_layout.hpp"
#include "mapping/resource.hpp"
#include "model/hardware.hpp"
#include "model/layer.hpp"
#include "model/options.hpp"

namespace kapla::pricing {

/// Constraint on the top-level (DRAM-level) blocking of a layer (nn_dataflow
/// SchedulingConstraintLayerPipeline after its lazy rules are applied); 0 = unconstrained.
/// fbifm/fbofm (fully buffered fmaps) imply topifm/topofm == 1. Spec: nn_dataflow-spec.md §9.3.
struct LayerConstraint {
  std::int64_t topbat = 0;
  std::int64_t topifm = 0;
  std::int64_t topofm = 0;
  bool fbifm = false;
  bool fbofm = false;
  /// The factors the loop-blocking search enforces (fbifm/fbofm folded in).
  cost::TopBlockingConstraint top_blocking() const {
    return {topbat, fbifm ? 1 : topifm, fbofm ? 1 : topofm};
  }
  /// nn_dataflow is_valid_top_bl (cost::TopBlockingConstraint's rule on top_blocking()).
  bool is_valid_top_bl(const PerLoopDim<std::int64_t>& top_t,
                       const PerLoopDim<int>& top_ord) const {
    return top_blocking().is_valid_top_bl(top_t, top_ord);
  }
  friend bool operator==(const LayerConstraint&, const LayerConstraint&) = default;
};

/// Everything one per-layer search needs (nn_dataflow Scheduling + SchedulingCondition).
struct LayerProblem {
  model::Layer layer;
  std::int64_t batch = 1;
  mapping::Resource resource;
  LayerConstraint constraint;
  mapping::DataLayout ifmap_layout;
  /// (segment, spatial, temporal) index; copied into results only.
  std::array<int, 3> sched_seq{0, 0, 0};
  model::UnitCosts costs;
  model::SearchOptions options;
};

/// Sets the problem's layer and batch for `layer` of a network scheduled at `network_batch`:
/// a transformer kind's heads are samples of the layer (docs/transformers.md §1), so the
/// problem's layer has nhead 1 and its batch is network_batch * heads. Every per-layer problem
/// built from a network goes through here, so pricing never sees heads.
void set_layer(LayerProblem& p, const model::Layer& layer, std::int64_t network_batch);

/// A canonical key of a problem (bytes: compared and hashed, not shown): every input, except
/// the ifmap layout unless `with_layout`, and never sched_seq (copied into results only).
std::string problem_key(const LayerProblem& p, bool with_layout);

/// The problem's layer and batch as a key: what every problem of one layer shape shares. The
/// network search names memo entries by it to drop them once no segment left holds a layer
/// of that shape (search::SearchMemo::release).
std::string layer_scope(const LayerProblem& p);

}  // namespace kapla::pricing
