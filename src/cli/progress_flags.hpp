// The progress and verbosity flags of the long-running commands (`kapla sweep`, `kapla
// schedule`): --quiet, --verbose and --progress-interval, defined once so that both commands
// spell, explain and interpret them alike (docs/sweep.md, Progress).
#pragma once

#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace kapla::cli {

/// Where progress goes: nothing, a redrawn line on a terminal, or timestamped log lines.
enum class ProgressMode { Quiet, Live, Log };

struct ProgressFlags {
  bool quiet = false;
  bool verbose = false;
  double interval_seconds = 10;

  /// --quiet wins; a live line on a terminal unless --verbose; log lines otherwise.
  ProgressMode mode(bool stderr_is_terminal) const;
  /// Seconds between log lines: 0 (a line per finished item) with --verbose.
  double log_interval() const { return verbose ? 0 : interval_seconds; }
  /// InputError unless --progress-interval is within model/limits.hpp's time bound (checked
  /// here, not by CLI11, whose message would print the largest double as the bound).
  void check() const;
};

/// Adds the three flags to `sub`. `item` is what a log line reports ("finished tuple",
/// "segment searched"); `also_silenced` names what else --quiet drops (e.g. "the summary").
void add_progress_flags(CLI::App& sub, ProgressFlags& flags, const std::string& item,
                        const std::string& also_silenced = "");

}  // namespace kapla::cli
