// Where kapla finds its shipped data (networks, hardware): --data-dir, else $KAPLA_DATA_DIR,
// else the source tree's data/ recorded at build time.
#pragma once

#include <filesystem>
#include <optional>

namespace kapla::io {

std::filesystem::path data_dir(const std::optional<std::filesystem::path>& override_dir = {});

}  // namespace kapla::io
