// The real strategy runner (sweep/strategy_runner.cpp) on small networks of the catalog: the
// tuple's search seed reaches R and M, strategy params reach the strategies, R/M curves and
// scheme counts reach the TupleResult, and K's inter-layer pruning counts are recorded (equal
// to B's counts with pruning off).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <unistd.h>

#include "io/catalog.hpp"
#include "io/job_json.hpp"
#include "io/strategy_params_json.hpp"
#include "sweep/job.hpp"
#include "sweep/strategy_runner.hpp"

namespace kapla::sweep {
namespace {

model::SearchOptions inference_options() {
  model::SearchOptions o;
  o.hw_gbuf_sharing = true;
  o.partition_hybrid = o.partition_batch = o.partition_ifmaps = true;
  o.partition_interlayer = true;
  o.layer_pipeline_max_degree = 5;
  return o;
}

std::unique_ptr<TupleRunner> runner(const model::SearchOptions& options) {
  auto catalog = std::make_shared<io::Catalog>(KAPLA_SOURCE_DATA_DIR);
  SweepSpec spec;
  spec.options = options;
  ModelLoaders loaders;
  loaders.network = [catalog](const std::string& n) { return catalog->load_network(n); };
  loaders.hardware = [catalog](const std::string& n) { return catalog->load_hardware(n); };
  return make_strategy_runner(spec, std::move(loaders));
}

Tuple tuple(std::string net, std::string hw, std::int64_t batch, std::string strategy,
            std::uint64_t seed, search::StrategyParams so = {}, std::string params = "") {
  Tuple t;
  t.network = std::move(net);
  t.hardware = std::move(hw);
  t.batch = batch;
  t.strategy = std::move(strategy);
  t.seed = seed;
  t.strategy_options = so;
  t.strategy_params = std::move(params);
  return t;
}

TupleResult run(const TupleRunner& r, const Tuple& t) {
  r.check(t);
  RunContext ctx;
  ctx.seed = tuple_seed(t);
  return r.run(t, ctx);
}

std::optional<std::string> resolved(const TupleResult& r, const std::string& name) {
  for (const auto& [n, v] : r.resolved) {
    if (n == name) return v;
  }
  return std::nullopt;
}

std::int64_t resolved_int(const TupleResult& r, const std::string& name) {
  const auto v = resolved(r, name);
  EXPECT_TRUE(v.has_value()) << name;
  return v ? std::stoll(*v) : -2;
}

bool same_search(const TupleResult& a, const TupleResult& b) {
  if (a.total_cost != b.total_cost || a.time != b.time || a.layers != b.layers) return false;
  if (a.stats.evaluated != b.stats.evaluated || a.stats.curve.size() != b.stats.curve.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.stats.curve.size(); ++i) {
    if (a.stats.curve[i].evaluated != b.stats.curve[i].evaluated ||
        a.stats.curve[i].best_cost != b.stats.curve[i].best_cost) {
      return false;
    }
  }
  return true;
}

// A strategy's params as a job file would give them.
search::StrategyParams params(const std::string& strategy, const std::string& json_text) {
  const auto j = nlohmann::json::parse(json_text);
  return io::parse_strategy_params(search::builtin_strategies().find(strategy), j, "params");
}

search::StrategyParams small_budget(const std::string& strategy) {
  return params(strategy, R"({"max_evaluations": 40})");
}

TEST(sweep_strategy_runner, seed_reaches_random_and_guided) {
  const auto r = runner(model::SearchOptions{});
  for (const char* s : {"random", "guided"}) {
    const auto a = run(*r, tuple("mlp_s", "edge", 1, s, 1, small_budget(s), "{}"));
    const auto a2 = run(*r, tuple("mlp_s", "edge", 1, s, 1, small_budget(s), "{}"));
    const auto b = run(*r, tuple("mlp_s", "edge", 1, s, 2, small_budget(s), "{}"));
    ASSERT_EQ(a.status, TupleStatus::Ok) << s << ": " << a.message;
    EXPECT_TRUE(same_search(a, a2)) << s << ": same seed, different results";
    EXPECT_FALSE(same_search(a, b)) << s << ": seeds 1 and 2 gave identical results";
    EXPECT_EQ(resolved(a, "strategy.seed"),
              std::to_string(tuple_seed(tuple("mlp_s", "edge", 1, s, 1, {}, "{}"))));
    EXPECT_EQ(resolved(a, "strategy.max_evaluations"), "40");
  }
}

TEST(sweep_strategy_runner, budget_param_reaches_the_strategy) {
  const auto r = runner(model::SearchOptions{});
  const auto more = params("random", R"({"max_evaluations": 80})");
  const auto a = run(*r, tuple("mlp_s", "edge", 1, "random", 1, small_budget("random"), "{}"));
  const auto b = run(*r, tuple("mlp_s", "edge", 1, "random", 1, more, "{}"));
  ASSERT_EQ(a.status, TupleStatus::Ok);
  EXPECT_EQ(a.stats.evaluated, resolved_int(a, "stats.schemes_evaluated"));
  // Every layer search spends its whole budget (no victory condition, large spaces).
  EXPECT_EQ(a.stats.evaluated, 40 * resolved_int(a, "stats.layer_searches"));
  EXPECT_EQ(b.stats.evaluated, 80 * resolved_int(b, "stats.layer_searches"));
}

TEST(sweep_strategy_runner, curves_and_counts_for_sampling_strategies) {
  const auto r = runner(model::SearchOptions{});
  for (const char* s : {"random", "guided"}) {
    const auto a = run(*r, tuple("mlp_s", "edge", 1, s, 1, small_budget(s), "{}"));
    ASSERT_EQ(a.status, TupleStatus::Ok);
    ASSERT_FALSE(a.stats.curve.empty()) << s;
    EXPECT_GT(a.stats.evaluated, 0);
    EXPECT_EQ(a.stats.curve.back().evaluated, a.stats.evaluated);
    for (std::size_t i = 1; i < a.stats.curve.size(); ++i) {
      EXPECT_GT(a.stats.curve[i].evaluated, a.stats.curve[i - 1].evaluated);
      EXPECT_LE(a.stats.curve[i].best_cost, a.stats.curve[i - 1].best_cost);
    }
    // Single-layer segments only (default options): the sum of per-layer bests is the best
    // network schedule's cost up to layout effects; never above it.
    EXPECT_LE(a.stats.curve.back().best_cost, a.total_cost * (1 + 1e-12));
    EXPECT_GE(resolved_int(a, "stats.schemes_valid"), 1);
    EXPECT_EQ(a.stats.pruned, 0);
  }
  const auto b = run(*r, tuple("mlp_s", "edge", 1, "exhaustive", 1));
  EXPECT_TRUE(b.stats.curve.empty());
  EXPECT_GT(b.stats.evaluated, 0);  // B counts its loop-blocking evaluations
  EXPECT_GE(resolved_int(b, "stats.schemes_valid"), 1);
  EXPECT_LE(resolved_int(b, "stats.schemes_valid"), b.stats.evaluated);
  const auto s = run(*r, tuple("mlp_s", "edge", 1, "directive-exhaustive", 1));
  EXPECT_GT(s.stats.evaluated, 0);
  EXPECT_GE(resolved_int(s, "stats.schemes_valid"), 1);
  EXPECT_LE(resolved_int(s, "stats.schemes_valid"), s.stats.evaluated);
  const auto k = run(*r, tuple("mlp_s", "edge", 1, "kapla", 1));
  EXPECT_TRUE(k.stats.curve.empty());
  EXPECT_GT(k.stats.evaluated, 0);
}

TEST(sweep_strategy_runner, kapla_pruning_counts) {
  const auto r = runner(inference_options());
  const auto off = params("kapla", R"({"inter_layer_pruning": false})");
  const auto b = run(*r, tuple("mlp_m", "cloud4x4", 16, "exhaustive", 1));
  const auto k_off = run(*r, tuple("mlp_m", "cloud4x4", 16, "kapla", 1, off, "{}"));
  const auto k = run(*r, tuple("mlp_m", "cloud4x4", 16, "kapla", 1));
  ASSERT_EQ(b.status, TupleStatus::Ok);
  ASSERT_EQ(k.status, TupleStatus::Ok);
  for (const char* key : {"stats.segments_before_pruning", "stats.constraints_before_pruning"}) {
    EXPECT_EQ(resolved_int(k, key), resolved_int(b, key)) << key;
    EXPECT_EQ(resolved_int(k_off, key), resolved_int(b, key)) << key;
  }
  // Without pruning (B, K off) after == before.
  for (const auto* x : {&b, &k_off}) {
    EXPECT_EQ(resolved_int(*x, "stats.segments_after_pruning"),
              resolved_int(*x, "stats.segments_before_pruning"));
    EXPECT_EQ(resolved_int(*x, "stats.constraints_after_pruning"),
              resolved_int(*x, "stats.constraints_before_pruning"));
    EXPECT_EQ(x->stats.pruned, 0);
  }
  const auto before = resolved_int(k, "stats.constraints_before_pruning");
  const auto after = resolved_int(k, "stats.constraints_after_pruning");
  EXPECT_LE(after, before);
  EXPECT_LE(resolved_int(k, "stats.segments_after_pruning"),
            resolved_int(k, "stats.segments_before_pruning"));
  EXPECT_EQ(k.stats.pruned, before - after);
  // The occupancy check is conservative: K finds the same schedule with and without it.
  EXPECT_EQ(k.total_cost, k_off.total_cost);
  EXPECT_EQ(k.layers, k_off.layers);
  std::cout << "[pruning] mlp_m cloud4x4 b16: segments "
            << resolved_int(k, "stats.segments_before_pruning") << " -> "
            << resolved_int(k, "stats.segments_after_pruning") << ", constraints " << before
            << " -> " << after << "; layer searches K " << resolved_int(k, "stats.layer_searches")
            << " (off: " << resolved_int(k_off, "stats.layer_searches") << ")\n";
}

// Per-layer MACs (schema 7) are the layer's MACs at the tuple's batch for the kinds that
// multiply and 0 for pooling; the tuple's is their sum, AlexNet's 724 M per sample by formula.
TEST(sweep_strategy_runner, layer_macs_count_only_the_multiplying_kinds) {
  const auto r = runner(inference_options());
  const auto k = run(*r, tuple("alex_net", "eyeriss", 2, "kapla", 1));
  ASSERT_EQ(k.status, TupleStatus::Ok);
  const auto net = io::Catalog(KAPLA_SOURCE_DATA_DIR).load_network("alex_net");
  std::int64_t sum = 0, pools = 0;
  for (const auto& row : k.layers) {
    const auto& l = net.layer(*net.find(row.layer));
    EXPECT_EQ(row.macs, l.has_filter() ? l.total_ops(2) : 0) << row.layer;
    pools += l.type == model::LayerType::Pooling ? 1 : 0;
    sum += row.macs;
  }
  EXPECT_EQ(pools, 6);
  EXPECT_EQ(k.macs, sum);
  // Two towers: conv1 11x11x3 -> 48 at 55x55, conv2 5x5x48 -> 128 at 27x27, conv3 3x3x256 -> 192,
  // conv4 3x3x192 -> 192, conv5 3x3x192 -> 128 at 13x13; fc 9216-4096-4096-1000.
  const std::int64_t per_sample =
      2 * (55LL * 55 * 48 * 3 * 121 + 27LL * 27 * 128 * 48 * 25 + 13LL * 13 * 192 * 256 * 9 +
           13LL * 13 * 192 * 192 * 9 + 13LL * 13 * 128 * 192 * 9) +
      9216LL * 4096 + 4096LL * 4096 + 4096LL * 1000;
  EXPECT_EQ(k.macs, 2 * per_sample);
}

// PE utilisation = MACs / (PEs x cycles), on schedules whose time is known by hand, through a
// design space with a floor (which each tuple records in /resolved):
// - a 3x3 conv of 4 -> 4 channels at 4x4 (2304 MACs) on one PE: 2304 cycles, utilisation 1;
// - an FC of 16 inputs -> 8 outputs (128 MACs) on Thistle's 14x12 Eyeriss: one PE per output
//   neuron, 8 of the 168 PEs busy for its 16 inputs: 16 cycles, utilisation 8 / 168 = 1 / 21.
TEST(sweep_strategy_runner, pe_utilisation_is_macs_over_pe_cycles) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kapla_pe_util_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto conv = dir / "tiny_conv.json";
  const auto fc = dir / "tiny_fc.json";
  std::ofstream(conv) << R"({"name": "tiny_conv", "source": "test", "input": {"nofm": 4, "sofm": 6},
    "externals": [], "layers": [{"name": "conv", "type": "Conv", "nifm": 4, "nofm": 4,
                                 "sofm": 4, "sfil": 3}]})";
  std::ofstream(fc) << R"({"name": "tiny_fc", "source": "test", "input": {"nofm": 16, "sofm": 1},
    "externals": [], "layers": [{"name": "fc", "type": "FC", "nifm": 16, "nofm": 8, "sfil": 1}]})";
  const SweepSpec spec = io::parse_job_text(
      R"({"name": "u", "networks": [")" + conv.string() + R"(", ")" + fc.string() +
          R"("], "hardware": [{"base": "eyeriss_45nm", "batch": 1,
          "axes": {"pe_array": [[1, 1], [14, 12]]}, "constraints": {"min_pe_utilisation": 0.25}}],
          "strategies": ["kapla"], "options": {"opt_goal": "e"}, "output": "u.h5"})",
      "jobs/u.json", search::builtin_strategies(), std::filesystem::path(KAPLA_SOURCE_DATA_DIR));
  auto catalog = std::make_shared<io::Catalog>(KAPLA_SOURCE_DATA_DIR);
  ModelLoaders loaders;
  loaders.network = [catalog](const std::string& n) { return catalog->load_network(n); };
  loaders.hardware = [catalog](const std::string& n) { return catalog->load_hardware(n); };
  const auto r = make_strategy_runner(spec, std::move(loaders));
  std::map<std::string, TupleResult> by;
  for (const auto& t : expand_tuples(spec)) {
    by[std::filesystem::path(t.network).stem().string() + " " + t.hardware] = run(*r, t);
  }
  const auto& one = by.at("tiny_conv eyeriss_45nm~pe1x1");
  ASSERT_EQ(one.status, TupleStatus::Ok);
  EXPECT_EQ(one.macs, 2304);
  EXPECT_EQ(one.time, 2304);
  EXPECT_EQ(one.pe_utilisation, 1.0);
  const auto& wide = by.at("tiny_fc eyeriss_45nm~pe14x12");
  ASSERT_EQ(wide.status, TupleStatus::Ok);
  EXPECT_EQ(wide.macs, 128);
  EXPECT_EQ(wide.time, 16);
  EXPECT_EQ(wide.pe_utilisation, 128.0 / (168 * 16));
  EXPECT_DOUBLE_EQ(wide.pe_utilisation, 1.0 / 21);
  for (const auto& [name, result] : by) {
    EXPECT_EQ(resolved(result, "constraints.min_pe_utilisation"), "0.25") << name;
    EXPECT_GT(result.pe_utilisation, 0) << name;
    EXPECT_LE(result.pe_utilisation, 1) << name;
  }
  // A preset tuple has its utilisation too, and no floor row.
  const auto preset =
      run(*runner(inference_options()), tuple(fc.string(), "eyeriss", 1, "kapla", 1));
  EXPECT_FALSE(resolved(preset, "constraints.min_pe_utilisation").has_value());
  EXPECT_EQ(preset.pe_utilisation,
            static_cast<double>(preset.macs) / (static_cast<double>(14 * 12) * preset.time));
  std::filesystem::remove_all(dir);
}

