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

/// The filter a strategy asks for, or an empty one: with LayerStrategy::prunes_constraints(),
/// a (segment, constraint) pair is dropped when constraint_may_fit() is false for one of its
/// layers (on its allocated resource; a lazily resolved topofm counts as unconstrained). No
/// segment filter (see the overload below).
/// `strategy` and `net` must outlive the filter.
SegmentFilter strategy_segment_filter(const search::LayerStrategy& strategy,
                                      const model::Network& net, std::int64_t batch);

/// The same plus the strategy's segment selection (LayerStrategy::select_segments, K:
/// kapla-spec.md §4.3), which needs the costs and options the layers are priced with. The
/// segments are offered with their constraints (options.layer_pipeline_time_ovhd) and their
/// positions in the scheduling order. `strategy` and `net` must outlive the filter.
SegmentFilter strategy_segment_filter(const search::LayerStrategy& strategy,
                                      const model::Network& net, std::int64_t batch,
                                      const model::UnitCosts& costs,
                                      const model::SearchOptions& options);

/// A segment as the strategy sees it: each layer on its allocated resource, its constraints
/// (a lazily resolved topofm = 0), its positions in the scheduling order `pos` (per layer).
search::SegmentCandidate segment_candidate(const PipelineSegment& seg, const model::Network& net,
                                           std::int64_t batch, const model::UnitCosts& costs,
                                           const model::SearchOptions& options,
                                           const std::vector<std::size_t>& pos);

}  // namespace kapla::schedule
