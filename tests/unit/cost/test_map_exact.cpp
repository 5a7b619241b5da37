// The row-stationary mapper under imperfect: perfect (docs/imperfect.md): Timeloop's perfect
// factorisation on the PE array, i.e. only folds that divide the filter rows and the ofmap rows
// (split exactly as folds x wraps x columns) and replica counts that divide the channels.
// Hand-computed against nn_dataflow's ceil folds and replications.
#include <gtest/gtest.h>

#include "cost/map_strategy.hpp"
#include "model/layer.hpp"

namespace kapla::cost {
namespace {

constexpr auto kKapla = model::CostModelVariant::Kapla;
constexpr PhyDim2 kEyeriss{14, 12};

TEST(MapExact, ResNetStemFoldsSevenTimesWhereCeilFoldsFive) {
  // ResNet-50 conv1: 7 filter rows x 112 ofmap rows on 14x12 PEs. nn_dataflow folds the rows 5
  // times (23 wide, the last fold 20) and wraps each fold twice onto the 2 x 7 PE rows, 12
  // columns. 5 does not divide 112: exactly, 112 = 7 folds x 2 wraps x 8 columns.
  const auto L = model::make_conv(3, 64, {112, 112}, {7, 7}, {2, 2});
  const auto ceil_map = map_eyeriss(L, 1, 1.0, kEyeriss, kKapla);
  const auto exact = map_eyeriss(L, 1, 1.0, kEyeriss, kKapla, false, true);
  EXPECT_EQ(ceil_map.geometry.fold, (PhyDim2{1, 5}));
  EXPECT_EQ(ceil_map.geometry.dim_ppeset, (PhyDim2{14, 12}));
  EXPECT_EQ(exact.geometry.fold, (PhyDim2{1, 7}));
  EXPECT_EQ(exact.geometry.repl, (PhyDim2{1, 1}));
  EXPECT_EQ(exact.geometry.dim_flpeset, (PhyDim2{7, 16}));
  EXPECT_EQ(exact.geometry.dim_ppeset, (PhyDim2{14, 8}));
  EXPECT_DOUBLE_EQ(exact.geometry.util, 7.0 * 112 / (168 * 7));
  ASSERT_EQ(exact.nlds.size(), 1u);
  ASSERT_EQ(ceil_map.nlds.size(), 1u);
  // One pass per fold: 7 passes of the same unit time instead of 5.
  EXPECT_EQ(exact.nlds[0].loopcnt[LoopDim::Bat], 7);
  EXPECT_EQ(ceil_map.nlds[0].loopcnt[LoopDim::Bat], 5);
  EXPECT_EQ(exact.nlds[0].unit_time, ceil_map.nlds[0].unit_time);
}

TEST(MapExact, FiltersTallerThanTheArrayFoldEvenly) {
  // A 7-row filter on 2 PE rows: ceil folds it 4 times (2 + 2 + 2 + 1 rows); 7 is prime, so the
  // exact fold is 7 passes of one row.
  const auto L = model::make_conv(16, 16, {14, 14}, {7, 7});
  const auto ceil_map = map_eyeriss(L, 1, 1.0, {2, 16}, kKapla);
  const auto exact = map_eyeriss(L, 1, 1.0, {2, 16}, kKapla, false, true);
  EXPECT_EQ(ceil_map.geometry.fold.h, 4);
  EXPECT_EQ(exact.geometry.fold.h, 7);
  EXPECT_EQ(exact.geometry.dim_flpeset, (PhyDim2{1, 14}));
  EXPECT_EQ(exact.nlds[0].unit_time, 7 * ceil_map.nlds[0].unit_time / 4);
}

TEST(MapExact, ReplicasDivideTheChannels) {
  // A 1x1 conv of 20 -> 30 channels on a 7x7 ofmap, 14x12 PEs: the 1 x 7 logical set replicates
  // 14 times down the rows (a input x b output channels, a b = 14). nn_dataflow keeps a = 1, 2, 7
  // (ifms x ofms 1 x 14, 2 x 7, 7 x 2; loop counts 20 x 3, 10 x 5, 3 x 15, the last with an idle
  // remainder: 7 x 3 = 21 input channels for 20). Exact replicas divide the channels: 1 x 10
  // (20 x 3 loops) and 2 x 6 (10 x 5); 7 -> 5 x 2 (4 x 15 = 60 loops) and 14 -> 10 x 1 (2 x 30)
  // have more loops than 2 x 6 and are dropped as nn_dataflow drops them.
  const auto L = model::make_conv(20, 30, {7, 7}, {1, 1});
  const auto ceil_map = map_eyeriss(L, 1, 1.0, kEyeriss, kKapla);
  const auto exact = map_eyeriss(L, 1, 1.0, kEyeriss, kKapla, false, true);
  ASSERT_EQ(ceil_map.nlds.size(), 3u);
  EXPECT_EQ(ceil_map.nlds[2].loopcnt, (PerLoopDim<std::int64_t>{{3, 15, 1}}));
  ASSERT_EQ(exact.nlds.size(), 2u);
  EXPECT_EQ(exact.nlds[0].loopcnt, (PerLoopDim<std::int64_t>{{20, 3, 1}}));
  EXPECT_EQ(exact.nlds[1].loopcnt, (PerLoopDim<std::int64_t>{{10, 5, 1}}));
  EXPECT_EQ(exact.nld_replicas[0], (PerDataCategory<std::int64_t>{{10, 1, 10}}));
  EXPECT_EQ(exact.nld_replicas[1], (PerDataCategory<std::int64_t>{{12, 2, 6}}));
  // No idle replica: the passes count the layer's MACs exactly.
  for (const auto& n : exact.nlds) {
    const double loops = static_cast<double>(n.loopcnt[LoopDim::Ifm] * n.loopcnt[LoopDim::Ofm] *
                                             n.loopcnt[LoopDim::Bat]);
    EXPECT_DOUBLE_EQ(n.unit_ops * loops, 20.0 * 30 * 49);
  }
}

TEST(MapExact, AnAlignedLayerMapsAsNnDataflowMapsIt) {
  // 28 ofmap rows on 8 columns with 3-row filters: nn_dataflow folds twice and wraps the 14-wide
  // set onto 2 x 7 columns, 28 = 2 x 2 x 7 exactly; 8 input and 512 output channels, one
  // replica. Exact changes nothing, fold variants included.
  const auto L = model::make_conv(8, 512, {28, 28}, {3, 3});
  for (const bool folds : {false, true}) {
    const auto ceil_map = map_eyeriss(L, 16, 1.0, {8, 8}, kKapla, folds);
    const auto exact = map_eyeriss(L, 16, 1.0, {8, 8}, kKapla, folds, true);
    EXPECT_EQ(exact.geometry, ceil_map.geometry);
    EXPECT_EQ(exact.nlds.front(), ceil_map.nlds.front());
  }
}

}  // namespace
}  // namespace kapla::cost
