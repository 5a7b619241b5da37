// Strategy R: uniform random sampling of one layer's scheme space (partition, NLD, blocking,
// order; scheme_space.hpp), priced by the one cost model, with a sample and/or time budget, a
// seed, and Timeloop's "victory condition" (stop after N consecutive valid samples that do not
// improve the best). The reference's R (kapla-spec.md §5.3) thins S's enumeration by Bernoulli
// draws and sets no seed; kapla's R samples B's space uniformly and is reproducible from its
// seed. Algorithm and stop rules: docs/baselines.md.
#pragma once

#include <cstdint>
#include <vector>

#include "search/anytime_curve.hpp"
#include "search/scheme_space.hpp"
#include "search/strategy.hpp"

namespace kapla::search {

/// Budget and seed shared by R and M (validated by validate()).
struct SamplingBudget {
  std::uint64_t seed = 1;               // run seed; per layer mixed with problem_key()
  std::int64_t max_evaluations = 1000;  // cost-model evaluations per layer; 0 = unlimited
  double max_seconds = 0;               // per layer; 0 = unlimited (not reproducible when hit)
  friend bool operator==(const SamplingBudget&, const SamplingBudget&) = default;
};

struct RandomSamplingOptions {
  SamplingBudget budget;
  /// Stop after this many consecutive valid samples without improvement (Timeloop's
  /// victory_condition); 0 = off.
  std::int64_t victory_condition = 0;
  /// Samples drawn and evaluated per parallel round (does not change the result).
  int batch_size = 64;
  friend bool operator==(const RandomSamplingOptions&, const RandomSamplingOptions&) = default;
};

/// Throws InputError naming the field: no budget at all, negative values, batch_size < 1.
void validate(const SamplingBudget& b);
void validate(const RandomSamplingOptions& o);

/// What a sampling search did (R and M).
struct SamplingStats {
  std::uint64_t layer_seed = 0;  // mix_seed(seed, problem_key)
  std::uint64_t space_size = 0;  // points in the scheme space
  std::int64_t evaluations = 0;  // cost-model evaluations (valid + invalid)
  std::int64_t valid = 0;
  std::int64_t invalid = 0;  // counted, never reported
  std::int64_t improvements = 0;
  double seconds = 0;
  enum class Stop : std::uint8_t { Budget, Seconds, Victory, Exhausted, EmptySpace };
  Stop stop = Stop::Budget;
};

/// The result of a sampling search: the best schedules (best first, at most ntops, distinct
/// points), their points, the anytime curve and the statistics.
struct SamplingResult {
  std::vector<pricing::LayerSchedule> best;
  std::vector<SchemePoint> best_points;
  AnytimeCurve curve;
  SamplingStats stats;
};

/// Copies a sampling search's counts and curve into a per-call statistics sink (R and M).
void record_stats(const SamplingResult& r, LayerSearchStats& out);
/// What R and M report through the strategy interface: the best schedules, after recording the
/// run's counts and curve in ctx.stats (when the caller asked for them).
std::vector<pricing::LayerSchedule> report_best(SamplingResult r, const SearchContext& ctx);

/// R over any space and evaluator (tests use toy evaluators). Sample i is drawn from its own
/// stream Rng(mix_seed(layer_seed, i)) and the batch is reduced in sample order, so the
/// result does not depend on num_threads or batch_size.
SamplingResult random_sampling(const SchemeSpace& space, const SchemeEvaluator& evaluate,
                               model::Goal goal, int ntops, const RandomSamplingOptions& opts,
                               std::uint64_t layer_seed, int num_threads);

class RandomSampling final : public LayerStrategy {
 public:
  explicit RandomSampling(RandomSamplingOptions opts = {});
  std::string_view name() const override { return "random"; }
  char label() const override { return 'R'; }
  std::vector<pricing::LayerSchedule> search(const pricing::LayerProblem& problem,
                                             const SearchContext& ctx) const override;
  /// search() with the anytime curve and statistics.
  SamplingResult run(const pricing::LayerProblem& problem, const SearchContext& ctx) const;
  const RandomSamplingOptions& options() const { return opts_; }

 private:
  RandomSamplingOptions opts_;
};

/// R's registry entry (registry.cpp).
StrategyEntry random_sampling_entry();
/// The budget params R and M share (max_evaluations, max_seconds), read into `b`.
void read_budget(const ParamSource& src, SamplingBudget& b);
/// An optional count param in [1, 1000000].
void read_count(const ParamSource& src, std::string_view key, int& field);

}  // namespace kapla::search
