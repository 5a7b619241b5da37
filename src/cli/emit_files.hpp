// `kapla schedule --emit DIR`: each chosen layer scheme written as a loop-nest program
// (emit/layer_program.hpp) into DIR/<layer>.cpp.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "pricing/layer_problem.hpp"
#include "pricing/layer_schedule.hpp"

namespace kapla::cli {

struct EmitLayer {
  std::string name;
  pricing::LayerProblem problem;
  const pricing::LayerSchedule* schedule = nullptr;
};

/// Before scheduling (so that a bad request fails in a second, not after the search): every name
/// in `only` must be one of `layer_names`, and `dir` is created. InputError otherwise.
void prepare_emit_dir(const std::string& dir, const std::vector<std::string>& only,
                      const std::vector<std::string>& layer_names);

/// Writes DIR/<layer>.cpp (prepared by prepare_emit_dir) for each layer of `layers` named in
/// `only` (every layer when `only` is empty). A layer named in `only` that cannot be emitted is
/// an InputError; other such layers are skipped with one note each on `notes`.
void write_emitted_layers(const std::string& dir, const std::vector<std::string>& only,
                          const std::vector<EmitLayer>& layers, std::ostream& notes);

}  // namespace kapla::cli
