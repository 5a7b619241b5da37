// Transformer layers in pipeline segments (docs/transformers.md §5.4): an operand carried
// unchanged may stay on chip (scores into softmax, probabilities into attention x V as A), and
// so may a reshaped one between layers that pipeline as convolutions (Q into the scores,
// attention x V into the output projection), in whole batch groups; a MatMul's B always goes
// through DRAM, so its producer and consumer are never in one segment.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/catalog.hpp"
#include "io/network_json.hpp"
#include "io/onnx_import.hpp"
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

TEST(TransformerSegments, BGoesThroughDram) {
  const Fixture f;
  EXPECT_FALSE(f.segment({{"k", "qk"}}).has_value());  // k is qk's B
  EXPECT_FALSE(f.segment({{"k"}, {"qk"}}).has_value());
  EXPECT_FALSE(f.segment({{"v", "av"}}).has_value());  // v is av's B
  // Layers of the CNN kinds keep nn_dataflow's rules.
  EXPECT_TRUE(f.segment({{"ff1", "gelu", "ff2"}}).has_value());
}

// Every constraint of `seg` hands the data from `from` to `to` over in whole batch groups:
// the producer buffers all its ofmap channels (of the batch group), the consumer all its ifmap
// channels. Returns the number of constraints checked.
std::size_t expect_whole_batch_groups(const PipelineSegment& seg, SegIndex from, SegIndex to) {
  const auto cs = seg.constraints(1e10);
  for (const auto& c : cs) {
    const auto& p = c.layers[static_cast<std::size_t>(from.sp)][static_cast<std::size_t>(from.tm)];
    const auto& q = c.layers[static_cast<std::size_t>(to.sp)][static_cast<std::size_t>(to.tm)];
    EXPECT_TRUE(p.fbofm);
    EXPECT_EQ(p.topofm, 1);
    EXPECT_TRUE(q.fbifm);
    EXPECT_EQ(q.topifm, 1);
    EXPECT_EQ(p.topbat, q.topbat);
  }
  return cs.size();
}

// A reshape between two layers that pipeline as convolutions (q's 16 channels read as 2 heads
// of 8 by the scores; the heads of attention x V back into the output projection's channels)
// stays on chip, but only in whole batch groups: the channel groups of the two sides do not
// correspond (model::Network::forwards_on_chip).
TEST(TransformerSegments, ReshapesStayOnChipInWholeBatchGroups) {
  const Fixture f;
  for (const auto& [p, c] : {std::pair{"q", "qk"}, std::pair{"av", "proj"}}) {
    const auto temporal = f.segment({{p, c}});
    ASSERT_TRUE(temporal.has_value()) << p;
    const auto& t = temporal->allocation()[0];
    EXPECT_EQ(t[0].dst_data_region, t[0].proc_region) << p;  // not written to DRAM
    EXPECT_EQ(t[1].src_data_region, t[1].proc_region) << p;
    EXPECT_GT(expect_whole_batch_groups(*temporal, {0, 0}, {0, 1}), 0u) << p;
    const auto spatial = f.segment({{p}, {c}});
    ASSERT_TRUE(spatial.has_value()) << p;
    const auto& s = spatial->allocation();
    EXPECT_EQ(s[1][0].src_data_region, s[0][0].proc_region) << p;
    EXPECT_GT(expect_whole_batch_groups(*spatial, {0, 0}, {1, 0}), 0u) << p;
  }
  // The rule is not idle: an edge carried unchanged may hand over channel groups.
  const auto unchanged = f.segment({{"ff1", "gelu"}, {"ff2"}});
  ASSERT_TRUE(unchanged.has_value());
  const auto cs = unchanged->constraints(1e10);
  EXPECT_TRUE(std::any_of(cs.begin(), cs.end(), [](const SegmentConstraint& c) {
    return !c.layers[0][1].fbofm && !c.layers[1][0].fbifm;
  }));
  EXPECT_TRUE(f.segment({{"q", "qk", "softmax", "av", "proj"}}).has_value());
}

