// Job file parsing: valid files, and one-line "FILE: FIELD: reason" errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "core/errors.hpp"
#include "io/job_json.hpp"
#include "search/kapla_solver.hpp"
#include "search/random_sampling.hpp"

namespace kapla::io {
namespace {

using ::testing::HasSubstr;

const char* kValid = R"({
  "name": "t",
  "networks": ["mlp_s", "lstm_phoneme"],
  "hardware": [{"name": "cloud", "batch": 64}, {"name": "edge", "batch": [1, 2]}],
  "strategies": ["exhaustive", {"name": "random", "params": {"max_evaluations": 100}}],
  "seeds": [1, 7],
  "options": {"opt_goal": "ed", "partition_hybrid": true, "sw_gbuf_bypass": [false, true, true]},
  "tuple_time_limit_seconds": 60,
  "output": "results/t.h5"
})";

std::string error_of(const std::string& text) {
  try {
    parse_job_text(text, "jobs/x.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(job_json, parses_a_valid_job) {
  const auto spec = parse_job_text(kValid, "jobs/t.json");
  EXPECT_EQ(spec.name, "t");
  EXPECT_EQ(spec.networks.size(), 2u);
  ASSERT_EQ(spec.hardware.size(), 2u);
  EXPECT_EQ(spec.hardware[1].batches, (std::vector<std::int64_t>{1, 2}));
  ASSERT_EQ(spec.strategies.size(), 2u);
  EXPECT_EQ(spec.strategies[1].params, R"({"max_evaluations":100})");
  EXPECT_EQ(spec.strategies[1].options.get<search::RandomSamplingOptions>().budget.max_evaluations,
            100);
  EXPECT_EQ(spec.strategies[0].options, search::StrategyParams{});
  EXPECT_EQ(spec.seeds, (std::vector<std::uint64_t>{1, 7}));
  EXPECT_EQ(spec.options.opt_goal, model::Goal::EnergyDelay);
  EXPECT_TRUE(spec.options.partition_hybrid);
  EXPECT_DOUBLE_EQ(spec.tuple_time_limit_seconds, 60);
  EXPECT_EQ(spec.output, "results/t.h5");
  EXPECT_EQ(spec.fingerprint.size(), 16u);
  EXPECT_EQ(sweep::expand_tuples(spec).size(), 2u * 3u * 2u * 2u);
  EXPECT_TRUE(spec.record_schedules);  // the default
}

// Recording schedules changes no result: the fingerprint stays, so a job may turn it off and
// still resume into (or merge with) a file written with it on.
TEST(job_json, record_schedules_is_parsed_and_not_in_the_fingerprint) {
  std::string text = kValid;
  text.replace(text.find("\"output\""), 0, "\"record_schedules\": false, ");
  const auto off = parse_job_text(text, "jobs/t.json");
  EXPECT_FALSE(off.record_schedules);
  EXPECT_EQ(off.fingerprint, parse_job_text(kValid, "jobs/t.json").fingerprint);
}

TEST(job_json, strategies_carry_their_registry_letter_and_a_label_outside_the_key) {
  const auto spec = parse_job_text(kValid, "jobs/t.json");
  EXPECT_EQ(spec.strategies[0].letter, "B");
  EXPECT_EQ(spec.strategies[0].label, "B");
  EXPECT_EQ(spec.strategies[1].letter, "R");
  EXPECT_EQ(spec.strategies[1].label, "R[max_evaluations=100]");
  const auto tuples = sweep::expand_tuples(spec);
  const auto& r = tuples[2];  // seeds innermost: exhaustive s1, s7, then random s1
  EXPECT_EQ(r.strategy_letter, "R");
  EXPECT_EQ(r.strategy_label, "R[max_evaluations=100]");
  // The key is what it was before labels existed: old results keep matching.
  EXPECT_EQ(r.key(), "mlp_s:cloud:random:b64:s1:p" +
                         sweep::hex64(sweep::fnv1a(R"({"max_evaluations":100})")).substr(0, 8));
  // A letter names the strategy as well; several params in key order, strings unquoted.
  const auto k = parse_job_text(R"({"name": "t", "networks": ["mlp_s"],
      "hardware": [{"name": "edge", "batch": 1}], "output": "x.h5", "strategies": ["s",
      {"name": "random", "params": {"victory_condition": 10, "max_evaluations": 5}},
      {"name": "kapla", "params": {"refinement": "paper", "fallback": false}},
      {"name": "B", "params": {}}]})",
                                "jobs/k.json");
  std::vector<std::string> labels;
  for (const auto& s : k.strategies) labels.push_back(s.letter + " " + s.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"S S", "R R[max_evaluations=5,victory_condition=10]",
                                              "K K[fallback=false,refinement=paper]", "B B"}));
}

