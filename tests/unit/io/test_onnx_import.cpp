// ONNX import: the lowering rules on hand-built graphs (exact layer documents), the errors a
// user gets, and the real models exported from torchvision (tests/data/onnx, weights stripped)
// compared layer by layer with the zoo and with the papers' architecture tables.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/errors.hpp"
#include "io/json_util.hpp"
#include "io/network_json.hpp"
#include "io/onnx_import.hpp"
#include "temp_files.hpp"

namespace kapla::io {
namespace {

using nlohmann::json;
using testing::input_error_of;
using testing::TempDir;

const std::filesystem::path kOnnxDir = std::filesystem::path(KAPLA_TEST_DATA_DIR) / "onnx";
const std::filesystem::path kZooDir = std::filesystem::path(KAPLA_SOURCE_DATA_DIR) / "networks";

// A graph built node by node; shapes are given for every tensor as shape inference would.
struct GraphBuilder {
  OnnxGraph g;
  explicit GraphBuilder(std::vector<std::int64_t> input_dims) {
    g.origin = "m.onnx";
    g.inputs = {"x"};
    g.shapes["x"] = std::move(input_dims);
  }
  GraphBuilder& constant(const std::string& name, std::vector<std::int64_t> dims) {
    g.constants.insert(name);
    g.shapes[name] = std::move(dims);
    return *this;
  }
  GraphBuilder& node(const std::string& op, const std::string& name,
                     std::vector<std::string> inputs, const std::string& output,
                     std::vector<std::int64_t> out_dims,
                     std::map<std::string, std::vector<std::int64_t>> ints = {}) {
    OnnxNode n;
    n.op_type = op;
    n.name = name;
    n.inputs = std::move(inputs);
    n.outputs = {output};
    for (auto& [k, v] : ints) {
      OnnxAttribute a;
      if (v.size() == 1 && k == "group") {
        a.kind = OnnxAttribute::Kind::Int;
        a.i = v[0];
      } else {
        a.kind = OnnxAttribute::Kind::Ints;
        a.ints = v;
      }
      n.attributes[k] = a;
    }
    if (!out_dims.empty()) g.shapes[output] = std::move(out_dims);
    g.nodes.push_back(std::move(n));
    return *this;
  }
  json layers() {
    if (g.outputs.empty()) g.outputs = {g.nodes.back().outputs.front()};
    return lower_onnx_graph(g, "m").network.at("layers");
  }
};

TEST(OnnxLowering, ConvReluPoolFlattenGemmBecomeConvPoolingFc) {
  GraphBuilder b({1, 3, 8, 8});
  b.constant("w1", {4, 3, 3, 3}).constant("b1", {4}).constant("w2", {10, 36});
  b.node("Conv", "/c1/Conv", {"x", "w1", "b1"}, "y1", {1, 4, 6, 6}, {{"kernel_shape", {3, 3}}})
      .node("Relu", "r1", {"y1"}, "y2", {1, 4, 6, 6})
      .node("MaxPool", "p1", {"y2"}, "y3", {1, 4, 3, 3},
            {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}})
      .node("Flatten", "f", {"y3"}, "y4", {1, 36})
      .node("Gemm", "fc", {"y4", "w2"}, "y5", {1, 10});
  const json expected = json::parse(R"([
    {"name": "c1/Conv", "type": "Conv", "nifm": 3, "nofm": 4, "sofm": 6, "sfil": 3,
     "prevs": [null]},
    {"name": "p1", "type": "Pooling", "nofm": 4, "sofm": 3, "sreg": 2, "prevs": ["c1/Conv"]},
    {"name": "fc", "type": "FC", "nifm": 4, "nofm": 10, "sfil": 3, "prevs": ["p1"]}])");
  EXPECT_EQ(b.layers(), expected);
}

TEST(OnnxLowering, ResidualAddIsEltwiseAndBiasAddIsFused) {
  GraphBuilder b({1, 4, 5, 5});
  b.constant("w", {4, 4, 1, 1}).constant("bias", {1, 4, 1, 1});
  b.node("Conv", "a", {"x", "w"}, "ya", {1, 4, 5, 5})
      .node("Add", "bias_add", {"ya", "bias"}, "yb", {1, 4, 5, 5})
      .node("Conv", "b", {"yb", "w"}, "yc", {1, 4, 5, 5})
      .node("Add", "res", {"ya", "yc"}, "yd", {1, 4, 5, 5});
  const json layers = b.layers();
  ASSERT_EQ(layers.size(), 3u);
  EXPECT_EQ(layers[1]["prevs"], json::array({"a"}));  // the bias add vanished into "a"
  EXPECT_EQ(layers[2], json::parse(R"({"name": "res", "type": "Eltwise", "nofm": 4,
      "sofm": 5, "nreg": 2, "prevs": ["a", "b"]})"));
}

