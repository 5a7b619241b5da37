// Transformer layers in pipeline segments (docs/transformers.md §5.4): an operand carried
// unchanged may stay on chip (scores into softmax, probabilities into attention x V as A); a
// MatMul's B and a reshaped operand always go through DRAM, so their producer and consumer
// are never in one segment.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/catalog.hpp"
#include "io/network_json.hpp"
#include "schedule/pipeline_segment.hpp"
#include "schedule/resource_builder.hpp"

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

}  // namespace
}  // namespace kapla::schedule
