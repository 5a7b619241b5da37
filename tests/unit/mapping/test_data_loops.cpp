// Data loops per layer kind: the nn_dataflow kinds keep the reference's table; MatMul's weight
// role (B, an activation) depends on the batch loop too (docs/transformers.md §2).
#include "mapping/data_loops.hpp"

#include <gtest/gtest.h>

namespace kapla::mapping {
namespace {

constexpr auto kFil = DataCategory::Fil;
constexpr auto kIfm = DataCategory::Ifm;
constexpr auto kOfm = DataCategory::Ofm;

TEST(DataLoops, ConvAndRegionKindsKeepTheReferenceTable) {
  const auto conv = data_loops(model::make_conv(3, 8, {4, 4}, {3, 3}));
  EXPECT_EQ(conv[kFil], (LoopSet{LoopDim::Ifm, LoopDim::Ofm}));
  EXPECT_EQ(conv[kIfm], (LoopSet{LoopDim::Ifm, LoopDim::Bat}));
  EXPECT_EQ(conv[kOfm], (LoopSet{LoopDim::Ofm, LoopDim::Bat}));
  const auto pool = data_loops(model::make_pooling(8, {2, 2}, {2, 2}));
  EXPECT_TRUE(pool[kFil].empty());
  EXPECT_EQ(pool[kIfm], (LoopSet{LoopDim::Ofm, LoopDim::Bat}));
}

TEST(DataLoops, MatMulWeightRoleDependsOnTheBatch) {
  const auto mm = data_loops(model::make_matmul(8, 4, 8, 2));
  EXPECT_EQ(mm[kFil], (LoopSet{LoopDim::Ifm, LoopDim::Ofm, LoopDim::Bat}));
  EXPECT_EQ(mm[kIfm], (LoopSet{LoopDim::Ifm, LoopDim::Bat}));
  EXPECT_EQ(mm[kOfm], (LoopSet{LoopDim::Ofm, LoopDim::Bat}));
}

TEST(DataLoops, RowReductionsAndGeluAreRegionKinds) {
  for (const auto& l : {model::make_softmax(8, {1, 4}, 2), model::make_layernorm(8, {1, 4}),
                        model::make_gelu(8, {1, 4})}) {
    const auto d = data_loops(l);
    EXPECT_TRUE(d[kFil].empty());
    EXPECT_EQ(d[kIfm], (LoopSet{LoopDim::Ofm, LoopDim::Bat}));
    EXPECT_EQ(d[kOfm], (LoopSet{LoopDim::Ofm, LoopDim::Bat}));
  }
}

}  // namespace
}  // namespace kapla::mapping
