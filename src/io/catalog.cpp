// Data catalog: name lookup under the data directory and file-kind detection.
#include "io/catalog.hpp"

#include <algorithm>
#include <system_error>

#include "core/errors.hpp"
#include "io/hardware_json.hpp"
#include "io/json_util.hpp"
#include "io/network_json.hpp"
#include "io/onnx_import.hpp"

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
  return s.find('/') != std::string_view::npos || s.ends_with(".json") || s.ends_with(".onnx") ||
         s.ends_with(".yaml") || s.ends_with(".yml");
}

bool is_job_document(const nlohmann::json& doc) {
  return doc.is_object() && (doc.contains("networks") || doc.contains("strategies"));
}

// Detection only: the options loader checks every key.
bool is_options_document(const nlohmann::json& doc) {
  if (!doc.is_object()) return false;
  for (const auto& [key, value] : doc.items()) {
    for (std::string_view prefix : {"sw_", "hw_", "partition_", "layer_pipeline_"}) {
      if (key.rfind(prefix, 0) == 0) return true;
    }
    if (key == "opt_goal" || key == "ntops" || key == "rs_fold_variants" || key == "imperfect")
      return true;
  }
  return false;
}

constexpr const char* kNotAnInputFile =
    ": not a kapla input file: neither a network (no \"layers\"), hardware (no \"pe_array\", "
    "\"nodes\" or reference keys such as \"GBUF\"), job (no \"networks\") nor options file "
    "(no \"opt_goal\", \"sw_*\", \"hw_*\" or \"partition_*\" keys)";

}  // namespace

InputKind input_kind(const std::filesystem::path& file) {
  if (is_model_path(file)) return InputKind::Network;
  const nlohmann::json doc = read_json_file(file);
  if (is_network_document(doc)) return InputKind::Network;
  if (is_hardware_document(doc)) return InputKind::Hardware;
  if (is_job_document(doc)) return InputKind::Job;
  if (is_options_document(doc)) return InputKind::Options;
  throw InputError(file.string() + kNotAnInputFile);
}

DataFile load_data_file(const std::filesystem::path& file) {
  if (is_model_path(file)) return load_network_file(file);
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