TEST(job_json, an_unknown_strategy_is_refused_at_its_name) {
  EXPECT_THAT(error_of(R"({"name": "x", "networks": ["mlp_s"], "hardware": [{"name": "edge",
      "batch": 1}], "strategies": ["exhaustive", "annealing"], "output": "o.h5"})"),
              HasSubstr("jobs/x.json: strategies[1]: unknown strategy 'annealing'; known: "));
  EXPECT_THAT(error_of(R"({"name": "x", "networks": ["mlp_s"], "hardware": [{"name": "edge",
      "batch": 1}], "strategies": [{"name": "annealing", "params": {"t": 1}}], "output": "o.h5"})"),
              HasSubstr("jobs/x.json: strategies[0].name: unknown strategy 'annealing'"));
}

TEST(job_json, fingerprint_follows_options_not_axes) {
  const auto a = parse_job_text(kValid, "a");
  std::string more_nets = kValid;
  more_nets.replace(more_nets.find("\"mlp_s\""), 7, "\"mlp_m\", \"mlp_s\"");
  EXPECT_EQ(parse_job_text(more_nets, "b").fingerprint, a.fingerprint);
  std::string other_goal = kValid;
  other_goal.replace(other_goal.find("\"ed\""), 4, "\"e\"");
  EXPECT_NE(parse_job_text(other_goal, "c").fingerprint, a.fingerprint);
}

TEST(job_json, fold_variants_change_the_fingerprint_only_when_set) {
  // Files written before rs_fold_variants existed must still resume: off, the canonical text
  // (and so the fingerprint) is the old one. Left out, it is unset (each strategy's default:
  // off for this job's B and R; test_strategy_option_defaults covers K and S).
  const auto a = parse_job_text(kValid, "a");
  EXPECT_FALSE(a.options.rs_fold_variants.has_value());
  EXPECT_EQ(canonical_options(a.options).find("rs_fold_variants"), std::string::npos);
  std::string off = kValid;
  off.replace(off.find("\"opt_goal\""), 0, "\"rs_fold_variants\": false, ");
  EXPECT_EQ(parse_job_text(off, "b").fingerprint, a.fingerprint);
  std::string on = kValid;
  on.replace(on.find("\"opt_goal\""), 0, "\"rs_fold_variants\": true, ");
  const auto c = parse_job_text(on, "c");
  EXPECT_EQ(c.options.rs_fold_variants, true);
  EXPECT_NE(c.fingerprint, a.fingerprint);
  EXPECT_THAT(canonical_options(c.options), HasSubstr(";rs_fold_variants=1"));
}

TEST(job_json, imperfect_enters_fingerprint_and_keys_only_when_not_none) {
  const auto a = parse_job_text(kValid, "a");
  EXPECT_EQ(a.options.imperfect, model::Imperfect::None);
  std::string none = kValid;
  none.replace(none.find("\"opt_goal\""), 0, "\"imperfect\": \"none\", ");
  const auto b = parse_job_text(none, "b");
  EXPECT_EQ(b.fingerprint, a.fingerprint);
  EXPECT_EQ(sweep::expand_tuples(b).front().key(), sweep::expand_tuples(a).front().key());
  std::string spatial = kValid;
  spatial.replace(spatial.find("\"opt_goal\""), 0, "\"imperfect\": \"spatial\", ");
  auto c = parse_job_text(spatial, "c");
  EXPECT_EQ(c.options.imperfect, model::Imperfect::Spatial);
  EXPECT_NE(c.fingerprint, a.fingerprint);
  EXPECT_THAT(canonical_options(c.options), HasSubstr(";imperfect=spatial"));
  const auto key = sweep::expand_tuples(c).front().key();
  EXPECT_EQ(key, sweep::expand_tuples(a).front().key() + ":ispatial");
  // kapla sweep --imperfect: the options changed after loading, the fingerprint recomputed.
  auto d = parse_job_text(kValid, "d");
  d.options.imperfect = model::Imperfect::Spatial;
  EXPECT_EQ(job_fingerprint(d, search::builtin_strategies()), c.fingerprint);
  EXPECT_EQ(job_fingerprint(a, search::builtin_strategies()), a.fingerprint);
}

