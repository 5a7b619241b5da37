// Progress log lines (see progress_log.hpp).
#include "sweep/progress_log.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "sweep/record.hpp"

namespace kapla::sweep {

std::string duration_text(double seconds) {
  if (seconds < 0 || !std::isfinite(seconds)) return "?";
  const long s = std::lround(seconds);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  } else if (s >= 60) {
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lds", s);
  }
  return buf;
}

bool LineRateLimit::due(double now, bool changed) {
  const bool ok = first_ || (changed && now - last_ >= min_interval_) || now - last_ >= heartbeat_;
  if (ok) {
    first_ = false;
    last_ = now;
  }
  return ok;
}

std::string log_prefix(std::chrono::system_clock::time_point t) { return "[" + utc_time(t) + "] "; }

ProgressLog::ProgressLog(std::ostream& out, Clock clock, double min_interval, double heartbeat)
    : out_(out), clock_(std::move(clock)), limit_(min_interval, heartbeat) {}

void ProgressLog::update(const ProgressState& s) {
  const auto now = clock_();
  const double t = std::chrono::duration<double>(now.time_since_epoch()).count();
  const bool changed = s.done != last_done_;
  last_done_ = s.done;
  if (!limit_.due(t, changed)) return;
  // One write per line: rank 0's tuple thread logs too ("rank 0 of 2 on ..."), and a line
  // written in pieces could take its line into the middle of this one.
  std::ostringstream line;
  line << log_prefix(now) << "sweep: " << s.done + s.skipped << '/' << s.total << " tuples done";
  if (s.skipped) line << " (" << s.skipped << " resumed)";
  line << ", " << s.running << " running, " << duration_text(s.elapsed_seconds) << " elapsed, ETA "
       << duration_text(s.eta_seconds) << '\n';
  out_ << line.str() << std::flush;
}

}  // namespace kapla::sweep
