// The one entry point that schedules a whole network with a strategy: the CLI, the sweep, the
// golden checks, tests and benchmarks call it, so the strategy's inter-layer pruning and the
// hint frontier are applied the same way everywhere. network_search (network_search.hpp) is
// the engine underneath, for tests that need to drive its hooks directly.
#pragma once

#include <cstdint>
#include <functional>

#include "mapping/resource.hpp"
#include "model/hardware.hpp"
#include "model/network.hpp"
#include "model/options.hpp"
#include "schedule/network_search.hpp"
#include "search/strategy.hpp"

namespace kapla::schedule {

/// How a run is driven; none of it changes the result.
struct RunControls {
  int num_threads = 1;  // OpenMP threads for each per-layer search
  /// Cooperative stop (a tuple time limit, a signal); empty = never (NetworkSearchOptions::stop).
  std::function<bool()> stop;
  /// Called after each segment search (NetworkSearchOptions::progress).
  std::function<void(const SearchProgress&)> progress;
};

/// The network search of `strategy` with its inter-layer pruning (search::InterLayerPruning),
/// and the hint frontier when the strategy asks for it or the cost model is Tangram (the
/// upstream reference's NNDataflow uses it; the KAPLA fork's B does not, kapla-spec.md §5.1).
/// `resource` and `costs` are those of a hardware (build_resource), or a golden record's.
NetworkSearchResult run_network(const model::Network& net, const mapping::Resource& resource,
                                const model::UnitCosts& costs,
                                const search::LayerStrategy& strategy,
                                const model::SearchOptions& options, std::int64_t batch,
                                const RunControls& controls = {});

/// The same on a hardware description: its resource (build_resource) and its unit costs.
NetworkSearchResult run_network(const model::Network& net, const model::Hardware& hw,
                                const search::LayerStrategy& strategy,
                                const model::SearchOptions& options, std::int64_t batch,
                                const RunControls& controls = {});

}  // namespace kapla::schedule
