// The systolic PE-array mapping in the searches: the hardware field and its checks, the one
// fixed-scheme evaluator against the reference's systolic records, and B, S, K (and whole
// networks) on a systolic array. Spec: kapla-spec.md §1.1, §1.6, §2.2, §7.3.
#include <gtest/gtest.h>

#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/errors.hpp"
#include "io/catalog.hpp"
#include "io/golden_record.hpp"
#include "io/hardware_json.hpp"
#include "mapping/data_layout_ops.hpp"
#include "mapping/noc_hops.hpp"
#include "mapping/part_layer.hpp"
#include "pricing/fixed_scheme.hpp"
#include "schedule/network_search.hpp"
#include "schedule/resource_builder.hpp"
#include "schedule/run_network.hpp"
#include "search/directive_exhaustive.hpp"
#include "search/kapla/systolic_template.hpp"
#include "search/kapla_solver.hpp"
#include "search/scheme_space.hpp"
#include "search/strategy.hpp"

namespace kapla::search {
namespace {

namespace golden = io::golden;

io::Catalog catalog() { return io::Catalog(KAPLA_SOURCE_DATA_DIR); }

// ---- The hardware field -------------------------------------------------------------------

TEST(SystolicHardware, PresetIsEdgeWithASystolicArray) {
  model::Hardware sys = catalog().load_hardware("edge_systolic");
  const model::Hardware edge = catalog().load_hardware("edge");
  EXPECT_EQ(sys.array_mapping, model::ArrayMapping::Systolic);
  EXPECT_EQ(edge.array_mapping, model::ArrayMapping::RowStationary);
  EXPECT_EQ(schedule::build_resource(sys).array_mapping, model::ArrayMapping::Systolic);
  sys.name = edge.name;
  sys.source = edge.source;
  sys.array_mapping = edge.array_mapping;
  EXPECT_EQ(sys, edge);  // same numbers
}

TEST(SystolicHardware, FileFieldIsCheckedByName) {
  auto doc = nlohmann::json::parse(R"({"name": "x", "source": "test", "nodes": [1, 1],
      "pe_array": [4, 4], "gbuf_bytes": 4096, "regf_bytes": 64, "array_mapping": "tpu",
      "costs": {"energy_unit": "relative", "mac_op": 1, "dram_access": 200, "gbuf_access": 6,
                "itcn_access": 2, "regf_access": 1, "noc_hop": 10, "idle_per_cycle": 0}})");
  try {
    (void)io::parse_hardware(doc, "x.json", "x");
    FAIL() << "an unknown array mapping was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "x.json: array_mapping: must be \"row_stationary\" or \"systolic\", got \"tpu\"");
  }
  doc["array_mapping"] = "row_stationary";
  EXPECT_EQ(io::parse_hardware(doc, "x.json", "x").array_mapping,
            model::ArrayMapping::RowStationary);
  doc.erase("array_mapping");
  EXPECT_EQ(io::parse_hardware(doc, "x.json", "x").array_mapping,
            model::ArrayMapping::RowStationary);
}

TEST(SystolicHardware, BackPropNetworkIsRefusedInOneLineNamingTheLayer) {
  const auto hw = catalog().load_hardware("edge_systolic");
  const auto bp = catalog().load_network("mlp_l_bp");
  try {
    model::check_array_mapping(hw, bp, model::CostModelVariant::Kapla);
    FAIL() << "a back-propagation network was accepted on a systolic array";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos);
    std::string first_back;
    for (std::size_t i = 0; i < bp.size() && first_back.empty(); ++i)
      if (bp.layer(i).is_back()) first_back = bp.layer_name(i);
    EXPECT_NE(what.find("layer '" + first_back + "'"), std::string::npos) << what;
  }
  const auto fwd = catalog().load_network("mlp_l");
  EXPECT_NO_THROW(model::check_array_mapping(hw, fwd, model::CostModelVariant::Kapla));
  EXPECT_THROW(model::check_array_mapping(hw, fwd, model::CostModelVariant::Tangram), InputError);
  // Row stationary runs anything.
  EXPECT_NO_THROW(model::check_array_mapping(catalog().load_hardware("edge"), bp,
                                             model::CostModelVariant::Tangram));
}

// ---- The one fixed-scheme evaluator on the reference's systolic records -------------------

