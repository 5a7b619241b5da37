// Progress reports from the sweep runner; cli/ renders them (on a terminal only).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kapla::sweep {

struct ProgressState {
  std::size_t total = 0;    // tuples in the sweep
  std::size_t skipped = 0;  // already in the output (resume)
  std::size_t done = 0;     // finished in this run
  std::size_t running = 0;
  double elapsed_seconds = 0;
  double eta_seconds = -1;  // < 0: unknown
};

/// What one rank did in this run.
struct RankSummary {
  int rank = 0;
  std::string host;
  std::size_t tuples = 0;
  double busy_seconds = 0;  // inside TupleRunner::run
  double wall_seconds = 0;  // whole run on this rank
};

struct RunSummary {
  std::size_t total = 0;
  std::size_t skipped = 0;
  std::size_t done = 0;       // recorded in this run
  std::size_t failed = 0;     // status failed (recorded)
  std::size_t timed_out = 0;  // status timeout (recorded)
  std::size_t remaining = 0;  // not recorded yet (interrupted)
  bool interrupted = false;
  double wall_seconds = 0;
  std::vector<RankSummary> ranks;  // rank 0 only
};

class Progress {
 public:
  virtual ~Progress() = default;
  /// Rank 0, main thread; often (throttle if drawing is costly).
  virtual void update(const ProgressState& state) = 0;
  /// Rank 0, once at the end.
  virtual void finish(const RunSummary& summary) = 0;
};

/// Reports nothing.
class NullProgress final : public Progress {
 public:
  void update(const ProgressState&) override {}
  void finish(const RunSummary&) override {}
};

}  // namespace kapla::sweep
