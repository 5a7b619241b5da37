// The network-level search of strategy B (nn_dataflow NNDataflow.schedule_search): a beam
// search of width ntops over the layers in scheduling-DAG order, where each segment ending at
// a layer extends the best schemes ending just before it, under each of the segment's
// constraints. Spec: nn_dataflow-spec.md §9.8-9.9; kapla-spec.md §5.1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "mapping/resource.hpp"
#include "model/hardware.hpp"
#include "model/network.hpp"
#include "model/options.hpp"
#include "schedule/network_scheme.hpp"
#include "schedule/pipeline_segment.hpp"
#include "schedule/segment_filter.hpp"
#include "search/anytime_curve.hpp"
#include "search/strategy.hpp"

namespace kapla::schedule {

/// Where a network search is, for progress reports (after each segment search).
struct SearchProgress {
  std::size_t layers_done = 0;  // layers, in scheduling order, whose best schedules are known
  std::size_t layers_total = 0;
  std::size_t segments_done = 0;  // segments searched (after pruning)
  std::size_t segments_total = 0;
  const PipelineSegment* segment = nullptr;  // the segment just searched
};

/// One solved (segment, constraint) pair, for NetworkSearchOptions::pair_report.
struct PairReport {
  const PipelineSegment* segment = nullptr;
  std::size_t constraint = 0;  // index in the segment's constraints after the filter
  /// The pair's bound on top of its best prefix (segment_bound.hpp extended_bound).
  double bound_cost = 0;
  double bound_time = 0;
  /// Totals of every scheme the pair produced (before the time-overhead check).
  std::vector<std::pair<double, double>> schemes;  // (total_cost, total_time)
};

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
  /// Branch and bound over the (segment, constraint) pairs ending at a layer: solve them in
  /// order of their bounds (segment_bound.hpp) and skip a pair whose bound is worse than the
  /// ntops-th best scheme found there so far. Exact: the kept schemes, ties included, are
  /// those of the full search. Ignored with the constraint frontier (whose skips depend on
  /// which constraints were solved).
  bool bound_pruning = false;
  /// With bound_pruning: pairs are taken in waves of this many (in bound order), each wave
  /// against the best schemes of the waves before it, and a wave's pairs are solved
  /// concurrently with num_threads. The schemes kept do not depend on it (the pruning is
  /// exact); which pairs are solved does, and not on the thread count. 1 = one pair at a time.
  std::size_t pair_wave = 4;
  /// Test hook: called after each solved pair (computes the bounds even without
  /// bound_pruning); empty = none.
  std::function<void(const PairReport&)> pair_report;
  /// Inter-layer pruning (segment_filter_of a strategy's InterLayerPruning, applied by
  /// run_network); empty = search every segment/constraint.
  SegmentFilter segment_filter;
  /// Cooperative stop (a tuple time limit, a signal); empty = never. Polled before and after
  /// every per-layer search and handed to the strategy (search::SearchContext::stop), which
  /// polls it inside long searches. Thread-safe and monotonic (once true, stays true). A
  /// stopped search returns no schedule (NetworkSearchResult::stopped).
  std::function<bool()> stop;
  /// Called on the calling thread after each segment search; empty = no reports. No numeric
  /// effect.
  std::function<void(const SearchProgress&)> progress;
};

struct NetworkSearchStats {
  std::size_t segments = 0;  // distinct segments generated (= segments_before_pruning)
  std::size_t constraints_searched = 0;
  std::size_t layer_searches = 0;  // strategy calls
  std::size_t cache_hits = 0;
  std::size_t memo_hits = 0;  // strategy-internal reuse (e.g. B's per-node tops)
  // Inter-layer pruning (SegmentFilter). "after" = segments with at least one constraint
  // left, and those constraints; without a filter after == before.
  std::size_t segments_before_pruning = 0;
  std::size_t segments_after_pruning = 0;
  std::size_t constraints_before_pruning = 0;  // (segment, constraint) pairs
  std::size_t constraints_after_pruning = 0;
  /// (segment, constraint) pairs skipped by bound_pruning (never solved).
  std::size_t pairs_bounded_out = 0;
  /// Pairs bound_pruning stopped part-way (counted in constraints_searched too): once their
  /// first layers were scheduled, their bound could no longer beat the kept schemes.
  std::size_t pairs_cut_short = 0;
  /// Pairs bound_pruning skipped unsolved because one of their layers was already found to
  /// have no valid schedule under the same conditions (search::LayerStrategy::
  /// empty_means_infeasible).
  std::size_t pairs_known_infeasible = 0;
  // What the strategy reported (search::LayerSearchStats), summed over the strategy calls in
  // call order (cache hits excluded). -1 when some call did not report (all of kapla's
  // strategies report evaluated; valid: see docs/hdf5_schema.md).
  std::int64_t schemes_evaluated = 0;
  std::int64_t schemes_valid = 0;
  /// Network best-so-far curve of strategies that report per-call curves (R, M); empty
  /// otherwise. x: cumulative evaluations (and seconds) over the strategy calls in call order;
  /// y: the sum over the network's layers of each layer's best schedule so far over all its
  /// conditions (best by the goal; best_goal is the goal of the summed cost and time). A
  /// point is recorded once every layer has a schedule, then at every improvement, and at the
  /// end. The last best_cost is a lower bound of the best network schedule's total cost.
  search::AnytimeCurve curve;
};

struct NetworkSearchResult {
  /// Best first; empty when no valid schedule exists or the search was stopped.
  std::vector<NetworkScheme> tops;
  NetworkSearchStats stats;
  /// opts.stop ended the search early: tops is empty, stats count the work done until then
  /// (the strategy call that saw the stop included), the curve holds the points so far.
  bool stopped = false;
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
