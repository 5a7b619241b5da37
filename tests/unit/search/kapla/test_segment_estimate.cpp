// The segment estimate of kapla-spec.md §4.3 steps 2-3 (segment_estimate.hpp) on small
// hand-checkable layers.
#include "search/kapla/segment_estimate.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "mapping/gen_partition.hpp"

namespace kapla::search::kapla {
namespace {

// One FC layer 64 -> 32, batch 4, on one node whose memory is the node itself (zero hops).
pricing::LayerProblem one_node_fc(std::int64_t gbuf_words) {
  pricing::LayerProblem p;
  p.layer = model::make_fc(64, 32);
  p.batch = 4;
  const auto dram = mapping::NodeRegion::rectangle({1, 1}, {0, 0}, mapping::RegionType::Dram);
  p.resource.proc_region =
      mapping::NodeRegion::rectangle({1, 1}, {0, 0}, mapping::RegionType::Proc);
  p.resource.dram_region = p.resource.src_data_region = p.resource.dst_data_region = dram;
  p.resource.dim_array = {8, 8};
  p.resource.size_gbuf = gbuf_words;
  p.resource.size_regf = 32;
  p.costs = {1, {{200, 6, 2, 1}}, 10, 0};
  return p;
}

mapping::PartitionScheme only_partition(const pricing::LayerProblem& p) {
  const auto parts = mapping::gen_partition(p.layer, p.batch, {1, 1}, p.options, true);
  EXPECT_EQ(parts.size(), 1u);
  return parts.at(0);
}

TEST(SegmentEstimate, SingleLayerCostIsDataVolumeAtDramAndGbuf) {
  const auto p = one_node_fc(1 << 20);
  // Every word once from DRAM and once through the GBUF, no hops: ifmaps 64x4, ofmaps 32x4,
  // filters 64x32 (a single-layer segment never refetches filters).
  EXPECT_DOUBLE_EQ(estimate_layer_cost(p, only_partition(p)), (256 + 128 + 2048) * (200.0 + 6.0));
}

TEST(SegmentEstimate, NothingFitsInATinyBuffer) {
  const auto p = one_node_fc(16);
  EXPECT_EQ(estimate_layer_cost(p, only_partition(p)), std::numeric_limits<double>::infinity());
}

TEST(SegmentEstimate, PipelinedFiltersRefetchedPerBatchGroupUnlessTheyStay) {
  auto p = one_node_fc(1 << 20);
  p.constraint = {2, 2, 0, false, false};  // topifm > 1: the filters cannot stay
  const double refetch = estimate_layer_cost(p, only_partition(p));
  EXPECT_DOUBLE_EQ(refetch, (256 + 128) * 206.0 + 2048 * (2 * 200.0 + 6.0));
  p.constraint = {2, 0, 0, false, false};  // everything of one batch group fits: they stay
  EXPECT_DOUBLE_EQ(estimate_layer_cost(p, only_partition(p)), (256 + 128 + 2048) * 206.0);
}

TEST(SegmentEstimate, SegmentCostIsTheCheapestValidConstraintOrTheFirst) {
  SegmentCandidate seg;
  seg.layers.push_back(one_node_fc(1 << 20));
  seg.constraints = {{{2, 2, 0, false, false}}, {{2, 0, 0, false, false}}};
  const double dearer = (256 + 128) * 206.0 + 2048 * 406.0;
  const double cheaper = (256 + 128 + 2048) * 206.0;
  EXPECT_DOUBLE_EQ(estimate_segment_cost(seg), cheaper);
  SegmentEstimateOptions first;
  first.best_constraint = false;
  EXPECT_DOUBLE_EQ(estimate_segment_cost(seg, first), dearer);
  // With 1000 words the first constraint fails the §4.2 check (32 ifmaps x 2 samples + 32
  // ofmaps x 2 + 32 x 32 filters = 1152 words) and is skipped; under the second the filters
  // no longer stay (128 + 64 + 2048 words > 1000), so they are refetched per batch group.
  seg.layers[0].resource.size_gbuf = 1000;
  EXPECT_DOUBLE_EQ(estimate_segment_cost(seg), dearer);
  EXPECT_DOUBLE_EQ(estimate_segment_cost(seg, first), dearer);
}

TEST(SegmentEstimate, PartitionsAreEvenlySpacedAndDeterministic) {
  const auto layer = model::make_conv(64, 128, {28, 28}, {3, 3});
  model::SearchOptions o;
  o.partition_hybrid = o.partition_batch = true;
  const auto all = mapping::gen_partition(layer, 16, {4, 4}, o, true);
  ASSERT_GE(all.size(), 10u);
  SegmentEstimateOptions e;
  EXPECT_EQ(estimate_partitions(all, e), all);  // default: every partition
  e.partition_fraction = 0.3;
  const auto some = estimate_partitions(all, e);
  ASSERT_EQ(some.size(),
            static_cast<std::size_t>(std::ceil(0.3 * static_cast<double>(all.size()))));
  for (std::size_t i = 0; i < some.size(); ++i)
    EXPECT_EQ(some[i], all[i * all.size() / some.size()]);
  e.max_partitions = 2;
  EXPECT_EQ(estimate_partitions(all, e), (std::vector{all[0], all[all.size() / 2]}));
  e.partition_fraction = 0;
  EXPECT_EQ(estimate_partitions(all, e).size(), 1u);  // at least one
}

}  // namespace
}  // namespace kapla::search::kapla
