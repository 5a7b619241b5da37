// Comparing one golden record with kapla's answer (used by `kapla check-golden`).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cost/energy_breakdown.hpp"
#include "model/network.hpp"

namespace kapla::cli {

struct GoldenCheck {
  bool skipped = false;    // the record has no reference result (error, timeout)
  std::string mismatch;    // empty = pass; else "<id>: <field>: mine vs reference"
  double max_rel_err = 0;  // over the compared figures
  /// What kapla priced: the scheme's cost, the best layer schedule's, or the best network
  /// schedule's, and where it goes (the same EnergyBreakdown `kapla schedule --json` and the
  /// HDF5 energy_* columns report). Unset when nothing was priced.
  double cost = 0;
  std::optional<cost::EnergyBreakdown> energy;
};

/// Loads a network by its reference module name (network_run records).
using NetworkLoader = std::function<model::Network(const std::string&)>;

GoldenCheck check_golden_record(const nlohmann::json& record, int threads,
                                const NetworkLoader& load_network);

}  // namespace kapla::cli
