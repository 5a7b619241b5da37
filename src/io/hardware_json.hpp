// Hardware files -> model::Hardware. Two formats, told apart by their keys: kapla's own
// (docs/formats.md "Hardware files") and the KAPLA reference's nn_dataflow/hardwares/*.json
// (kapla-spec.md §7.1), which loads as is.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "model/hardware.hpp"

namespace kapla::io {

/// Whether a parsed document is in the reference's format (it has one of word_bit, op_cost,
/// DRAM, GBUF, ITCN, REGF).
bool is_reference_hardware_document(const nlohmann::json& doc);
/// Whether a parsed document is meant as a hardware file of either format.
bool is_hardware_document(const nlohmann::json& doc);

/// Builds and validates hardware from a parsed document. Errors are InputErrors
/// "ORIGIN: KEY.PATH: reason". A reference-format file has no name; it gets `default_name`.
model::Hardware parse_hardware(const nlohmann::json& doc, const std::string& origin,
                               const std::string& default_name);

/// Reads a hardware file of either format; a reference file is named after the file's stem.
model::Hardware load_hardware_file(const std::filesystem::path& file);

}  // namespace kapla::io
