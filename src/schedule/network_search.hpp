// The network-level search of strategy B (nn_dataflow NNDataflow.schedule_search): a beam
// search of width ntops over the layers in scheduling-DAG order, where each segment ending at
// a layer extends the best schemes ending just before it, under each of the segment's
// constraints. Spec: nn_dataflow-spec.md §9.8-9.9; kapla-spec.md §5.1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "mapping/resource.hpp"
#include "model/hardware.hpp"
#include "model/network.hpp"
#include "model/options.hpp"
#include "schedule/network_scheme.hpp"
#include "search/strategy.hpp"

namespace kapla::schedule {

struct NetworkSearchOptions {
  model::SearchOptions options;
  model::UnitCosts costs;
  /// OpenMP threads for each per-layer search.
  int num_threads = 1;
  /// Skip constraints whose hints dominate one that already succeeded (the reference's
  /// frontier). Unset = by options.cost_model: on for Tangram (upstream), off for Kapla (the
  /// fork's B has it commented out, kapla-spec §5.1).
  std::optional<bool> constraint_frontier;
  /// Reuse per-layer search results for identical conditions (the reference memoises
  /// Scheduling.schedule_search too; no numeric effect).
  bool cache_layer_searches = true;
};

struct NetworkSearchStats {
  std::size_t segments = 0;
  std::size_t constraints_searched = 0;
  std::size_t layer_searches = 0;  // strategy calls
  std::size_t cache_hits = 0;
  std::size_t memo_hits = 0;      // strategy-internal reuse (e.g. B's per-node tops)
};

struct NetworkSearchResult {
  /// Best first; empty when no valid schedule exists.
  std::vector<NetworkScheme> tops;
  NetworkSearchStats stats;
};

/// The candidate (input layout, external input layouts) pairs: one per partition of the input
/// layer over the source region (nn_dataflow _gen_input_layout).
std::vector<std::pair<mapping::DataLayout, std::vector<mapping::DataLayout>>> input_layout_choices(
    const model::Network& net, std::int64_t batch, const mapping::Resource& resource,
    const model::SearchOptions& options);

NetworkSearchResult network_search(const model::Network& net, std::int64_t batch,
                                   const mapping::Resource& resource,
                                   const search::LayerStrategy& strategy,
                                   const NetworkSearchOptions& opts);

}  // namespace kapla::schedule