// A tuple time limit interrupts the network search: with the deadline already past, the search
// stops before its first layer search and the tuple is a timeout with no schedule; a stop signal
// makes it Interrupted (not recorded, rerun on resume). Counted, not timed.
TEST(sweep_strategy_runner, time_limit_and_signal_stop_the_search) {
  const auto r = runner(inference_options());
  for (const char* s : {"exhaustive", "directive-exhaustive", "random", "kapla"}) {
    const auto t = tuple("mlp_m", "cloud4x4", 16, s, 1);
    r->check(t);
    RunContext ctx;
    ctx.seed = tuple_seed(t);
    ctx.deadline = std::chrono::steady_clock::now();
    const auto timed_out = r->run(t, ctx);
    EXPECT_EQ(timed_out.status, TupleStatus::Timeout) << s;
    EXPECT_NE(timed_out.message.find("time limit"), std::string::npos) << timed_out.message;
    EXPECT_EQ(resolved_int(timed_out, "stats.layer_searches"), 0) << s;
    EXPECT_TRUE(timed_out.layers.empty());
    EXPECT_EQ(timed_out.total_cost, 0);

    std::atomic<bool> stop{true};
    RunContext signalled;
    signalled.seed = ctx.seed;
    signalled.stop = &stop;
    EXPECT_EQ(r->run(t, signalled).status, TupleStatus::Interrupted) << s;
  }
}

}  // namespace
}  // namespace kapla::sweep
