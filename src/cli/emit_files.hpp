// `kapla schedule --emit DIR` and `kapla emit`: each chosen layer scheme written as a loop-nest
// program (emit/layer_program.hpp) into DIR/<layer>.cpp.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "emit/layer_program.hpp"

namespace kapla::cli {

/// How the command names its options and its layers' source, for the error lines.
struct EmitFlags {
  std::string dir = "--emit";
  std::string layer = "--emit-layer";
  std::string where = "the network";
};

/// Before scheduling (so that a bad request fails in a second, not after the search): every name
/// in `only` must be one of `layer_names`, and `dir` is created. InputError otherwise.
void prepare_emit_dir(const std::string& dir, const std::vector<std::string>& only,
                      const std::vector<std::string>& layer_names, const EmitFlags& flags = {});

/// The emit target named on the command line ("loops" or "hls"); InputError naming `flag`
/// otherwise.
emit::Target parse_emit_target(const std::string& name, const std::string& flag);

/// Writes DIR/<layer>.cpp (prepared by prepare_emit_dir) for each layer scheme of `layers`
/// named in `only` (every layer when `only` is empty), for `target`. A layer named in `only`
/// that cannot be emitted is an InputError; other such layers are skipped with one note each on
/// `notes`.
void write_emitted_layers(const std::string& dir, const std::vector<std::string>& only,
                          const std::vector<emit::LayerScheme>& layers, emit::Target target,
                          std::ostream& notes);

}  // namespace kapla::cli