TEST(SystolicFixedScheme, EveryGoldenRecordThroughSetupPartition) {
  const auto recs = golden::read_jsonl(std::string(KAPLA_TEST_DATA_DIR) +
                                       "/golden/kapla/scheme_evals_systolic.jsonl");
  ASSERT_EQ(recs.size(), 168u);
  int valid = 0;
  for (const auto& rec : recs) {
    const auto& in = rec.at("inputs");
    ASSERT_EQ(rec.at("array_mapping").get<std::string>(), "systolic");
    pricing::LayerProblem p;
    p.layer = golden::parse_layer(in.at("layer"));
    p.batch = in.at("batch_size").get<std::int64_t>();
    p.resource = golden::parse_resource(in.at("resource"));
    p.resource.array_mapping = model::ArrayMapping::Systolic;
    p.costs = golden::parse_cost(in.at("cost"));
    p.options = golden::parse_options(in.at("options"), rec.at("model").get<std::string>());
    p.ifmap_layout = golden::parse_layout(in.at("ifmap_layout"));
    const auto fs = golden::parse_fixed_scheme(in.at("scheme"));
    const auto setup = pricing::setup_partition(p, fs.part);
    const auto placement = pricing::place_partition(
        p, fs.part, mapping::placement_sources(p.resource.dram_region, p.ifmap_layout));
    const auto got = pricing::evaluate_fixed_scheme(
        p, setup, placement, pricing::FixedScheme{fs.nld_index, {fs.bl_ts, fs.bl_ords}});
    const std::string id = rec.at("id").get<std::string>();
    ASSERT_EQ(got.has_value(), rec.at("valid").get<bool>()) << id;
    if (!got) continue;
    ++valid;
    const auto& want = rec.at("result");
    EXPECT_TRUE(golden::rel_equal(got->cost, golden::to_double(want.at("cost")))) << id;
    EXPECT_TRUE(golden::rel_equal(got->time, golden::to_double(want.at("time")))) << id;
    EXPECT_TRUE(golden::rel_equal(got->ops, golden::to_double(want.at("ops")))) << id;
    EXPECT_TRUE(golden::rel_equal(got->cost_static, golden::to_double(want.at("cost_static"))))
        << id;
  }
  EXPECT_EQ(valid, 140);
}

TEST(SystolicFixedScheme, TheResourceChoosesTheMapStrategy) {
  // conv 48->128 on 27x27, 5x5 filters: row stationary maps (filter rows, output rows), systolic
  // (output positions, output channels) with one nest (input-channel x batch replication).
  pricing::LayerProblem p;
  p.layer = model::make_conv(48, 128, {27, 27}, {5, 5});
  p.batch = 4;
  p.resource = schedule::build_resource(catalog().load_hardware("edge"));
  const mapping::PartitionScheme whole{};
  const auto rs = pricing::setup_partition(p, whole);
  p.resource.array_mapping = model::ArrayMapping::Systolic;
  const auto sys = pricing::setup_partition(p, whole);
  EXPECT_EQ(sys.map.nlds.size(), 1u);
  EXPECT_EQ(rs.map.geometry.dim_lpeset, (PhyDim2{5, 27}));
  EXPECT_EQ(sys.map.geometry.dim_lpeset, (PhyDim2{729, 128}));
  EXPECT_EQ(sys.map.geometry.fold, (PhyDim2{46, 8}));
}

// ---- B, S and K per layer ------------------------------------------------------------------

pricing::LayerProblem edge_problem(const model::Layer& layer, std::int64_t batch) {
  const auto hw = catalog().load_hardware("edge_systolic");
  pricing::LayerProblem p;
  p.layer = layer;
  p.batch = batch;
  p.resource = schedule::build_resource(hw);
  p.costs = hw.costs;
  p.options = model::kapla_option_preset("inference");
  p.ifmap_layout =
      mapping::input_layouts(layer.nifm, layer.sifm, batch, p.resource.src_data_region, p.options)
          .front();
  return p;
}

// Every valid point of the space B searches, priced by the one cost model.
double brute_force_min(const pricing::LayerProblem& p) {
  const auto space = SchemeSpace::of_problem(p);
  const auto eval = cost_model_evaluator(p, space);
  double best = std::numeric_limits<double>::infinity();
  for (std::uint64_t i = 0; i < space.size(); ++i) {
    if (const auto s = eval(space.at(i))) best = std::min(best, s->cost);
  }
  return best;
}

TEST(SystolicSearch, SIsTheOptimumOfBsSpaceAndBoundsB) {
  // Small enough for a brute force over B's whole space.
  const std::vector<std::pair<std::string, model::Layer>> layers{
      {"fc", model::make_fc(32, 16)},
      {"conv", model::make_conv(4, 8, {6, 6}, {3, 3})},
  };
  const auto b = make_layer_strategy("exhaustive");
  for (const auto& [name, layer] : layers) {
    const auto p = edge_problem(layer, 2);
    const double opt = brute_force_min(p);
    const auto s = DirectiveExhaustive().search(p, {2});
    const auto bb = b->search(p, {2});
    ASSERT_EQ(s.size(), 1u) << name;
    ASSERT_FALSE(bb.empty()) << name;
    EXPECT_TRUE(golden::rel_equal(s[0].cost, opt, 1e-12))
        << name << ": S " << s[0].cost << " vs " << opt;
    EXPECT_LE(s[0].cost, bb[0].cost * (1 + 1e-12)) << name;
    std::cout << "[systolic] " << name << ": B/opt " << bb[0].cost / opt << "\n";
  }
}

