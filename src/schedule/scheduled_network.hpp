// A network's chosen schedule with everything it was searched and priced under: what
// `kapla schedule --json` writes (io/schedule_json.hpp) and what a sweep records with each tuple
// (docs/hdf5_schema.md, /schedules), so that one writer serves both and `kapla emit` reads either.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/hardware.hpp"
#include "model/network.hpp"
#include "model/options.hpp"
#include "pricing/layer_problem.hpp"
#include "schedule/network_scheme.hpp"

namespace kapla::schedule {

struct ScheduledNetwork {
  const model::Network& net;
  std::int64_t batch = 0;
  const model::SearchOptions& options;  // as searched (the strategy's defaults filled in)
  const model::UnitCosts& costs;        // as priced
  std::string_view strategy;            // registry name
  /// The strategy's options as used (StrategyEntry::describe): a seeded strategy's
  /// "strategy.seed" (first) and "strategy.max_evaluations".
  const std::vector<std::pair<std::string, std::string>>& described;
  const NetworkScheme& best;
};

/// Layer `layer`'s problem as its scheme was priced, but for the constraint (it only decided
/// which schemes were allowed) and the ifmap layout (it prices NoC hops, which the directives
/// and the emitted programs do not read).
pricing::LayerProblem scheduled_layer_problem(const ScheduledNetwork& s, std::size_t layer);

}  // namespace kapla::schedule
