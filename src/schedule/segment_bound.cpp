// The (segment, constraint) bound (see segment_bound.hpp).
#include "schedule/segment_bound.hpp"

#include <algorithm>
#include <iterator>

#include "pricing/cost_bound.hpp"
#include "schedule/segment_filter.hpp"

namespace kapla::schedule {

SegmentBound segment_bound(const PipelineSegment& seg, const SegmentConstraint& c,
                           const model::Network& net, std::int64_t batch,
                           const model::UnitCosts& costs, const model::SearchOptions& options,
                           bool whole_network) {
  return SegmentBounds(seg, net, batch, costs, options, whole_network)(c);
}

std::vector<mapping::NodeRegion> ifmap_source_regions(const PipelineSegment& seg, std::size_t sp,
                                                      std::size_t tm, const model::Network& net,
                                                      const std::vector<NetworkScheme>& prev) {
  const SegIndex me{static_cast<int>(sp), static_cast<int>(tm)};
  if (const auto fwd = seg.forward_region(me)) return {*fwd};
  const std::size_t layer = seg.layers()[sp][tm];
  std::vector<mapping::NodeRegion> out;
  for (std::size_t i = 0; i < net.num_ifmap_sources(layer); ++i) {
    const model::LayerSource& src = net.prevs(layer)[i];
    bool in_segment = false;
    for (std::size_t s = 0; s < seg.size() && !in_segment; ++s)
      for (std::size_t t = 0; t < seg.layers()[s].size() && !in_segment; ++t)
        if (src.kind == model::LayerSource::Kind::Layer && seg.layers()[s][t] == src.index) {
          const auto& r = seg.allocation()[s][t].dst_data_region;
          if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
          in_segment = true;
        }
    if (in_segment) continue;
    if (prev.empty()) return {};
    for (const auto& p : prev) {
      if (src.kind == model::LayerSource::Kind::Layer && p.get(src.index) == nullptr) return {};
      for (const auto& r : p.source_layout(src).regions)
        if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
    }
  }
  return out;
}

SegmentBounds::SegmentBounds(const PipelineSegment& seg, const model::Network& net,
                             std::int64_t batch, const model::UnitCosts& costs,
                             const model::SearchOptions& options, bool whole_network,
                             pricing::RefetchBounds* refetch,
                             const std::vector<NetworkScheme>* prev)
    : whole_network_(whole_network), refetch_(refetch), layers_(seg.size()) {
  for (std::size_t sp = 0; sp < seg.size(); ++sp) {
    for (std::size_t tm = 0; tm < seg.layers()[sp].size(); ++tm) {
      LayerBounds l;
      l.problem = segment_layer_problem(seg, sp, tm, net, batch);
      l.problem.costs = costs;
      l.problem.options = options;
      if (refetch != nullptr) {
        l.floor_nests = refetch->nests(l.problem);
        // The problem has no ifmap layout: its ifmaps lie where the prefixes' layouts say.
        const auto& r = l.problem.resource;
        l.places = refetch->places(r.proc_region,
                                   prev != nullptr ? ifmap_source_regions(seg, sp, tm, net, *prev)
                                                   : std::vector<mapping::NodeRegion>{},
                                   r.dst_data_region);
      }
      layers_[sp].push_back(std::move(l));
    }
  }
}

SegmentBound SegmentBounds::operator()(const SegmentConstraint& c) { return bound(c, true); }

SegmentBound SegmentBounds::without_reads(const SegmentConstraint& c) { return bound(c, false); }

SegmentBound SegmentBounds::bound(const SegmentConstraint& c, bool reads) {
  SegmentBound b;
  double dram_time = 0;
  for (std::size_t sp = 0; sp < layers_.size(); ++sp) {
    for (std::size_t tm = 0; tm < layers_[sp].size(); ++tm) {
      LayerBounds& l = layers_[sp][tm];
      const SegmentLayerConstraint& lc = c.layers[sp][tm];
      auto it = std::find_if(l.seen.begin(), l.seen.end(),
                             [&](const auto& e) { return e.constraint == lc; });
      if (it == l.seen.end()) {
        l.seen.push_back({lc, {}, {}});
        it = std::prev(l.seen.end());
      }
      auto& slot = reads ? it->with_reads : it->without_reads;
      if (!slot) {
        l.problem.constraint = layer_constraint(lc);
        const auto floor = refetch_ != nullptr
                               ? refetch_->floor(l.floor_nests, l.problem, l.places, reads)
                               : pricing::RefetchFloor{};
        slot = pricing::layer_cost_bound(l.problem, floor);
      }
      const pricing::LayerCostBound& lb = *slot;
      b.energy += lb.energy;
      b.layer_energy.push_back(lb.energy);
      dram_time += lb.dram_time;
      // SegmentTiming: the first spatial vertex starts at 0, so the critical time, and with it
      // the node time, is at least the finish of its last layer, itself at least that layer's
      // time.
      if (sp == 0 && tm + 1 == layers_[0].size()) b.time = lb.time;
    }
  }
  // SegmentTiming::time = max(node time, Σ layers' DRAM time); not so for the critical time.
  if (!whole_network_) b.time = std::max(b.time, dram_time);
  return b;
}

namespace {

std::pair<double, double> with_prefix(double prefix_cost, double prefix_time, double energy,
                                      double time, const model::UnitCosts& costs) {
  constexpr double kSlack = 1 - 1e-9;
  // The static part of total_cost is idl_unit x total time; prefix_cost already holds the
  // prefix's, the segment adds idl_unit x its time.
  const double cost = prefix_cost + energy + costs.idl_unit * time;
  return {cost * kSlack, (prefix_time + time) * kSlack};
}

}  // namespace

std::pair<double, double> extended_bound(double prefix_cost, double prefix_time,
                                         const SegmentBound& b, const model::UnitCosts& costs) {
  return with_prefix(prefix_cost, prefix_time, b.energy, b.time, costs);
}

std::pair<double, double> partial_bound(double prefix_cost, double prefix_time,
                                        const SegmentBound& b, std::size_t done, double done_energy,
                                        const model::UnitCosts& costs) {
  double rest = 0;
  for (std::size_t i = done; i < b.layer_energy.size(); ++i) rest += b.layer_energy[i];
  return with_prefix(prefix_cost, prefix_time, done_energy + rest, b.time, costs);
}

}  // namespace kapla::schedule
