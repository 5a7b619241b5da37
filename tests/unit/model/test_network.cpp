// Network construction: the reference's default predecessor, concatenation, padding checks.
#include "model/network.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"

namespace kapla::model {
namespace {

TEST(Network, DefaultPrevIsTheLastAddedLayer) {
  NetworkBuilder b("tiny", "test", {"", 3, {32, 32}});
  b.add("conv1", make_conv(3, 16, {32, 32}, {3, 3}));
  b.add("pool1", make_pooling(16, {16, 16}, {2, 2}));
  b.add("fc", make_fc(16, 10, {16, 16}));
  const Network n = std::move(b).build();
  ASSERT_EQ(n.size(), 3u);
  EXPECT_EQ(n.prevs(0)[0].kind, LayerSource::Kind::NetworkInput);
  EXPECT_EQ(n.prevs(1)[0], (LayerSource{LayerSource::Kind::Layer, 0}));
  EXPECT_EQ(n.nexts(0), (std::vector<std::size_t>{1}));
  EXPECT_TRUE(n.nexts(2).empty());
  EXPECT_EQ(n.firsts(), (std::vector<std::size_t>{0}));
  EXPECT_EQ(n.lasts(), (std::vector<std::size_t>{2}));
  EXPECT_EQ(n.total_ops(2),
            2 * (n.layer(0).total_ops() + n.layer(1).total_ops() + n.layer(2).total_ops()));
}

TEST(Network, ConcatenatesPrevsAndAcceptsExternals) {
  NetworkBuilder b("cell", "test", {"", 4, {1, 1}});
  b.add_external({"h0", 4, {1, 1}});
  b.add("gate", make_fc(8, 4), {"h0", std::string(NetworkBuilder::kNetworkInput)});
  const Network n = std::move(b).build();
  EXPECT_EQ(n.prevs(0)[0].kind, LayerSource::Kind::External);
  EXPECT_EQ(n.source_name(n.prevs(0)[0]), "h0");
  EXPECT_EQ(n.firsts(), (std::vector<std::size_t>{0}));
}

TEST(Network, RejectsChannelMismatchNamingTheLayer) {
  NetworkBuilder b("bad", "test", {"", 3, {32, 32}});
  b.add("conv1", make_conv(3, 16, {32, 32}, {3, 3}));
  try {
    b.add("conv2", make_conv(8, 16, {32, 32}, {3, 3}));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("conv2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("nifm"), std::string::npos) << msg;
  }
}

TEST(Network, AllowsPaddingButNotLargerMismatch) {
  NetworkBuilder b("pad", "test", {"", 3, {27, 27}});
  // Expects 31x31 (5x5 filter, 27x27 out) and gets 27x27: implicit padding, accepted.
  b.add("conv", make_conv(3, 8, {27, 27}, {5, 5}));
  EXPECT_THROW(b.add("conv_b", make_conv(8, 8, {4, 4}, {3, 3}), {"conv"}), InputError);
}

TEST(Network, RejectsUnknownAndDuplicateNames) {
  NetworkBuilder b("n", "test", {"", 3, {8, 8}});
  b.add("a", make_conv(3, 4, {8, 8}, {1, 1}));
  EXPECT_THROW(b.add("a", make_conv(4, 4, {8, 8}, {1, 1})), InputError);
  EXPECT_THROW(b.add("b", make_conv(4, 4, {8, 8}, {1, 1}), {"nope"}), InputError);
}

// --- Transformer kinds (docs/transformers.md §4) -------------------------------------------

// One attention head group: Q, K, V projections, scores, softmax, context, output projection.
NetworkBuilder attention(std::int64_t s, std::int64_t d, std::int64_t h) {
  NetworkBuilder b("attn", "test", {"", d, {1, s}});
  b.add("q", make_conv(d, d, {1, s}, {1, 1}), {std::string(NetworkBuilder::kNetworkInput)});
  b.add("k", make_conv(d, d, {1, s}, {1, 1}), {std::string(NetworkBuilder::kNetworkInput)});
  b.add("v", make_conv(d, d, {1, s}, {1, 1}), {std::string(NetworkBuilder::kNetworkInput)});
  b.add("qk", make_matmul(s, d / h, s, h), {"q", "k"});
  b.add("sm", make_softmax(s, {1, s}, h), {"qk"});
  b.add("av", make_matmul(s, s, d / h, h), {"sm", "v"});
  b.add("o", make_conv(d, d, {1, s}, {1, 1}), {"av"});
  return b;
}

TEST(Network, AttentionBlockChecksOperandWords) {
  const Network n = std::move(attention(8, 16, 4)).build();
  ASSERT_EQ(n.size(), 7u);
  const auto qk = *n.find("qk");
  ASSERT_EQ(n.prevs(qk).size(), 2u);
  EXPECT_EQ(n.source_name(n.prevs(qk)[0]), "q");
  EXPECT_EQ(n.source_name(n.prevs(qk)[1]), "k");
  EXPECT_EQ(n.nexts(*n.find("k")), (std::vector<std::size_t>{qk}));
  // 3 projections + output projection 4*s*d^2, scores and context 2*s^2*d, softmax 5*h*s^2.
  EXPECT_EQ(n.total_ops(1), 4 * 8 * 16 * 16 + 2 * 8 * 8 * 16 + 5 * 4 * 8 * 8);
}

TEST(Network, MatMulNeedsTwoOperandsOfTheRightSize) {
  auto error_of = [](auto&& f) {
    try {
      f();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  {
    NetworkBuilder b("bad", "test", {"", 16, {1, 8}});
    EXPECT_EQ(error_of([&] { b.add("qk", make_matmul(8, 4, 8, 4)); }),
              "layer 'qk': prevs: a MatMul takes exactly two predecessors [A, B], got 1");
  }
  {
    NetworkBuilder b("bad", "test", {"", 16, {1, 8}});
    b.add_external({"kc", 16, {1, 9}});
    // B holds 16 * 9 words per sample; k * n * heads = 4 * 8 * 4 = 128.
    EXPECT_EQ(
        error_of([&] {
          b.add("qk", make_matmul(8, 4, 8, 4), {std::string(NetworkBuilder::kNetworkInput), "kc"});
        }),
        "layer 'qk': prevs: B ('kc') has 144 words per sample, the MatMul reads k*n*heads "
        "= 128");
    EXPECT_EQ(error_of([&] {
                b.add("qk", make_matmul(8, 3, 8, 4), {"kc", "kc"});
              }),
              "layer 'qk': prevs: A ('kc') has 144 words per sample, the MatMul reads m*k*heads "
              "= 96");
  }
  {
    // A change of heads is a reshape: the words must agree.
    NetworkBuilder b = attention(8, 16, 4);
    EXPECT_EQ(error_of([&] {
                b.add("o2", make_conv(8, 16, {1, 8}, {1, 1}), {"av"});
              }),
              "layer 'o2': prevs: the predecessors hold 128 words per sample, the layer reads "
              "nifm*sifm*heads = 64 (a reshape keeps the words)");
  }
}

TEST(Network, AMatMulsOutputIsReadAsAReshape) {
  // Scores of 8 tokens are 1 x 8 positions; a softmax of the same heads may lay them out as
  // 2 x 4 (the `_2d` zoo networks): a reshape through DRAM, so only the words must agree.
  NetworkBuilder b("attn", "test", {"", 16, {1, 8}});
  b.add("q", make_conv(16, 16, {1, 8}, {1, 1}));
  b.add("k", make_conv(16, 16, {1, 8}, {1, 1}), {std::string(NetworkBuilder::kNetworkInput)});
  b.add("qk", make_matmul(8, 4, 8, 4), {"q", "k"});
  b.add("sm", make_softmax(8, {2, 4}, 4), {"qk"});
  try {
    b.add("sm3", make_softmax(8, {2, 3}, 4), {"qk"});
    ADD_FAILURE() << "a 2 x 3 softmax over 8 scores was accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "layer 'sm3': prevs: the predecessors hold 256 words per sample, the layer "
                 "reads nifm*sifm*heads = 192 (a reshape keeps the words)");
  }
  // Between layers that are not MatMuls, equal heads still need the nn_dataflow shapes.
  EXPECT_THROW(b.add("ln", make_layernorm(16, {2, 4}), {"q"}), InputError);
  EXPECT_EQ(std::move(b).build().size(), 4u);
}

// Which producer -> consumer edges may stay on chip inside a pipeline segment: the CNN kinds
// always; otherwise the consumer's only ifmap source, carried unchanged, or reshaped between
// two layers that pipeline as convolutions (docs/transformers.md §5.4).
TEST(Network, OnChipForwardingNeedsTheOperandUnchangedOrWholeBatchGroups) {
  NetworkBuilder b = attention(8, 16, 4);
  b.add("sm2", make_softmax(8, {2, 4}, 4), {"qk"});  // the scores as 2 x 4: a reshape
  b.add("ln", make_layernorm(16, {1, 8}), {"o"});
  const Network n = std::move(b).build();
  auto fwd = [&](const char* p, const char* c) {
    return n.forwards_on_chip(*n.find(p), *n.find(c));
  };
  auto same = [&](const char* p, const char* c) {
    return n.carries_unchanged(*n.find(p), *n.find(c));
  };
  EXPECT_TRUE(fwd("o", "ln"));  // Conv -> LayerNorm, no heads: nn_dataflow's rules
  EXPECT_TRUE(same("o", "ln"));
  EXPECT_TRUE(fwd("qk", "sm"));  // 4 heads of 8 x (1 x 8) scores, read as they are
  EXPECT_TRUE(same("qk", "sm"));
  EXPECT_TRUE(fwd("sm", "av"));  // the probabilities are av's A
  EXPECT_TRUE(same("sm", "av"));
  EXPECT_FALSE(fwd("v", "av"));  // B is fetched as a filter, from DRAM
  EXPECT_FALSE(fwd("k", "qk"));  // B again
  // Reshapes between a Conv and a MatMul: on chip, in whole batch groups.
  EXPECT_TRUE(fwd("q", "qk"));  // 16 channels read as 4 heads of 4
  EXPECT_FALSE(same("q", "qk"));
  EXPECT_TRUE(fwd("av", "o"));  // the heads back into the channels
  EXPECT_FALSE(same("av", "o"));
  // A reshape into a local-region layer, which follows its producer's channel groups.
  EXPECT_FALSE(fwd("qk", "sm2"));  // 1 x 8 positions read as 2 x 4
  // X x X^T: the producer would be A and B at once.
  NetworkBuilder g("gram", "test", {"", 16, {1, 8}});
  g.add("x", make_conv(16, 16, {1, 8}, {1, 1}));
  g.add("xx", make_matmul(8, 16, 8, 1), {"x", "x"});
  const Network gn = std::move(g).build();
  EXPECT_FALSE(gn.forwards_on_chip(*gn.find("x"), *gn.find("xx")));
}

TEST(Network, KvCacheIsAnExternalOperand) {
  // GPT-2-like decode of one token over a 32-token cache, 4 heads of 4: Q x K^T reads the
  // cached keys (4 heads x 4 x 32) as B.
  NetworkBuilder b("decode", "test", {"", 16, {1, 1}});
  b.add_external({"k_cache", 16, {1, 32}});
  b.add_external({"v_cache", 16, {1, 32}});
  b.add("q", make_conv(16, 16, {1, 1}, {1, 1}));
  b.add("qk", make_matmul(1, 4, 32, 4), {"q", "k_cache"});
  b.add("sm", make_softmax(32, {1, 1}, 4));
  b.add("av", make_matmul(1, 32, 4, 4), {"sm", "v_cache"});
  const Network n = std::move(b).build();
  EXPECT_EQ(n.prevs(*n.find("qk"))[1].kind, LayerSource::Kind::External);
  EXPECT_EQ(n.layer(*n.find("av")).total_ops(1), 4 * 1 * 4 * 32);
}

}  // namespace
}  // namespace kapla::model