TEST(OnnxLowering, SwishOfOneTensorIsFusedNotAnEltwise) {
  // x * sigmoid(x): both operands come from the same layer, so it is an activation function.
  GraphBuilder b({1, 2, 4, 4});
  b.constant("w", {2, 2, 1, 1});
  b.node("Conv", "c", {"x", "w"}, "y", {1, 2, 4, 4})
      .node("Sigmoid", "s", {"y"}, "ys", {1, 2, 4, 4})
      .node("Mul", "m", {"y", "ys"}, "ym", {1, 2, 4, 4})
      .node("Conv", "d", {"ym", "w"}, "yd", {1, 2, 4, 4});
  const json layers = b.layers();
  ASSERT_EQ(layers.size(), 2u);
  EXPECT_EQ(layers[1]["prevs"], json::array({"c"}));
}

TEST(OnnxLowering, ChannelConcatIsAListOfPrevsAndDepthwiseIsDWConv) {
  GraphBuilder b({1, 2, 4, 4});
  b.constant("w1", {3, 2, 1, 1}).constant("w2", {5, 2, 1, 1}).constant("dw", {8, 1, 3, 3});
  b.node("Conv", "p", {"x", "w1"}, "y1", {1, 3, 4, 4})
      .node("Conv", "q", {"x", "w2"}, "y2", {1, 5, 4, 4})
      .node("Concat", "cat", {"y1", "y2"}, "y3", {1, 8, 4, 4})
      .node("Conv", "dw", {"y3", "dw"}, "y4", {1, 8, 2, 2},
            {{"group", {8}}, {"strides", {2, 2}}, {"kernel_shape", {3, 3}}});
  const json layers = b.layers();
  ASSERT_EQ(layers.size(), 3u);
  EXPECT_EQ(layers[2], json::parse(R"({"name": "dw", "type": "DWConv", "nofm": 8, "sofm": 2,
      "sfil": 3, "strd": 2, "prevs": ["p", "q"]})"));
}

TEST(OnnxLowering, WhatKaplaCannotExpressIsOneLineNamingNodeAndOp) {
  GraphBuilder unsupported({1, 2, 4, 4});
  unsupported.node("TopK", "/head/TopK", {"x"}, "y", {1, 2, 4, 4});
  EXPECT_EQ(input_error_of([&] { unsupported.layers(); }),
            "m.onnx: node '/head/TopK' (TopK): unsupported operator (docs/onnx.md lists what "
            "kapla imports)");

  GraphBuilder grouped({1, 4, 4, 4});
  grouped.constant("w", {4, 2, 3, 3});
  grouped.node("Conv", "g", {"x", "w"}, "y", {1, 4, 2, 2}, {{"group", {2}}});
  EXPECT_EQ(input_error_of([&] { grouped.layers(); }),
            "m.onnx: node 'g' (Conv): group 2 is not supported (1, or depthwise: group = input "
            "channels = output channels)");

  GraphBuilder dilated({1, 2, 8, 8});
  dilated.constant("w", {2, 2, 3, 3});
  dilated.node("Conv", "d", {"x", "w"}, "y", {1, 2, 4, 4}, {{"dilations", {2, 2}}});
  EXPECT_EQ(input_error_of([&] { dilated.layers(); }),
            "m.onnx: node 'd' (Conv): dilation is not supported (nn_dataflow's model)");

  GraphBuilder unknown_shape({1, 2, 4, 4});
  unknown_shape.constant("w", {2, 2, 1, 1});
  unknown_shape.node("Conv", "c", {"x", "w"}, "y", {1, 2, -1, 4});
  EXPECT_EQ(input_error_of([&] { unknown_shape.layers(); }),
            "m.onnx: node 'c' (Conv): the shape of 'y' is not static");

  // Dimensions whose product overflows an int64 (2^31 x 2^31 x 2^31) are refused, not wrapped.
  GraphBuilder huge({1, 2048, std::int64_t{1} << 31, std::int64_t{1} << 31});
  huge.constant("w", {2, 2048, 1, 1});
  huge.node("Conv", "c", {"x", "w"}, "y", {1, 2, 4, 4});
  EXPECT_EQ(input_error_of([&] { huge.layers(); }),
            "m.onnx: node 'input' (Input): tensor 'x' has more than 2^56 elements");

  GraphBuilder nothing({1, 2, 4, 4});
  nothing.node("Relu", "r", {"x"}, "y", {1, 2, 4, 4});
  EXPECT_EQ(input_error_of([&] { nothing.layers(); }),
            "m.onnx: no compute node (Conv, Gemm, MatMul, ...) to schedule");
}

