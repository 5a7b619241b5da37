// SegmentBounds (schedule/segment_bound.hpp) remembers each layer's bound per layer
// constraint across a segment's constraints: it must give segment_bound's values exactly, in
// whatever order the constraints come, on CNN segments (AlexNet) and on transformer segments
// (the tiny encoder block, with its reshaped operands on chip).
#include <gtest/gtest.h>

#include <string>

#include "io/catalog.hpp"
#include "io/network_json.hpp"
#include "schedule/pipeline_segment.hpp"
#include "schedule/resource_builder.hpp"
#include "schedule/sched_dag.hpp"
#include "schedule/segment_bound.hpp"

namespace kapla::schedule {
namespace {

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

}  // namespace
}  // namespace kapla::schedule
