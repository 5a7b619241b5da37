// What `kapla schedule` writes for a person: the defaults in --help, progress on stderr while
// it searches, and the readable schedule (totals with units, energy by kind, segments and
// their pipelining, per layer partition, blocking, loop orders, PE array, energy, time).
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "cli/progress_flags.hpp"
#include "model/hardware.hpp"
#include "model/network.hpp"
#include "model/options.hpp"
#include "schedule/network_scheme.hpp"
#include "schedule/network_search.hpp"

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
/// after that long: a short search writes none; 0 = every segment); nothing when quiet.
class ScheduleProgress {
 public:
  using Mode = ProgressMode;
  ScheduleProgress(Mode mode, std::ostream& err, const model::Network& net,
                   double log_interval = 10);
  void operator()(const schedule::SearchProgress& p);
  /// Clears the live line.
  void finish();

 private:
  Mode mode_;
  std::ostream& err_;
  const model::Network& net_;
  double log_interval_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_{};
  bool drawn_ = false;
};

}  // namespace kapla::cli
