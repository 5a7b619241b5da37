// Typed options of the per-layer strategies (house-style §3.2): the run seed plus each
// strategy's own knobs, as one value that callers (the sweep adapter, tests) pass to
// make_layer_strategy(name, options). Job files set them through a strategy's "params"
// (io/job_json.cpp, docs/sweep.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "search/guided.hpp"
#include "search/kapla_solver.hpp"
#include "search/random_sampling.hpp"

namespace kapla::search {

struct StrategyOptions {
  /// Run seed of the seeded strategies (R, M); it replaces random.budget.seed and
  /// guided.budget.seed. Per layer it is mixed with the problem key.
  std::uint64_t seed = 1;
  RandomSamplingOptions random;  // R
  GuidedOptions guided;          // M
  KaplaSolverOptions kapla;      // K
  /// Field by field (GuidedOptions' defaulted == is unusable: NeighbourWeights has none).
  friend bool operator==(const StrategyOptions& a, const StrategyOptions& b);
};

/// Throws InputError naming the field (e.g. "random.max_evaluations: ...").
void validate(const StrategyOptions& o);

/// The options that `strategy` (a canonical name) actually uses, as ("strategy.<knob>", text)
/// pairs for the results (seed first for R and M); empty for strategies without options.
std::vector<std::pair<std::string, std::string>> describe_options(std::string_view strategy,
                                                                   const StrategyOptions& o);

}  // namespace kapla::search
