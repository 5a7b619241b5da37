// A lower bound of what the one cost model (cost::layer_cost over cost::evaluate_loop_blocking)
// charges any valid schedule of a layer problem, whatever the strategy, partition, mapping or
// blocking: the network search's branch and bound (schedule/network_search.cpp) skips a
// (segment, constraint) pair whose bound cannot beat what it already has. Microseconds per
// problem; it ignores the ifmap layout. Every term is one the model always charges (the
// reasoning is next to each term in cost_bound.cpp); tests/unit/search/test_cost_bound.cpp
// checks bound <= price on B's schemes of the golden problems and variants of them, and
// tests/unit/search/kapla/test_bound_pruning.cpp on every pair K solves on the zoo.
// Spec: nn_dataflow-spec.md §3.2 (cost parts), §6.3-6.4 (unit pass, occupancy), §7.3-7.5.
#pragma once

#include "pricing/layer_problem.hpp"
#include "pricing/refetch_bound.hpp"

namespace kapla::pricing {

struct LayerCostBound {
  /// <= cost - cost_static of every valid schedule (MAC, REGF, ITCN, GBUF, DRAM, NoC parts).
  double energy = 0;
  /// <= time of every valid schedule (cycles).
  double time = 0;
  /// <= dram_time of every valid schedule (cycles).
  double dram_time = 0;
};

/// The ifmap words a forward layer's unit passes read at least once, however it is split.
double min_ifmap_words(const model::Layer& layer, std::int64_t batch);

/// How often every valid schedule of `problem` fetches its filters (ifmaps) from DRAM at
/// least, fetch[0] of §7.3 after pinning, under its constraint; `floor` (refetch_bound) adds
/// what the capacities force.
double min_filter_fetches(const LayerProblem& problem, const RefetchFloor& floor = {});
double min_ifmap_fetches(const LayerProblem& problem, const RefetchFloor& floor = {});

/// `floor`: refetch_bound(problem) (refetch_bound.hpp), or none; the ITCN, stored-GBUF and
/// NoC terms are then at least its energy and the processing time at least its time.
LayerCostBound layer_cost_bound(const LayerProblem& problem, const RefetchFloor& floor = {});

}  // namespace kapla::pricing
