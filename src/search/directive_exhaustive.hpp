// Strategy S: exhaustive search over KAPLA directives (kapla-spec.md §5.2), in the lowered
// space that the one cost model prices (see docs/kapla.md). Shares every enumerator with K.
#pragma once

#include "search/strategy.hpp"

namespace kapla::search {

class DirectiveExhaustive final : public LayerStrategy {
 public:
  std::string_view name() const override { return "directive-exhaustive"; }
  char label() const override { return 'S'; }
  /// The best schedule (one).
  std::vector<pricing::LayerSchedule> search(const pricing::LayerProblem& problem,
                                             const SearchContext& ctx) const override;
};

/// S's registry entry (registry.cpp).
StrategyEntry directive_exhaustive_entry();

}  // namespace kapla::search
