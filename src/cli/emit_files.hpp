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

/// Writes DIR/<layer>.cpp for each layer of `layers` named in `only` (every layer when `only`
/// is empty). A layer named in `only` that cannot be emitted, or a name that is not a layer, is
/// an InputError; otherwise such layers are skipped with one note each on `notes`.
void write_emitted_layers(const std::string& dir, const std::vector<std::string>& only,
                          const std::vector<EmitLayer>& layers, std::ostream& notes);

}  // namespace kapla::cli
