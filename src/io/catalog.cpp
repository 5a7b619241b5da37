// Data catalog: name lookup under the data directory and file-kind detection.
#include "io/catalog.hpp"

#include <algorithm>
#include <system_error>

#include "core/errors.hpp"
#include "io/hardware_json.hpp"
#include "io/json_util.hpp"
#include "io/network_json.hpp"

namespace kapla::io {
namespace {

constexpr std::string_view kNetworksDir = "networks";
constexpr std::string_view kHardwareDir = "hardware";

std::vector<std::string> json_stems(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto& path = it->path();
    if (path.extension() == ".json" && it->is_regular_file(ec)) {
      names.push_back(path.stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool looks_like_path(std::string_view s) {
  return s.find('/') != std::string_view::npos ||
         (s.size() > 5 && s.substr(s.size() - 5) == ".json");
}

}  // namespace

DataFile load_data_file(const std::filesystem::path& file) {
  const nlohmann::json doc = read_json_file(file);
  if (is_network_document(doc)) return parse_network(doc, file.string());
  if (is_hardware_document(doc)) return parse_hardware(doc, file.string(), file.stem().string());
  throw InputError(file.string() +
                   ": neither a network file (no \"layers\") nor a hardware file (no \"pe_array\","
                   " \"nodes\" or reference keys such as \"GBUF\")");
}

Catalog::Catalog(std::filesystem::path data_dir) : data_dir_(std::move(data_dir)) {}

std::vector<std::string> Catalog::list_networks() const {
  return json_stems(data_dir_ / kNetworksDir);
}

std::vector<std::string> Catalog::list_hardware() const {
  return json_stems(data_dir_ / kHardwareDir);
}

std::filesystem::path Catalog::resolve(std::string_view subdir, std::string_view kind,
                                       std::string_view name_or_path) const {
  if (looks_like_path(name_or_path)) return std::filesystem::path(name_or_path);
  const std::filesystem::path dir = data_dir_ / subdir;
  const std::vector<std::string> known = json_stems(dir);
  if (std::find(known.begin(), known.end(), name_or_path) != known.end()) {
    return dir / (std::string(name_or_path) + ".json");
  }
  std::string message = "unknown " + std::string(kind) + " '" + std::string(name_or_path) + "'";
  if (known.empty()) {
    message += "; no " + std::string(kind) + " files in " + dir.string();
  } else {
    message += "; known:";
    for (std::size_t i = 0; i < known.size(); ++i) message += (i ? ", " : " ") + known[i];
  }
  throw InputError(message);
}

model::Network Catalog::load_network(std::string_view name_or_path) const {
  return load_network_file(resolve(kNetworksDir, "network", name_or_path));
}

model::Hardware Catalog::load_hardware(std::string_view name_or_path) const {
  return load_hardware_file(resolve(kHardwareDir, "hardware", name_or_path));
}

}  // namespace kapla::io
