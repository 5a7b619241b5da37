// The pick every step of K makes among the candidates it generates: the first with the best
// price of those strictly better than a floor (the step's incumbent, if any). The price is
// the one cost model's, in full or on chip (without the NoC hops: the screens that rank
// partitions before placing them, on_chip_pricer.hpp). Where the oracle offers a cheap lower
// bound (BoundPricer: the price without the buffer-sharing sweep, first also without the NoC
// placement) and only the best scheme is wanted (ntops = 1), a candidate whose bound does not
// beat the pick so far (or the floor) is not priced: its price would not beat it either, so
// the pick is the same as with every candidate priced. With ntops > 1 the runners-up come
// from the priced set, so every candidate is priced. Skipped candidates count as evaluated,
// so the counts do not depend on the bound.
#pragma once

#include <optional>

#include "search/kapla/bound_pricer.hpp"
#include "search/kapla/layer_solver.hpp"
#include "search/kapla/on_chip_pricer.hpp"

namespace kapla::search::kapla {

/// Whether the picks may skip candidates by their bounds (and the screens by their floors,
/// partition_descent.cpp): asked for and only the best scheme wanted (SolverOptions).
inline bool bounded_picks_on(const SolverOptions& opt) {
  return opt.bounded_picks && opt.ntops <= 1;
}

class BestCandidate {
 public:
  /// `stats` null: the candidates are not counted (K counts full prices only). `on_chip`: the
  /// price is its evaluate_on_chip, else o's full price.
  BestCandidate(const LayerOracle& o, const SolverOptions& opt, SolveStats* stats,
                std::optional<Score> floor = std::nullopt, const OnChipPricer* on_chip = nullptr);
  /// Prices c if it may beat the bar; keeps it if it does. Counts one evaluation.
  void consider(const CanonicalScheme& c);
  /// The same for a fit that may have failed (nothing to consider then).
  void consider(const std::optional<CanonicalScheme>& c) {
    if (c) consider(*c);
  }
  const std::optional<CanonicalScheme>& scheme() const { return scheme_; }
  const Score& score() const { return score_; }
  /// Moves sol to the pick, if there is one; true if it did.
  bool improve(LayerSolution& sol) const;

 private:
  std::optional<Score> price(const CanonicalScheme& c) const;
  void count_invalid() const;

  const LayerOracle& o_;
  const OnChipPricer* on_chip_;  // the price on chip; null: the full price
  const BoundPricer* bounds_;    // null: price every candidate
  model::Goal goal_;
  SolveStats* stats_;
  std::optional<Score> bar_;  // what a candidate must strictly beat: the pick, else the floor
  std::optional<CanonicalScheme> scheme_;
  Score score_{};
};

}  // namespace kapla::search::kapla
