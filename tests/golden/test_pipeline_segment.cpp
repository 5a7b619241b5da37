// Segment generation, node allocation and constraint counts (nn_dataflow-spec.md §9.5-9.6;
// counts from kapla-spec.md §11.3: inference options, batch 64, 16x16 nodes of 8x8 PEs).
#include <gtest/gtest.h>

#include <iostream>
#include <limits>
#include <numeric>

#include "model/hardware.hpp"
#include "schedule/pipeline_segment.hpp"
#include "schedule/resource_builder.hpp"
#include "zoo_network.hpp"

namespace kapla {
namespace {

model::SearchOptions inference_options() { return model::kapla_option_preset("inference"); }

mapping::Resource cloud_resource() {
  model::Hardware hw;
  hw.nodes = {16, 16};
  hw.pe_array = {8, 8};
  hw.gbuf_bytes = 32768;
  hw.regf_bytes = 64;
  hw.array_bus_width_bits = 128;
  hw.dram_bandwidth_bytes_per_cycle = 51.2;
  return schedule::build_resource(hw);
}

struct Counts {
  std::size_t segments = 0;
  std::size_t constraints = 0;
  std::size_t largest = 0;
};

Counts count(const std::string& name) {
  const auto net = test::zoo_network(name);
  const auto dag = schedule::build_sched_dag(net);
  const auto segs = schedule::gen_segments(dag, net, 64, cloud_resource(), inference_options());
  Counts c;
  c.segments = segs.size();
  for (const auto& s : segs) {
    const auto n = s.constraints(1e10).size();
    c.constraints += n;
    c.largest = std::max(c.largest, n);
  }
  return c;
}

TEST(PipelineSegment, MlpLCounts) {
  const auto c = count("mlp_l");
  EXPECT_EQ(c.segments, 16u);
  EXPECT_EQ(c.constraints, 1243u);
  EXPECT_EQ(c.largest, 784u);
}

TEST(PipelineSegment, AlexNetCounts) {
  const auto c = count("alex_net");
  EXPECT_EQ(c.segments, 65u);
  EXPECT_EQ(c.constraints, 3393u);
  EXPECT_EQ(c.largest, 1372u);
}

TEST(PipelineSegment, Vgg16Counts) {
  const auto c = count("vgg_net");
  EXPECT_EQ(c.segments, 120u);
  EXPECT_EQ(c.constraints, 13223u);
  EXPECT_EQ(c.largest, 700u);
}

TEST(PipelineSegment, GnmtCounts) {
  const auto c = count("lstm_gnmt");
  EXPECT_EQ(c.segments, 69u);
  EXPECT_EQ(c.constraints, 1797u);
  EXPECT_EQ(c.largest, 70u);
}

TEST(PipelineSegment, MobileNetCounts) {
  const auto c = count("mobilenet");
  EXPECT_EQ(c.segments, 199u);
  EXPECT_EQ(c.constraints, 13266u);
  EXPECT_EQ(c.largest, 700u);
}

TEST(PipelineSegment, ResNet50Counts) {
  const auto c = count("resnet50");
  EXPECT_EQ(c.segments, 388u);
  EXPECT_EQ(c.constraints, 37949u);
  EXPECT_EQ(c.largest, 840u);
}

TEST(PipelineSegment, GoogLeNetCounts) {
  const auto c = count("googlenet");
  EXPECT_EQ(c.segments, 178u);
  EXPECT_EQ(c.constraints, 9597u);
  EXPECT_EQ(c.largest, 980u);
}

// Observed reference constraints (nn_dataflow-spec.md §9.6): AlexNet, 8x8 nodes, batch 4.
const schedule::PipelineSegment* find_segment(const std::vector<schedule::PipelineSegment>& segs,
                                              const model::Network& net,
                                              std::vector<std::vector<std::string>> names) {
  for (const auto& s : segs) {
    if (s.size() != names.size()) continue;
    bool same = true;
    for (std::size_t sp = 0; sp < names.size() && same; ++sp) {
      if (s.layers()[sp].size() != names[sp].size()) {
        same = false;
        break;
      }
      for (std::size_t tm = 0; tm < names[sp].size(); ++tm) {
        if (net.layer_name(s.layers()[sp][tm]) != names[sp][tm]) same = false;
      }
    }
    if (same) return &s;
  }
  return nullptr;
}

TEST(PipelineSegment, AlexNetObservedConstraints) {
  const auto net = test::zoo_network("alex_net");
  const auto dag = schedule::build_sched_dag(net);
  model::Hardware hw;
  hw.nodes = {8, 8};
  hw.pe_array = {16, 16};
  hw.gbuf_bytes = 131072;
  hw.regf_bytes = 512;
  auto opts = inference_options();
  opts.layer_pipeline_max_degree = std::numeric_limits<double>::infinity();
  const auto segs = schedule::gen_segments(dag, net, 4, schedule::build_resource(hw), opts);

  // ((fc1,), (fc2,)): topbat_shr x topofm_0_0 in {1,2,4}^2; fc1 topofm = fc2 topifm.
  const auto* fc = find_segment(segs, net, {{"fc1"}, {"fc2"}});
  ASSERT_NE(fc, nullptr);
  const auto cs = fc->constraints(std::numeric_limits<double>::infinity());
  ASSERT_EQ(cs.size(), 9u);
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const std::int64_t topbat = std::int64_t{1} << (i / 3);
    const std::int64_t topofm = std::int64_t{1} << (i % 3);
    EXPECT_EQ(cs[i].hints, (std::vector<std::int64_t>{topbat, topofm}));
    EXPECT_EQ(cs[i].layers[0][0].topbat, topbat);
    EXPECT_EQ(cs[i].layers[0][0].topofm, topofm);
    EXPECT_EQ(cs[i].layers[1][0].topifm, topofm);
    EXPECT_EQ(cs[i].layers[1][0].topbat, topbat);
    EXPECT_FALSE(cs[i].layers[0][0].fbofm);
  }