TEST(SystolicSearch, KIsBoundedByS) {
  const std::vector<std::pair<std::string, model::Layer>> layers{
      {"conv", model::make_conv(16, 32, {14, 14}, {3, 3})},
      {"fc", model::make_fc(256, 64)},
      {"pool", model::make_pooling(32, {7, 7}, {2, 2})},
      {"dwconv", model::make_dwconv(32, {14, 14}, {3, 3})},
      {"dwconv512", model::make_dwconv(512, {14, 14}, {3, 3})},
      {"pointwise", model::make_conv(256, 512, {14, 14}, {1, 1})},  // K's greedy is off here
  };
  for (const auto& [name, layer] : layers) {
    const auto p = edge_problem(layer, 1);
    const auto k = KaplaSolver().search(p, {1});
    const auto s = DirectiveExhaustive().search(p, {2});
    ASSERT_EQ(k.size(), 1u) << name;
    ASSERT_EQ(s.size(), 1u) << name;
    EXPECT_GE(k[0].cost, s[0].cost * (1 - 1e-12)) << name;
    std::cout << "[systolic] " << name << ": K/S energy " << k[0].cost / s[0].cost << "\n";
  }
}

// ---- Directives ----------------------------------------------------------------------------

TEST(SystolicDirectives, ReplicationOfEveryNestMatchesItsLoopCounts) {
  const auto p = edge_problem(model::make_dwconv(4, {2, 2}, {3, 3}), 4);  // repl 4 x 4
  const auto setup = pricing::setup_partition(p, mapping::PartitionScheme{});
  const auto& g = setup.map.geometry;
  ASSERT_EQ(setup.map.nlds.size(), 9u);  // channelwise: one nest per replication split
  for (std::size_t i = 0; i < setup.map.nlds.size(); ++i) {
    const auto r =
        kapla::systolic_replication(setup.pl.p_layer, setup.pl.p_batch, g, static_cast<int>(i));
    const auto& lc = setup.map.nlds[i].loopcnt;
    EXPECT_EQ(lc[LoopDim::Ofm], (g.fold.w + r.ofmaps - 1) / r.ofmaps) << i;
    EXPECT_EQ(lc[LoopDim::Bat], (4 + r.batches - 1) / r.batches * g.fold.h) << i;
  }
}

TEST(SystolicDirectives, ASchemeIsWrittenWithTheSystolicTemplate) {
  const auto p = edge_problem(model::make_conv(16, 32, {14, 14}, {3, 3}), 2);
  const auto b = make_layer_strategy("exhaustive")->search(p, {1});
  ASSERT_FALSE(b.empty());
  const auto d = directives_of(p, b[0], "conv");
  EXPECT_EQ(d.mapping, model::ArrayMapping::Systolic);
  // Logical PE set (196 positions, 32 channels) folded onto 16x16: 13 x 2 folds of 16 x 16.
  ASSERT_GE(d.regf.stacks.size(), 2u);
  EXPECT_EQ(d.regf.stacks[0].pairs[0].dim, kapla::Dim::K);
  EXPECT_EQ(d.regf.stacks[0].repl, 16);
  EXPECT_EQ(d.regf.stacks[1].pairs[0].dim, kapla::Dim::XY);
  EXPECT_EQ(d.regf.stacks[1].repl, 16);
  ASSERT_FALSE(d.regf.updates.empty());
  EXPECT_EQ(d.regf.updates[0].pairs[0].dim, kapla::Dim::F);  // the window streams through
  EXPECT_EQ(d.regf.updates[0].count, 9);
  EXPECT_NE(kapla::format_directives(d).find("[systolic"), std::string::npos);
}

// ---- Whole networks ------------------------------------------------------------------------

// The total energy of the network's best scheme under the KAPLA inference options.
double network_cost(const std::string& net_name, const std::string& strategy,
                    const std::string& hardware, std::int64_t batch) {
  const auto net = catalog().load_network(net_name);
  const auto hw = catalog().load_hardware(hardware);
  const auto strat = make_layer_strategy(strategy);
  const auto res =
      schedule::run_network(net, hw, *strat, model::kapla_option_preset("inference"), batch);
  EXPECT_FALSE(res.tops.empty()) << net_name << ' ' << strategy;
  return res.tops.empty() ? 0 : res.tops.front().total_cost();
}

TEST(SystolicSearch, SmallNetworksScheduleWithBAndK) {
  // B's totals, measured when the systolic dispatch was added (a change means B or the
  // systolic pricing changed).
  const std::map<std::string, double> b_pinned{{"mlp_s", 2.5999890439796e-04},
                                               {"lstm_phoneme", 8.55291540109982e-05}};
  for (const std::string net : {"mlp_s", "lstm_phoneme"}) {
    const double b = network_cost(net, "exhaustive", "edge_systolic", 1);
    const double k = network_cost(net, "kapla", "edge_systolic", 1);
    const double b_rs = network_cost(net, "exhaustive", "edge", 1);
    ASSERT_GT(b, 0);
    ASSERT_GT(k, 0);
    EXPECT_NE(b, b_rs) << net << ": the systolic array priced as row stationary";
    EXPECT_TRUE(golden::rel_equal(b, b_pinned.at(net), 1e-9)) << net << ": B " << b;
    std::cout << std::setprecision(15) << "[systolic] " << net << " on edge_systolic, batch 1: B "
              << b << ", K/B energy " << k / b << " (row-stationary edge: B " << b_rs << ")\n";
  }
}

}  // namespace
}  // namespace kapla::search
