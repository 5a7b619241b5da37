// Strategy B: nn_dataflow's exhaustive per-layer search (Scheduling.schedule_search): every
// partition x every nested-loop description of the map strategy x the loop-blocking search,
// top-k by the goal with first-generated tie-breaks. OpenMP over (partition, NLD) work items
// with an order-preserving merge, so the result is the same for any thread count.
// Spec: nn_dataflow-spec.md §9.2-9.3; kapla-spec.md §5.1.
#pragma once

#include "search/strategy.hpp"

namespace kapla::search {

class ExhaustiveStrategy final : public LayerStrategy {
 public:
  std::string_view name() const override { return "exhaustive"; }
  char label() const override { return 'B'; }
  std::vector<pricing::LayerSchedule> search(const pricing::LayerProblem& problem,
                                             const SearchContext& ctx) const override;
  /// Runs the per-node part (partitions x NLDs x loop blocking) into ctx.memo.
  void prepare(const pricing::LayerProblem& problem, const SearchContext& ctx) const override;
  /// All problems' per-node work items as one parallel loop.
  void prepare_many(const std::vector<pricing::LayerProblem>& problems,
                    const SearchContext& ctx) const override;
};

/// B's registry entry (registry.cpp).
StrategyEntry exhaustive_entry();

}  // namespace kapla::search
