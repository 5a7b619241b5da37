// Inter-layer pruning hooks of the network search (K: kapla-spec.md §4.2-4.3).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "model/network.hpp"
#include "schedule/pipeline_segment.hpp"
#include "search/strategy.hpp"

namespace kapla::schedule {

/// Inter-layer pruning hooks a strategy may provide (K: kapla-spec.md §4.2-4.3). Applied to
/// the distinct segments before the beam search; a dropped segment or (segment, constraint)
/// pair is never searched. Empty functions keep everything (B, S, R, M: unaffected).
/// Must be deterministic and callable from the searching thread only.
struct SegmentFilter {
  /// Keep-flag per segment: called once with all distinct segments in generation order;
  /// returns one flag per segment.
  std::function<std::vector<bool>(const std::vector<const PipelineSegment*>&)> segments;
  /// Keep-flag of one constraint of a kept segment.
  std::function<bool(const PipelineSegment&, const SegmentConstraint&)> constraint;
  bool empty() const { return !segments && !constraint; }
};

/// A segment layer's constraint as a pricing::LayerConstraint before scheduling: a topofm
/// taken lazily from another layer's result is unknown, so 0 (unconstrained).
pricing::LayerConstraint layer_constraint(const SegmentLayerConstraint& lc);

/// Layer (sp, tm) of a segment on its allocated resource, without constraint, costs or options.
pricing::LayerProblem segment_layer_problem(const PipelineSegment& seg, std::size_t sp,
                                            std::size_t tm, const model::Network& net,
                                            std::int64_t batch);

/// The filter of a strategy's inter-layer pruning (empty if it prunes nothing): a (segment,
/// constraint) pair is dropped when pruning.constraint_may_fit is false for one of its layers
/// (on its allocated resource; a lazily resolved topofm counts as unconstrained), and segments
/// by pruning.select_segments, offered with their constraints
/// (options.layer_pipeline_time_ovhd), the costs and options the layers are priced with, and
/// their positions in the scheduling order. `net` (and what the pruning refers to) must
/// outlive the filter. Callers normally let run_network (run_network.hpp) apply it.
SegmentFilter segment_filter_of(const search::InterLayerPruning& pruning, const model::Network& net,
                                std::int64_t batch, const model::UnitCosts& costs,
                                const model::SearchOptions& options);

/// A segment as the strategy sees it: each layer on its allocated resource, its constraints
/// (a lazily resolved topofm = 0), its positions in the scheduling order `pos` (per layer).
search::SegmentCandidate segment_candidate(const PipelineSegment& seg, const model::Network& net,
                                           std::int64_t batch, const model::UnitCosts& costs,
                                           const model::SearchOptions& options,
                                           const std::vector<std::size_t>& pos);

}  // namespace kapla::schedule
