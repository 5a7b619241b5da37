// Network files (format: docs/formats.md "Network files") -> model::Network.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "model/network.hpp"

namespace kapla::io {

/// Whether a parsed document is meant as a network file (it has "layers").
bool is_network_document(const nlohmann::json& doc);

/// Builds a network from a parsed document. Errors are InputErrors
/// "ORIGIN: KEY.PATH: reason", e.g. "x.json: layers[3].sofm: must be positive, got [0, 7]".
model::Network parse_network(const nlohmann::json& doc, const std::string& origin);

/// A network document as text in the shipped files' layout: top-level keys one per line, one
/// line per layer and external with the constructor's keys in the format's order, prevs last.
std::string render_network_document(const nlohmann::json& doc);

/// Reads, parses and builds a network file (or imports an ONNX model: `.onnx`); the file name is
/// the origin of errors.
model::Network load_network_file(const std::filesystem::path& file);

}  // namespace kapla::io
