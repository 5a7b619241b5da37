// Strategy M: reproducible from its seed and independent of threads, never re-measures a point,
// honours the budget; on golden layers every reported cost is the one cost model's price of the
// reported scheme, it never beats B's optimum, and it beats R at an equal evaluation budget
// (fixed layers x fixed seeds; the protocol is documented in docs/baselines.md).
#include "search/guided.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include "core/errors.hpp"
#include "sampling_fixtures.hpp"

namespace kapla::search {
namespace {

using testing::toy_cost;
using testing::toy_space;

GuidedOptions opts(std::uint64_t seed, std::int64_t budget) {
  GuidedOptions o;
  o.budget.seed = seed;
  o.budget.max_evaluations = budget;
  return o;
}

TEST(Guided, SameSeedSameResultAnyThreads) {
  const auto space = toy_space();
  for (bool surrogate : {false, true}) {
    auto o = opts(1, 400);
    o.surrogate = surrogate;
    const auto a = guided_search(space, toy_cost, model::Goal::Energy, 3, o, 21, 1);
    const auto b = guided_search(space, toy_cost, model::Goal::Energy, 3, o, 21, 2);
    ASSERT_FALSE(a.best.empty());
    EXPECT_EQ(a.best_points, b.best_points);
    ASSERT_EQ(a.curve.points.size(), b.curve.points.size());
    for (std::size_t i = 0; i < a.curve.points.size(); ++i)
      EXPECT_EQ(a.curve.points[i].evaluations, b.curve.points[i].evaluations);
    EXPECT_EQ(a.stats.invalid, b.stats.invalid);
  }
}

TEST(Guided, DifferentSeedsDiffer) {
  const auto space = toy_space();
  const auto a = guided_search(space, toy_cost, model::Goal::Energy, 4, opts(1, 150), 1, 1);
  const auto b = guided_search(space, toy_cost, model::Goal::Energy, 4, opts(1, 150), 2, 1);
  EXPECT_FALSE(a.best_points == b.best_points && a.stats.invalid == b.stats.invalid);
}

TEST(Guided, ExactBudgetAndNoPointMeasuredTwice) {
  const auto space = toy_space();
  std::vector<SchemePoint> seen;
  const SchemeEvaluator recording = [&](const SchemePoint& p) {
    seen.push_back(p);  // single thread: no race
    return toy_cost(p);
  };
  const auto r = guided_search(space, recording, model::Goal::Energy, 1, opts(5, 333), 3, 1);
  EXPECT_EQ(r.stats.evaluations, 333);
  EXPECT_EQ(seen.size(), 333u);
  std::set<std::uint64_t> idx;
  for (const auto& p : seen) idx.insert(*space.index_of(p));
  EXPECT_EQ(idx.size(), seen.size());
  EXPECT_EQ(r.stats.valid + r.stats.invalid, 333);
}

TEST(Guided, ExhaustsATinySpace) {
  const SchemeSpace space(SpaceShape{{{{2, 1, 1}}}});  // 108 points
  const auto r = guided_search(space, toy_cost, model::Goal::Energy, 1, opts(1, 1000), 3, 1);
  EXPECT_EQ(r.stats.evaluations, 108);
  EXPECT_EQ(r.stats.stop, SamplingStats::Stop::Exhausted);
}

TEST(Guided, RidgeModelRecoversALinearFunction) {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  Rng rng(1);
  for (int i = 0; i < 200; ++i) {
    const double a = rng.uniform01(), b = rng.uniform01();
    x.push_back({a, b});
    y.push_back(3 * a - 2 * b + 1);
  }
  RidgeModel m;
  m.fit(x, y, 1e-9);
  ASSERT_TRUE(m.fitted());
  EXPECT_NEAR(m.predict({0.5, 0.25}), 2.0, 1e-6);
}

TEST(Guided, OptionsAreValidated) {
  auto o = opts(1, 10);
  o.batch_size = 0;
  EXPECT_THROW(validate(o), InputError);
  o = opts(1, 10);
  o.initial_fraction = 2;
  EXPECT_THROW(Guided{o}, InputError);
  EXPECT_EQ(make_layer_strategy("M")->name(), "guided");
}

TEST(Guided, GoldenLayersReportOneCostModelPricesAndNeverBeatB) {
  const Guided m(opts(2026, 400));
  SearchContext ctx;
  ctx.num_threads = 2;
  for (const auto& g : testing::golden_layers(testing::golden_ids())) {
    SCOPED_TRACE(g.id);
    const auto res = m.run(g.problem, ctx);
    ASSERT_FALSE(res.best.empty());
    const auto space = SchemeSpace::of_problem(g.problem);
    const auto price = cost_model_evaluator(g.problem, space);
    for (std::size_t i = 0; i < res.best.size(); ++i) {
      const auto again = price(res.best_points[i]);
      ASSERT_TRUE(again.has_value());
      EXPECT_EQ(again->cost, res.best[i].cost);
      EXPECT_EQ(again->time, res.best[i].time);
      EXPECT_EQ(again->orders, res.best[i].orders);
    }
    EXPECT_GE(res.best.front().cost, g.b_cost * (1 - 1e-9));
    // One thread, same answer.
    const auto one = m.run(g.problem, SearchContext{});
    EXPECT_EQ(one.best_points, res.best_points);
  }
}

TEST(Guided, CoveringASmallSpaceFindsBsOptimumExactly) {
  // Spaces of 1512-3456 points: a budget above the size measures every point once.
  for (const auto& g : testing::golden_layers({"ls-case-0014", "ls-case-0084", "ls-case-0120"})) {
    SCOPED_TRACE(g.id);
    const auto res = Guided(opts(7, 5000)).run(g.problem, SearchContext{});
    EXPECT_EQ(res.stats.stop, SamplingStats::Stop::Exhausted);
    EXPECT_EQ(static_cast<std::uint64_t>(res.stats.evaluations), res.stats.space_size);
    ASSERT_FALSE(res.best.empty());
    EXPECT_TRUE(io::golden::rel_equal(res.best.front().cost, g.b_cost))
        << res.best.front().cost << " vs " << g.b_cost;
  }
}

// The comparison protocol of docs/baselines.md: fixed layers x seeds 1..5, equal budgets.
TEST(Guided, BeatsRandomSamplingAtEqualEvaluationBudget) {
  const std::vector<std::string> ids{"ls-case-0033", "ls-case-0037", "ls-case-0078", "ls-case-0086",
                                     "ls-case-0096", "ls-case-0098", "ls-case-0133"};
  constexpr std::int64_t kBudget = 300;
  int m_wins = 0, r_wins = 0;
  double log_ratio_sum = 0;  // Σ ln(M / R)
  int n = 0;
  for (const auto& g : testing::golden_layers(ids)) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      RandomSamplingOptions ro;
      ro.budget = {seed, kBudget, 0};
      GuidedOptions mo;
      mo.budget = {seed, kBudget, 0};
      const auto r = RandomSampling(ro).run(g.problem, SearchContext{});
      const auto m = Guided(mo).run(g.problem, SearchContext{});
      ASSERT_FALSE(r.best.empty());
      EXPECT_GE(m.best.front().cost, g.b_cost * (1 - 1e-9));
      EXPECT_GE(r.best.front().cost, g.b_cost * (1 - 1e-9));
      ASSERT_FALSE(m.best.empty());
      EXPECT_EQ(r.stats.evaluations, m.stats.evaluations);
      const double rc = r.best.front().cost, mc = m.best.front().cost;
      m_wins += mc < rc;
      r_wins += rc < mc;
      log_ratio_sum += std::log(mc / rc);
      ++n;
    }
  }
  const double geomean = std::exp(log_ratio_sum / n);
  RecordProperty("m_wins", m_wins);
  RecordProperty("r_wins", r_wins);
  RecordProperty("geomean_m_over_r", std::to_string(geomean));
  // Sign test over the 35 (layer, seed) pairs: under "M no better than R" (p = 1/2 per decided
  // pair) at least 80 % wins among >= 20 decided pairs has probability < 0.3 %.
  EXPECT_GE(m_wins + r_wins, 20);
  EXPECT_GE(5 * m_wins, 4 * (m_wins + r_wins)) << m_wins << " vs " << r_wins;
  EXPECT_LT(geomean, 0.97);
}

}  // namespace
}  // namespace kapla::search

