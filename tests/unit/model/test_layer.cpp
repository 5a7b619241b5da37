// Layer factories: derived sizes and ops equal the reference's; each bad field is named.
#include "model/layer.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"

namespace kapla::model {
namespace {

TEST(Layer, ConvDerivesInputSizeAndOps) {
  // AlexNet conv1 (two towers): ConvLayer(3, 48, 55, 11, 4).
  const Layer l = make_conv(3, 48, {55, 55}, {11, 11}, {4, 4});
  EXPECT_EQ(l.sifm, (PhyDim2{227, 227}));
  EXPECT_EQ(l.total_ops(1), 48LL * 55 * 55 * 11 * 11 * 3);
  EXPECT_EQ(l.total_ops(16), 16 * l.total_ops(1));
  EXPECT_EQ(l.total_filter_size(), 3LL * 48 * 11 * 11);
  EXPECT_TRUE(l.has_filter());
  EXPECT_FALSE(l.is_back());
  EXPECT_EQ(l.rw_data, DataCategory::Ofm);
}

TEST(Layer, FcIsConvWithUnitOfmap) {
  const Layer l = make_fc(256, 4096, {6, 6});
  EXPECT_EQ(l.sofm, (PhyDim2{1, 1}));
  EXPECT_EQ(l.sifm, (PhyDim2{6, 6}));
  EXPECT_EQ(l.total_ops(1), 4096LL * 6 * 6 * 256);
}

TEST(Layer, PoolingDefaultsStrideToWindow) {
  const Layer l = make_pooling(64, {56, 56}, {3, 3}, {2, 2});
  EXPECT_EQ(l.sifm, (PhyDim2{113, 113}));
  const Layer p = make_pooling(2048, {1, 1}, {7, 7});
  EXPECT_EQ(p.strd, (PhyDim2{7, 7}));
  EXPECT_EQ(p.sifm, (PhyDim2{7, 7}));
  EXPECT_EQ(p.total_ops(1), 2048LL * 49);
}

TEST(Layer, EltwiseReadsNregInputs) {
  const Layer l = make_eltwise(256, {56, 56}, 2);
  EXPECT_EQ(l.nifm, 512);
  EXPECT_EQ(l.total_ops(1), 256LL * 56 * 56 * 2);
}

TEST(Layer, BackLayersShrinkTheInputAndKeepForwardOps) {
  // ConvBackAct(nifm = fwd nofm, nofm = fwd nifm, sofm = fwd ifmap).
  const Layer l = make_conv_back_act(96, 3, {227, 227}, {11, 11}, {4, 4});
  EXPECT_EQ(l.sifm, (PhyDim2{55, 55}));
  EXPECT_EQ(l.total_ops(1), 96LL * 3 * 55 * 55 * 11 * 11);
  const Layer w = make_conv_back_weight(96, 3, {227, 227}, {11, 11}, {4, 4});
  EXPECT_EQ(w.rw_data, DataCategory::Fil);
  const Layer d = make_dwconv_back_weight(32, {114, 114}, {3, 3});
  EXPECT_EQ(d.nifm, 32);
  EXPECT_EQ(d.sifm, (PhyDim2{112, 112}));
  EXPECT_EQ(d.total_ops(1), 32LL * 112 * 112 * 9);
  EXPECT_EQ(d.rw_data, DataCategory::Fil);
}

TEST(Layer, RejectsZeroSizesNamingTheField) {
  try {
    make_conv(3, 0, {55, 55}, {11, 11}, {4, 4});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nofm"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_pooling(64, {0, 56}, {3, 3}), InputError);
  EXPECT_THROW(make_conv(3, 8, {5, 5}, {3, 3}, {0, 1}), InputError);
}

TEST(Layer, RejectsMixedLocalRegion) {
  EXPECT_THROW(make_local_region(64, {8, 8}, 3, {2, 2}), InputError);
}

TEST(Layer, RejectsBackWindowLargerThanOutput) {
  EXPECT_THROW(make_conv_back_act(8, 8, {2, 2}, {3, 3}), InputError);
}

TEST(Layer, TypeNamesRoundTrip) {
  for (int i = 0; i < kNumLayerTypes; ++i) {
    const auto t = static_cast<LayerType>(i);
    EXPECT_EQ(parse_layer_type(type_name(t)), t);
  }
  EXPECT_THROW(parse_layer_type("Convolution"), InputError);
}

TEST(Layer, DescribeUsesTheReferenceConstructor) {
  EXPECT_EQ(describe(make_conv(3, 96, {55, 55}, {11, 11}, {4, 4})), "ConvLayer(3, 96, 55, 11, 4)");
  EXPECT_EQ(describe(make_fc(4096, 1000)), "FCLayer(4096, 1000, 1)");
  EXPECT_EQ(describe(make_eltwise(256, {56, 56}, 2)), "EltwiseLayer(256, 56, 2)");
}

// --- Transformer kinds (docs/transformers.md) ----------------------------------------------

TEST(Layer, MatMulIsAnFcOverMPositionsWithHeadsAsSamples) {
  // BERT-base Q x K^T at sequence 128: 12 heads of (128 x 64) x (64 x 128).
  const Layer l = make_matmul(128, 64, 128, 12);
  EXPECT_EQ(l.type, LayerType::MatMul);
  EXPECT_EQ(l.nifm, 64);
  EXPECT_EQ(l.nofm, 128);
  EXPECT_EQ(l.sofm, (PhyDim2{1, 128}));
  EXPECT_EQ(l.sifm, (PhyDim2{1, 128}));
  EXPECT_EQ(l.sfil, (PhyDim2{1, 1}));
  EXPECT_EQ(l.nhead, 12);
  EXPECT_TRUE(l.has_filter());
  EXPECT_TRUE(l.is_matmul());
  EXPECT_TRUE(l.is_transformer_kind());
  EXPECT_EQ(l.input_passes(), 1);
  // b * h * m * n * k.
  EXPECT_EQ(l.total_ops(1), 12LL * 128 * 128 * 64);
  EXPECT_EQ(l.total_ops(64), 64LL * 12 * 128 * 128 * 64);
  // The weight role of one head of one sample.
  EXPECT_EQ(l.total_filter_size(), 64LL * 128);
  EXPECT_EQ(describe(l), "MatMulLayer(m=128, k=64, n=128, heads=12)");
}

TEST(Layer, RowReductionsAndGeluCountTheirDocumentedOps) {
  const Layer s = make_softmax(128, {1, 128}, 12);
  EXPECT_EQ(s.nifm, 128);
  EXPECT_EQ(s.sifm, (PhyDim2{1, 128}));
  EXPECT_TRUE(s.is_local_region());
  EXPECT_TRUE(s.is_row_reduction());
  EXPECT_EQ(s.input_passes(), 2);
  EXPECT_EQ(s.ops_per_element(), 5);
  EXPECT_EQ(s.total_ops(2), 2LL * 12 * 128 * 128 * 5);
  const Layer n = make_layernorm(768, {1, 128});
  EXPECT_TRUE(n.is_row_reduction());
  EXPECT_EQ(n.total_ops(1), 768LL * 128 * 5);
  const Layer g = make_gelu(3072, {1, 128});
  EXPECT_FALSE(g.is_row_reduction());
  EXPECT_EQ(g.input_passes(), 1);
  EXPECT_EQ(g.total_ops(1), 3072LL * 128);
  EXPECT_EQ(describe(g), "GELULayer(3072, (1, 128), heads=1)");
  // The nn_dataflow kinds are unchanged.
  EXPECT_EQ(make_eltwise(256, {56, 56}, 2).ops_per_element(), 1);
  EXPECT_EQ(make_eltwise(256, {56, 56}, 2).nhead, 1);
}

TEST(Layer, TransformerKindsNameTheBadField) {
  auto message = [](auto&& make) {
    try {
      make();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([] { make_matmul(0, 64, 128); }), "m: must be positive, got 0");
  EXPECT_EQ(message([] { make_matmul(128, -1, 128); }), "k: must be positive, got -1");
  EXPECT_EQ(message([] { make_matmul(128, 64, 128, 0); }), "heads: must be positive, got 0");
  EXPECT_EQ(message([] { make_softmax(128, {1, 0}); }).rfind("sofm: must be positive", 0), 0u);
  // Heads multiply the per-sample sizes: 2^20 heads of 2^20 channels are refused.
  EXPECT_NE(message([] {
              make_gelu(1 << 20, {1, 64}, 1 << 20);
            }).find("per sample exceed"),
            std::string::npos);
}

}  // namespace
}  // namespace kapla::model
