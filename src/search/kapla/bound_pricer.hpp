// An optional capability of a layer oracle: a cheap lower bound of the one cost model's price
// of a canonical scheme (the loop-blocking evaluation without its buffer-sharing sweep,
// pricing::FixedSchemeEvaluator::score_bound). The exhaustive search (exhaustive.hpp) and
// K's steps (best_candidate.hpp) price a scheme only when its bound beats the best found so
// far, which skips most of the sweep's work and never changes the answer. Never used for a
// reported number.
#pragma once

#include <optional>

#include "cost/loop_blocking.hpp"
#include "search/kapla/layer_oracle.hpp"

namespace kapla::search::kapla {

class BoundPricer {
 public:
  virtual ~BoundPricer() = default;
  /// A score whose time is evaluate(s)'s and whose energy is at most evaluate(s)'s, so that
  /// under every goal evaluate(s) is no better than it; nullopt exactly when evaluate(s) is.
  /// `on_chip`: without the NoC placement's hops (a weaker bound that needs no placement); it
  /// is also at most OnChipPricer::evaluate_on_chip(s).
  virtual std::optional<Score> evaluate_bound(const CanonicalScheme& s, bool on_chip) const = 0;
  /// A floor of a blocking over several of its loop-order pairs, where
  /// bound_grows_with_fetch(): evaluate_bound(s, on_chip) with `fetch` in place of s's fetch
  /// counts (s's orders are not read). At the least of the pairs' counts, level by level and
  /// category by category, no pair's evaluate_bound is better under any goal (energy and time
  /// are at most each pair's), and nullopt only if every pair's is
  /// (cost::evaluate_loop_blocking_at_fetch).
  virtual std::optional<Score> evaluate_bound_at_fetch(const CanonicalScheme& s,
                                                       const cost::FetchCounts& fetch,
                                                       bool on_chip) const = 0;
  /// Whether evaluate_bound_at_fetch is such a floor: when no category may bypass GBUF.
  virtual bool bound_grows_with_fetch() const = 0;
};

}  // namespace kapla::search::kapla
