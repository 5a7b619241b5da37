// Strategy M: a model-free guided search playing AutoTVM's role (kapla-spec.md §5.4) without
// XGBoost: a batched simulated-annealing explorer over one layer's scheme space
// (scheme_space.hpp). Each round every chain proposes a few neighbours, the batch is priced by
// the one cost model in parallel, and each chain moves to its best valid proposal by the
// Metropolis rule on ln(goal) with a temperature falling linearly over the budget; stale chains
// restart from the best points found. Optionally a cheap surrogate (ridge regression on log
// features of the point, fitted by kapla itself on the points measured so far) screens several
// neighbours per proposal and the chain measures the most promising one. Measured points are never
// measured twice. The result depends only on the options and the seed (never on threads).
// Algorithm: docs/baselines.md.
#pragma once

#include <cstdint>
#include <vector>

#include "search/random_sampling.hpp"
#include "search/scheme_space.hpp"
#include "search/strategy.hpp"

namespace kapla::search {

struct GuidedOptions {
  SamplingBudget budget;
  /// Proposals measured per round (AutoTVM's n_parallel), dealt round-robin to the chains.
  int batch_size = 16;
  /// Annealing chains; each proposes batch_size / num_chains neighbours per round and moves
  /// (Metropolis) to the best valid one.
  int num_chains = 4;
  /// Share of the evaluation budget spent on uniform random points before annealing
  /// (at least one batch; AutoTVM also starts from random measurements).
  double initial_fraction = 0.1;
  /// Share of each round's proposals drawn uniformly at random instead of from the chains
  /// (exploration, like AutoTVM's epsilon-greedy plan); they can become restart points.
  double random_fraction = 0.1;
  /// Metropolis temperature on ln(goal), linear from t_start to t_end over the budget.
  double t_start = 0.2;
  double t_end = 0.005;
  /// Rounds without improving its own best after which a chain restarts from an elite point.
  int patience = 10;
  /// Number of best points chains restart from.
  int elite = 4;
  /// Re-draws of a proposal that was measured already (then a random unmeasured point).
  int max_retries = 8;
  NeighbourWeights moves;
  // The optional surrogate.
  bool surrogate = false;
  int surrogate_candidates = 8;    // neighbours screened per proposal
  int surrogate_min_samples = 32;  // valid measurements before the model is used
  double ridge_lambda = 1e-3;      // L2 penalty (relative to the sample count)
  friend bool operator==(const GuidedOptions&, const GuidedOptions&) = default;
};

/// Throws InputError naming the field.
void validate(const GuidedOptions& o);

/// M over any space and evaluator (tests use toy evaluators).
SamplingResult guided_search(const SchemeSpace& space, const SchemeEvaluator& evaluate,
                             model::Goal goal, int ntops, const GuidedOptions& opts,
                             std::uint64_t layer_seed, int num_threads);

/// The surrogate's features of a point: log2 blocking factors per level and loop, the
/// innermost non-trivial loop per ordered level (one-hot), log2 partition factors per kind,
/// and, for spaces built from a problem, log2 of the NLD's unit buffer sizes and unit time.
std::vector<double> surrogate_features(const SchemeSpace& space, const SchemePoint& p);

/// Ridge regression y ~ w.x + b (features centred; b unpenalised); a tiny dense solver.
class RidgeModel {
 public:
  /// Fits on rows `x` (all the same length) and targets `y`; lambda scales with rows.
  void fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y, double lambda);
  bool fitted() const { return fitted_; }
  double predict(const std::vector<double>& x) const;

 private:
  bool fitted_ = false;
  std::vector<double> mean_;
  std::vector<double> w_;
  double b_ = 0;
};

class Guided final : public LayerStrategy {
 public:
  explicit Guided(GuidedOptions opts = {});
  std::string_view name() const override { return "guided"; }
  char label() const override { return 'M'; }
  std::vector<pricing::LayerSchedule> search(const pricing::LayerProblem& problem,
                                             const SearchContext& ctx) const override;
  /// search() with the anytime curve and statistics.
  SamplingResult run(const pricing::LayerProblem& problem, const SearchContext& ctx) const;
  const GuidedOptions& options() const { return opts_; }

 private:
  GuidedOptions opts_;
};

/// M's registry entry (registry.cpp).
StrategyEntry guided_entry();

}  // namespace kapla::search
