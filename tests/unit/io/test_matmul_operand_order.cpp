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

// Tokens 1 x 4, width 8 (or 4 with one head), `heads` heads of 8 / heads.
json proj(const std::string& name, json prevs, int width = 8) {
  return {{"name", name},
          {"type", "Conv"},
          {"nifm", width},
          {"nofm", width},
          {"sofm", {1, 4}},
          {"sfil", 1},
          {"prevs", std::move(prevs)}};
}
json matmul(const std::string& name, json prevs, int k, int n, int heads) {
  return {{"name", name},   {"type", "MatMul"},         {"m", 4}, {"k", k}, {"n", n},
          {"heads", heads}, {"prevs", std::move(prevs)}};
}
json softmax(const std::string& name, json prevs, int heads) {
  return {{"name", name},   {"type", "Softmax"}, {"nofm", 4},
          {"sofm", {1, 4}}, {"heads", heads},    {"prevs", std::move(prevs)}};
}

// One attention block as the ONNX node order gives it: Q, K, V, scores, softmax, A x V.
json attention(int heads) {
  const int w = heads == 1 ? 4 : 8;
  const int dh = w / heads;
  json doc = {{"name", "a"}, {"source", "test"}, {"input", {{"nofm", w}, {"sofm", {1, 4}}}}};
  doc["layers"] = json::array({proj("q", nullptr, w), proj("k", nullptr, w), proj("v", nullptr, w),
                               matmul("qk", {"q", "k"}, dh, 4, heads), softmax("sm", {"qk"}, heads),
                               matmul("av", {"sm", "v"}, 4, dh, heads), proj("o", {"av"}, w)});
  return doc;
}

std::vector<std::string> names(const json& doc) {
  std::vector<std::string> out;
  for (const json& l : doc["layers"]) out.push_back(l["name"]);
  return out;
}

TEST(MatmulOperandOrder, VMovesBeforeTheScoresAndKStaysWithSeveralHeads) {
  json doc = attention(2);
  const json v = doc["layers"][2];
  list_matmul_b_producers_early(doc);
  // The scores' A (q, 8 channels read as 2 heads of 4) is a reshape, read from DRAM: k stays.
  EXPECT_EQ(names(doc), (std::vector<std::string>{"v", "q", "k", "qk", "sm", "av", "o"}));
  EXPECT_EQ(doc["layers"][0], v);  // moved whole
}

TEST(MatmulOperandOrder, WithOneHeadQMayStayOnChipSoKMovesToo) {
  json doc = attention(1);
  list_matmul_b_producers_early(doc);
  EXPECT_EQ(names(doc), (std::vector<std::string>{"v", "k", "q", "qk", "sm", "av", "o"}));
}

TEST(MatmulOperandOrder, AProducerWithAnotherReaderStays) {
  json doc = attention(2);
  doc["layers"].push_back({{"name", "sum"},
                           {"type", "Eltwise"},
                           {"nofm", 8},
                           {"sofm", {1, 4}},
                           {"nreg", 2},
                           {"prevs", {"v", "o"}}});
  const json before = doc;
  list_matmul_b_producers_early(doc);
  EXPECT_EQ(doc, before);
}

TEST(MatmulOperandOrder, AProducerGoesRightAfterItsLastInputLayer) {
  json doc = attention(2);
  // v now reads y, which the file lists after q: v can come no earlier than right after y.
  doc["layers"][2]["prevs"] = {"y"};
  doc["layers"].insert(doc["layers"].begin() + 1, proj("y", nullptr));
  list_matmul_b_producers_early(doc);
  EXPECT_EQ(names(doc), (std::vector<std::string>{"q", "y", "v", "k", "qk", "sm", "av", "o"}));
}

TEST(MatmulOperandOrder, ADocumentThatDoesNotParseIsLeftAsItIs) {
  json doc = attention(2);
  doc["layers"][5]["prevs"] = {"sm", "nowhere"};
  const json before = doc;
  list_matmul_b_producers_early(doc);  // no throw: loading the document reports the error
  EXPECT_EQ(doc, before);
}

}  // namespace
}  // namespace kapla::io
