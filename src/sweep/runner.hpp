// Runs a sweep: expands the tuples, skips those already recorded (resume), hands the rest out
// longest-first across the ranks, records each as it finishes, and stops cleanly on
// SIGTERM/SIGUSR1.
#pragma once

#include <atomic>
#include <stdexcept>
#include <string>

#include "sweep/communicator.hpp"
#include "sweep/job.hpp"
#include "sweep/progress.hpp"
#include "sweep/result_sink.hpp"
#include "sweep/tuple_runner.hpp"

namespace kapla::sweep {

struct RunOptions {
  int threads = 1;                      // OpenMP threads per rank (already resolved, >= 1)
  double tuple_time_limit_seconds = 0;  // 0: none
  /// After SIGTERM/SIGUSR1 the running tuples may go on this long to finish their records.
  double stop_grace_seconds = 60;
  std::string command_line;
};

/// Runs the sweep on every rank of `comm`; the same call on each. `sink` is used as
/// ResultSink says; `progress` only on rank 0. Errors before any tuple starts (unknown names,
/// a foreign output) are raised on every rank alike. Returns the summary (ranks filled on rank 0).
RunSummary run_sweep(const SweepSpec& spec, const TupleRunner& runner, Communicator& comm,
                     ResultSink& sink, Progress& progress, const RunOptions& options);

/// An error on one rank while tuples are being run (e.g. the output became unwritable): the
/// other ranks are still working, so the caller should end them all (Communicator::abort).
class DispatchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The stop flag set by SIGTERM and SIGUSR1 once install_stop_signals() ran (the only global).
std::atomic<bool>& stop_flag();
/// When stop_flag() was set by a signal: steady-clock nanoseconds (written before the flag).
std::atomic<std::int64_t>& stop_since_ns();
/// Installs handlers for SIGTERM and SIGUSR1 that set stop_since_ns() and stop_flag().
void install_stop_signals();

}  // namespace kapla::sweep
