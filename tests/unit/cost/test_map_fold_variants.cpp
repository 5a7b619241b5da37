// The row-stationary mapper's fold variants (SearchOptions::rs_fold_variants, kapla's extension
// of nn_dataflow's MapStrategyEyeriss; docs/kapla.md §3): off, the list is nn_dataflow's; on,
// nn_dataflow's list comes first, unchanged, and every variant is a complete, no-slower mapping
// of the same layer.
#include <gtest/gtest.h>

#include <algorithm>

#include "cost/map_strategy.hpp"
#include "model/layer.hpp"

namespace kapla::cost {
namespace {

constexpr auto kKapla = model::CostModelVariant::Kapla;
constexpr PhyDim2 kArray{8, 8};

// VGG-16's conv9 on one node of the cloud chip after the reference KAPLA's partition (8 input
// channels per node, 16 samples): 28 ofmap rows on 8 PE columns.
model::Layer conv9_per_node() { return model::make_conv(8, 512, {28, 28}, {3, 3}); }

TEST(MapFoldVariants, OffIsNnDataflowsListAndOnKeepsItFirst) {
  const auto L = conv9_per_node();
  const auto off = map_eyeriss(L, 16, 1.0, kArray, kKapla, false);
  const auto on = map_eyeriss(L, 16, 1.0, kArray, kKapla, true);
  ASSERT_EQ(off.nlds.size(), 1u);
  EXPECT_EQ(off.nld_geometry, std::vector<MapGeometry>{off.geometry});
  // nn_dataflow: two folds of the 28 rows, the 14-wide folded set wrapped onto 6 x 7 PEs.
  EXPECT_EQ(off.geometry.fold, (PhyDim2{1, 2}));
  EXPECT_EQ(off.geometry.repl, (PhyDim2{1, 1}));
  const auto& n0 = off.nlds[0];
  EXPECT_EQ(n0.loopcnt, (PerLoopDim<std::int64_t>{{8, 512, 32}}));
  EXPECT_EQ(n0.unit_access[MemLevel::Gbuf], (PerDataCategory<double>{{9, 480, 392}}));
  EXPECT_EQ(n0.unit_time, 84);
  ASSERT_GT(on.nlds.size(), off.nlds.size());
  EXPECT_EQ(on.geometry, off.geometry);
  EXPECT_EQ(on.nlds.front(), n0);
  EXPECT_EQ(on.nld_geometry.size(), on.nlds.size());
}

TEST(MapFoldVariants, FindsTheChannelReplicatedNestOfTheReferenceKapla) {
  // Four folds of 7 rows leave 2 x 3 = 6 of the 8 PE rows for a second input channel, summed
  // inside the array: half the ofmap traffic per MAC, at nn_dataflow's MAC rate (42/cycle).
  // The reference KAPLA's converter built this nest (docs/kapla.md §8) with a unit time of 9.
  const auto on = map_eyeriss(conv9_per_node(), 16, 1.0, kArray, kKapla, true);
  bool found = false;
  for (std::size_t i = 0; i < on.nlds.size(); ++i) {
    const auto& n = on.nlds[i];
    if (n.loopcnt != PerLoopDim<std::int64_t>{{4, 512, 64}}) continue;
    found = true;
    EXPECT_EQ(on.nld_geometry[i].fold, (PhyDim2{1, 4}));
    EXPECT_EQ(on.nld_geometry[i].repl, (PhyDim2{2, 1}));
    // IFM: 2 channels x (3 + 6) rows x 30 columns (nn_dataflow's halo rule: each fold reads
    // its own halo rows).
    EXPECT_EQ(n.unit_access[MemLevel::Gbuf], (PerDataCategory<double>{{18, 540, 196}}));
    EXPECT_EQ(n.unit_ops, 3528);
    EXPECT_EQ(n.unit_time, 84);
  }
  EXPECT_TRUE(found);
}

TEST(MapFoldVariants, EveryVariantIsACompleteNoSlowerMappingThatFits) {
  const std::vector<std::pair<model::Layer, std::int64_t>> layers{
      {conv9_per_node(), 16},
      {model::make_conv(3, 64, {224, 224}, {3, 3}), 4},
      {model::make_conv(32, 32, {14, 14}, {1, 1}), 8},  // pointwise
      {model::make_dwconv(32, {56, 56}, {3, 3}), 8},    // depthwise
      {model::make_pooling(64, {56, 56}, {2, 2}), 8},
      {model::make_conv(96, 256, {27, 27}, {5, 5}), 2},  // 27 rows: uneven folds
  };
  for (std::size_t li = 0; li < layers.size(); ++li) {
    const auto& [L, batch] = layers[li];
    const auto off = map_eyeriss(L, batch, 1.0, kArray, kKapla, false);
    const auto on = map_eyeriss(L, batch, 1.0, kArray, kKapla, true);
    // Total MACs covered: unit ops x loop counts, with the loops' padding divided out, equal
    // nn_dataflow's first nest's.
    const double ops = off.nlds[0].total_ops();
    EXPECT_GT(on.nlds.size(), off.nlds.size()) << "layer " << li;
    int exact = 0;
    for (std::size_t i = off.nlds.size(); i < on.nlds.size(); ++i) {
      const auto& n = on.nlds[i];
      const auto& g = on.nld_geometry[i];
      EXPECT_FALSE(g == on.geometry) << "layer " << li << " #" << i;
      EXPECT_GE(g.util, on.geometry.util) << "layer " << li << " #" << i;
      EXPECT_LE(g.dim_ppeset.h, kArray.h) << "layer " << li;
      EXPECT_LE(g.dim_ppeset.w, kArray.w) << "layer " << li;
      EXPECT_LE(n.unit_ops / static_cast<double>(n.unit_time), static_cast<double>(kArray.size()))
          << "layer " << li << " #" << i;
      if (L.sofm.h % g.fold.w == 0) {
        EXPECT_DOUBLE_EQ(n.total_ops(), ops) << "layer " << li << " #" << i;
        ++exact;
      }
      for (std::size_t j = off.nlds.size(); j < i; ++j)
        EXPECT_FALSE(on.nlds[j] == n) << "layer " << li << " repeats #" << j;
    }
    EXPECT_GT(exact, 0) << "layer " << li;
  }
}

TEST(MapFoldVariants, NothingToVaryWhenTheOfmapHasOneRow) {
  const auto L = model::make_fc(256, 128);
  EXPECT_EQ(map_eyeriss(L, 4, 1.0, kArray, kKapla, true).nlds,
            map_eyeriss(L, 4, 1.0, kArray, kKapla, false).nlds);
}

}  // namespace
}  // namespace kapla::cost
