// What `kapla schedule` writes for a person: the defaults in --help, progress on stderr while
// it searches, and the readable schedule (totals with units, energy by kind, segments and
// their pipelining, per layer partition, blocking, loop orders, PE array, energy, time).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>

#include "cli/progress_flags.hpp"
#include "model/hardware.hpp"
#include "model/network.hpp"
#include "model/options.hpp"
#include "schedule/network_scheme.hpp"
#include "schedule/network_search.hpp"
#include "sweep/progress_log.hpp"

namespace kapla::cli {

/// The defaults paragraph of `kapla schedule --help` (kapla's defaults, shared with job files).
std::string defaults_help();

/// "J" for hardware with joule costs, "relative" otherwise.
std::string_view energy_unit(const model::Hardware& hw);

struct ScheduleView {
  const model::Network& net;
  std::int64_t batch;
  const model::Hardware& hw;
  const model::UnitCosts& costs;        // the hardware's, after --op-cost etc.
  const model::SearchOptions& options;  // the search's (the mapping depends on them)
};

/// The readable part of the printout: energy by kind, segments, then one block per layer.
void print_schedule(std::ostream& out, const ScheduleView& v, const schedule::NetworkScheme& best);

/// The search's progress on stderr: on a terminal a live line (layers done/total), otherwise a
/// timestamped line per segment searched, at most one per `log_interval` seconds (the first
/// after that long: a short search writes none; 0 = every segment); nothing when quiet. While
/// no segment finishes (one layer search may take minutes), a thread keeps it alive: the live
/// line's clock ticks every second, and a log gets a "searching" line every `heartbeat`
/// seconds without another, as a sweep's log does (docs/sweep.md, Progress).
class ScheduleProgress {
 public:
  using Mode = ProgressMode;
  ScheduleProgress(Mode mode, std::ostream& err, const model::Network& net,
                   double log_interval = 10, double heartbeat = sweep::kLogHeartbeatSeconds);
  ScheduleProgress(const ScheduleProgress&) = delete;
  ScheduleProgress& operator=(const ScheduleProgress&) = delete;
  ~ScheduleProgress();
  void operator()(const schedule::SearchProgress& p);
  /// Stops the heartbeat and clears the live line.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  std::string counts() const;  // "L/T layers, S/N segments", with mu_ held
  std::string elapsed_text(Clock::time_point now) const;  // "45s", "3m05s" since t0_
  void draw_live(Clock::time_point now);                  // with mu_ held, as every write
  /// A timestamped "schedule: <body>, <elapsed> elapsed" line, with mu_ held.
  void write_log_line(Clock::time_point now, const std::string& body);
  void beat();  // the heartbeat thread
  void stop();

  Mode mode_;
  std::ostream& err_;
  const model::Network& net_;
  double log_interval_;
  double heartbeat_;
  Clock::time_point t0_ = Clock::now();
  Clock::time_point last_draw_{};
  bool drawn_ = false;
  schedule::SearchProgress last_{};  // the counters of the last report (no segment)
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread beat_;  // last: started once the members above are set
};

}  // namespace kapla::cli
