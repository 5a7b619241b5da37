// Per-strategy option defaults (search::options_for, issue 18.1): K and S search the
// row-stationary fold variants unless told otherwise, B, R and M nn_dataflow's mapper; an
// explicit setting wins for every strategy, from a job file as from the CLI; the sweep records
// the space each tuple searched in /resolved; and the job fingerprint changes exactly when a
// strategy's searched space changed, so an old results file is never resumed into another
// space.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "io/catalog.hpp"
#include "io/job_json.hpp"
#include "search/strategy_registry.hpp"
#include "sweep/strategy_runner.hpp"

namespace kapla {
namespace {

using ::testing::HasSubstr;

bool searches_folds_by_default(const search::StrategyEntry& e) {
  return e.letter == 'K' || e.letter == 'S';
}

TEST(strategy_option_defaults, k_and_s_search_the_fold_variants_unless_told_otherwise) {
  const auto registry = search::builtin_strategies();
  ASSERT_EQ(registry.entries().size(), 5u);
  for (const auto& e : registry.entries()) {
    // Left unset by kapla's user-facing defaults and by KAPLA's option sets.
    for (const auto& user : {model::default_options(), model::kapla_option_preset("training"),
                             model::kapla_option_preset("inference")}) {
      EXPECT_FALSE(user.rs_fold_variants.has_value());
      EXPECT_EQ(search::options_for(e, user).rs_fold_variants, searches_folds_by_default(e))
          << e.name;
    }
    // An explicit setting wins for every strategy, either way.
    for (const bool explicit_value : {false, true}) {
      auto o = model::default_options();
      o.rs_fold_variants = explicit_value;
      EXPECT_EQ(search::options_for(e, o).rs_fold_variants, explicit_value) << e.name;
    }
    // The reference's Option() (the parity tests' options) is nn_dataflow's mapper.
    EXPECT_EQ(search::options_for(e, model::SearchOptions{}).rs_fold_variants, false) << e.name;
  }
  // An unset value that reaches the cost model without a strategy is nn_dataflow's mapper.
  EXPECT_FALSE(model::fold_variants_on(model::default_options()));
}

std::optional<std::string> resolved(const sweep::TupleResult& r, const std::string& name) {
  for (const auto& [n, v] : r.resolved) {
    if (n == name) return v;
  }
  return std::nullopt;
}

sweep::TupleResult run(const model::SearchOptions& options, const std::string& strategy) {
  auto catalog = std::make_shared<io::Catalog>(KAPLA_SOURCE_DATA_DIR);
  sweep::SweepSpec spec;
  spec.options = options;
  sweep::ModelLoaders loaders;
  loaders.network = [catalog](const std::string& n) { return catalog->load_network(n); };
  loaders.hardware = [catalog](const std::string& n) { return catalog->load_hardware(n); };
  const auto runner = sweep::make_strategy_runner(spec, std::move(loaders));
  sweep::Tuple t;
  t.network = "mlp_s";
  t.hardware = "edge";
  t.batch = 1;
  t.strategy = strategy;
  runner->check(t);
  sweep::RunContext ctx;
  ctx.seed = sweep::tuple_seed(t);
  return runner->run(t, ctx);
}

TEST(strategy_option_defaults, the_sweep_records_the_space_each_tuple_searched) {
  auto off = model::default_options();
  off.rs_fold_variants = false;
  const auto registry = search::builtin_strategies();
  for (const auto& e : registry.entries()) {
    const auto by_default = run(model::default_options(), e.name);
    EXPECT_EQ(resolved(by_default, "options.rs_fold_variants"),
              searches_folds_by_default(e) ? "true" : "false")
        << e.name;
    EXPECT_EQ(resolved(run(off, e.name), "options.rs_fold_variants"), "false") << e.name;
  }
}

std::string job(const std::string& strategies, const std::string& options) {
  return R"({"name": "t", "networks": ["mlp_s"], "hardware": [{"name": "edge", "batch": 1}],
    "strategies": [)" +
         strategies + R"(], "options": {"opt_goal": "e")" + options +
         R"(}, "tuple_time_limit_seconds": 60, "output": "t.h5"})";
}

std::string fingerprint(const std::string& strategies, const std::string& options = "") {
  return io::parse_job_text(job(strategies, options), "jobs/t.json").fingerprint;
}

TEST(strategy_option_defaults, the_fingerprint_changes_exactly_when_a_searched_space_changed) {
  const std::string off = R"(, "rs_fold_variants": false)";
  const std::string on = R"(, "rs_fold_variants": true)";
  // The fingerprint of these jobs before strategies had defaults (the text then hashed was
  // canonical_options + the time limit; literal, so that a change of the formula shows).
  const std::string old_b_k = "3098bffdb2f28d04";
  EXPECT_EQ(fingerprint(R"("exhaustive", "kapla")", off), old_b_k);
  // B alone searches what it always did: the same fingerprint, old files resume.
  EXPECT_EQ(fingerprint(R"("exhaustive")"), fingerprint(R"("exhaustive")", off));
  EXPECT_EQ(fingerprint(R"("exhaustive", "random", "guided")"), old_b_k);
  // K (or S) now searches the variants: a new fingerprint, so resuming an old file is refused.
  EXPECT_NE(fingerprint(R"("exhaustive", "kapla")"), old_b_k);
  EXPECT_NE(fingerprint(R"("directive-exhaustive")"), old_b_k);
  // ... the same space as asking for the variants explicitly when every strategy searches them.
  EXPECT_EQ(fingerprint(R"("kapla", "directive-exhaustive")"), fingerprint(R"("kapla")", on));
  EXPECT_NE(fingerprint(R"("exhaustive", "kapla")"), fingerprint(R"("exhaustive", "kapla")", on));
}

}  // namespace
}  // namespace kapla