TEST(TransformerSegments, TheTwoDimensionalTokenLayoutIsAReshape) {
  Fixture f;
  f.net = io::load_network_file(std::string(KAPLA_TEST_DATA_DIR) +
                                "/networks/transformer_tiny_2d.json");
  // qk writes 1 x 8 positions, softmax reads 2 x 4: through DRAM.
  EXPECT_FALSE(f.segment({{"qk", "softmax"}}).has_value());
}

// Where each softmax stands in the scheduling order: right before the MatMul that reads its
// probabilities as A, so that one segment may hold the scores, the softmax and attention x V;
// and every other MatMul's A that may stay on chip right before its MatMul. Returns how many
// softmax layers were checked.
int expect_softmax_right_before_its_matmul(const model::Network& net) {
  const auto order = build_sched_dag(net).ordered_layers();
  const auto at = [&](std::size_t l) {
    return std::find(order.begin(), order.end(), l) - order.begin();
  };
  int checked = 0;
  for (std::size_t i = 0; i < net.size(); ++i) {
    if (net.layer(i).type != model::LayerType::Softmax) continue;
    const auto& nexts = net.nexts(i);
    EXPECT_EQ(nexts.size(), 1u) << net.name() << " " << net.layer_name(i);
    if (nexts.size() != 1) continue;
    EXPECT_TRUE(net.layer(nexts[0]).is_matmul()) << net.name() << " " << net.layer_name(i);
    EXPECT_EQ(at(i) + 1, at(nexts[0])) << net.name() << " " << net.layer_name(i);
    ++checked;
  }
  // Every MatMul's A that may stay on chip (Q, read as heads, since reshaped operands may)
  // comes right before it too.
  for (std::size_t m = 0; m < net.size(); ++m) {
    if (!net.layer(m).is_matmul()) continue;
    const auto& a = net.prevs(m).front();
    if (a.kind != model::LayerSource::Kind::Layer || !net.forwards_on_chip(a.index, m)) continue;
    EXPECT_EQ(at(a.index) + 1, at(m)) << net.name() << " " << net.layer_name(m);
  }
  return checked;
}

// nn_dataflow's depth-first order keeps sibling layers in the order they are listed, and a
// segment is a run of that order. Listed Q, K, V (the natural order, and torch's), V's
// projection would sit between the softmax and attention x V; the scheduling order lists the
// producer of a MatMul's B early where its A may stay on chip (schedule/sched_dag.cpp), so
// every network with attention gets the softmax right before attention x V, however its file
// lists the projections: the zoo (V first), the hand-written test files (Q, K, V) and an
// imported torch encoder layer (Q, K, V). The decode networks' K and V feed the cache.
TEST(TransformerSegments, EverySoftmaxComesRightBeforeItsAttentionTimesV) {
  const io::Catalog catalog(KAPLA_SOURCE_DATA_DIR);
  for (const char* name :
       {"bert_base_s128", "bert_base_s512", "bert_base_s512_2d", "gpt2_small_prefill1024",
        "gpt2_small_prefill1024_2d", "gpt2_small_decode1024", "vit_b16",
        "llama2_7b_block_prefill2048", "llama2_7b_block_prefill2048_2d",
        "llama2_7b_block_decode2048", "llama2_70b_block_decode4096"}) {
    EXPECT_GT(expect_softmax_right_before_its_matmul(catalog.load_network(name)), 0) << name;
  }
  const std::string dir = std::string(KAPLA_TEST_DATA_DIR);
  // (transformer_tiny_2d.json is left out: its 2-D token layout makes every attention operand
  // a reshape, so no probabilities stay on chip and the order does not matter.)
  for (const char* file :
       {"/networks/transformer_tiny.json", "/networks/bert_base_s128_attention.json"}) {
    EXPECT_EQ(expect_softmax_right_before_its_matmul(io::load_network_file(dir + file)), 1) << file;
  }
  const auto encoder = io::import_onnx_file(dir + "/onnx/torch_transformer_encoder_layer.onnx");
  EXPECT_EQ(expect_softmax_right_before_its_matmul(io::parse_network(encoder.network, "encoder")),
            1);
}

