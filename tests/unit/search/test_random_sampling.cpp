// Strategy R: reproducible from its seed, independent of threads and batch size, budget and
// victory condition honoured, invalid samples counted; on golden layers every reported cost is
// the one cost model's price of the reported scheme and never beats B's optimum.
#include "search/random_sampling.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "sampling_fixtures.hpp"

namespace kapla::search {
namespace {

using testing::toy_cost;
using testing::toy_space;

RandomSamplingOptions opts(std::uint64_t seed, std::int64_t budget, int batch = 64) {
  RandomSamplingOptions o;
  o.budget.seed = seed;
  o.budget.max_evaluations = budget;
  o.batch_size = batch;
  return o;
}

TEST(RandomSampling, SameSeedSameResultAnyThreadsAndBatch) {
  const auto space = toy_space();
  const auto a = random_sampling(space, toy_cost, model::Goal::Energy, 3, opts(1, 500), 11, 1);
  const auto b = random_sampling(space, toy_cost, model::Goal::Energy, 3, opts(1, 500, 7), 11, 2);
  ASSERT_FALSE(a.best.empty());
  EXPECT_EQ(a.best_points, b.best_points);
  ASSERT_EQ(a.curve.points.size(), b.curve.points.size());
  for (std::size_t i = 0; i < a.curve.points.size(); ++i) {
    EXPECT_EQ(a.curve.points[i].evaluations, b.curve.points[i].evaluations);
    EXPECT_EQ(a.curve.points[i].best_goal, b.curve.points[i].best_goal);
  }
  EXPECT_EQ(a.stats.valid, b.stats.valid);
  EXPECT_EQ(a.stats.invalid, b.stats.invalid);
}

TEST(RandomSampling, DifferentSeedsDiffer) {
  const auto space = toy_space();
  const auto a = random_sampling(space, toy_cost, model::Goal::Energy, 1, opts(1, 200), 1, 1);
  const auto b = random_sampling(space, toy_cost, model::Goal::Energy, 1, opts(1, 200), 2, 1);
  EXPECT_FALSE(a.best_points == b.best_points && a.stats.invalid == b.stats.invalid);
}

TEST(RandomSampling, BudgetCountsEveryEvaluationAndInvalidOnesAreNotReported) {
  const auto space = toy_space();
  const auto r = random_sampling(space, toy_cost, model::Goal::Energy, 4, opts(3, 300), 5, 1);
  EXPECT_EQ(r.stats.evaluations, 300);
  EXPECT_EQ(r.stats.valid + r.stats.invalid, 300);
  EXPECT_GT(r.stats.invalid, 0);
  EXPECT_EQ(r.stats.stop, SamplingStats::Stop::Budget);
  ASSERT_EQ(r.best.size(), 4u);
  for (std::size_t i = 0; i < r.best.size(); ++i) {
    const auto again = toy_cost(r.best_points[i]);
    ASSERT_TRUE(again.has_value());
    EXPECT_EQ(again->cost, r.best[i].cost);
    if (i > 0) {
      EXPECT_FALSE(goal_less(r.best[i], r.best[i - 1], model::Goal::Energy));
    }
  }
  // Anytime curve: increasing evaluations, non-increasing best, ends at the budget.
  for (std::size_t i = 1; i < r.curve.points.size(); ++i) {
    EXPECT_GT(r.curve.points[i].evaluations, r.curve.points[i - 1].evaluations);
    EXPECT_LE(r.curve.points[i].best_goal, r.curve.points[i - 1].best_goal);
  }
  EXPECT_EQ(r.curve.points.back().evaluations, 300);
  EXPECT_EQ(r.curve.points.back().best_goal, r.best.front().cost);
}

TEST(RandomSampling, VictoryConditionStopsAfterConsecutiveNonImprovingValidSamples) {
  const auto space = toy_space();
  auto o = opts(1, 100000, 16);
  o.victory_condition = 25;
  const auto r = random_sampling(space, toy_cost, model::Goal::Energy, 1, o, 9, 2);
  EXPECT_EQ(r.stats.stop, SamplingStats::Stop::Victory);
  EXPECT_LT(r.stats.evaluations, 100000);
  // The same stop point with another batch size (the rule is applied in sample order).
  o.batch_size = 5;
  const auto s = random_sampling(space, toy_cost, model::Goal::Energy, 1, o, 9, 1);
  EXPECT_EQ(s.stats.evaluations, r.stats.evaluations);
  EXPECT_EQ(s.best_points, r.best_points);
}

TEST(RandomSampling, OptionsAreValidated) {
  RandomSamplingOptions o;
  o.budget.max_evaluations = 0;
  EXPECT_THROW(validate(o), InputError);
  o.budget.max_evaluations = 10;
  o.batch_size = 0;
  EXPECT_THROW(validate(o), InputError);
  o.batch_size = 1;
  o.victory_condition = -1;
  EXPECT_THROW(RandomSampling{o}, InputError);
}

TEST(RandomSampling, RegistryMakesItByNameAndLetter) {
  EXPECT_EQ(make_layer_strategy("random")->label(), 'R');
  EXPECT_EQ(make_layer_strategy("r")->name(), "random");
}

TEST(RandomSampling, GoldenLayersReportOneCostModelPricesAndNeverBeatB) {
  RandomSamplingOptions o;
  o.budget.seed = 2026;
  o.budget.max_evaluations = 400;
  const RandomSampling r(o);
  SearchContext ctx;
  ctx.num_threads = 2;
  for (const auto& g : testing::golden_layers(testing::golden_ids())) {
    SCOPED_TRACE(g.id);
    const auto res = r.run(g.problem, ctx);
    ASSERT_FALSE(res.best.empty());
    EXPECT_EQ(res.best.size(), static_cast<std::size_t>(g.problem.options.ntops));
    const auto space = SchemeSpace::of_problem(g.problem);
    const auto price = cost_model_evaluator(g.problem, space);
    for (std::size_t i = 0; i < res.best.size(); ++i) {
      const auto again = price(res.best_points[i]);
      ASSERT_TRUE(again.has_value());
      EXPECT_EQ(again->cost, res.best[i].cost);
      EXPECT_EQ(again->time, res.best[i].time);
      EXPECT_EQ(again->tvals, res.best[i].tvals);
      EXPECT_EQ(again->part, res.best[i].part);
    }
    EXPECT_GE(res.best.front().cost, g.b_cost * (1 - 1e-9));
    // search() returns the same schedules.
    const auto tops = r.search(g.problem, SearchContext{});
    ASSERT_EQ(tops.size(), res.best.size());
    EXPECT_EQ(tops.front().cost, res.best.front().cost);
  }
}

}  // namespace
}  // namespace kapla::search
