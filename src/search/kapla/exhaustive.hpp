// Exhaustive search over the lowered directive space (strategy S, kapla-spec.md §5.2, and K's
// fallback): every partition of B's generator x every nested loop of the map strategy x every
// 3-level factorization x every loop-order pair whose trivial loops sit outermost in enum order.
// Shares every enumerator with K (canonical.hpp loop_orders, core/math factorize).
#pragma once

#include <cstdint>
#include <optional>

#include "search/kapla/layer_oracle.hpp"

namespace kapla::search::kapla {

struct ExhaustiveOptions {
  model::Goal goal = model::Goal::Energy;
  int num_threads = 1;  // OpenMP over partitions; the result does not depend on it
};

struct ExhaustiveResult {
  std::optional<CanonicalScheme> scheme;
  Score score;
  std::int64_t evaluated = 0;  // cost-model evaluations
  std::int64_t fit_fail = 0;   // blockings rejected by the fast capacity check
};

/// Whether an order places this level's trivial loops (factor 1) outermost in LoopDim order;
/// other orders are equivalent to one that does.
bool is_canonical_order(const PerLoopDim<std::int64_t>& t, const PerLoopDim<int>& ord);

ExhaustiveResult search_exhaustive(const LayerOracle& o, const ExhaustiveOptions& opt);

}  // namespace kapla::search::kapla
