// A lower bound of what a (segment, constraint) pair adds to a network scheme, from the layer
// bounds of pricing/cost_bound.hpp: the network search's branch and bound
// (NetworkSearchOptions::bound_pruning) skips a pair whose bound on top of the best prefix
// cannot enter the kept schemes. Spec: nn_dataflow-spec.md §3.4 (network totals), §9.7 (timing).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "model/hardware.hpp"
#include "model/network.hpp"
#include "model/options.hpp"
#include "pricing/cost_bound.hpp"
#include "pricing/layer_problem.hpp"
#include "pricing/refetch_bound.hpp"
#include "schedule/network_scheme.hpp"
#include "schedule/pipeline_segment.hpp"

namespace kapla::schedule {

struct SegmentBound {
  /// <= the segment's layers' cost without the static part.
  double energy = 0;
  /// Its terms, one per layer in (spatial, temporal) order.
  std::vector<double> layer_energy;
  /// <= the segment's time (SegmentTiming::time, or its critical time when the segment is the
  /// whole network).
  double time = 0;
};

/// `whole_network`: the segment holds every layer (NetworkScheme::total_time then takes the
/// segment's critical time). A lazily resolved topofm counts as unconstrained.
SegmentBound segment_bound(const PipelineSegment& seg, const SegmentConstraint& c,
                           const model::Network& net, std::int64_t batch,
                           const model::UnitCosts& costs, const model::SearchOptions& options,
                           bool whole_network);

/// segment_bound for the constraints of one segment, one after another: each layer's bound is
/// computed once per distinct constraint of that layer. A segment's constraints are the
/// combinations of a few symbols, and most layers read one or two of them, so a layer sees
/// the same constraint under many (BERT-base s128 at cloud batch 64: 5.2 % of K's
/// instructions were layer bounds). The same values as segment_bound; not thread-safe.
class SegmentBounds {
 public:
  /// `refetch`: the layers' refetch floors (pricing/refetch_bound.hpp), their nests remembered
  /// across segments, each under the layer's constraint; null leaves them out. `prev`: the
  /// prefixes the segment extends, where the floors read the places its layers' ifmaps may come
  /// from (ifmap_source_regions); null or empty leaves those reads out.
  SegmentBounds(const PipelineSegment& seg, const model::Network& net, std::int64_t batch,
                const model::UnitCosts& costs, const model::SearchOptions& options,
                bool whole_network, pricing::RefetchBounds* refetch = nullptr,
                const std::vector<NetworkScheme>* prev = nullptr);
  SegmentBound operator()(const SegmentConstraint& c);
  /// The same with the refetch floors' ofmap reads left out (RefetchBounds::floor): no
  /// higher, and cheaper, to order many pairs before the few that pass are bounded in full.
  SegmentBound without_reads(const SegmentConstraint& c);

 private:
  SegmentBound bound(const SegmentConstraint& c, bool reads);
  struct Seen {
    SegmentLayerConstraint constraint;
    std::optional<pricing::LayerCostBound> with_reads;
    std::optional<pricing::LayerCostBound> without_reads;
  };
  struct LayerBounds {
    pricing::LayerProblem problem;                       // with the last constraint seen
    pricing::detail::FloorNests* floor_nests = nullptr;  // its refetch floor's, if any
    pricing::RefetchBounds::Places places;               // where its floor reads data from
    std::vector<Seen> seen;
  };
  bool whole_network_;
  pricing::RefetchBounds* refetch_;
  std::vector<std::vector<LayerBounds>> layers_;  // [sp][tm], the segment's shape
};

/// Every region where the ifmap pieces of the segment's layer (sp, tm) may lie when the
/// segment extends one of `prev`: the forwarding region its ifmaps are projected onto, else
/// per ifmap source the region an earlier layer of the segment stores its ofmaps to, or the
/// regions of the source's layout in each prefix (NetworkScheme::fmap_layout). Empty when a
/// source is not found there.
std::vector<mapping::NodeRegion> ifmap_source_regions(const PipelineSegment& seg, std::size_t sp,
                                                      std::size_t tm, const model::Network& net,
                                                      const std::vector<NetworkScheme>& prev);

/// The least (cost, time) a scheme can have that extends a prefix of at least
/// (prefix_cost, prefix_time) by a segment bounded by `b`: NetworkScheme::total_cost is the
/// layers' non-static cost plus idl_unit x total_time (up to rounding), and total_time adds
/// segment times. Lowered by 1e-9 relative to absorb the totals' rounding.
std::pair<double, double> extended_bound(double prefix_cost, double prefix_time,
                                         const SegmentBound& b, const model::UnitCosts& costs);

/// The same once the segment's first `done` layers are scheduled: their least non-static
/// cost over the partial schemes (`done_energy`, LayerSchedule cost - cost_static) replaces
/// their bounds.
std::pair<double, double> partial_bound(double prefix_cost, double prefix_time,
                                        const SegmentBound& b, std::size_t done, double done_energy,
                                        const model::UnitCosts& costs);

}  // namespace kapla::schedule
