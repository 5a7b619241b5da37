// Strategy K: the KAPLA solver (ASP-DAC'25; kapla-spec.md §3) behind the per-layer strategy
// interface. The greedy works on directives in canonical coordinates (search/kapla/); every
// number it reports is the one cost model's price of the lowered scheme.
#pragma once

#include "search/kapla/directives.hpp"
#include "search/kapla/layer_solver.hpp"
#include "search/strategy.hpp"

namespace kapla::search {

struct KaplaSolverOptions {
  bool fallback = true;  // exhaustive directive search when the greedy finds nothing
  /// Before the fallback, the greedy again with the pipeline constraint's top factors
  /// reserved (kapla::SolverOptions::reserved_retry; docs/kapla.md §4).
  bool reserved_retry = true;
  /// Inter-layer pruning (kapla-spec.md §4.2): the network search drops (segment, constraint)
  /// pairs whose estimated minimum GBUF occupancy cannot fit (constraint_may_fit()).
  bool inter_layer_pruning = true;
  /// Capacity scale of the occupancy check: 1 (never prunes more than the reference) or the
  /// reference's 0.99. In (0, 1].
  double capacity_factor = 1.0;
  /// Segment selection (kapla-spec.md §4.3, select_segments()): only the segments on the 4
  /// cheapest chains by the segment estimate, plus every single-layer segment, are solved.
  bool segment_selection = false;
  /// With segment_selection, also solve the segments on chains whose estimate is within
  /// (1 + margin) of the cheapest (not in the paper; 0 = the paper's 4 chains only; 0.05
  /// lost nothing on AlexNet where 0 lost 0.3 %, docs/kapla_inter_layer.md §4).
  double segment_margin = 0.05;
  /// The hint frontier of §4.4: skip a segment's constraints whose
  /// hints dominate those of one that already succeeded.
  bool constraint_frontier = false;
  /// Exact branch and bound over (segment, constraint) pairs (InterLayerPruning::
  /// bound_pruning, docs/kapla_inter_layer.md §6): same result, fewer pairs solved.
  bool bound_pruning = true;
  /// With bound_pruning: pairs per wave (schedule::NetworkSearchOptions::pair_wave; the
  /// schedule does not depend on it, the pairs solved do, the thread count does not).
  std::int64_t pair_wave = 4;
  /// K's steps beyond the paper (docs/kapla.md §4); Refinement::paper() = the paper's greedy.
  kapla::Refinement refinement{};
  friend bool operator==(const KaplaSolverOptions&, const KaplaSolverOptions&) = default;
};

class KaplaSolver final : public LayerStrategy {
 public:
  explicit KaplaSolver(KaplaSolverOptions opts = {}) : opts_(opts) {}
  std::string_view name() const override { return "kapla"; }
  char label() const override { return 'K'; }
  /// The best schedule K found, then (ntops > 1) the next best distinct ones it priced.
  std::vector<pricing::LayerSchedule> search(const pricing::LayerProblem& problem,
                                             const SearchContext& ctx) const override;
  /// The occupancy check (with inter_layer_pruning), the segment selection (with
  /// segment_selection) and the hint frontier (with constraint_frontier), each as below.
  InterLayerPruning inter_layer_pruning() const override;
  /// With the fallback, an empty answer means the exhaustive directive search (B's space)
  /// found no valid scheme either.
  bool empty_means_infeasible() const override { return opts_.fallback; }
  /// The §4.2 occupancy check (kapla::occupancy_may_fit) for pipelined constraints
  /// (topbat > 0; the reference checks only those); true otherwise.
  bool constraint_may_fit(const pricing::LayerProblem& problem) const;
  /// kapla::choose_segments with the §4.3 estimate.
  std::vector<bool> select_segments(const std::vector<SegmentCandidate>& segments,
                                    std::size_t num_layers) const;
  const KaplaSolverOptions& options() const { return opts_; }

 private:
  KaplaSolverOptions opts_;
};

/// The directives of a scheduled layer, for `kapla schedule --show-directives`: the canonical
/// scheme (partition, nested loop, blocking) written as tensor/stack/update per level.
kapla::DirectiveSchedule directives_of(const pricing::LayerProblem& problem,
                                       const pricing::LayerSchedule& s, std::string layer_name);

/// InputError "FIELD: reason" for options K cannot run with.
void validate(const KaplaSolverOptions& o);
/// K's registry entry (registry.cpp).
StrategyEntry kapla_solver_entry();

}  // namespace kapla::search
