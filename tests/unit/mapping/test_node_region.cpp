// NodeRegion geometry against the spec's worked examples (nn_dataflow-spec.md §2.2).
#include "mapping/node_region.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

namespace kapla::mapping {
namespace {

TEST(NodeRegion, UnfoldedRectangleWithSpacing) {
  // The 2D-memory region of a 4x4 chip: four corners.
  const auto r = NodeRegion::rectangle({2, 2}, {0, 0}, RegionType::Dram, {3, 3});
  EXPECT_EQ(r.nodes(), (std::vector<PhyDim2>{{0, 0}, {0, 3}, {3, 0}, {3, 3}}));
  EXPECT_TRUE(r.contains_node({3, 0}));
  EXPECT_FALSE(r.contains_node({1, 1}));
}

TEST(NodeRegion, AllocateZigZagMatchesTheReferenceExample) {
  const auto chip = NodeRegion::rectangle({8, 8}, {0, 0}, RegionType::Proc);
  const auto parts = chip.allocate({28, 22, 14});
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].dim, (PhyDim2{2, 14}));
  EXPECT_EQ(parts[0].origin, (PhyDim2{0, 0}));
  EXPECT_EQ(parts[0].wbeg, 8);
  EXPECT_EQ(parts[1].dim, (PhyDim2{2, 11}));
  EXPECT_EQ(parts[1].origin, (PhyDim2{2, 1}));
  EXPECT_EQ(parts[1].wbeg, -2);
  EXPECT_EQ(parts[2].dim, (PhyDim2{2, 7}));
  EXPECT_EQ(parts[2].origin, (PhyDim2{6, 6}));
  EXPECT_EQ(parts[2].wbeg, -7);
  // "The second region's nodes are (2,1),(2,0),(3,1),(3,0) then the whole rows 4-5
  // left->right, then (6,7),(7,7)."
  std::vector<PhyDim2> expected{{2, 1}, {2, 0}, {3, 1}, {3, 0}};
  // Relative h outer, w inner: h=0 row then h=1 row of each stripe, by iteration order.
  const auto nodes = parts[1].nodes();
  ASSERT_EQ(nodes.size(), 22u);
  std::vector<PhyDim2> sorted = nodes;
  std::sort(sorted.begin(), sorted.end());
  std::vector<PhyDim2> want;
  for (auto p : expected) want.push_back(p);
  for (std::int64_t h = 4; h < 6; ++h) {
    for (std::int64_t w = 0; w < 8; ++w) want.push_back({h, w});
  }
  want.push_back({6, 7});
  want.push_back({7, 7});
  std::sort(want.begin(), want.end());
  EXPECT_EQ(sorted, want);
  EXPECT_TRUE(chip.allocate({60, 5}).empty());
}

// min_hops_to against the least distance over every pair of nodes: folded stripes of several
// chip widths (every way allocate cuts them, in both directions), memory corners 15 apart,
// memory nodes stacked on one point, rectangles away from the origin, a region with itself.
TEST(NodeRegion, MinHopsToIsTheLeastDistanceOverNodePairs) {
  auto listed = [](const NodeRegion& a, const NodeRegion& b) {
    std::int64_t best = std::numeric_limits<std::int64_t>::max();
    for (const auto& x : a.nodes())
      for (const auto& y : b.nodes()) best = std::min(best, x.hop_dist(y));
    return best;
  };
  std::vector<NodeRegion> regions{
      NodeRegion::rectangle({2, 2}, {0, 0}, RegionType::Dram, {15, 15}),
      NodeRegion::rectangle({2, 2}, {0, 0}, RegionType::Dram, {3, 5}),
      NodeRegion::rectangle({2, 2}, {0, 0}, RegionType::Dram, {0, 0}),  // stacked (golden data)
      NodeRegion::rectangle({3, 4}, {5, 6}, RegionType::Proc),
      NodeRegion::rectangle({1, 1}, {7, 2}, RegionType::Proc)};
  for (std::int64_t width : {4, 8, 16}) {
    const auto chip = NodeRegion::rectangle({16, width}, {0, 0}, RegionType::Proc);
    for (const auto& reqs : std::vector<std::vector<std::int64_t>>{
             {28, 22, 14}, {6, 10, 2, 30}, {16, 16, 32}, {2, 2, 2, 2, 2}}) {
      for (const auto& r : chip.allocate(reqs)) regions.push_back(r);
    }
  }
  std::size_t folded = 0;
  for (const auto& a : regions) {
    folded += a.effective_wbeg() != a.effective_wtot() ? 1 : 0;
    for (const auto& b : regions) {
      EXPECT_EQ(a.min_hops_to(b), listed(a, b));
    }
    EXPECT_EQ(a.min_hops_to(a), 0);
  }
  EXPECT_GT(folded, 5u);
}

}  // namespace
}  // namespace kapla::mapping
