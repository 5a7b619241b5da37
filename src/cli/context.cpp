// CLI context: resolves the data directory.
#include "cli/context.hpp"

#include <optional>
#include <system_error>

#include "core/errors.hpp"

#include "io/data_paths.hpp"

namespace kapla::cli {

std::filesystem::path Context::resolved_data_dir() const {
  std::filesystem::path dir = io::data_dir(
      data_dir.empty() ? std::nullopt : std::optional<std::filesystem::path>(data_dir));
  // A mistyped --data-dir would otherwise list nothing and succeed. The build-time default is
  // not checked: commands given file paths work without it.
  std::error_code ec;
  if (!data_dir.empty() && !std::filesystem::is_directory(dir, ec)) {
    throw InputError("--data-dir: " + dir.string() + ": not a directory");
  }
  return dir;
}

}  // namespace kapla::cli
