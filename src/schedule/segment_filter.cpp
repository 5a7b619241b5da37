// The inter-layer pruning a strategy asks for (kapla-spec.md §4.2-4.3).
#include "schedule/segment_filter.hpp"

#include "schedule/sched_dag.hpp"

namespace kapla::schedule {

pricing::LayerConstraint layer_constraint(const SegmentLayerConstraint& lc) {
  // A topofm taken later from another layer's result is unknown here: unconstrained.
  return {lc.topbat, lc.topifm, lc.topofm_from_layer ? 0 : lc.topofm, lc.fbifm, lc.fbofm};
}

pricing::LayerProblem segment_layer_problem(const PipelineSegment& seg, std::size_t sp,
                                            std::size_t tm, const model::Network& net,
                                            std::int64_t batch) {
  pricing::LayerProblem p;
  pricing::set_layer(p, net.layer(seg.layers()[sp][tm]), batch);
  p.resource = seg.allocation()[sp][tm];
  return p;
}

search::SegmentCandidate segment_candidate(const PipelineSegment& seg, const model::Network& net,
                                           std::int64_t batch, const model::UnitCosts& costs,
                                           const model::SearchOptions& options,
                                           const std::vector<std::size_t>& pos) {
  search::SegmentCandidate c;
  c.first = pos[seg.first_layer()];
  c.last = pos[seg.last_layer()];
  for (std::size_t sp = 0; sp < seg.size(); ++sp) {
    for (std::size_t tm = 0; tm < seg.layers()[sp].size(); ++tm) {
      pricing::LayerProblem p = segment_layer_problem(seg, sp, tm, net, batch);
      p.costs = costs;
      p.options = options;
      c.layers.push_back(std::move(p));
    }
  }
  for (const auto& sc : seg.constraints(options.layer_pipeline_time_ovhd)) {
    std::vector<pricing::LayerConstraint> per_layer;
    for (const auto& row : sc.layers)
      for (const auto& lc : row) per_layer.push_back(layer_constraint(lc));
    c.constraints.push_back(std::move(per_layer));
  }
  return c;
}

SegmentFilter segment_filter_of(const search::InterLayerPruning& pruning, const model::Network& net,
                                std::int64_t batch, const model::UnitCosts& costs,
                                const model::SearchOptions& options) {
  SegmentFilter f;
  if (pruning.constraint_may_fit) {
    f.constraint = [may_fit = pruning.constraint_may_fit, &net, batch](const PipelineSegment& seg,
                                                                       const SegmentConstraint& c) {
      for (std::size_t sp = 0; sp < seg.size(); ++sp) {
        for (std::size_t tm = 0; tm < seg.layers()[sp].size(); ++tm) {
          pricing::LayerProblem p = segment_layer_problem(seg, sp, tm, net, batch);
          p.constraint = layer_constraint(c.layers[sp][tm]);
          if (!may_fit(p)) return false;
        }
      }
      return true;
    };
  }
  if (pruning.select_segments) {
    f.segments = [select = pruning.select_segments, &net, batch, costs,
                  options](const std::vector<const PipelineSegment*>& segs) {
      const auto order = build_sched_dag(net).ordered_layers();
      std::vector<std::size_t> pos(net.size(), 0);
      for (std::size_t i = 0; i < order.size(); ++i) pos[order[i]] = i;
      std::vector<search::SegmentCandidate> cands;
      cands.reserve(segs.size());
      for (const auto* s : segs) {
        cands.push_back(segment_candidate(*s, net, batch, costs, options, pos));
      }
      return select(cands, order.size());
    };
  }
  return f;
}

}  // namespace kapla::schedule