TEST(OnnxLowering, AttentionBlockBecomesProjectionsMatMulsSoftmaxAndLayerNorm) {
  // torch.nn.MultiheadAttention's export, in miniature: sequence 4, width 8, 2 heads of 4.
  // The fused Q/K/V projection is sliced with computed bounds (shape inference leaves the
  // slices' shapes unknown); the following reshapes tell their size.
  GraphBuilder b({1, 4, 8});
  b.constant("w_qkv", {8, 24}).constant("w_o", {8, 8}).constant("s0", {1}).constant("s1", {1});
  b.node("MatMul", "in_proj", {"x", "w_qkv"}, "qkv", {1, 4, 24})
      .node("Slice", "sq", {"qkv", "s0", "s1"}, "q0", {})
      .node("Slice", "sk", {"qkv", "s0", "s1"}, "k0", {})
      .node("Slice", "sv", {"qkv", "s0", "s1"}, "v0", {})
      .node("Reshape", "rq", {"q0", "s0"}, "q1", {1, 4, 2, 4})
      .node("Transpose", "tq", {"q1"}, "q", {1, 2, 4, 4})
      .node("Reshape", "rk", {"k0", "s0"}, "k1", {1, 4, 2, 4})
      .node("Transpose", "tk", {"k1"}, "kt", {1, 2, 4, 4})
      .node("Reshape", "rv", {"v0", "s0"}, "v1", {1, 4, 2, 4})
      .node("Transpose", "tv", {"v1"}, "v", {1, 2, 4, 4})
      .node("Div", "scale", {"q", "s0"}, "qs", {1, 2, 4, 4})
      .node("MatMul", "qk", {"qs", "kt"}, "s", {1, 2, 4, 4})
      .node("Softmax", "softmax", {"s"}, "p", {1, 2, 4, 4})
      .node("MatMul", "pv", {"p", "v"}, "a", {1, 2, 4, 4})
      .node("Transpose", "ta", {"a"}, "a1", {1, 4, 2, 4})
      .node("Reshape", "ra", {"a1", "s0"}, "a2", {1, 4, 8})
      .node("MatMul", "out_proj", {"a2", "w_o"}, "o", {1, 4, 8})
      .node("Add", "res", {"x", "o"}, "r", {1, 4, 8})
      .node("LayerNormalization", "ln", {"r", "w_o", "w_o"}, "y", {1, 4, 8});
  // The graph's order (the scheduling order lists V's slice first: schedule/sched_dag.cpp).
  const json expected = json::parse(R"([
    {"name": "in_proj[0:8]", "type": "Conv", "nifm": 8, "nofm": 8, "sofm": [1, 4], "sfil": 1,
     "prevs": [null]},
    {"name": "in_proj[8:16]", "type": "Conv", "nifm": 8, "nofm": 8, "sofm": [1, 4], "sfil": 1,
     "prevs": [null]},
    {"name": "in_proj[16:24]", "type": "Conv", "nifm": 8, "nofm": 8, "sofm": [1, 4], "sfil": 1,
     "prevs": [null]},
    {"name": "qk", "type": "MatMul", "m": 4, "k": 4, "n": 4, "heads": 2,
     "prevs": ["in_proj[0:8]", "in_proj[8:16]"]},
    {"name": "softmax", "type": "Softmax", "nofm": 4, "sofm": [1, 4], "heads": 2,
     "prevs": ["qk"]},
    {"name": "pv", "type": "MatMul", "m": 4, "k": 4, "n": 4, "heads": 2,
     "prevs": ["softmax", "in_proj[16:24]"]},
    {"name": "out_proj", "type": "Conv", "nifm": 8, "nofm": 8, "sofm": [1, 4], "sfil": 1,
     "prevs": ["pv"]},
    {"name": "res", "type": "Eltwise", "nofm": 8, "sofm": [1, 4], "nreg": 2,
     "prevs": [null, "out_proj"]},
    {"name": "ln", "type": "LayerNorm", "nofm": 8, "sofm": [1, 4], "prevs": ["res"]}])");
  EXPECT_EQ(b.layers(), expected);
}

