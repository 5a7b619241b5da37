// CLI context: resolves the data directory.
#include "cli/context.hpp"

#include <optional>

#include "io/data_paths.hpp"

namespace kapla::cli {

std::filesystem::path Context::resolved_data_dir() const {
  return io::data_dir(data_dir.empty() ? std::nullopt
                                       : std::optional<std::filesystem::path>(data_dir));
}

}  // namespace kapla::cli
