// ONNX models as networks: `kapla import MODEL.onnx` and `--network MODEL.onnx` (docs/onnx.md).
#pragma once

#include <filesystem>
#include <string>

#include "io/onnx_lowering.hpp"

namespace kapla::io {

/// Whether a path names an ONNX model (by its extension, as users name them).
bool is_onnx_path(const std::filesystem::path& file);

/// Reads and lowers a model. An empty `name` takes the file's stem.
OnnxImport import_onnx_file(const std::filesystem::path& file, const std::string& name = "");

/// Whether a path names a model kapla imports rather than a network file: an ONNX model
/// (.onnx) or a Timeloop problem (.yaml, .yml).
bool is_model_path(const std::filesystem::path& file);

/// The one way in for model files (`kapla import`, `--network`, `validate`): an ONNX model or
/// a Timeloop problem (one layer) as a network document. An empty `name` takes the file's stem.
OnnxImport import_model_file(const std::filesystem::path& file, const std::string& name = "");

/// "42 layers (Conv 40, FC 1, Pooling 1); fused 49 (BatchNormalization 20, Relu 29); ..."
std::string describe_import(const OnnxImportSummary& summary);

}  // namespace kapla::io
