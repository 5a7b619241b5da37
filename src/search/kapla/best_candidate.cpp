// BestCandidate (see best_candidate.hpp).
#include "search/kapla/best_candidate.hpp"

namespace kapla::search::kapla {

BestCandidate::BestCandidate(const LayerOracle& o, const SolverOptions& opt, SolveStats* stats,
                             std::optional<Score> floor, const OnChipPricer* on_chip)
    : o_(o),
      on_chip_(on_chip),
      bounds_(bounded_picks_on(opt) ? o.bound_pricer() : nullptr),
      goal_(opt.goal),
      stats_(stats),
      bar_(floor) {
  // o's bound bounds o's own on-chip price only (the same object: the same most-derived
  // address, which dynamic_cast<const void*> reads off the vtable without a type search).
  if (on_chip_ != nullptr && dynamic_cast<const void*>(on_chip_) != dynamic_cast<const void*>(&o))
    bounds_ = nullptr;
}

std::optional<Score> BestCandidate::price(const CanonicalScheme& c) const {
  return on_chip_ != nullptr ? on_chip_->evaluate_on_chip(c) : o_.evaluate(c);
}

void BestCandidate::count_invalid() const {
  if (stats_ != nullptr) ++stats_->invalid;
}

void BestCandidate::consider(const CanonicalScheme& c) {
  if (stats_ != nullptr) ++stats_->evaluated;
  if (bounds_ != nullptr && bar_) {
    // Not better than its bound is not better than the bar (better() is a strict weak order).
    const auto no_hops = bounds_->evaluate_bound(c, true);
    if (!no_hops) {
      count_invalid();  // a bound is invalid exactly when the price is
      return;
    }
    if (!better(*no_hops, *bar_, goal_)) return;
    if (on_chip_ == nullptr && !better(*bounds_->evaluate_bound(c, false), *bar_, goal_)) return;
  }
  const auto sc = price(c);
  if (!sc) {
    count_invalid();
    return;
  }
  if (!bar_ || better(*sc, *bar_, goal_)) {
    scheme_ = c;
    score_ = *sc;
    bar_ = *sc;
  }
}

bool BestCandidate::improve(LayerSolution& sol) const {
  if (!scheme_ || (sol.scheme && !better(score_, sol.score, goal_))) return false;
  sol.scheme = scheme_;
  sol.score = score_;
  return true;
}

}  // namespace kapla::search::kapla
