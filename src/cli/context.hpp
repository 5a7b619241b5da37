// What every subcommand shares: the global options it may read and the exit code it may set.
// main() owns the one instance and hands it to each register_<sub>() (no globals).
#pragma once

#include <filesystem>
#include <string>

namespace kapla::cli {

struct Context {
  /// --data-dir; empty means $KAPLA_DATA_DIR or the build-time default (io::data_dir).
  std::string data_dir;
  /// Set by a subcommand that finishes without an exception but must not report success
  /// (e.g. 2 = no feasible schedule, as nn_dataflow).
  int exit_code = 0;

  /// The data directory after the --data-dir / environment / default rule.
  std::filesystem::path resolved_data_dir() const;
};

}  // namespace kapla::cli
