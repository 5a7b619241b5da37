// KAPLA's estimated cost of a pipelining segment (kapla-spec.md §4.3 steps 2-3, the
// reference's fast_explorer.estimate_seg_cost / estimate_layer_cost): a coarse, PRIVATE
// ranking figure for the segment selection DP (inter_layer.hpp select_segments). It never
// becomes a reported number; the one cost model prices whatever K then schedules.
//
// Deliberate differences from the reference (docs/kapla_inter_layer.md):
// * deterministic: the partitions are every partition of B's generator, or an evenly spaced
//   subset of it, never an unseeded random sample (kapla-spec.md §10 item 8);
// * the access table is the intended one (DRAM rows with the buffer-sharing division and the
//   src/dst-in-DRAM conditions, filter refetch), not the aliased one of §10 item 6;
// * a segment costs its cheapest occupancy-valid constraint (option: the first finite one,
//   as the reference).
#pragma once

#include <cstddef>
#include <vector>

#include "mapping/partition_scheme.hpp"
#include "search/strategy.hpp"

namespace kapla::search::kapla {

struct SegmentEstimateOptions {
  /// Fraction of a layer's partitions estimated (the reference: 0.3) and an upper bound on
  /// their number (the reference: 16; 0 = none). Defaults: all partitions.
  double partition_fraction = 1.0;
  std::size_t max_partitions = 0;
  /// true: the cheapest occupancy-valid constraint; false: the first finite one (reference).
  bool best_constraint = true;
  /// Capacity scale of the §4.2 occupancy check (see OccupancyQuery).
  double capacity_factor = 1.0;
  /// choose_segments: also the segments on chains within (1 + margin) of the cheapest
  /// (select_segments); 0 = the paper's top-k chains only.
  double chain_margin = 0;
  friend bool operator==(const SegmentEstimateOptions&, const SegmentEstimateOptions&) = default;
};

/// The partitions a layer is estimated on: ceil(fraction * n) of the n generated ones
/// (capped by max_partitions), evenly spaced in generation order; at least one.
std::vector<mapping::PartitionScheme> estimate_partitions(
    const std::vector<mapping::PartitionScheme>& all, const SegmentEstimateOptions& opts);

/// §4.3 step 3: the estimated cost of problem.layer under `part` on problem.resource with
/// problem.constraint, by problem.options.opt_goal (e: energy, d: cycles, ed: their
/// product); +inf if no nested loop of the Eyeriss mapping fits the GBUF under the
/// constraint (partition_occp_is_valid).
double estimate_layer_cost(const pricing::LayerProblem& problem,
                           const mapping::PartitionScheme& part);

/// §4.3 step 2: sum over the segment's layers of the least estimate over their partitions,
/// for the cheapest (or first finite) constraint that passes the §4.2 occupancy check when
/// pipelined; +inf if none. Deterministic.
double estimate_segment_cost(const SegmentCandidate& segment,
                             const SegmentEstimateOptions& opts = {});

/// §4.3 whole: estimate every segment, then select_segments (the k cheapest chains, plus every
/// single-layer segment). A keep-flag per segment; deterministic.
std::vector<bool> choose_segments(const std::vector<SegmentCandidate>& segments,
                                  std::size_t num_layers, const SegmentEstimateOptions& opts = {},
                                  std::size_t k = 4);

}  // namespace kapla::search::kapla
