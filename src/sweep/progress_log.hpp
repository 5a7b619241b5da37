// Timestamped progress lines for batch logs (a Slurm job's stderr is a file, not a terminal):
// rate-limited so a log stays readable, and driven by an injected clock so tests can fake time.
#pragma once

#include <chrono>
#include <functional>
#include <ostream>
#include <string>

#include "sweep/progress.hpp"

namespace kapla::sweep {

/// "45s", "3m05s", "2h07m"; "?" for a negative (unknown) duration.
std::string duration_text(double seconds);

/// Seconds a progress log may go without a line while work still runs (docs/sweep.md,
/// Progress: "one a minute while nothing finishes"); kapla sweep and kapla schedule alike.
inline constexpr double kLogHeartbeatSeconds = 60;

/// When a log line is due: always the first; then when `changed` (a tuple or segment
/// finished) and at least `min_interval` seconds passed since the last line, or when
/// `heartbeat` seconds passed without one (a long tuple still shows that it runs).
class LineRateLimit {
 public:
  LineRateLimit(double min_interval, double heartbeat)
      : min_interval_(min_interval), heartbeat_(heartbeat) {}
  /// Whether to write a line at time `now` (seconds on any monotonic scale); records it if so.
  bool due(double now, bool changed);

 private:
  double min_interval_;
  double heartbeat_;
  bool first_ = true;
  double last_ = 0;
};

/// A sweep's progress as log lines on `out`, e.g.
///   [2026-11-25T14:18:10.000Z] sweep: 12/30 tuples done (3 resumed), 2 running, 1m20s elapsed, ETA
///   2m00s
/// The summary at the end is the caller's.
class ProgressLog final : public Progress {
 public:
  using Clock = std::function<std::chrono::system_clock::time_point()>;
  ProgressLog(std::ostream& out, Clock clock, double min_interval = 10,
              double heartbeat = kLogHeartbeatSeconds);
  void update(const ProgressState& state) override;
  void finish(const RunSummary&) override {}

 private:
  std::ostream& out_;
  Clock clock_;
  LineRateLimit limit_;
  std::size_t last_done_ = 0;
};

/// The timestamp prefix of a log line: "[" + utc_time(t) + "] ".
std::string log_prefix(std::chrono::system_clock::time_point t);

}  // namespace kapla::sweep
