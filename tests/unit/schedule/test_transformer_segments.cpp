// Transformer layers in pipeline segments (docs/transformers.md §5.4): an operand carried
// unchanged may stay on chip (scores into softmax, probabilities into attention x V as A); a
// MatMul's B and a reshaped operand always go through DRAM, so their producer and consumer
// are never in one segment.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "io/catalog.hpp"
#include "io/network_json.hpp"
#include "schedule/pipeline_segment.hpp"
#include "schedule/resource_builder.hpp"
#include "schedule/sched_dag.hpp"

namespace kapla::schedule {
namespace {

struct Fixture {
  model::Network net =
      io::load_network_file(std::string(KAPLA_TEST_DATA_DIR) + "/networks/transformer_tiny.json");
  mapping::Resource resource =
      build_resource(io::Catalog(KAPLA_SOURCE_DATA_DIR).load_hardware("cloud"));
  model::SearchOptions options = model::kapla_option_preset("inference");

  std::size_t at(const char* name) const { return *net.find(name); }
  // Layers by name, one vector per spatial vertex.
  std::optional<PipelineSegment> segment(
      const std::vector<std::vector<const char*>>& vertices) const {
    std::vector<std::vector<std::size_t>> layers;
    for (const auto& v : vertices) {
      layers.emplace_back();
      for (const char* n : v) layers.back().push_back(at(n));
    }
    return make_pipeline_segment(layers, net, 2, resource, options);
  }
};

TEST(TransformerSegments, ScoresAndProbabilitiesStayOnChip) {
  const Fixture f;
  // Temporal: softmax reads the scores from the region that computed them.
  const auto temporal = f.segment({{"qk", "softmax"}});
  ASSERT_TRUE(temporal.has_value());
  const auto& t = temporal->allocation()[0];
  EXPECT_EQ(t[0].dst_data_region, t[0].proc_region);  // qk's scores are not written to DRAM
  EXPECT_EQ(t[1].src_data_region, t[1].proc_region);
  EXPECT_FALSE(temporal->constraints(1e10).empty());
  // Spatial: from the neighbour vertex.
  const auto spatial = f.segment({{"qk"}, {"softmax"}});
  ASSERT_TRUE(spatial.has_value());
  const auto& s = spatial->allocation();
  EXPECT_EQ(s[1][0].src_data_region, s[0][0].proc_region);
  EXPECT_NE(s[0][0].dst_data_region.type, mapping::RegionType::Dram);
  EXPECT_FALSE(spatial->constraints(1e10).empty());
  // The probabilities are attention x V's A; its B (v) comes from DRAM.
  const auto av = f.segment({{"softmax", "av"}});
  ASSERT_TRUE(av.has_value());
  EXPECT_EQ(av->allocation()[0][1].src_data_region, av->allocation()[0][1].proc_region);
  EXPECT_TRUE(f.segment({{"qk", "softmax", "av"}}).has_value());
}

TEST(TransformerSegments, BAndReshapesGoThroughDram) {
  const Fixture f;
  EXPECT_FALSE(f.segment({{"k", "qk"}}).has_value());  // k is qk's B
  EXPECT_FALSE(f.segment({{"k"}, {"qk"}}).has_value());
  EXPECT_FALSE(f.segment({{"v", "av"}}).has_value());  // v is av's B
  EXPECT_FALSE(f.segment({{"q", "qk"}}).has_value());  // 16 channels read as 2 heads of 8
  EXPECT_FALSE(f.segment({{"q"}, {"qk"}}).has_value());
  EXPECT_FALSE(f.segment({{"av", "proj"}}).has_value());  // the heads back into the channels
  // Layers of the CNN kinds keep nn_dataflow's rules.
  EXPECT_TRUE(f.segment({{"ff1", "gelu", "ff2"}}).has_value());
}

TEST(TransformerSegments, TheTwoDimensionalTokenLayoutIsAReshape) {
  Fixture f;
  f.net = io::load_network_file(std::string(KAPLA_TEST_DATA_DIR) +
                                "/networks/transformer_tiny_2d.json");
  // qk writes 1 x 8 positions, softmax reads 2 x 4: through DRAM.
  EXPECT_FALSE(f.segment({{"qk", "softmax"}}).has_value());
}

// The zoo lists V's projection before Q's and K's where V is computed for the scores
// (scripts/dev/gen_transformer_zoo.py): nn_dataflow's depth-first scheduling order keeps
// siblings in file order, so each softmax then comes right before its attention x V, and a
// segment may hold the scores, the softmax and attention x V. Listed Q, K, V, V's projection
// sat between them (only the decode networks, whose V goes to the cache, did not care).
TEST(TransformerSegments, TheZooOrdersEverySoftmaxRightBeforeItsAttentionTimesV) {
  const io::Catalog catalog(KAPLA_SOURCE_DATA_DIR);
  for (const char* name :
       {"bert_base_s128", "bert_base_s512", "bert_base_s512_2d", "gpt2_small_prefill1024",
        "gpt2_small_prefill1024_2d", "gpt2_small_decode1024", "vit_b16",
        "llama2_7b_block_prefill2048", "llama2_7b_block_prefill2048_2d",
        "llama2_7b_block_decode2048", "llama2_70b_block_decode4096"}) {
    const auto net = catalog.load_network(name);
    const auto order = build_sched_dag(net).ordered_layers();
    int pairs = 0;
    for (std::size_t i = 0; i < net.size(); ++i) {
      if (net.layer(i).type != model::LayerType::Softmax) continue;
      const std::string& sm = net.layer_name(i);
      const std::string prefix = sm.substr(0, sm.size() - 7);  // without "softmax"
      const auto av = net.find(prefix + "av");
      ASSERT_TRUE(av.has_value()) << name << " " << sm;
      const auto at = [&](std::size_t l) { return std::find(order.begin(), order.end(), l); };
      EXPECT_EQ(at(i) + 1, at(*av)) << name << " " << sm;
      ++pairs;
    }
    EXPECT_GT(pairs, 0) << name;
  }
}

}  // namespace
}  // namespace kapla::schedule
