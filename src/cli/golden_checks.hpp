// Comparing one golden record with kapla's answer (used by `kapla check-golden`).
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "model/network.hpp"
#include "search/strategy.hpp"

namespace kapla::cli {

struct GoldenCheck {
  bool skipped = false;       // the record has no reference result (error, timeout)
  std::string mismatch;       // empty = pass; else "<id>: <field>: mine vs reference"
  double max_rel_err = 0;     // over the compared figures
};

/// Loads a network by its reference module name (network_run records).
using NetworkLoader = std::function<model::Network(const std::string&)>;

GoldenCheck check_golden_record(const nlohmann::json& record, int threads,
                                const NetworkLoader& load_network);

/// The per-layer search problem of a layer_schedule record.
pricing::LayerProblem layer_problem_of(const nlohmann::json& record);

}  // namespace kapla::cli
