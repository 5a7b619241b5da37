// KAPLA's inter-layer level on plain values (kapla-spec.md §4.2-§4.3): conservative pruning of
// a segment's constraints by an estimated minimum buffer occupancy, and the choice of the
// segments worth solving by a top-k dynamic program over estimated segment costs. The
// schedule module feeds these with its segments (search must not depend on schedule).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/layer.hpp"

namespace kapla::search::kapla {

/// One layer of a segment under one constraint (0 = unconstrained factor) on its region.
struct OccupancyQuery {
  const model::Layer* layer = nullptr;
  std::int64_t batch = 1;
  std::int64_t topbat = 0;
  std::int64_t topifm = 0;
  std::int64_t topofm = 0;
  std::int64_t region_nodes = 1;  // nodes allocated to the layer
  std::int64_t pes_per_node = 1;  // PE array size
  std::int64_t gbuf_words = 0;    // per node
  /// Capacity scale: 1 (default) or the reference's conservative 0.99 (kapla-spec.md §1.3).
  double capacity_factor = 1.0;
};

/// §4.2 estimated minimum GBUF occupancy (words) of the layer's resident data.
double estimated_min_occupancy(const OccupancyQuery& q);
/// The layer can possibly fit: estimate <= nodes x gbuf_words x capacity_factor. With the
/// default factor 1 we never prune more than the reference (which uses 0.99).
bool occupancy_may_fit(const OccupancyQuery& q);

/// A candidate segment for the selection DP: the layers it covers (positions in the
/// scheduling order, first..last inclusive) and its estimated cost (+inf = infeasible).
struct SegmentEstimate {
  std::size_t first = 0;
  std::size_t last = 0;
  bool single_layer = false;
  double cost = 0;
};

/// §4.3 steps 4-5: keep the k cheapest chains of segments covering each prefix of the layer
/// order; select every segment on the k best chains for the whole network plus every
/// single-layer segment (the fallback). Returns a keep-flag per input segment. Deterministic:
/// ties keep the chain found first (segments in input order).
/// With margin > 0 (not in the reference), also every segment on some chain whose cost is
/// within (1 + margin) of the cheapest chain's: the top-k chains tend to differ only in
/// their early segments, so a near-tie late in the network is otherwise never solved.
std::vector<bool> select_segments(const std::vector<SegmentEstimate>& segs, std::size_t num_layers,
                                  std::size_t k = 4, double margin = 0);

}  // namespace kapla::search::kapla
