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

}  // namespace
}  // namespace kapla::model
