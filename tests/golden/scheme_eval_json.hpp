// Helpers of the scheme-evaluation parity tests: kapla's evaluation of a golden fixed-scheme
// record rendered in the record's JSON shape, and a tree comparison that names the first
// mismatching path. Golden format: tests/data/golden/README.md §1.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cost/layer_cost.hpp"
#include "cost/loop_blocking.hpp"
#include "cost/map_strategy.hpp"
#include "mapping/partition_scheme.hpp"

namespace kapla::testing {

/// The record's `result` fields (plus the fork's extra fields when `fork_fields`).
nlohmann::json result_json(const cost::LoopBlockingEval& lbs, const cost::LayerCost& lc,
                           const cost::NestedLoopDesc& nld, const mapping::PartitionScheme& part,
                           bool fork_fields);
/// The record's derived.nld (with regf_reusable / rw_data when `fork_fields`).
nlohmann::json nld_json(const cost::NestedLoopDesc& nld, bool fork_fields);
nlohmann::json geometry_json(const cost::MapGeometry& g);

/// "" if every field of `got` matches `want` (numbers within 1e-9 relative, "inf"/"nan"
/// strings as numbers); else "<path>: got X, want Y" for the first mismatch.
std::string first_mismatch(const nlohmann::json& got, const nlohmann::json& want,
                           const std::string& path = "");

}  // namespace kapla::testing
