// What a strategy may add to the network-level search: pruning of the inter-layer space
// (pipelining segments and their constraints) before any layer is searched. K brings the
// paper's (kapla-spec.md §4.2-4.4); B, S, R and M bring none. The network run
// (schedule/run_network.hpp) applies it, so no caller wires it by hand.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "pricing/layer_problem.hpp"

namespace kapla::search {

/// One pipelining segment offered to InterLayerPruning::select_segments, on plain values
/// (search does not know schedule::PipelineSegment). Layers in the segment's (spatial,
/// temporal) order.
struct SegmentCandidate {
  std::size_t first = 0;  // positions of its first and last layer in the scheduling order
  std::size_t last = 0;
  /// Each layer on its allocated resource (batch, costs, options set; constraint unset).
  std::vector<pricing::LayerProblem> layers;
  /// The segment's constraints in generation order, one pricing::LayerConstraint per layer (a
  /// topofm taken lazily from another layer's result is 0 = unconstrained).
  std::vector<std::vector<pricing::LayerConstraint>> constraints;
  bool single_layer() const { return layers.size() == 1; }
};

/// A strategy's inter-layer pruning. Empty functions keep everything. The functions may refer
/// to the strategy that made them, which must outlive them; they must be deterministic.
struct InterLayerPruning {
  /// Conservative: false only if problem.layer certainly cannot fit on problem.resource under
  /// problem.constraint (so the strategy's search would find nothing). Ignores the ifmap
  /// layout. A (segment, constraint) pair is dropped when one of its layers does not fit.
  std::function<bool(const pricing::LayerProblem&)> constraint_may_fit;
  /// A keep-flag per segment of a network whose scheduling order has `num_layers` layers.
  /// Must keep enough segments to cover the network (K keeps every single-layer one).
  std::function<std::vector<bool>(const std::vector<SegmentCandidate>&, std::size_t num_layers)>
      select_segments;
  /// Skip a segment's constraints whose hints dominate those of one that already succeeded
  /// (the hint frontier, kapla-spec.md §4.4). The network run also turns it on for the
  /// Tangram cost model, as the upstream reference does.
  bool constraint_frontier = false;
  /// The network search's exact branch and bound over (segment, constraint) pairs
  /// (schedule::NetworkSearchOptions::bound_pruning): the same schemes with fewer solves.
  bool bound_pruning = false;
  /// Pairs per wave of that branch and bound (NetworkSearchOptions::pair_wave).
  std::size_t pair_wave = 4;

  bool empty() const {
    return !constraint_may_fit && !select_segments && !constraint_frontier && !bound_pruning;
  }
};

}  // namespace kapla::search
