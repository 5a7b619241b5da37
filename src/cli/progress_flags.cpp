// The progress and verbosity flags (see progress_flags.hpp).
#include "cli/progress_flags.hpp"

#include <CLI/CLI.hpp>

#include "model/limits.hpp"

namespace kapla::cli {

ProgressMode ProgressFlags::mode(bool stderr_is_terminal) const {
  if (quiet) return ProgressMode::Quiet;
  return stderr_is_terminal && !verbose ? ProgressMode::Live : ProgressMode::Log;
}

void ProgressFlags::check() const {
  model::limits::check_real("--progress-interval", interval_seconds, 0, model::limits::kMaxSeconds);
}

void add_progress_flags(CLI::App& sub, ProgressFlags& flags, const std::string& item,
                        const std::string& also_silenced) {
  sub.add_flag(
      "--quiet,-q", flags.quiet,
      "No progress" + (also_silenced.empty() ? "" : " and no " + also_silenced) + " on stderr");
  sub.add_flag(
      "--verbose,-v", flags.verbose,
      "A timestamped stderr line per " + item + " (on a terminal too, instead of the live line)");
  sub.add_option("--progress-interval", flags.interval_seconds,
                 "When stderr is not a terminal: at least this many seconds between progress "
                 "lines (docs/sweep.md, Progress)")
      ->capture_default_str();
}

}  // namespace kapla::cli
