// ONNX protobuf -> OnnxGraph. The only file that includes ONNX's headers; it relies on the
// library for parsing (a malformed file is refused by protobuf) and for shape inference (with
// data propagation, so that Reshape targets computed by Shape/Gather/Concat resolve).
#include "io/onnx_graph.hpp"

#include <exception>
#include <string>

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "core/errors.hpp"
#include "io/json_util.hpp"

namespace kapla::io {
namespace {

// protobuf refuses messages over 2 GiB; a model with its weights is usually far smaller.
constexpr std::uintmax_t kMaxOnnxBytes = (std::uintmax_t{2} << 30) - 1;

OnnxAttribute convert(const onnx::AttributeProto& a) {
  OnnxAttribute out;
  switch (a.type()) {
    case onnx::AttributeProto::INT:
      out.kind = OnnxAttribute::Kind::Int;
      out.i = a.i();
      break;
    case onnx::AttributeProto::INTS:
      out.kind = OnnxAttribute::Kind::Ints;
      out.ints.assign(a.ints().begin(), a.ints().end());
      break;
    default:
      break;
  }
  return out;
}

std::vector<std::int64_t> dims_of(const onnx::TypeProto& type) {
  std::vector<std::int64_t> dims;
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return dims;
  for (const auto& d : type.tensor_type().shape().dim()) {
    dims.push_back(d.has_dim_value() && d.dim_value() > 0 ? d.dim_value() : -1);
  }
  return dims;
}

void record(OnnxGraph& g, const onnx::ValueInfoProto& v) {
  const onnx::TypeProto& t = v.type();
  if (t.has_tensor_type() && t.tensor_type().has_shape()) g.shapes[v.name()] = dims_of(t);
}

}  // namespace

std::int64_t OnnxNode::int_attr(const std::string& key, std::int64_t fallback) const {
  const auto it = attributes.find(key);
  return it != attributes.end() && it->second.kind == OnnxAttribute::Kind::Int ? it->second.i
                                                                               : fallback;
}

std::vector<std::int64_t> OnnxNode::ints_attr(const std::string& key,
                                              std::vector<std::int64_t> fallback) const {
  const auto it = attributes.find(key);
  return it != attributes.end() && it->second.kind == OnnxAttribute::Kind::Ints ? it->second.ints
                                                                                : fallback;
}

OnnxGraph read_onnx_graph(const std::filesystem::path& file) {
  const std::string origin = file.string();
  const std::string bytes = read_text_file(file, kMaxOnnxBytes);
  onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromString(bytes) || !model.has_graph()) {
    throw InputError(origin + ": not an ONNX model (protobuf ModelProto with a graph)");
  }
  try {
    onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/1,
                                        /*data_prop=*/true);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    std::string what = e.what();
    for (char& c : what) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    throw InputError(origin + ": ONNX shape inference failed: " + what);
  }

  const onnx::GraphProto& graph = model.graph();
  OnnxGraph g;
  g.origin = origin;
  g.graph_name = graph.name();
  g.producer = model.producer_name();
  if (!model.producer_version().empty()) g.producer += " " + model.producer_version();
  for (const auto& init : graph.initializer()) {
    g.constants.insert(init.name());
    g.shapes[init.name()].assign(init.dims().begin(), init.dims().end());
  }
  for (const auto& in : graph.input()) {
    record(g, in);
    if (!g.constants.contains(in.name())) g.inputs.push_back(in.name());
  }
  for (const auto& out : graph.output()) {
    record(g, out);
    g.outputs.push_back(out.name());
  }
  for (const auto& v : graph.value_info()) record(g, v);
  int index = 0;
  for (const auto& n : graph.node()) {
    OnnxNode node;
    node.op_type = n.op_type();
    node.name = n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
    node.inputs.assign(n.input().begin(), n.input().end());
    node.outputs.assign(n.output().begin(), n.output().end());
    for (const auto& a : n.attribute()) node.attributes[a.name()] = convert(a);
    if (node.op_type == "Constant") {
      for (const auto& o : node.outputs) g.constants.insert(o);
    }
    g.nodes.push_back(std::move(node));
    ++index;
  }
  return g;
}

}  // namespace kapla::io
