// An imported network lists a MatMul's B producer early where its A may stay on chip
// (io/matmul_operand_order.hpp), and leaves every other layer where it was.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/matmul_operand_order.hpp"

namespace kapla::io {
namespace {

using nlohmann::json;

json conv(const std::string& name, json prevs) {
  return {{"name", name}, {"type", "Conv"}, {"prevs", std::move(prevs)}};
}
json headed(const std::string& name, const std::string& type, json prevs, int heads = 4) {
  return {{"name", name}, {"type", type}, {"heads", heads}, {"prevs", std::move(prevs)}};
}

std::vector<std::string> names(const json& layers) {
  std::vector<std::string> out;
  for (const json& l : layers) out.push_back(l["name"]);
  return out;
}

// One attention block as the ONNX node order gives it: Q, K, V, scores, softmax, A x V.
json attention() {
  return json::array({conv("x", nullptr), conv("q", {"x"}), conv("k", {"x"}), conv("v", {"x"}),
                      headed("qk", "MatMul", {"q", "k"}), headed("sm", "Softmax", {"qk"}),
                      headed("av", "MatMul", {"sm", "v"}), conv("proj", {"av"})});
}

TEST(MatmulOperandOrder, VMovesBeforeTheScoresAndKStays) {
  json layers = attention();
  list_matmul_b_producers_early(layers);
  // v right after its producer x; k stays: the scores' A (q) is a reshape, read from DRAM.
  EXPECT_EQ(names(layers),
            (std::vector<std::string>{"x", "v", "q", "k", "qk", "sm", "av", "proj"}));
  EXPECT_EQ(layers[1], conv("v", {"x"}));  // moved whole
}

TEST(MatmulOperandOrder, ALayerWithOtherReadersOrAnAOfOtherHeadsStays) {
  json shared = attention();
  shared.push_back(headed("other", "Eltwise", {"v", "proj"}, 1));  // v has a second reader
  json before = shared;
  list_matmul_b_producers_early(shared);
  EXPECT_EQ(shared, before);

  json other_heads = attention();
  other_heads[5]["heads"] = 2;  // the softmax's heads differ from A x V's: a reshape
  before = other_heads;
  list_matmul_b_producers_early(other_heads);
  EXPECT_EQ(other_heads, before);

  json single = attention();  // heads 1 everywhere: nothing to keep on chip as heads
  for (json& l : single) l.erase("heads");
  before = single;
  list_matmul_b_producers_early(single);
  EXPECT_EQ(single, before);
}

TEST(MatmulOperandOrder, AProducerGoesRightAfterItsLastInputAndExternalsCountAsInputs) {
  // v reads x and y (y after q): it can go no earlier than right after y.
  json layers =
      json::array({conv("x", nullptr), conv("q", {"x"}), conv("y", {"x"}), conv("k", {"x"}),
                   conv("v", {"x", "y"}), headed("qk", "MatMul", {"q", "k"}),
                   headed("sm", "Softmax", {"qk"}), headed("av", "MatMul", {"sm", "v"})});
  list_matmul_b_producers_early(layers);
  EXPECT_EQ(names(layers), (std::vector<std::string>{"x", "q", "y", "v", "k", "qk", "sm", "av"}));
  // A B that is an external input (a KV cache) or the network input is not a layer to move.
  json cache =
      json::array({conv("q", nullptr), conv("kk", nullptr), headed("qk", "MatMul", {"q", "kk"}),
                   headed("sm", "Softmax", {"qk"}), headed("av", "MatMul", {"sm", "v_cache"})});
  const json before = cache;
  list_matmul_b_producers_early(cache);
  EXPECT_EQ(cache, before);
}

}  // namespace
}  // namespace kapla::io
