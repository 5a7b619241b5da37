// The sweep model: what a job file describes (SweepSpec) and the tuples it expands to. Pure
// values; parsing lives in io/job_json, running in sweep/runner. Spec: issue "Distributed sweeps".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/options.hpp"
#include "search/strategy_registry.hpp"
#include "sweep/design_search.hpp"
#include "sweep/design_space.hpp"

namespace kapla::sweep {

/// One hardware axis entry: a catalog name (or file) and the batch sizes to run on it, or one
/// point of a design space (a hardware entry with a "base"): then `name` is the point's name and
/// `design` its hardware, which the runner uses instead of looking the name up.
struct HardwareAxis {
  std::string name;
  std::vector<std::int64_t> batches;
  std::optional<model::Hardware> design;
  DesignParams params;
  friend bool operator==(const HardwareAxis&, const HardwareAxis&) = default;
};

/// The hardware entry of a design point, run at `batches`.
HardwareAxis design_axis(DesignPoint point, std::vector<std::int64_t> batches);

/// One strategy axis entry: a registry name plus strategy-specific parameters, kept as
/// canonical JSON text ("" when there are none; part of the tuple key) and as the registry
/// entry's parsed, opaque value (empty = the entry's defaults). The sweep never looks inside,
/// so a new strategy needs no change here. The job parse fills the entry's letter and the
/// display label (io::strategy_label) for the results; specs built without a registry may
/// leave them empty.
struct StrategyAxis {
  std::string name;
  std::string params;
  search::StrategyParams options;
  std::string letter;  // "R"
  std::string label;   // "R[max_evaluations=100]"
  friend bool operator==(const StrategyAxis&, const StrategyAxis&) = default;
};

/// A parsed, validated job file.
struct SweepSpec {
  std::string name;
  std::string description;
  std::string source_file;  // where it was read from ("" for an in-memory spec)
  std::string source_text;  // the job file's text, copied into the results
  // Axes: the sweep is their product, in this order (network-major).
  std::vector<std::string> networks;
  std::vector<HardwareAxis> hardware;
  std::vector<StrategyAxis> strategies;
  std::vector<std::uint64_t> seeds{1};
  /// The hardware spaces sampled by a local search: `hardware` holds their round 0; the sweep
  /// adds the later rounds' designs (sweep/search_rounds.hpp).
  std::vector<DesignSearch> searches;
  // Settings shared by every tuple.
  model::SearchOptions options = model::default_options();
  /// Wall-clock limit per tuple in seconds; 0 means none. A tuple that hits it is recorded
  /// with status "timeout".
  double tuple_time_limit_seconds = 0;
  /// OpenMP threads per rank inside a layer search; 0 means $OMP_NUM_THREADS (else 1).
  int threads = 0;
  /// Output HDF5 file (relative paths are relative to the working directory).
  std::string output;
  /// Record each tuple's schedule document in the output (/schedules, for `kapla emit`). It
  /// changes no result, so it is not in the fingerprint (docs/sweep.md, "Recorded schedules").
  bool record_schedules = true;
  /// Hash of everything that changes a tuple's values besides its axes (options, budget).
  /// Resuming into a file written with another fingerprint is refused.
  std::string fingerprint;
};

/// One unit of work: a point of the axes' product.
struct Tuple {
  std::size_t index = 0;  // position in expansion order (not stored: keys identify tuples)
  std::string network;
  std::string hardware;
  std::string strategy;
  std::string strategy_params;
  search::StrategyParams strategy_options;  // parsed strategy_params; empty = the defaults
  std::string strategy_letter;  // StrategyAxis::letter and label: shown, not part of the key
  std::string strategy_label;
  std::int64_t batch = 1;
  std::uint64_t seed = 1;  // the job seed of this tuple
  DesignParams design;     // the hardware's design parameters (empty unless a design point)
  /// The job's imperfect-factorization mode (its options'): part of the key when not none.
  model::Imperfect imperfect = model::Imperfect::None;

  /// "network:hardware:strategy:b<batch>:s<seed>" plus ":p<hash>" if the strategy has
  /// parameters and ":i<mode>" if imperfect is not none (keys of the reference's space stay
  /// as they were). Unique within a sweep; results are sorted and resumed by it.
  std::string key() const;
};

/// The product of the axes in a fixed order: networks, then hardware, batch, strategies,
/// seeds (innermost). Throws InputError if two entries give the same key.
std::vector<Tuple> expand_tuples(const SweepSpec& spec);

/// The search seed of a tuple: a mix of its job seed and its key, never of a rank or thread.
std::uint64_t tuple_seed(const Tuple& tuple);

/// 64-bit FNV-1a, the hash behind keys, seeds and fingerprints (stable across platforms).
std::uint64_t fnv1a(std::string_view text, std::uint64_t seed = 0xcbf29ce484222325ULL);
/// splitmix64 finaliser: mixes two values into a well-distributed seed.
std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b);
/// 16 lower-case hex digits.
std::string hex64(std::uint64_t value);

}  // namespace kapla::sweep
