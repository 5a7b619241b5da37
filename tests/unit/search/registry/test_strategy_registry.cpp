// Conformance of every registry entry (kapla's own and one added by the tests alone): it parses
// its defaults, its described params parse back to the same value, it runs on a small network
// through the sweep's runner, the same seed gives the same schedule for 1 and 2 threads, and
// `kapla list strategies` shows kapla's own. Plus the registry's refusals.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include "capped_random_strategy.hpp"
#include "core/errors.hpp"
#include "io/catalog.hpp"
#include "io/job_json.hpp"
#include "io/strategy_params_json.hpp"
#include "search/strategy.hpp"
#include "sweep/strategy_runner.hpp"

namespace kapla {
namespace {

using ::testing::HasSubstr;

// kapla's strategies plus the tests' own: its one registration line.
search::StrategyRegistry registry() {
  auto r = search::builtin_strategies();
  r.add(testing::capped_random_entry());
  return r;
}

std::unique_ptr<sweep::TupleRunner> runner() {
  auto catalog = std::make_shared<io::Catalog>(KAPLA_SOURCE_DATA_DIR);
  sweep::ModelLoaders loaders;
  loaders.network = [catalog](const std::string& n) { return catalog->load_network(n); };
  loaders.hardware = [catalog](const std::string& n) { return catalog->load_hardware(n); };
  return sweep::make_strategy_runner(sweep::SweepSpec{}, std::move(loaders), registry());
}

sweep::TupleResult run(const sweep::TupleRunner& r, const std::string& strategy, std::uint64_t seed,
                       int threads) {
  sweep::Tuple t;
  t.network = "mlp_s";
  t.hardware = "edge";
  t.batch = 1;
  t.strategy = strategy;
  t.seed = seed;
  r.check(t);
  sweep::RunContext ctx;
  ctx.seed = sweep::tuple_seed(t);
  ctx.num_threads = threads;
  return r.run(t, ctx);
}

std::string run_command(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 256> buf{};
  while (fgets(buf.data(), static_cast<int>(buf.size()), pipe) != nullptr) out += buf.data();
  pclose(pipe);
  return out;
}

class Conformance : public ::testing::TestWithParam<std::string> {};

TEST_P(Conformance, parses_its_defaults_and_round_trips_them) {
  const auto all = registry();
  const auto& e = all.find(GetParam());
  const auto defaults = e.parse(search::NoParams{});
  const nlohmann::json empty = nlohmann::json::object();
  EXPECT_EQ(io::parse_strategy_params(e, empty, "params"), defaults);
  std::vector<std::string> texts;
  for (const auto& [key, text] : e.describe(defaults, 7)) {
    ASSERT_EQ(key.rfind("strategy.", 0), 0u) << key;
    if (key == "strategy.seed") {
      EXPECT_EQ(text, "7");
      continue;
    }
    texts.push_back(key.substr(9) + "=" + text);
  }
  const auto again = io::parse_strategy_params(e, io::params_from_texts(texts, "p"), "p");
  EXPECT_EQ(again, defaults);
  EXPECT_EQ(e.describe(again, 7), e.describe(defaults, 7));
}

TEST_P(Conformance, refuses_an_unknown_param_naming_it) {
  const auto all = registry();
  const auto& e = all.find(GetParam());
  const nlohmann::json bad = {{"no_such_knob", 1}};
  try {
    (void)io::parse_strategy_params(e, bad, "strategies[0].params");
    FAIL() << "accepted an unknown key";
  } catch (const InputError& err) {
    EXPECT_THAT(err.what(), HasSubstr("strategies[0].params.no_such_knob: unknown key"));
  }
}

TEST_P(Conformance, runs_on_a_small_network_deterministically_under_a_seed) {
  const auto r = runner();
  const auto a = run(*r, GetParam(), 3, 1);
  const auto b = run(*r, GetParam(), 3, 2);
  ASSERT_EQ(a.status, sweep::TupleStatus::Ok) << a.message;
  EXPECT_GT(a.total_cost, 0);
  EXPECT_EQ(a.total_cost, b.total_cost);
  EXPECT_EQ(a.time, b.time);
  EXPECT_EQ(a.layers, b.layers);
}

std::vector<std::string> all_names() {
  std::vector<std::string> out;
  const auto all = registry();
  for (const auto& e : all.entries()) out.push_back(e.name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(registry, Conformance, ::testing::ValuesIn(all_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string n = p.param;
                           for (auto& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

TEST(strategy_registry, kapla_list_strategies_shows_every_builtin_entry) {
  const std::string out = run_command(std::string(KAPLA_BIN) + " list strategies");
  const auto builtin = search::builtin_strategies();
  for (const auto& e : builtin.entries()) {
    EXPECT_THAT(out, HasSubstr(e.name + " (" + e.letter + "): " + e.description));
  }
}

TEST(strategy_registry, finds_by_name_or_letter_and_lists_the_known_ones) {
  const auto r = registry();
  EXPECT_EQ(r.find("T").name, "capped-random");
  EXPECT_EQ(r.find("k").name, "kapla");
  try {
    (void)r.find("annealing");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown strategy 'annealing'; known: exhaustive (B)"));
    EXPECT_THAT(e.what(), HasSubstr("capped-random (T)"));
  }
}

TEST(strategy_registry, refuses_a_taken_name_or_letter) {
  auto r = registry();
  auto twin = testing::capped_random_entry();
  EXPECT_THROW(r.add(twin), InternalError);
  twin.name = "other";
  EXPECT_THROW(r.add(twin), InternalError);  // letter T again
  twin.letter = 'U';
  EXPECT_NO_THROW(r.add(twin));
}

TEST(strategy_registry, a_job_file_reaches_a_test_strategy_and_its_params) {
  const auto spec = io::parse_job_text(R"({"name": "t", "networks": ["mlp_s"],
      "hardware": [{"name": "edge", "batch": 1}],
      "strategies": [{"name": "T", "params": {"samples": 3}}], "output": "x.h5"})",
                                       "jobs/t.json", registry());
  ASSERT_EQ(spec.strategies.size(), 1u);
  EXPECT_EQ(registry().find("T").describe(spec.strategies[0].options, 1)[1].second, "3");
  // Its letter and label reach the results through the registry alone.
  EXPECT_EQ(sweep::expand_tuples(spec)[0].strategy_letter, "T");
  EXPECT_EQ(sweep::expand_tuples(spec)[0].strategy_label, "T[samples=3]");
  try {
    (void)io::parse_job_text(R"({"name": "t", "networks": ["mlp_s"],
      "hardware": [{"name": "edge", "batch": 1}],
      "strategies": [{"name": "T", "params": {"samples": 0}}], "output": "x.h5"})",
                             "jobs/t.json", registry());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("jobs/t.json: strategies[0].params.samples: must be positive"));
  }
}

}  // namespace
}  // namespace kapla
