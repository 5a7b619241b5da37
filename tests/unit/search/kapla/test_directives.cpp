// Directive tables and printer (kapla-spec.md §1.1-1.2).
#include "search/kapla/directives.hpp"

#include <gtest/gtest.h>

namespace kapla::search::kapla {
namespace {

TEST(Directives, KindClasses) {
  EXPECT_EQ(kind_class(model::make_conv(3, 8, {4, 4}, {3, 3})), KindClass::Conv);
  EXPECT_EQ(kind_class(model::make_fc(8, 4)), KindClass::Conv);
  EXPECT_EQ(kind_class(model::make_dwconv(8, {4, 4}, {3, 3})), KindClass::DwConv);
  EXPECT_EQ(kind_class(model::make_pooling(8, {4, 4}, {2, 2})), KindClass::Local);
  EXPECT_EQ(kind_class(model::make_conv_back_weight(8, 3, {6, 6}, {3, 3})), KindClass::ConvBackW);
}

TEST(Directives, LoopTablesCoverEveryKind) {
  for (std::size_t k = 0; k < kNumKindClasses; ++k) {
    const auto kc = static_cast<KindClass>(k);
    const auto loops = loop_dims(model::ArrayMapping::RowStationary, kc);
    for (auto l : all_values<LoopDim>()) EXPECT_FALSE(loops[l].empty());
    LoopDim l{};
    EXPECT_TRUE(loop_of_dim(model::ArrayMapping::RowStationary, kc, Dim::N, l));
    EXPECT_EQ(l, LoopDim::Bat);
  }
}

TEST(Directives, TensorSizes) {
  DimExtents t{};
  t[Dim::N] = 2, t[Dim::C] = 3, t[Dim::K] = 4, t[Dim::R] = 3, t[Dim::S] = 3;
  t[Dim::Xi] = 5, t[Dim::Yi] = 5, t[Dim::Xo] = 3, t[Dim::Yo] = 3;
  const auto rs = model::ArrayMapping::RowStationary;
  EXPECT_EQ(tensor_size(rs, KindClass::Conv, t, DataCategory::Fil), 3 * 4 * 9);
  EXPECT_EQ(tensor_size(rs, KindClass::Conv, t, DataCategory::Ifm), 2 * 3 * 25);
  EXPECT_EQ(tensor_size(rs, KindClass::Conv, t, DataCategory::Ofm), 2 * 4 * 9);
  // Depthwise: K*R*S, not K^2*R*S (reference quirk §10.10 not copied).
  EXPECT_EQ(tensor_size(rs, KindClass::DwConv, t, DataCategory::Fil), 4 * 9);
  EXPECT_EQ(tensor_size(rs, KindClass::Local, t, DataCategory::Fil), 0);
}

TEST(Directives, FormatListsEveryLevel) {
  DirectiveSchedule s;
  s.layer_name = "conv2_a";
  s.gbuf.tensor[Dim::N] = 4;
  s.gbuf.tensor[Dim::K] = 16;
  s.gbuf.stacks.push_back({{DimStep{Dim::N, 4}, DimStep{}}, 1, 2});
  s.gbuf.updates.push_back({{DimStep{Dim::K, 16}, DimStep{}}, 1, 8, false});
  s.regf.stacks.push_back({{DimStep{Dim::Yi, 1}, DimStep{Dim::Yo, 1}}, 2, 7});
  const auto txt = format_directives(s);
  EXPECT_NE(txt.find("conv2_a"), std::string::npos);
  EXPECT_NE(txt.find("GBUF"), std::string::npos);
  EXPECT_NE(txt.find("REGF"), std::string::npos);
  EXPECT_NE(txt.find("(N+=4, 2)"), std::string::npos);
  EXPECT_NE(txt.find("(K+=16)x8"), std::string::npos);
  EXPECT_NE(txt.find("(Yi+=1, Yo+=1, 7)"), std::string::npos);
}

}  // namespace
}  // namespace kapla::search::kapla