TEST(OnnxLowering, LayerNormWrittenAsASubgraphIsOneLayerNormLayer) {
  // Older opsets: mean, centre, variance, normalise, scale; all of one tensor.
  GraphBuilder b({1, 4, 8});
  b.constant("w", {8, 8}).constant("two", {}).constant("eps", {});
  b.node("MatMul", "fc", {"x", "w"}, "h", {1, 4, 8})
      .node("ReduceMean", "mean", {"h"}, "mu", {1, 4, 1})
      .node("Sub", "centre", {"h", "mu"}, "d", {1, 4, 8})
      .node("Pow", "square", {"d", "two"}, "d2", {1, 4, 8})
      .node("ReduceMean", "var", {"d2"}, "v", {1, 4, 1})
      .node("Add", "addeps", {"v", "eps"}, "ve", {1, 4, 1})
      .node("Sqrt", "sd", {"ve"}, "sigma", {1, 4, 1})
      .node("Div", "norm", {"d", "sigma"}, "z", {1, 4, 8})
      .node("MatMul", "next", {"z", "w"}, "y", {1, 4, 8});
  const json layers = b.layers();
  ASSERT_EQ(layers.size(), 3u);
  EXPECT_EQ(layers[1], json::parse(R"({"name": "z", "type": "LayerNorm", "nofm": 8,
      "sofm": [1, 4], "prevs": ["fc"]})"));
  EXPECT_EQ(layers[2]["prevs"], json::array({"z"}));
}

TEST(OnnxLowering, MeanOverTheFmapIsAGlobalPooling) {
  GraphBuilder b({1, 2, 4, 4});
  b.constant("w", {3, 2, 1, 1}).constant("fc", {3, 5});
  b.node("Conv", "c", {"x", "w"}, "y", {1, 3, 4, 4})
      .node("ReduceMean", "gap", {"y"}, "m", {1, 3})
      .node("Gemm", "fc", {"m", "fc"}, "z", {1, 5});
  EXPECT_EQ(b.layers(), json::parse(R"([
    {"name": "c", "type": "Conv", "nifm": 2, "nofm": 3, "sofm": 4, "sfil": 1, "prevs": [null]},
    {"name": "gap", "type": "Pooling", "nofm": 3, "sofm": 1, "sreg": 4, "prevs": ["c"]},
    {"name": "fc", "type": "FC", "nifm": 3, "nofm": 5, "prevs": ["gap"]}])"));
}

TEST(OnnxImport, FilesThatAreNotOnnxModelsAreRefusedByName) {
  TempDir dir;
  const auto garbage = dir.write("garbage.onnx", std::string("\x12\x34\xff\xfe not protobuf", 17));
  EXPECT_EQ(input_error_of([&] { import_onnx_file(garbage); }),
            garbage.string() + ": not an ONNX model (protobuf ModelProto with a graph)");
  const auto empty = dir.write("empty.onnx", "");
  EXPECT_EQ(input_error_of([&] { import_onnx_file(empty); }),
            empty.string() + ": not an ONNX model (protobuf ModelProto with a graph)");
  EXPECT_NE(input_error_of([&] { import_onnx_file(dir.path() / "missing.onnx"); }), "");
}

// ---- Real models ------------------------------------------------------------------------

// A layer's shape as the network file gives it, defaults filled in, for multiset comparison.
using LayerKey = std::tuple<std::string, std::int64_t, std::int64_t, std::string, std::string,
                            std::string, std::string, std::int64_t>;

std::string dim_text(const json& v) {
  if (v.is_null()) return "-";
  if (v.is_number())
    return std::to_string(v.get<std::int64_t>()) + "x" + std::to_string(v.get<std::int64_t>());
  return std::to_string(v[0].get<std::int64_t>()) + "x" + std::to_string(v[1].get<std::int64_t>());
}

