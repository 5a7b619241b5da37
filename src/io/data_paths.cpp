#include "io/data_paths.hpp"

#include <cstdlib>

namespace kapla::io {

std::filesystem::path data_dir(const std::optional<std::filesystem::path>& override_dir) {
  if (override_dir) return *override_dir;
  if (const char* env = std::getenv("KAPLA_DATA_DIR"); env != nullptr && *env != '\0') return env;
  return KAPLA_DEFAULT_DATA_DIR;
}

}  // namespace kapla::io
