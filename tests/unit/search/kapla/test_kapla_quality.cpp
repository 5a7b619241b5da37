// K, S and B on small real layers (4x4 nodes of 8x8 PEs, 64 KB GBUF, 64 B REGF, training
// options, batch 4; kapla-spec.md §11.2's micro networks), in nn_dataflow's mapping space and
// with the mapper's fold variants (K's and S's default). S is the true optimum of the total
// cost over B's space, so K >= S and B >= S always. B itself is not that optimum: its
// per-(partition, nest) key is the access cost only, and its skip_conv pruning is not exact
// under the fork's regf_reusable rule (docs/kapla.md §3), so K < B is possible in general.
// The printed ratios and times are the measurement reported in docs/kapla.md.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>

#include "mapping/data_layout_ops.hpp"
#include "schedule/resource_builder.hpp"
#include "search/directive_exhaustive.hpp"
#include "search/kapla_solver.hpp"
#include "search/strategy.hpp"

namespace kapla::search {
namespace {

pricing::LayerProblem micro_problem(const model::Layer& layer, bool rs_fold_variants = false) {
  model::Hardware hw;
  hw.nodes = {4, 4};
  hw.pe_array = {8, 8};
  hw.gbuf_bytes = 65536;
  hw.regf_bytes = 64;
  hw.array_bus_width_bits = 128;
  hw.dram_bandwidth_bytes_per_cycle = 51.2;
  hw.costs = {9.984e-13,
              {{4.0189027539954336e-10, 2.832545e-12, 1.6416e-12, 9.40885e-14}},
              9.76e-12,
              1.2728688e-09};
  model::SearchOptions o;
  o.hw_gbuf_sharing = true;
  o.partition_hybrid = o.partition_batch = o.partition_ifmaps = true;
  o.rs_fold_variants = rs_fold_variants;
  pricing::LayerProblem p;
  p.layer = layer;
  p.batch = 4;
  p.resource = schedule::build_resource(hw);
  p.costs = hw.costs;
  p.options = o;
  p.ifmap_layout =
      mapping::input_layouts(layer.nifm, layer.sifm, 4, p.resource.src_data_region, o).front();
  return p;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::vector<std::pair<std::string, model::Layer>> micro_layers() {
  return {
      {"conv1", model::make_conv(3, 8, {16, 16}, {3, 3})},
      {"conv2", model::make_conv(32, 32, {28, 28}, {3, 3})},
      {"pool1", model::make_pooling(8, {8, 8}, {2, 2})},
      {"fc1", model::make_fc(64, 32)},
      {"fc2", model::make_fc(32, 10)},
      {"fc2_back", model::make_fc_back_act(10, 32)},
      {"fc1_back_w", model::make_fc_back_weight(32, 64)},
      {"conv1_back_w", model::make_conv_back_weight(8, 3, {18, 18}, {3, 3})},
  };
}

struct Optima {
  double k = 0, s = 0, b = 0;
};

/// K >= S <= B on every micro layer in one space (with or without the mapper's fold variants,
/// for all three); returns the three answers per layer.
std::vector<Optima> check_bounds(bool rs_fold_variants) {
  std::vector<Optima> out;
  const auto b = make_layer_strategy("exhaustive");
  for (const auto& [name, layer] : micro_layers()) {
    const auto p = micro_problem(layer, rs_fold_variants);
    auto t = std::chrono::steady_clock::now();
    const auto k = KaplaSolver().search(p, {1});
    const double tk = seconds_since(t);
    t = std::chrono::steady_clock::now();
    const auto s = DirectiveExhaustive().search(p, {2});
    const double ts = seconds_since(t);
    t = std::chrono::steady_clock::now();
    const auto bb = b->search(p, {2});
    const double tb = seconds_since(t);
    EXPECT_EQ(k.size(), 1u) << name;
    EXPECT_EQ(s.size(), 1u) << name;
    EXPECT_FALSE(bb.empty()) << name;
    if (k.empty() || s.empty() || bb.empty()) return {};
    EXPECT_GE(k[0].cost, s[0].cost * (1 - 1e-12)) << name;   // K never beats the exhaustive optimum
    EXPECT_LE(s[0].cost, bb[0].cost * (1 + 1e-12)) << name;  // B's answer lies in S's space
    std::cout << "[quality" << (rs_fold_variants ? " folds" : "") << "] " << name << ": K/S energy "
              << k[0].cost / s[0].cost << " (K " << tk << " s), S/B " << s[0].cost / bb[0].cost
              << " (S " << ts << " s), B " << tb << " s\n";
    out.push_back({k[0].cost, s[0].cost, bb[0].cost});
  }
  return out;
}

// Issue 18.1: K and S search the fold variants by default (search::options_for), B does not.
// The law is K >= S in each space (S is exhaustive over K's space); K/B across the two
// defaults is a quality figure, printed, not asserted.
TEST(KaplaQuality, KNeverBelowSInEitherSpaceAndTheVariantsOnlyWidenIt) {
  const auto plain = check_bounds(false);
  const auto folds = check_bounds(true);
  ASSERT_EQ(plain.size(), folds.size());
  // One copy of the layers: a reference into micro_layers()'s temporary dangled (ASan).
  const auto layers = micro_layers();
  ASSERT_EQ(plain.size(), layers.size());
  int better = 0;
  for (std::size_t i = 0; i < plain.size(); ++i) {
    const auto& name = layers[i].first;
    EXPECT_LE(folds[i].s, plain[i].s * (1 + 1e-12)) << name;
    better += folds[i].s < plain[i].s * (1 - 1e-9);
    // K's quality in its default space: within 2 % of S's optimum (measured: 1.01988 on conv2,
    // where K's greedy misses the variant S finds; equal on the other seven).
    EXPECT_LE(folds[i].k, folds[i].s * 1.02) << name;
    std::cout << "[quality default spaces] " << name << ": K/B energy " << folds[i].k / plain[i].b
              << " (K with the variants, B without)\n";
  }
  EXPECT_GT(better, 0);  // the variants matter on some micro layer (conv1: 16 rows on 8 columns)
}

}  // namespace
}  // namespace kapla::search
