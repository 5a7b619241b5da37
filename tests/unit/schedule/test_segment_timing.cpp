// Segment timing (nn_dataflow-spec.md §9.7) on hand-computed cases.
#include <gtest/gtest.h>

#include "schedule/segment_timing.hpp"

namespace kapla::schedule {
namespace {

LayerTimingInput layer(int sp, int tm, bool conv, double time, PerLoopDim<std::int64_t> t,
                       PerLoopDim<int> ord) {
  LayerTimingInput in;
  in.sp = sp;
  in.tm = tm;
  in.is_conv = conv;
  in.time = time;
  in.node_time = time;
  in.dram_time = time / 10;
  in.num_nodes = 4;
  in.top_t = t;
  in.top_ord = ord;
  return in;
}

TEST(SegmentTiming, SingleLayerIsItsTime) {
  SegmentTiming st;
  st.add(layer(0, 0, true, 1234, {{3, 1, 2}}, {{0, 1, 2}}));
  EXPECT_EQ(st.critical_time(), 1234);
  EXPECT_EQ(st.node_time(), 1234);
  EXPECT_EQ(st.time(), 1234);
}

TEST(SegmentTiming, SpatialForwardingWithBatchGroups) {
  SegmentTiming st;
  // A: BAT 2 outermost, then OFM 4 -> 4 ofmap groups, 2 batch groups.
  st.add(layer(0, 0, true, 100, {{1, 4, 2}}, {{0, 1, 2}}));
  // B (Conv) on the next vertex: BAT 2, then IFM 4 -> forwarded groups match A's 4.
  auto b = layer(1, 0, true, 200, {{4, 1, 2}}, {{1, 0, 2}});
  b.onchip_prevs = {{0, 0}};
  st.add(b);
  // B starts after A's first group: 0 + 100 // 4 = 25; done 225. Critical = max(100, 200).
  EXPECT_EQ(st.timing_list()[1][0].ts_xb, 25);
  EXPECT_EQ(st.timing_list()[1][0].td_xb, 225);
  EXPECT_EQ(st.critical_time(), 200);
  // node_time = max((100 + 200) // 2, (225 + 200) // 2) = 212.
  EXPECT_EQ(st.node_time(), 212);
  EXPECT_EQ(st.dram_time(), 30);
  EXPECT_EQ(st.time(), 212);
  // time_indv = 100*4/8 + 200*4/8 = 150 (node time dominates DRAM time).
  EXPECT_DOUBLE_EQ(st.time_overhead(), (212.0 - 150.0) / 150.0);
}

TEST(SegmentTiming, TemporalFusedLocalLayer) {
  SegmentTiming st;
  st.add(layer(0, 0, true, 90, {{1, 3, 1}}, {{0, 1, 2}}));
  // A pooling layer with the same 3 OFM groups fuses: starts after one group.
  auto p = layer(0, 1, false, 30, {{1, 3, 1}}, {{0, 1, 2}});
  p.onchip_prevs = {{0, 0}};
  st.add(p);
  EXPECT_EQ(st.timing_list()[0][1].ts_xb, 30);
  EXPECT_EQ(st.timing_list()[0][1].td_xb, 120);  // max(90 + 30, 30 + 30)
  EXPECT_EQ(st.critical_time(), 120);
  EXPECT_EQ(st.node_time(), 120);
}

}  // namespace
}  // namespace kapla::schedule
