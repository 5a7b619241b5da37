#include "io/onnx_import.hpp"

#include <sstream>

#include "io/onnx_graph.hpp"
#include "io/timeloop_yaml.hpp"

namespace kapla::io {
namespace {

std::string counts(const std::map<std::string, int>& by) {
  std::ostringstream out;
  int total = 0;
  for (const auto& [k, v] : by) total += v;
  out << total;
  if (by.empty()) return out.str();
  out << " (";
  bool first = true;
  for (const auto& [k, v] : by) {
    out << (first ? "" : ", ") << k << " " << v;
    first = false;
  }
  out << ")";
  return out.str();
}

}  // namespace

bool is_onnx_path(const std::filesystem::path& file) { return file.extension() == ".onnx"; }

OnnxImport import_onnx_file(const std::filesystem::path& file, const std::string& name) {
  return lower_onnx_graph(read_onnx_graph(file), name.empty() ? file.stem().string() : name);
}

bool is_model_path(const std::filesystem::path& file) {
  return is_onnx_path(file) || is_yaml_path(file);
}

OnnxImport import_model_file(const std::filesystem::path& file, const std::string& name) {
  if (!is_yaml_path(file)) return import_onnx_file(file, name);
  OnnxImport imported{import_timeloop_problem(file, name.empty() ? file.stem().string() : name),
                      {}};
  ++imported.summary.layers_by_type[imported.network["layers"][0]["type"].get<std::string>()];
  return imported;
}

std::string describe_import(const OnnxImportSummary& s) {
  return counts(s.layers_by_type) + " layers; fused into their producer: " + counts(s.fused_by_op) +
         "; dropped (views, shapes, copies): " + counts(s.dropped_by_op) +
         "; tensors re-read from DRAM (cuts): " + std::to_string(s.cuts);
}

}  // namespace kapla::io
