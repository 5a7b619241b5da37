// An ONNX model reduced to what kapla's importer needs: the nodes in order with their
// attributes, every tensor's static shape (after ONNX's own shape inference), and which tensors
// are constants. Plain values: the lowering (onnx_lowering.hpp) never sees protobuf, and its
// tests can build a graph by hand.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kapla::io {

/// The attribute kinds the importer reads (kernel shapes, strides, groups, axes); anything
/// else is kept as "other".
struct OnnxAttribute {
  enum class Kind : std::uint8_t { Int, Ints, Other };
  Kind kind = Kind::Other;
  std::int64_t i = 0;
  std::vector<std::int64_t> ints;
};

struct OnnxNode {
  std::string name;  // the node's name, or "<op_type>_<index>" when the model leaves it empty
  std::string op_type;
  std::vector<std::string> inputs;  // "" for an omitted optional input
  std::vector<std::string> outputs;
  std::map<std::string, OnnxAttribute> attributes;

  /// An int attribute, or `fallback` when absent.
  std::int64_t int_attr(const std::string& key, std::int64_t fallback) const;
  /// An ints attribute, or `fallback` when absent.
  std::vector<std::int64_t> ints_attr(const std::string& key,
                                      std::vector<std::int64_t> fallback) const;
};

struct OnnxGraph {
  std::string origin;                // the file, for error messages
  std::string graph_name;            // ModelProto.graph.name
  std::string producer;              // "pytorch 1.13.1", for the network's source line
  std::vector<std::string> inputs;   // graph inputs that are not initializers, in order
  std::vector<std::string> outputs;  // graph outputs, in order
  std::set<std::string> constants;   // initializers and Constant-node outputs
  /// Static shapes; a dimension that is symbolic or unknown is -1.
  std::map<std::string, std::vector<std::int64_t>> shapes;
  std::vector<OnnxNode> nodes;  // topologically ordered (the ONNX format requires it)
};

/// Reads an .onnx file, runs ONNX's shape inference and returns the graph. InputError with the
/// file name for a file that is not an ONNX model (or too large, or whose inference fails).
OnnxGraph read_onnx_graph(const std::filesystem::path& file);

}  // namespace kapla::io