LayerKey key_of(const json& l) {
  const std::string type = l.at("type");
  const json none;
  const json& sreg = l.contains("sreg") ? l["sreg"] : none;
  json strd = l.contains("strd") ? l["strd"] : (type == "Pooling" ? sreg : json(1));
  // A global pooling's stride does not matter (one output): the zoo writes 1, ONNX the window.
  if (type == "Pooling" && dim_text(l.at("sofm")) == "1x1") strd = 1;
  json sfil = l.contains("sfil") ? l["sfil"] : (type == "FC" ? json(1) : none);
  return {type,
          l.value("nifm", std::int64_t{0}),
          l.at("nofm").get<std::int64_t>(),
          l.contains("sofm") ? dim_text(l["sofm"]) : "-",
          dim_text(sfil),
          dim_text(sreg),
          dim_text(strd),
          l.value("nreg", std::int64_t{0})};
}

std::multiset<LayerKey> keys_of(const json& layers) {
  std::multiset<LayerKey> keys;
  for (const auto& l : layers) keys.insert(key_of(l));
  return keys;
}

json zoo_document(const std::string& name) { return read_json_file(kZooDir / (name + ".json")); }

TEST(OnnxImport, TorchvisionVgg16IsTheZoosVggNetLayerForLayer) {
  const OnnxImport imported = import_onnx_file(kOnnxDir / "torchvision_vgg16.onnx");
  const json zoo = zoo_document("vgg_net");
  EXPECT_EQ(keys_of(imported.network["layers"]), keys_of(zoo["layers"]));
  EXPECT_EQ(parse_network(imported.network, "vgg16").total_ops(),
            parse_network(zoo, "vgg_net").total_ops());
  EXPECT_EQ(imported.summary.fused_by_op.at("Relu"), 15);  // 13 conv + 2 FC activations
}

TEST(OnnxImport, TorchvisionResNet50IsTheZoosResNet50WithV15Strides) {
  // torchvision's ResNet-50 is "v1.5": the first block of stages 3-5 strides in its 3x3 conv
  // (conv*_0_b) instead of its first 1x1 (conv*_0_a). Moving the stride in the zoo's v1 gives
  // the imported network layer for layer, and 231,211,008 more MACs per sample.
  json zoo = zoo_document("resnet50");
  for (auto& l : zoo["layers"]) {
    const std::string name = l["name"];
    for (const char* stage : {"conv3_0_", "conv4_0_", "conv5_0_"}) {
      if (name == std::string(stage) + "a") {
        l["strd"] = 1;
        l["sofm"] = 2 * l["sofm"].get<std::int64_t>();
      } else if (name == std::string(stage) + "b") {
        l["strd"] = 2;
      }
    }
  }
  const OnnxImport imported = import_onnx_file(kOnnxDir / "torchvision_resnet50.onnx");
  EXPECT_EQ(keys_of(imported.network["layers"]), keys_of(zoo["layers"]));
  const auto v15 = parse_network(imported.network, "resnet50").total_ops();
  EXPECT_EQ(v15, parse_network(zoo, "v1.5").total_ops());
  EXPECT_EQ(v15 - parse_network(zoo_document("resnet50"), "v1").total_ops(), 231211008);
}

