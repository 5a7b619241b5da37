// SegmentBounds (schedule/segment_bound.hpp) remembers each layer's bound per layer
// constraint across a segment's constraints: it must give segment_bound's values exactly, in
// whatever order the constraints come, on CNN segments (AlexNet) and on transformer segments
// (the tiny encoder block, with its reshaped operands on chip).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "io/catalog.hpp"
#include "io/network_json.hpp"
#include "schedule/pipeline_segment.hpp"
#include "schedule/resource_builder.hpp"
#include "schedule/sched_dag.hpp"
#include "schedule/segment_bound.hpp"

namespace kapla::schedule {
namespace {

using mapping::NodeRegion;

void expect_same_bounds(const model::Network& net, std::int64_t batch) {
  const auto hw = io::Catalog(KAPLA_SOURCE_DATA_DIR).load_hardware("cloud");
  const auto resource = build_resource(hw);
  const auto options = model::kapla_option_preset("inference");
  const auto segs = gen_segments(build_sched_dag(net), net, batch, resource, options);
  std::size_t pairs = 0;
  for (const auto& seg : segs) {
    const auto cs = seg.constraints(1e10);
    for (bool whole : {false, true}) {
      SegmentBounds forward(seg, net, batch, hw.costs, options, whole);
      SegmentBounds backward(seg, net, batch, hw.costs, options, whole);
      std::vector<SegmentBound> back(cs.size());
      for (std::size_t i = cs.size(); i-- > 0;) back[i] = backward(cs[i]);
      for (std::size_t i = 0; i < cs.size(); ++i) {
        const SegmentBound fresh = segment_bound(seg, cs[i], net, batch, hw.costs, options, whole);
        for (const SegmentBound& b : {forward(cs[i]), back[i]}) {
          EXPECT_EQ(b.energy, fresh.energy);
          EXPECT_EQ(b.time, fresh.time);
          EXPECT_EQ(b.layer_energy, fresh.layer_energy);
        }
        ++pairs;
      }
    }
  }
  EXPECT_GT(pairs, 100u) << net.name();
}

TEST(SegmentBounds, RememberedLayerBoundsAreTheFreshOnes) {
  expect_same_bounds(io::Catalog(KAPLA_SOURCE_DATA_DIR).load_network("alex_net"), 64);
  expect_same_bounds(
      io::load_network_file(std::string(KAPLA_TEST_DATA_DIR) + "/networks/transformer_tiny.json"),
      2);
}

// Where the pair bound's floors look for a layer's ifmap pieces (docs/kapla_inter_layer.md §6,
// the first reads): the forwarding region if the segment has one for the layer, else the
// region an earlier layer of the segment stores to, else the regions of the prefixes'
// layouts; nothing when a source is in neither.
TEST(SegmentBounds, IfmapSourceRegions) {
  const auto net = io::Catalog(KAPLA_SOURCE_DATA_DIR).load_network("googlenet");
  const auto hw = io::Catalog(KAPLA_SOURCE_DATA_DIR).load_hardware("cloud");
  const auto resource = build_resource(hw);
  const auto options = model::kapla_option_preset("inference");
  const std::int64_t batch = 4;
  const NodeRegion dram = resource.dram_region;
  const mapping::DataLayout input{
      {mapping::FmapRange{{0, 0, 0, 0},
                          {batch, net.input().nofm, net.input().sofm.h, net.input().sofm.w}}},
      {dram},
      {mapping::PartitionScheme{}}};
  const std::vector<NetworkScheme> start{NetworkScheme(net, input, {})};
  std::size_t forwarded = 0, in_segment = 0, from_prefix = 0;
  for (const auto& seg : gen_segments(build_sched_dag(net), net, batch, resource, options)) {
    for (std::size_t sp = 0; sp < seg.size(); ++sp) {
      for (std::size_t tm = 0; tm < seg.layers()[sp].size(); ++tm) {
        const std::size_t layer = seg.layers()[sp][tm];
        const auto got = ifmap_source_regions(seg, sp, tm, net, start);
        const SegIndex me{static_cast<int>(sp), static_cast<int>(tm)};
        if (const auto fwd = seg.forward_region(me)) {
          EXPECT_EQ(got, std::vector<NodeRegion>{*fwd});
          ++forwarded;
          continue;
        }
        // The expected regions, source by source.
        std::vector<NodeRegion> want;
        bool known = true;
        for (std::size_t i = 0; i < net.num_ifmap_sources(layer); ++i) {
          const auto& src = net.prevs(layer)[i];
          std::optional<NodeRegion> r;
          for (std::size_t s = 0; s < seg.size(); ++s)
            for (std::size_t t = 0; t < seg.layers()[s].size(); ++t)
              if (src.kind == model::LayerSource::Kind::Layer && seg.layers()[s][t] == src.index)
                r = seg.allocation()[s][t].dst_data_region;
          if (!r && src.kind == model::LayerSource::Kind::NetworkInput) r = dram;
          if (!r) known = false;
          if (r && std::find(want.begin(), want.end(), *r) == want.end()) want.push_back(*r);
        }
        if (!known) {
          EXPECT_TRUE(got.empty()) << layer;  // an earlier layer that the prefix lacks
          continue;
        }
        EXPECT_EQ(got, want) << layer;
        (want == std::vector<NodeRegion>{dram} ? from_prefix : in_segment) += 1;
      }
    }
  }
  EXPECT_GT(forwarded, 0u);
  EXPECT_GT(in_segment, 10u);
  EXPECT_GT(from_prefix, 0u);
}

}  // namespace
}  // namespace kapla::schedule
