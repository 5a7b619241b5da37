// Names -> files under a data directory (networks/, hardware/), and loading a data file of
// either kind. The io header for the CLI and the sweep: no JSON in its interface.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/hardware.hpp"
#include "model/network.hpp"

namespace kapla::io {

/// A loaded data file: a network or a hardware description.
using DataFile = std::variant<model::Network, model::Hardware>;

/// The kinds of JSON input file kapla reads.
enum class InputKind { Network, Hardware, Job, Options };

/// Which kind a file is, by its top-level keys: "layers" = network, hardware keys of either
/// format = hardware, "networks" or "strategies" = job, search option keys ("opt_goal",
/// "sw_*", "hw_*", "partition_*", "layer_pipeline_*", ...) = options. InputError when none.
InputKind input_kind(const std::filesystem::path& file);

/// Reads a network or hardware file, telling which by its keys ("layers" makes a network;
/// hardware keys of either format make hardware); InputError when it is neither.
DataFile load_data_file(const std::filesystem::path& file);

/// The shipped (or user-given) data: DIR/networks/NAME.json and DIR/hardware/NAME.json.
class Catalog {
 public:
  explicit Catalog(std::filesystem::path data_dir);

  const std::filesystem::path& data_dir() const { return data_dir_; }

  /// Names (file stems) of the *.json files in DIR/networks, sorted; empty if there is none.
  std::vector<std::string> list_networks() const;
  /// Names of the *.json files in DIR/hardware, sorted.
  std::vector<std::string> list_hardware() const;

  /// A name from list_networks(), or a path to a file (anything containing '/' or ending in
  /// ".json"). An unknown name is an InputError listing the known names.
  model::Network load_network(std::string_view name_or_path) const;
  /// As load_network, for hardware (either file format).
  model::Hardware load_hardware(std::string_view name_or_path) const;

 private:
  std::filesystem::path resolve(std::string_view subdir, std::string_view kind,
                                std::string_view name_or_path) const;

  std::filesystem::path data_dir_;
};

}  // namespace kapla::io