TEST(OnnxImport, TorchvisionAlexNetIsTheOneTowerVariant) {
  // torchvision follows "One weird trick" (Krizhevsky 2014): one tower of 64-192-384-256-256
  // channels where the zoo's AlexNet (2012) has two towers of 48-128-192-192-128. Expected
  // layers from torchvision's definition; the FC layers are the zoo's.
  const json expected = json::parse(R"([
    {"type": "Conv", "nifm": 3, "nofm": 64, "sofm": 55, "sfil": 11, "strd": 4},
    {"type": "Pooling", "nofm": 64, "sofm": 27, "sreg": 3, "strd": 2},
    {"type": "Conv", "nifm": 64, "nofm": 192, "sofm": 27, "sfil": 5},
    {"type": "Pooling", "nofm": 192, "sofm": 13, "sreg": 3, "strd": 2},
    {"type": "Conv", "nifm": 192, "nofm": 384, "sofm": 13, "sfil": 3},
    {"type": "Conv", "nifm": 384, "nofm": 256, "sofm": 13, "sfil": 3},
    {"type": "Conv", "nifm": 256, "nofm": 256, "sofm": 13, "sfil": 3},
    {"type": "Pooling", "nofm": 256, "sofm": 6, "sreg": 3, "strd": 2},
    {"type": "FC", "nifm": 256, "nofm": 4096, "sfil": 6},
    {"type": "FC", "nifm": 4096, "nofm": 4096},
    {"type": "FC", "nifm": 4096, "nofm": 1000}])");
  const OnnxImport imported = import_onnx_file(kOnnxDir / "torchvision_alexnet.onnx");
  EXPECT_EQ(keys_of(imported.network["layers"]), keys_of(expected));
  // MACs: 70.3M + 224.0M + 112.1M + 149.5M + 99.7M + 37.7M + 16.8M + 4.1M, and pooling ops.
  EXPECT_EQ(parse_network(imported.network, "alexnet").total_ops(), 714983360);
}

