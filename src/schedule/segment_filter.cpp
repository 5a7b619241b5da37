// The inter-layer pruning a strategy asks for (kapla-spec.md §4.2).
#include "schedule/segment_filter.hpp"

namespace kapla::schedule {

SegmentFilter strategy_segment_filter(const search::LayerStrategy& strategy,
                                      const model::Network& net, std::int64_t batch) {
  SegmentFilter f;
  if (!strategy.prunes_constraints()) return f;
  f.constraint = [&strategy, &net, batch](const PipelineSegment& seg, const SegmentConstraint& c) {
    for (std::size_t sp = 0; sp < seg.size(); ++sp) {
      for (std::size_t tm = 0; tm < seg.layers()[sp].size(); ++tm) {
        const auto& lc = c.layers[sp][tm];
        search::LayerProblem p;
        p.layer = net.layer(seg.layers()[sp][tm]);
        p.batch = batch;
        p.resource = seg.allocation()[sp][tm];
        p.constraint = {lc.topbat, lc.topifm, lc.topofm_from_layer ? 0 : lc.topofm, lc.fbifm,
                        lc.fbofm};
        if (!strategy.constraint_may_fit(p)) return false;
      }
    }
    return true;
  };
  return f;
}

}  // namespace kapla::schedule
