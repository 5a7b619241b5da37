// Exhaustive search over the lowered directive space (strategy S, kapla-spec.md §5.2, and K's
// fallback): every partition of B's generator x every nested loop of the map strategy x every
// 3-level factorization x every loop-order pair whose trivial loops sit outermost in enum order.
// Shares every enumerator with K (canonical.hpp loop_orders, core/math factorize).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "search/kapla/layer_oracle.hpp"

namespace kapla::search::kapla {

struct ExhaustiveOptions {
  model::Goal goal = model::Goal::Energy;
  int num_threads = 1;  // OpenMP over partitions; the result does not depend on it
  /// Skip the full price of schemes whose bound cannot beat the partition's best, when the
  /// oracle offers one (BoundPricer: K's CostOracle; S sees it through a wrapper without).
  /// The result and the counts do not depend on it.
  bool bound = true;
};

struct ExhaustiveResult {
  std::optional<CanonicalScheme> scheme;
  Score score;
  std::int64_t evaluated = 0;  // cost-model evaluations
  std::int64_t fit_fail = 0;   // blockings rejected by the fast capacity check
};

/// Calls `visit` on every scheme the exhaustive search prices on partition `part`, in its
/// order (not on top levels the cost model rejects for their order, which the pipeline
/// constraint forbids, or for fetching on-chip data more than once); returns how many
/// blockings the fast capacity check rejected before that.
std::int64_t for_each_scheme(const LayerOracle& o, const mapping::PartitionScheme& part,
                             const std::function<void(const CanonicalScheme&)>& visit);

ExhaustiveResult search_exhaustive(const LayerOracle& o, const ExhaustiveOptions& opt);

}  // namespace kapla::search::kapla