namespace kapla::search {
namespace {

// The measurements quoted in docs/baselines.md (not a check; run with
// --gtest_also_run_disabled_tests --gtest_filter='*Report*'). Env KAPLA_REPORT_BUDGET.
TEST(Guided, DISABLED_ReportRandomVersusGuided) {
  const char* env = std::getenv("KAPLA_REPORT_BUDGET");
  const std::int64_t budget = env ? std::atoll(env) : 300;
  const char* sur = std::getenv("KAPLA_REPORT_SURROGATE");
  std::printf("%-14s %12s %8s | %9s %9s %9s | valid%% R/M\n", "layer", "space", "budget", "R/B",
              "M/B", "M+s/B");
  const char* set = std::getenv("KAPLA_REPORT_SET");
  const bool multi = set != nullptr && std::string(set) == "multi";
  auto knob = [](const char* name, double dflt) {
    const char* v = std::getenv(name);
    return v ? std::atof(v) : dflt;
  };
  for (const auto& g :
       testing::golden_layers(multi ? testing::golden_multi_node_ids() : testing::golden_ids())) {
    double rs = 0, ms = 0, ss = 0, vr = 0, vm = 0;
    std::uint64_t size = 0;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      RandomSamplingOptions ro;
      ro.budget = {seed, budget, 0};
      GuidedOptions mo;
      mo.budget = {seed, budget, 0};
      mo.num_chains = static_cast<int>(knob("KAPLA_REPORT_CHAINS", mo.num_chains));
      mo.batch_size = static_cast<int>(knob("KAPLA_REPORT_BATCH", mo.batch_size));
      mo.t_start = knob("KAPLA_REPORT_T0", mo.t_start);
      mo.patience = static_cast<int>(knob("KAPLA_REPORT_PATIENCE", mo.patience));
      mo.initial_fraction = knob("KAPLA_REPORT_INIT", mo.initial_fraction);
      const auto r = RandomSampling(ro).run(g.problem, SearchContext{});
      const auto m = Guided(mo).run(g.problem, SearchContext{});
      mo.surrogate = sur == nullptr || std::string(sur) != "0";
      mo.surrogate_candidates =
          static_cast<int>(knob("KAPLA_REPORT_CANDIDATES", mo.surrogate_candidates));
      mo.surrogate_min_samples =
          static_cast<int>(knob("KAPLA_REPORT_MIN_SAMPLES", mo.surrogate_min_samples));
      const auto s = Guided(mo).run(g.problem, SearchContext{});
      size = r.stats.space_size;
      rs += std::log(r.best.front().cost / g.b_cost);
      ms += std::log(m.best.front().cost / g.b_cost);
      ss += std::log(s.best.front().cost / g.b_cost);
      vr += static_cast<double>(r.stats.valid) / static_cast<double>(r.stats.evaluations);
      vm += static_cast<double>(m.stats.valid) / static_cast<double>(m.stats.evaluations);
    }
    std::printf("%-14s %12llu %8lld | %9.4f %9.4f %9.4f | %4.0f %4.0f\n", g.id.c_str(),
                static_cast<unsigned long long>(size), static_cast<long long>(budget),
                std::exp(rs / 5), std::exp(ms / 5), std::exp(ss / 5), 20 * vr, 20 * vm);
  }
}

}  // namespace
}  // namespace kapla::search
