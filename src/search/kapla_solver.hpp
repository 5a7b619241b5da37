// Strategy K: the KAPLA solver (ASP-DAC'25; kapla-spec.md §3) behind the per-layer strategy
// interface. The greedy works on directives in canonical coordinates (search/kapla/); every
// number it reports is the one cost model's price of the lowered scheme.
#pragma once

#include "search/kapla/directives.hpp"
#include "search/strategy.hpp"

namespace kapla::search {

struct KaplaSolverOptions {
  bool fallback = true;  // exhaustive directive search when the greedy finds nothing
};

class KaplaSolver final : public LayerStrategy {
 public:
  explicit KaplaSolver(KaplaSolverOptions opts = {}) : opts_(opts) {}
  std::string_view name() const override { return "kapla"; }
  char label() const override { return 'K'; }
  /// At most one schedule (K keeps the best of its 36 candidates, not a top-k).
  std::vector<LayerSchedule> search(const LayerProblem& problem,
                                    const SearchContext& ctx) const override;

 private:
  KaplaSolverOptions opts_;
};

/// The directives of a scheduled layer, for `kapla schedule --show-directives`: the canonical
/// scheme (partition, nested loop, blocking) written as tensor/stack/update per level.
directive::DirectiveSchedule directives_of(const LayerProblem& problem, const LayerSchedule& s,
                                           std::string layer_name);

}  // namespace kapla::search
