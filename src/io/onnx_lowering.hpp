// An ONNX graph -> a kapla network document (the network file format, docs/formats.md), which
// parse_network then builds with every check a hand-written file gets. Rules (docs/onnx.md):
// compute nodes become layers, activations / batch norm / bias adds are fused into their
// producer, shape-only nodes vanish, and any other op is a one-line error naming the node.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "io/onnx_graph.hpp"

namespace kapla::io {

/// What the import did, for `kapla import`'s summary line and the tests.
struct OnnxImportSummary {
  std::map<std::string, int> layers_by_type;  // kapla layer type -> count
  std::map<std::string, int> fused_by_op;     // ONNX op fused into its producer -> count
  std::map<std::string, int> dropped_by_op;   // shape-only / identity ops -> count
  int cuts = 0;  // tensors re-read from DRAM as externals (a reshape kapla cannot follow)
};

struct OnnxImport {
  nlohmann::json network;  // a network document
  OnnxImportSummary summary;
};

/// Lowers a graph. `name` names the network (the graph's or the file's stem by default).
/// InputError "FILE: node 'NAME' (OP): reason" for anything kapla cannot express.
OnnxImport lower_onnx_graph(const OnnxGraph& graph, const std::string& name);

}  // namespace kapla::io