TEST(job_json, errors_are_one_line_with_file_and_field) {
  struct Case {
    std::string from, to, expect;
  };
  const std::vector<Case> cases = {
      {"\"seeds\"", "\"sedes\"", "jobs/x.json: sedes: unknown key"},
      {"\"max_evaluations\": 100", "\"samples\": 100",
       "jobs/x.json: strategies[1].params.samples: unknown key"},
      {"\"max_evaluations\": 100", "\"max_evaluations\": -1",
       "jobs/x.json: strategies[1].params.max_evaluations: must be >= 0"},
      {"\"max_evaluations\": 100", "\"max_evaluations\": 0",
       "jobs/x.json: strategies[1].params.max_evaluations: max_evaluations and max_seconds"},
      {"\"max_evaluations\": 100", "\"victory_condition\": true",
       "jobs/x.json: strategies[1].params.victory_condition"},
      {"[\"exhaustive\",", "[{\"name\": \"exhaustive\", \"params\": {\"seed\": 3}},",
       "jobs/x.json: strategies[0].params.seed: unknown key"},
      {"\"opt_goal\": \"ed\"", "\"opt_gaol\": \"ed\"", "jobs/x.json: options.opt_gaol"},
      {"\"opt_goal\": \"ed\"", "\"opt_goal\": \"fast\"", "jobs/x.json: options.opt_goal"},
      {"\"batch\": 64", "\"batch\": 0", "jobs/x.json: hardware[0].batch"},
      {"\"batch\": 64", "\"batchsize\": 64", "jobs/x.json: hardware[0].batchsize"},
      {"\"max_evaluations\": 100}", "\"max_evaluations\": 100}, \"extra\": 1",
       "jobs/x.json: strategies[1].extra"},
      {"\"output\": \"results/t.h5\"", "\"output\": 3", "jobs/x.json: output"},
      {"\"output\": \"results/t.h5\"", "\"output\": \"\"", "jobs/x.json: output"},
      {"[\"mlp_s\", \"lstm_phoneme\"]", "[]", "jobs/x.json: networks"},
      {"[\"mlp_s\", \"lstm_phoneme\"]", "[\"mlp_s\", \"mlp_s\"]", "jobs/x.json: networks[1]"},
      {"[1, 7]", "[1, -7]", "jobs/x.json: seeds[1]"},
      {"60", "-1", "jobs/x.json: tuple_time_limit_seconds"},
      // Issue 17: 1e10 s overflowed the steady_clock deadline and timed out every tuple.
      {"60", "1e10",
       "jobs/x.json: tuple_time_limit_seconds (0 = no limit): must be a non-negative number at "
       "most 1e+08, got 1e+10"},
      {"\"batch\": 64", "\"batch\": 1099511627776",
       "jobs/x.json: hardware[0].batch: must be positive and at most 1048576"},
      {"\"opt_goal\": \"ed\"", "\"opt_goal\": \"ed\", \"ntops\": 1099511627776",
       "jobs/x.json: options.ntops: is too large"},
      {"\"opt_goal\": \"ed\"",
       "\"opt_goal\": \"ed\", \"layer_pipeline_max_degree\": 9223372036854775807",
       "jobs/x.json: options.layer_pipeline_max_degree: must be a non-negative number at most "
       "1e+10"},
      {"\"max_evaluations\": 100", "\"max_evaluations\": 100, \"max_seconds\": 1e300",
       "jobs/x.json: strategies[1].params.max_seconds: must be a non-negative number at most "
       "1e+08"},
      {"\"name\": \"t\",", "", "jobs/x.json: name: missing"},
      {"[false, true, true]", "[false, true]", "jobs/x.json: options.sw_gbuf_bypass"},
      {"\"opt_goal\": \"ed\"", "\"opt_goal\": \"ed\", \"imperfect\": \"remainders\"",
       "jobs/x.json: options.imperfect: must be one of none, spatial, full, perfect; got "
       "'remainders'"},
      {"\"opt_goal\": \"ed\"", "\"opt_goal\": \"ed\", \"imperfect\": true",
       "jobs/x.json: options.imperfect: must be a string, got true"},
      {"\"opt_goal\": \"ed\"", "\"opt_goal\": 3",
       "jobs/x.json: options.opt_goal: must be a string"},
      {"\"seeds\": [1, 7],", "\"seeds\": [1, 7],,", "jobs/x.json: line"},
      {"\"tuple_time_limit_seconds\": 60,", "\"record_schedules\": \"no\",",
       "jobs/x.json: record_schedules: must be true or false"},
  };
  for (const auto& c : cases) {
    std::string text = kValid;
    const auto at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, c.from.size(), c.to);
    const std::string err = error_of(text);
    EXPECT_THAT(err, HasSubstr(c.expect)) << c.from << " -> " << c.to;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  }
}

