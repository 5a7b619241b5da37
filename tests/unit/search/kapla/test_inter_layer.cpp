// Segment pruning by estimated occupancy and the selection DP (kapla-spec.md §4.2-4.3).
#include "search/kapla/inter_layer.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace kapla::search::kapla {
namespace {

TEST(InterLayer, LocalOccupancy) {
  const auto pool = model::make_pooling(64, {14, 14}, {2, 2});
  OccupancyQuery q{&pool, 8, 4, 0, 0, 4, 64, 1000};
  // b = 8 / 4 = 2; (ofmap + ifmap) per channel x 1 channel.
  EXPECT_DOUBLE_EQ(estimated_min_occupancy(q), (14 * 14 + 28 * 28) * 2.0);
  q.topofm = 16;  // 64 / 16 = 4 channels resident
  EXPECT_DOUBLE_EQ(estimated_min_occupancy(q), (14 * 14 + 28 * 28) * 2.0 * 4);
}

TEST(InterLayer, ConvOccupancyGrowsWithFewerTopFactors) {
  const auto conv = model::make_conv(64, 128, {28, 28}, {3, 3});
  OccupancyQuery q{&conv, 16, 16, 0, 0, 4, 64, 16384};
  const double free_occ = estimated_min_occupancy(q);
  q.topifm = 1;
  q.topofm = 1;
  EXPECT_GE(estimated_min_occupancy(q), free_occ);
  EXPECT_FALSE(occupancy_may_fit(q));  // 64*900 + 128*784 + 64*128*9 > 4 x 16384 words
}

TEST(InterLayer, SelectionKeepsBestChainAndSingles) {
  const double inf = std::numeric_limits<double>::infinity();
  // 3 layers; singles (cost 10 each), pair 0-1 (cost 5), pair 1-2 (cost 30), triple (inf).
  std::vector<SegmentEstimate> segs{{0, 0, true, 10}, {1, 1, true, 10},  {2, 2, true, 10},
                                    {0, 1, false, 5}, {1, 2, false, 30}, {0, 2, false, inf}};
  const auto keep = select_segments(segs, 3, 1);
  EXPECT_TRUE(keep[0] && keep[1] && keep[2]);
  EXPECT_TRUE(keep[3]);
  EXPECT_FALSE(keep[4]);
  EXPECT_FALSE(keep[5]);
}

TEST(InterLayer, MarginKeepsNearTiesTheTopChainsMiss) {
  // 3 layers. Pair 0-1 (cost 1 or 1.1, two variants) makes the two best chains end with the
  // single of layer 2; pair 1-2 (chain 10 + 2 = 12 vs the best 1 + 10 = 11) is on neither.
  std::vector<SegmentEstimate> segs{{0, 0, true, 10}, {1, 1, true, 10},   {2, 2, true, 10},
                                    {0, 1, false, 1}, {0, 1, false, 1.1}, {1, 2, false, 2}};
  EXPECT_FALSE(select_segments(segs, 3, 2)[5]);
  EXPECT_FALSE(select_segments(segs, 3, 2, 0.05)[5]);   // 12 > 11 x 1.05
  const auto keep = select_segments(segs, 3, 2, 0.10);  // 12 <= 11 x 1.1
  EXPECT_TRUE(keep[5]);
  EXPECT_TRUE(keep[3] && keep[4]);
}

TEST(InterLayer, FewSegmentsAreAllKept) {
  std::vector<SegmentEstimate> segs{{0, 0, true, 1}, {0, 0, false, 2}};
  const auto keep = select_segments(segs, 1, 4);
  EXPECT_TRUE(keep[0] && keep[1]);
}

}  // namespace
}  // namespace kapla::search::kapla