// The listing rule on a small attention block (tokens 1 x 4, width 8 in `heads` heads, or 4
// with one head), the layers named by the scheduling order.
using nlohmann::json;
json proj(const std::string& name, json prevs, int width = 8) {
  return {{"name", name},
          {"type", "Conv"},
          {"nifm", width},
          {"nofm", width},
          {"sofm", {1, 4}},
          {"sfil", 1},
          {"prevs", std::move(prevs)}};
}
json matmul(const std::string& name, json prevs, int k, int n, int heads) {
  return {{"name", name},   {"type", "MatMul"},         {"m", 4}, {"k", k}, {"n", n},
          {"heads", heads}, {"prevs", std::move(prevs)}};
}
json softmax(const std::string& name, json prevs, int heads) {
  return {{"name", name},   {"type", "Softmax"}, {"nofm", 4},
          {"sofm", {1, 4}}, {"heads", heads},    {"prevs", std::move(prevs)}};
}
// Listed as torch writes it: Q, K, V, scores, softmax, A x V, output projection.
json attention(int heads) {
  const int w = heads == 1 ? 4 : 8;
  const int dh = w / heads;
  json doc = {{"name", "a"}, {"source", "test"}, {"input", {{"nofm", w}, {"sofm", {1, 4}}}}};
  doc["layers"] = json::array({proj("q", nullptr, w), proj("k", nullptr, w), proj("v", nullptr, w),
                               matmul("qk", {"q", "k"}, dh, 4, heads), softmax("sm", {"qk"}, heads),
                               matmul("av", {"sm", "v"}, 4, dh, heads), proj("o", {"av"}, w)});
  return doc;
}
std::vector<std::string> scheduling_order(const json& doc) {
  const auto net = io::parse_network(doc, "test");
  std::vector<std::string> out;
  for (std::size_t l : build_sched_dag(net).ordered_layers()) out.push_back(net.layer_name(l));
  return out;
}

TEST(SchedulingOrder, KAndVComeFirstWithAnyNumberOfHeads) {
  // Q may stay on chip into the scores, read as heads or not (a reshape in whole batch
  // groups, docs/transformers.md §5.4), and the probabilities into A x V: both B producers
  // move before Q, v last, so that it may share a segment (and its input) with q.
  for (int heads : {1, 2}) {
    EXPECT_EQ(scheduling_order(attention(heads)),
              (std::vector<std::string>{"k", "v", "q", "qk", "sm", "av", "o"}))
        << heads;
  }
}

TEST(SchedulingOrder, AProducerWithAnotherReaderKeepsItsPlace) {
  json doc = attention(2);
  doc["layers"].push_back({{"name", "sum"},
                           {"type", "Eltwise"},
                           {"nofm", 8},
                           {"sofm", {1, 4}},
                           {"nreg", 2},
                           {"prevs", {"v", "o"}}});
  // v stays where the file lists it, between the softmax and A x V; k moves.
  EXPECT_EQ(scheduling_order(doc),
            (std::vector<std::string>{"k", "q", "qk", "sm", "v", "av", "o", "sum"}));
}

TEST(SchedulingOrder, AProducerGoesRightAfterItsLastInputLayer) {
  json doc = attention(2);
  // v now reads y, which the file lists after q: v can come no earlier than right after y
  // (and the depth-first order visits y, which reads only the input, after q's successors).
  doc["layers"][2]["prevs"] = {"y"};
  doc["layers"].insert(doc["layers"].begin() + 1, proj("y", nullptr));
  EXPECT_EQ(scheduling_order(doc),
            (std::vector<std::string>{"k", "q", "qk", "sm", "y", "v", "av", "o"}));
}

TEST(SchedulingOrder, TheOrderDoesNotDependOnHowTheProjectionsAreListed) {
  json doc = attention(2);
  auto& layers = doc["layers"];
  json q = layers[0];
  layers.erase(layers.begin());
  layers.insert(layers.begin() + 2, std::move(q));  // k, v, q
  EXPECT_EQ(scheduling_order(doc), scheduling_order(attention(2)));
  // Listed v, q, k (the zoo's files): k goes before v, whose MatMul comes later.
  json zoo = attention(2);
  auto& zl = zoo["layers"];
  json v = zl[2];
  zl.erase(zl.begin() + 2);
  zl.insert(zl.begin(), std::move(v));
  EXPECT_EQ(scheduling_order(zoo), scheduling_order(attention(2)));
}

}  // namespace
}  // namespace kapla::schedule
