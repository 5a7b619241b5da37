// Search options from JSON, one parser for both places they appear: a job file's "options"
// object (docs/sweep.md) and a KAPLA options file given to `kapla schedule --options FILE`
// (the KAPLA code's options/*.json, kapla-spec §7.2). Strict: unknown keys, wrong types and values
// outside model/limits.hpp are one-line InputErrors naming the key path.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "model/options.hpp"

namespace kapla::io {

enum class OptionsFormat {
  /// A job's "options": may set cost_model. Both formats start from model::default_options().
  Job,
  /// A KAPLA options file: accepts its process and verbosity keys (no effect on results) and
  /// "inf"/"Infinity" for numbers.
  KaplaFile,
};

/// Parses and validates options at key `path` ("options" in a job, "" for a whole file).
model::SearchOptions parse_search_options(const nlohmann::json& value, const std::string& path,
                                          OptionsFormat format);

/// Reads a KAPLA options file. Errors: InputError("FILE: FIELD: reason").
model::SearchOptions load_options_file(const std::filesystem::path& file);

}  // namespace kapla::io