  // ((conv1_a, pool1_a),): topbat_shr in {1,2,4}; pool1_a takes topofm from conv1_a.
  const auto* cp = find_segment(segs, net, {{"conv1_a", "pool1_a"}});
  ASSERT_NE(cp, nullptr);
  const auto cs2 = cp->constraints(std::numeric_limits<double>::infinity());
  ASSERT_EQ(cs2.size(), 3u);
  for (std::size_t i = 0; i < cs2.size(); ++i) {
    EXPECT_EQ(cs2[i].hints, std::vector<std::int64_t>{std::int64_t{1} << i});
    EXPECT_EQ(cs2[i].layers[0][0].topofm, 0);
    ASSERT_TRUE(cs2[i].layers[0][1].topofm_from_layer.has_value());
    EXPECT_EQ(net.layer_name(*cs2[i].layers[0][1].topofm_from_layer), "conv1_a");
  }
  // One region for the one vertex: the whole chip.
  EXPECT_EQ(cp->allocation()[0][0].proc_region.dim, (PhyDim2{8, 8}));
  EXPECT_EQ(cp->allocation()[0][1].src_data_region, cp->allocation()[0][1].proc_region);
}

TEST(PipelineSegment, SingleLayerSegmentsWithoutPipelining) {
  const auto net = test::zoo_network("alex_net");
  const auto dag = schedule::build_sched_dag(net);
  const auto segs = schedule::gen_segments(dag, net, 4, cloud_resource(), model::SearchOptions{});
  ASSERT_EQ(segs.size(), net.size());
  for (const auto& s : segs) {
    const auto cs = s.constraints(1e10);
    ASSERT_EQ(cs.size(), 1u);
    EXPECT_EQ(cs[0].hints, std::vector<std::int64_t>{1});
    EXPECT_EQ(cs[0].layers[0][0], schedule::SegmentLayerConstraint{});
    EXPECT_EQ(s.allocation()[0][0], cloud_resource());
  }
}

}  // namespace
}  // namespace kapla