TEST(OnnxImport, TorchvisionMobileNetV2MatchesThePapersTable) {
  // MobileNetV2 (Sandler et al., CVPR 2018, Table 2): bottleneck rows (t, c, n, s) after a
  // 3x3/2 conv of 32; each block is 1x1 expand (t > 1), 3x3 depthwise (stride s on its first
  // repeat), 1x1 project; a residual sum where shapes agree; then 1x1 conv to 1280, global
  // pooling and a 1000-way FC. The zoo's "mobilenet" is MobileNet v1, a different network.
  json expected = json::array();
  expected.push_back(
      {{"type", "Conv"}, {"nifm", 3}, {"nofm", 32}, {"sofm", 112}, {"sfil", 3}, {"strd", 2}});
  const std::int64_t rows[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                   {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  std::int64_t c = 32, size = 112;
  for (const auto& [t, out, n, s] : rows) {
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t stride = i == 0 ? s : 1;
      const std::int64_t hidden = c * t;
      const std::int64_t osize = size / stride;
      if (t != 1) {
        expected.push_back(
            {{"type", "Conv"}, {"nifm", c}, {"nofm", hidden}, {"sofm", size}, {"sfil", 1}});
      }
      json dw = {{"type", "DWConv"}, {"nofm", hidden}, {"sofm", osize}, {"sfil", 3}};
      if (stride != 1) dw["strd"] = stride;
      expected.push_back(dw);
      expected.push_back(
          {{"type", "Conv"}, {"nifm", hidden}, {"nofm", out}, {"sofm", osize}, {"sfil", 1}});
      if (stride == 1 && c == out) {
        expected.push_back({{"type", "Eltwise"}, {"nofm", out}, {"sofm", osize}, {"nreg", 2}});
      }
      c = out;
      size = osize;
    }
  }
  expected.push_back({{"type", "Conv"}, {"nifm", 320}, {"nofm", 1280}, {"sofm", 7}, {"sfil", 1}});
  expected.push_back({{"type", "Pooling"}, {"nofm", 1280}, {"sofm", 1}, {"sreg", 7}});
  expected.push_back({{"type", "FC"}, {"nifm", 1280}, {"nofm", 1000}});
  const OnnxImport imported = import_onnx_file(kOnnxDir / "torchvision_mobilenet_v2.onnx");
  EXPECT_EQ(keys_of(imported.network["layers"]), keys_of(expected));
  EXPECT_EQ(imported.network["layers"].size(), 64u);
}

// MACs of the layers with weights or two operands (Conv, FC, MatMul): what the published
// formulas count; softmax, layer norm and residual sums are operations of their own.
std::int64_t weight_macs(const model::Network& net) {
  std::int64_t macs = 0;
  for (std::size_t i = 0; i < net.size(); ++i) {
    const auto t = net.layer(i).type;
    if (t == model::LayerType::Conv || t == model::LayerType::FC || t == model::LayerType::MatMul) {
      macs += net.layer(i).total_ops();
    }
  }
  return macs;
}

// One encoder block of sequence s, width d, FFN width f: Q, K, V and output projections
// 4 s d^2, the FFN 2 s d f, Q K^T and attention x V 2 s^2 d (h heads of d / h each).
std::int64_t encoder_block_macs(std::int64_t s, std::int64_t d, std::int64_t f) {
  return 4 * s * d * d + 2 * s * d * f + 2 * s * s * d;
}

std::map<std::string, int> type_counts(const json& layers) {
  std::map<std::string, int> counts;
  for (const auto& l : layers) ++counts[l.at("type").get<std::string>()];
  return counts;
}

TEST(OnnxImport, TorchTransformerEncoderLayerIsABertBaseBlock) {
  // torch.nn.TransformerEncoderLayer(768, 12 heads, 3072), batch_first, sequence 128: the fused
  // in-projection is split into Q, K and V (three 1x1 convs over the 1 x 128 tokens).
  const OnnxImport imported = import_onnx_file(kOnnxDir / "torch_transformer_encoder_layer.onnx");
  const std::map<std::string, int> expected = {
      {"Conv", 6}, {"Eltwise", 2}, {"LayerNorm", 2}, {"MatMul", 2}, {"Softmax", 1}};
  EXPECT_EQ(type_counts(imported.network["layers"]), expected);
  EXPECT_EQ(imported.summary.cuts, 0);
  const model::Network net = parse_network(imported.network, "encoder");
  EXPECT_EQ(weight_macs(net), encoder_block_macs(128, 768, 3072));
  EXPECT_EQ(weight_macs(net), 931135488);
  // The graph's order: Q, K, V slices, then the scores.
  EXPECT_EQ(imported.network["layers"][0]["name"], "self_attn/MatMul[0:768]");
  EXPECT_EQ(imported.network["layers"][2]["name"], "self_attn/MatMul[1536:2304]");
  EXPECT_EQ(imported.network["layers"][5]["name"], "self_attn/MatMul_2");
  const json& qk = imported.network["layers"][3];
  EXPECT_EQ(qk, json::parse(R"({"name": "self_attn/MatMul_1", "type": "MatMul", "m": 128,
      "k": 64, "n": 128, "heads": 12,
      "prevs": ["self_attn/MatMul[0:768]", "self_attn/MatMul[768:1536]"]})"));
}

TEST(OnnxImport, TorchvisionVitB16IsTwelveEncoderBlocksOnPatches) {
  // ViT-B/16 on 224x224: a 16x16 stride-16 conv to 14x14 patches of 768, a class token (197
  // tokens), 12 blocks (d 768, 12 heads, FFN 3072), a 1000-way head on the class token. The
  // patches' reshape, the class-token concatenation and the class-token pick are layouts
  // kapla's model cannot follow on chip: three tensors re-read from DRAM.
  const OnnxImport imported = import_onnx_file(kOnnxDir / "torchvision_vit_b_16.onnx");
  const std::map<std::string, int> expected = {
      {"Conv", 1 + 12 * 6}, {"Eltwise", 24}, {"FC", 1},
      {"LayerNorm", 25},    {"MatMul", 24},  {"Softmax", 12}};
  EXPECT_EQ(type_counts(imported.network["layers"]), expected);
  EXPECT_EQ(imported.summary.cuts, 3);
  const model::Network net = parse_network(imported.network, "vit");
  const std::int64_t patches = 768 * 14 * 14 * 3 * 16 * 16;
  EXPECT_EQ(weight_macs(net), patches + 12 * encoder_block_macs(197, 768, 3072) + 768 * 1000);
  EXPECT_EQ(weight_macs(net), 17563828224);  // torchvision's "17.56 GFLOPS"
}

TEST(OnnxImport, AnImportedNetworkRoundTripsThroughItsFileText) {
  const OnnxImport imported = import_onnx_file(kOnnxDir / "torchvision_resnet50.onnx", "r50");
  const std::string text = render_network_document(imported.network);
  TempDir dir;
  const auto file = dir.write("r50.json", text);
  EXPECT_EQ(read_json_file(file), imported.network);
  const model::Network from_file = load_network_file(file);
  const model::Network direct = load_network_file(kOnnxDir / "torchvision_resnet50.onnx");
  ASSERT_EQ(from_file.size(), direct.size());
  for (std::size_t i = 0; i < direct.size(); ++i) {
    EXPECT_EQ(from_file.layer(i), direct.layer(i));
    EXPECT_EQ(from_file.prevs(i), direct.prevs(i));
  }
  EXPECT_EQ(from_file.name(), "r50");
}

}  // namespace
}  // namespace kapla::io
