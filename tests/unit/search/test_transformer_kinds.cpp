// The transformer kinds (docs/transformers.md) through the one cost model and every strategy:
// DRAM words of every valid scheme of a tiny MatMul and a tiny Softmax against a brute-force
// loop nest, and B, S, R, M, K on a tiny encoder block with inference pipelining.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "io/catalog.hpp"
#include "io/network_json.hpp"
#include "mapping/data_layout_ops.hpp"
#include "schedule/resource_builder.hpp"
#include "schedule/run_network.hpp"
#include "search/scheme_space.hpp"
#include "search/strategy.hpp"
#include "search/strategy_registry.hpp"

namespace kapla::search {
namespace {

io::Catalog catalog() { return io::Catalog(KAPLA_SOURCE_DATA_DIR); }

model::Network tiny_block(const std::string& name = "transformer_tiny") {
  return io::load_network_file(std::string(KAPLA_TEST_DATA_DIR) + "/networks/" + name + ".json");
}

// One layer on the one-node edge preset, every category stored in GBUF (no bypass), so that
// the DRAM words are those of the top-level loop nest alone.
pricing::LayerProblem edge_problem(const model::Layer& layer, std::int64_t batch) {
  const auto hw = catalog().load_hardware("edge");
  pricing::LayerProblem p;
  p.layer = layer;
  p.batch = batch;
  p.resource = schedule::build_resource(hw);
  p.costs = hw.costs;
  p.options = model::kapla_option_preset("inference");
  p.options.sw_gbuf_bypass = {{false, false, false}};
  p.ifmap_layout =
      mapping::input_layouts(layer.nifm, layer.sifm, batch, p.resource.src_data_region, p.options)
          .front();
  return p;
}

// Brute force: run the top-level (DRAM -> GBUF) loops of a scheme in their order and count
// the words of category data that enter GBUF: a tile (all data of the category for one value
// of each loop it depends on) is fetched whenever that value changes. `words` is the
// category's whole data, counted by hand from the layer's dimensions.
double brute_force_dram_words(const pricing::LayerSchedule& s, const mapping::LoopSet& loops,
                              double words) {
  const auto& t = s.tvals[0];
  // Loops from outermost to innermost (orders: 0 = innermost).
  std::vector<LoopDim> nest(3);
  for (auto l : all_values<LoopDim>()) nest[2 - s.orders[0][l]] = l;
  double tiles = 1;
  for (auto l : all_values<LoopDim>())
    if (loops.contains(l)) tiles *= static_cast<double>(t[l]);
  std::int64_t fetches = 0;
  std::vector<std::int64_t> last;
  for (std::int64_t i0 = 0; i0 < t[nest[0]]; ++i0) {
    for (std::int64_t i1 = 0; i1 < t[nest[1]]; ++i1) {
      for (std::int64_t i2 = 0; i2 < t[nest[2]]; ++i2) {
        PerLoopDim<std::int64_t> at{};
        at[nest[0]] = i0;
        at[nest[1]] = i1;
        at[nest[2]] = i2;
        std::vector<std::int64_t> tile;
        for (auto l : all_values<LoopDim>())
          if (loops.contains(l)) tile.push_back(at[l]);
        if (tile != last) ++fetches;
        last = tile;
      }
    }
  }
  return static_cast<double>(fetches) * words / tiles;
}

// Every valid scheme of B's space for the problem, priced by the one cost model.
std::vector<pricing::LayerSchedule> every_valid_scheme(const pricing::LayerProblem& p) {
  const auto space = SchemeSpace::of_problem(p);
  const auto eval = cost_model_evaluator(p, space);
  std::vector<pricing::LayerSchedule> out;
  for (std::uint64_t i = 0; i < space.size(); ++i) {
    if (auto s = eval(space.at(i))) out.push_back(std::move(*s));
  }
  return out;
}

TEST(TransformerPricing, MatMulDramWordsEqualTheBruteForceLoopNest) {
  // Per layer sample: A 8 x 4, B 4 x 4 (the weight role), out 8 x 4; 2 samples x 2 heads.
  const std::int64_t m = 8, k = 4, n = 4, batch = 2, heads = 2;
  pricing::LayerProblem p = edge_problem(model::make_matmul(m, k, n), batch * heads);
  const auto schemes = every_valid_scheme(p);
  ASSERT_GT(schemes.size(), 100u);
  const double b_words = k * n * batch * heads;  // a different B per sample and head
  const double a_words = m * k * batch * heads;
  using mapping::LoopSet;
  double min_fil = 1e300;
  for (const auto& s : schemes) {
    EXPECT_DOUBLE_EQ(s.ops, static_cast<double>(m * k * n * batch * heads));
    const double fil = s.access[MemLevel::Dram][DataCategory::Fil];
    EXPECT_DOUBLE_EQ(
        fil, brute_force_dram_words(s, LoopSet{LoopDim::Ifm, LoopDim::Ofm, LoopDim::Bat}, b_words));
    EXPECT_DOUBLE_EQ(s.access[MemLevel::Dram][DataCategory::Ifm],
                     brute_force_dram_words(s, LoopSet{LoopDim::Ifm, LoopDim::Bat}, a_words));
    min_fil = std::min(min_fil, fil);
  }
  // At best each sample's B is read once: a weight would be read once for the whole batch.
  EXPECT_DOUBLE_EQ(min_fil, b_words);
}

TEST(TransformerPricing, SoftmaxReadsItsRowsTwice) {
  // 8 keys (channels) over 4 queries (positions), 2 samples x 3 heads.
  const std::int64_t n = 8, m = 4, batch = 6;
  const auto layer = model::make_softmax(n, {1, m});
  const auto schemes = every_valid_scheme(edge_problem(layer, batch));
  ASSERT_GT(schemes.size(), 10u);
  using mapping::LoopSet;
  for (const auto& s : schemes) {
    EXPECT_DOUBLE_EQ(s.ops, static_cast<double>(n * m * batch * 5));
    // Two passes over the input; the output is written once.
    EXPECT_DOUBLE_EQ(s.access[MemLevel::Dram][DataCategory::Ifm],
                     2 * brute_force_dram_words(s, LoopSet{LoopDim::Ofm, LoopDim::Bat},
                                                static_cast<double>(n * m * batch)));
    EXPECT_EQ(s.access[MemLevel::Dram][DataCategory::Fil], 0.0);
  }
}

TEST(TransformerPricing, GeluReadsOnce) {
  const auto layer = model::make_gelu(8, {1, 4});
  for (const auto& s : every_valid_scheme(edge_problem(layer, 2))) {
    EXPECT_DOUBLE_EQ(s.ops, 8.0 * 4 * 2);
    EXPECT_DOUBLE_EQ(
        s.access[MemLevel::Dram][DataCategory::Ifm],
        brute_force_dram_words(s, mapping::LoopSet{LoopDim::Ofm, LoopDim::Bat}, 8.0 * 4 * 2));
  }
}

// ---- Every strategy on a tiny encoder block -------------------------------------------------

// The block with 1 x 8 tokens, and with 2 x 4 (a MatMul's operands and output reshaped).
class TransformerLayouts : public ::testing::TestWithParam<std::string> {};

TEST_P(TransformerLayouts, EveryStrategySchedulesTheTinyBlock) {
  const auto net = tiny_block(GetParam());
  const std::int64_t batch = 2;
  int reshapes_on_chip = 0;  // over both presets and the five strategies
  for (const std::string hw_name : {"edge", "cloud"}) {
    const auto hw = catalog().load_hardware(hw_name);
    std::map<std::string, double> energy;
    for (const std::string strategy :
         {"exhaustive", "directive-exhaustive", "random", "guided", "kapla"}) {
      SCOPED_TRACE(hw_name + " " + strategy);
      const auto strat = make_layer_strategy(strategy);
      const auto res =
          schedule::run_network(net, hw, *strat, model::kapla_option_preset("inference"), batch);
      ASSERT_FALSE(res.tops.empty());
      const auto& best = res.tops.front();
      EXPECT_DOUBLE_EQ(best.total_ops(), static_cast<double>(net.total_ops(batch)));
      // Each MatMul reads each sample's and head's B at least once from DRAM.
      for (const std::string mm : {"qk", "av"}) {
        const auto i = *net.find(mm);
        const auto& l = net.layer(i);
        const auto* s = best.get(i);
        ASSERT_NE(s, nullptr);
        EXPECT_GE(s->access[MemLevel::Dram][DataCategory::Fil],
                  static_cast<double>(l.nifm * l.nofm * l.nhead * batch));
        // B comes from DRAM: its producer is in an earlier segment.
        const auto& b_src = net.prevs(i)[1];
        ASSERT_EQ(b_src.kind, model::LayerSource::Kind::Layer);
        EXPECT_LT(best.get(b_src.index)->sched_seq[0], s->sched_seq[0]) << mm;
      }
      // Inside a segment, data move on chip only where the operand is carried unchanged or
      // reshaped between layers that pipeline as convolutions; a reshaped one never touches
      // DRAM and is fetched once (fetch[0] = 1) from the producer's buffers by every node that
      // needs it (all of it at least once; more where output channels are partitioned).
      for (std::size_t c = 0; c < net.size(); ++c) {
        for (const auto& p : net.prevs(c)) {
          if (p.kind != model::LayerSource::Kind::Layer) continue;
          if (best.get(p.index)->sched_seq[0] != best.get(c)->sched_seq[0]) continue;
          EXPECT_TRUE(net.forwards_on_chip(p.index, c))
              << net.layer_name(p.index) << " -> " << net.layer_name(c);
          if (net.carries_unchanged(p.index, c)) continue;
          ++reshapes_on_chip;
          const auto& pl = net.layer(p.index);
          const double words = static_cast<double>(pl.total_ofmap_size(batch) * pl.nhead);
          EXPECT_EQ(best.get(p.index)->access[MemLevel::Dram][DataCategory::Ofm], 0.0);
          EXPECT_EQ(best.get(c)->access[MemLevel::Dram][DataCategory::Ifm], 0.0);
          EXPECT_EQ(best.get(c)->fetch[0][DataCategory::Ifm], 1.0);
          EXPECT_GE(best.get(c)->remote_gbuf_access[DataCategory::Ifm], words)
              << net.layer_name(p.index) << " -> " << net.layer_name(c);
        }
      }
      energy[strategy] = best.total_cost();
    }
    // S searches B's space and more; K may not beat S.
    EXPECT_LE(energy["directive-exhaustive"], energy["exhaustive"] * (1 + 1e-9));
    EXPECT_LE(energy["directive-exhaustive"], energy["kapla"] * (1 + 1e-9));
    std::cout << "[" << GetParam() << "] " << hw_name << " batch " << batch << ": B "
              << energy["exhaustive"] << " S " << energy["directive-exhaustive"] << " R "
              << energy["random"] << " M " << energy["guided"] << " K " << energy["kapla"]
              << " K/B " << energy["kapla"] / energy["exhaustive"] << "\n";
  }
  // Not idle: the best schedules keep reshaped operands on chip (Q into the scores, attention
  // x V into the projection; 20 and 10 edges over the 10 runs when written).
  EXPECT_GT(reshapes_on_chip, 0);
  std::cout << "[" << GetParam() << "] reshaped operands kept on chip: " << reshapes_on_chip
            << " edges over the 10 best schedules\n";
}

INSTANTIATE_TEST_SUITE_P(Tiny, TransformerLayouts,
                         ::testing::Values("transformer_tiny", "transformer_tiny_2d"),
                         [](const auto& p) { return p.param; });

TEST(TransformerSchedule, MatMulIsRefusedOnTheSystolicArray) {
  const auto net = tiny_block();
  const auto hw = catalog().load_hardware("edge_systolic");
  const auto strat = make_layer_strategy("exhaustive");
  try {
    schedule::run_network(net, hw, *strat, model::kapla_option_preset("inference"), 1);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "layer 'qk': type: MatMul is not mapped on the systolic array (use a "
              "row-stationary hardware; docs/transformers.md)");
  }
}

}  // namespace
}  // namespace kapla::search