// The tuples are the product of the axes: 1001 seeds x 1000 hardware names (a 20 KB file) are
// 10^6 tuples, each with its key; a 64 MiB file could ask for 10^11. Counted first, refused.
TEST(job_json, a_job_of_more_than_a_million_tuples_is_refused_before_expansion) {
  std::string hardware, seeds;
  for (int i = 0; i < 1000; ++i) hardware += (i ? ", \"h" : "\"h") + std::to_string(i) + "\"";
  for (int i = 0; i < 1001; ++i) seeds += (i ? ", " : "") + std::to_string(i);
  const std::string text = R"({"name": "t", "networks": ["mlp_s"], "batch": 1, "hardware": [)" +
                           hardware + R"(], "strategies": ["exhaustive"], "seeds": [)" + seeds +
                           R"(], "output": "t.h5"})";
  EXPECT_EQ(error_of(text),
            "jobs/x.json: axes: 1001000 tuples (networks x hardware and batches x strategies x "
            "seeds), more than 1000000");
}

TEST(job_json, kapla_params_select_inter_layer_options_and_variant) {
  std::string text = kValid;
  const std::string from = "\"exhaustive\",";
  const auto at = text.find(from);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, from.size(),
               R"({"name": "kapla", "params": {"segment_selection": true, "segment_margin": 0,
                   "constraint_frontier": true, "refinement": "paper"}},)");
  const auto k =
      parse_job_text(text, "jobs/k.json").strategies[0].options.get<search::KaplaSolverOptions>();
  EXPECT_TRUE(k.segment_selection);
  EXPECT_EQ(k.segment_margin, 0.0);
  EXPECT_TRUE(k.constraint_frontier);
  EXPECT_EQ(k.refinement, search::kapla::Refinement::paper());
  EXPECT_NE(k.refinement, search::kapla::Refinement{});

  text.replace(text.find("\"paper\""), 7, "\"fast\"");
  EXPECT_THAT(error_of(text), HasSubstr("jobs/x.json: strategies[0].params.refinement: must be"));
}

TEST(job_json, defaults_are_kapla_schedules) {
  // One set of defaults: a job without "options", or with some keys missing, gets
  // model::default_options() (nn_dataflow's CLI: GBUF bypass on), as `kapla schedule` does.
  std::string none = kValid;
  const auto at = none.find("  \"options\"");
  none.erase(at, none.find('\n', at) - at + 1);
  const auto a = parse_job_text(none, "a");
  EXPECT_EQ(a.options, model::default_options());
  std::string partial = kValid;
  const std::string bypass = R"("sw_gbuf_bypass": [false, true, true])";
  partial.replace(partial.find(bypass), bypass.size(), R"("ntops": 1)");
  EXPECT_EQ(parse_job_text(partial, "b").options.sw_gbuf_bypass,
            model::default_options().sw_gbuf_bypass);
}

TEST(job_json, old_default_results_are_not_reused_under_the_new_default) {
  // Before one set of defaults, a job without "options" ran with GBUF bypass off. Such a
  // file's fingerprint must differ from a job without options now (resuming it is refused),
  // and equal a job that states the old default explicitly (so it still resumes).
  auto job = [](const std::string& options) {
    return std::string(R"({"name": "t", "networks": ["mlp_s"], "hardware": ["edge"], "batch": 1,
      "strategies": ["exhaustive"], )") +
           options + R"("output": "r.h5"})";
  };
  const auto now = parse_job_text(job(""), "now").fingerprint;
  const auto old_default =
      parse_job_text(job(R"("options": {"sw_gbuf_bypass": [false, false, false]}, )"), "old");
  const auto explicit_on =
      parse_job_text(job(R"("options": {"sw_gbuf_bypass": [true, true, true]}, )"), "on");
  EXPECT_NE(now, old_default.fingerprint);
  EXPECT_EQ(now, explicit_on.fingerprint);
  // The fingerprint of the old default (bypass off, everything else Option()) is unchanged.
  EXPECT_EQ(old_default.fingerprint,
            sweep::hex64(sweep::fnv1a(canonical_options(model::SearchOptions{}) +
                                      ";tuple_time_limit_seconds=0")));
}

TEST(job_json, missing_file_is_an_input_error) {
  EXPECT_THROW(load_job_file("/nonexistent/job.json"), InputError);
}

TEST(job_json, shipped_job_files_parse) {
  const std::filesystem::path dir = std::filesystem::path(KAPLA_SOURCE_DATA_DIR) / ".." / "jobs";
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    EXPECT_NO_THROW(load_job_file(entry.path())) << entry.path();
    ++n;
  }
  EXPECT_GE(n, 1);
}

}  // namespace
}  // namespace kapla::io
