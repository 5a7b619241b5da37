// The one interface between the sweep and the search: run one tuple, get a TupleResult.
// sweep/strategy_runner.cpp binds it to the strategy registry; tests bind a fake. Nothing in
// sweep/ knows which strategies exist.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cost/energy_breakdown.hpp"
#include "sweep/job.hpp"

namespace kapla::sweep {

/// How a tuple ended. Interrupted tuples (stop signal) are not recorded, so a resume reruns them.
enum class TupleStatus : std::uint8_t { Ok, NoSolution, Timeout, Failed, Interrupted };
std::string_view status_name(TupleStatus s);
/// "ok", "no_solution", "timeout", "failed", "interrupted"; InputError otherwise.
TupleStatus parse_status(std::string_view s);

/// Energy parts, in the order of kEnergyPartNames: cost::EnergyBreakdown::parts().
inline constexpr auto kEnergyPartNames = cost::EnergyBreakdown::kPartNames;
using EnergyParts = std::array<double, kEnergyPartNames.size()>;

struct LayerRow {
  std::string layer;
  std::int64_t segment = 0;
  double energy = 0;
  EnergyParts energy_parts{};
  double time = 0;
  /// The layer's multiply-accumulates at the tuple's batch (Conv, FC, DWConv, MatMul and their
  /// back kinds); 0 for pooling, element-wise and normalisation layers, whose ops are no MACs.
  /// With it pJ/MAC is one division (docs/codesign_results.md).
  std::int64_t macs = 0;
  std::string partition;  // canonical text of the partition scheme
  std::string blocking;   // blocking factors
  std::string orders;     // loop orders
  friend bool operator==(const LayerRow&, const LayerRow&) = default;
};

struct SegmentRow {
  std::int64_t segment = 0;
  std::string layers;  // layer names, space-separated
  double energy = 0;
  double time = 0;
  friend bool operator==(const SegmentRow&, const SegmentRow&) = default;
};

/// One point of the best-so-far curve (strategies R and M).
struct CurvePoint {
  std::int64_t evaluated = 0;
  double seconds = 0;  // run-dependent (excluded from result comparisons)
  double best_cost = 0;
};

struct SearchStats {
  double wall_seconds = 0;  // set by the sweep runner
  double cpu_seconds = 0;   // set by the sweep runner (process CPU time during the tuple)
  int threads = 1;
  std::int64_t evaluated = 0;
  std::int64_t valid = 0;
  std::int64_t pruned = 0;
  std::vector<CurvePoint> curve;
};

struct TupleResult {
  TupleStatus status = TupleStatus::Ok;
  std::string message;    // why, for anything but Ok
  double total_cost = 0;  // nn_dataflow total_cost: the energy of the best schedule
  double energy = 0;
  EnergyParts energy_parts{};
  double time = 0;
  double edp = 0;
  std::int64_t macs = 0;  // sum of the layers' macs
  /// macs / (nodes x PEs per node x time), model::pe_utilisation: the fraction of the chip's
  /// PE-cycles that do a MAC; 0 without a schedule. The PE-utilisation floor compares it.
  double pe_utilisation = 0;
  std::vector<LayerRow> layers;
  std::vector<SegmentRow> segments;
  SearchStats stats;
  /// The resolved hardware and options, as (name, value) text pairs ("hardware.nodes", "16x16").
  std::vector<std::pair<std::string, std::string>> resolved;
  /// The best schedule as the `kapla schedule --json` document without its search_seconds
  /// (compact JSON: io/schedule_json.hpp), for `kapla emit`; "" without a schedule, or when the
  /// job does not record schedules.
  std::string schedule;
};

/// What a run may use besides the tuple: nothing global.
struct RunContext {
  std::uint64_t seed = 0;  // tuple_seed(tuple)
  int num_threads = 1;     // OpenMP budget inside a layer search
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  const std::atomic<bool>* stop = nullptr;  // set by SIGTERM/SIGUSR1
  /// When the stop was requested (steady-clock nanoseconds, written by the signal handler);
  /// null: the stop is due at once.
  const std::atomic<std::int64_t>* stop_since_ns = nullptr;
  /// How long a running search may go on after a stop request, hoping to finish its record
  /// (Slurm signals 120 s before the kill; the merge needs the rest).
  std::chrono::duration<double> stop_grace{0};

  bool stop_requested() const { return stop != nullptr && stop->load(std::memory_order_relaxed); }
  /// A stop was requested and its grace period is over: abandon the running search.
  bool stop_due() const {
    if (!stop_requested()) return false;
    if (stop_since_ns == nullptr) return true;
    const std::chrono::steady_clock::time_point since{
        std::chrono::nanoseconds(stop_since_ns->load(std::memory_order_relaxed))};
    return std::chrono::steady_clock::now() - since >= stop_grace;
  }
  bool past_deadline() const { return std::chrono::steady_clock::now() >= deadline; }
};

/// Runs tuples. Implementations are const and thread-compatible; a run that sees
/// past_deadline() returns its best so far with status Timeout, and one that sees
/// stop_requested() may return status Interrupted.
class TupleRunner {
 public:
  virtual ~TupleRunner() = default;
  /// Throws InputError if the tuple cannot run (unknown network, hardware or strategy);
  /// called for every tuple before the sweep starts.
  virtual void check(const Tuple& tuple) const = 0;
  /// The tuple's estimated CPU seconds on one thread: dispatch runs long tuples first (only
  /// the order matters there); `kapla sweep --dry-run` and the ETA show it (a fake runner may
  /// return any positive scale).
  virtual double estimate_cost(const Tuple& tuple) const = 0;
  /// Runs one tuple. Exceptions are recorded as status Failed.
  virtual TupleResult run(const Tuple& tuple, const RunContext& ctx) const = 0;
};

}  // namespace kapla::sweep
