// The one fixed-scheme evaluator: the layer result of ONE scheme (partition, nested-loop
// description, loop blocking) under one LayerProblem, as nn_dataflow Scheduling composes it
// (partition -> part_layer -> map strategy NLDs -> buffer-sharing scheme -> loop-blocking
// evaluation -> unit NoC hops -> layer cost -> SchedulingResult). Every strategy (B, K, S, R,
// M), the golden checks and the sweep price schemes through this file; none assembles a
// LayerSchedule itself. Spec: nn_dataflow-spec.md §9.2 (schedule_search, _get_result).
//
// The work that depends only on the partition is split in two reusable values so the hot
// paths stay fast:
//  - PartitionSetup (per-node layer, NLDs, buffer-sharing scheme): independent of the ifmap
//    layout, so B memoizes it across scheduling conditions;
//  - PartitionPlacement (ofmap layout, unit NoC hops): depends on the ifmap layout; all of it
//    but the ifmap hops (PartitionReach) does not, and is shared like the setup.
// FixedSchemeEvaluator caches them per partition of B's list, on first use, thread-safely.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "core/enum_array.hpp"
#include "core/phy_dim2.hpp"
#include "cost/layer_cost.hpp"
#include "cost/loop_blocking.hpp"
#include "cost/map_strategy.hpp"
#include "mapping/buffer_sharing_scheme.hpp"
#include "mapping/data_layout.hpp"
#include "mapping/noc_hops.hpp"
#include "mapping/part_layer.hpp"
#include "mapping/partition_scheme.hpp"
#include "pricing/layer_problem.hpp"
#include "pricing/layer_schedule.hpp"

namespace kapla::pricing {

/// What every scheme of one partition shares and that does not depend on the ifmap layout.
struct PartitionSetup {
  mapping::PartitionScheme part;
  mapping::PartLayer pl;
  /// The map strategy's result (row stationary or systolic, by resource.array_mapping);
  /// nld_index indexes map.nlds.
  cost::MapResult map;
  /// The buffer-sharing scheme (default when there is no NLD: all NLDs share data loops).
  mapping::BufShrScheme bufshr;
};

/// Where one partition's data come from and go to (depends on the ifmap layout).
struct PartitionPlacement {
  mapping::DataLayout ofmap_layout;
  PerDataCategory<double> unit_nhops{};
};

/// The map strategy of the resource's array mapping (row stationary: cost::map_eyeriss,
/// systolic: cost::map_systolic) applied to a partitioned layer of `p`: the one place a search
/// chooses how a layer is mapped onto the PE array. Systolic requires the KAPLA cost-model
/// variant and a forward layer (model::check_array_mapping checks the inputs; here a violation
/// is an InternalError).
cost::MapResult map_partitioned_layer(const LayerProblem& p, const mapping::PartLayer& pl);

/// part_layer, the map strategy's NLDs (map_partitioned_layer) and the buffer-sharing
/// scheme of `part`.
PartitionSetup setup_partition(const LayerProblem& p, const mapping::PartitionScheme& part);

/// What a partition's placement does not take from the ifmap layout: the ofmap layout and
/// the hops but the ifmaps' (mapping::partition_hops). `filter_nodes` =
/// mapping::filter_nodes(p.resource.dram_region).
struct PartitionReach {
  mapping::DataLayout ofmap_layout;
  mapping::PartitionHops hops;
};
PartitionReach reach_partition(const LayerProblem& p, const mapping::PartitionScheme& part,
                               const std::vector<PhyDim2>& filter_nodes);
/// The placement of a partition from its reach and the pieces of the ifmap layout.
PartitionPlacement place_partition(const PartitionReach& reach,
                                   const mapping::LayoutPieces& ifmap_pieces);

/// The ofmap layout and the unit NoC hops of `part`; `sources` =
/// mapping::placement_sources(p.resource.dram_region, p.ifmap_layout), made once per problem.
PartitionPlacement place_partition(const LayerProblem& p, const mapping::PartitionScheme& part,
                                   const mapping::PlacementSources& sources);

/// One fixed scheme of a partition: which NLD and its loop blocking.
struct FixedScheme {
  int nld_index = 0;
  cost::LoopBlocking blocking;
};

/// The loop-blocking evaluation of a fixed scheme, or nullopt if it is invalid (NLD index out
/// of range, the scheduling constraint's top blocking, capacity, on-chip spilling).
std::optional<cost::LoopBlockingEval> evaluate_blocking(const LayerProblem& p,
                                                        const PartitionSetup& setup,
                                                        const FixedScheme& s);

/// The layer result (nn_dataflow _get_result) of a valid loop-blocking evaluation `ev` of NLD
/// `nld_index` of `part`: layer_cost with the placement's unit hops, the figures, the scheme
/// and the placement, `ev` kept as the detail.
LayerSchedule schedule_of(const LayerProblem& p, const mapping::PartitionScheme& part,
                          int nld_index, const cost::LoopBlockingEval& ev,
                          const PartitionPlacement& placement);

/// One fixed scheme priced step by step with every intermediate kept, for checks that compare
/// each step with the reference (`kapla check-golden`, the golden parity tests). The same
/// functions as the search's: setup_partition, the loop-blocking evaluation, place_partition,
/// cost::layer_cost, schedule_of.
struct PricedScheme {
  PartitionSetup setup;
  /// The loop-blocking evaluation, also when invalid (its reason); nullopt when nld_index is
  /// out of range of setup.map.nlds.
  std::optional<cost::LoopBlockingEval> blocking;
  /// When the blocking is valid and meets the constraint: the placement, the layer cost and
  /// the layer result (whose figures are the layer cost's).
  PartitionPlacement placement;
  std::optional<cost::LayerCost> cost;
  std::optional<LayerSchedule> schedule;
};

/// Prices scheme `s` of partition `part` (not necessarily in B's partition list).
PricedScheme price_fixed_scheme(const LayerProblem& p, const mapping::PartitionScheme& part,
                                const FixedScheme& s);

/// evaluate_blocking then schedule_of: the layer result of one fixed scheme, or nullopt.
std::optional<LayerSchedule> evaluate_fixed_scheme(const LayerProblem& p,
                                                   const PartitionSetup& setup,
                                                   const PartitionPlacement& placement,
                                                   const FixedScheme& s);

/// The fixed-scheme evaluator of one LayerProblem over a list of partitions (by default B's,
/// mapping::gen_partition with guaranteed = true), with each partition's setup and placement
/// computed once on first use (core/once.hpp: thread-safe; the values do not depend on the
/// thread). The problem must outlive the evaluator; copies share the caches.
class FixedSchemeEvaluator {
 public:
  explicit FixedSchemeEvaluator(const LayerProblem& problem);
  FixedSchemeEvaluator(const LayerProblem& problem, std::vector<mapping::PartitionScheme> parts);

 private:
  struct Setups;
  struct Placements;

 public:
  /// The partitions and their setups: they depend on neither the problem's ifmap layout nor
  /// its constraint or sched_seq, so evaluators of problems that differ only in those may
  /// share them (K solves one layer under many constraints and layouts).
  using SharedSetups = std::shared_ptr<Setups>;
  /// The partitions' placements: they depend on the ifmap layout but not on the constraint
  /// or sched_seq.
  using SharedPlacements = std::shared_ptr<Placements>;
  SharedSetups shared_setups() const { return setups_; }
  SharedPlacements shared_placements() const { return placements_; }
  /// An evaluator of `problem` over `setups` made for a problem equal to it but for the
  /// layout, constraint and sched_seq, and over `placements` (null: new ones) made for one
  /// equal to it but for the constraint and sched_seq (the caller's promise: pricing::
  /// problem_key of both without the constraint are equal, without resp. with the layout).
  FixedSchemeEvaluator(const LayerProblem& problem, SharedSetups setups,
                       SharedPlacements placements);

  const LayerProblem& problem() const { return *p_; }
  const std::vector<mapping::PartitionScheme>& partitions() const;
  /// The index of `part` in partitions() (the first of equal ones), or nullopt; hashed.
  std::optional<std::size_t> index_of(const mapping::PartitionScheme& part) const;
  /// Whether no two of partitions() are equal.
  bool distinct_partitions() const;
  const PartitionSetup& setup(std::size_t part_index) const;
  /// The placement (computed on first use: only partitions with a valid scheme pay for it).
  const PartitionPlacement& placement(std::size_t part_index) const;
  /// The layer result of scheme `s` of partition `part_index`, or nullopt if it is invalid.
  std::optional<LayerSchedule> evaluate(std::size_t part_index, const FixedScheme& s) const;
  /// evaluate()'s total cost and time, or with `on_chip` those without the placement's NoC
  /// hops (unit hops 0), from inputs() (no layer result is built); nullopt if the scheme is
  /// invalid.
  std::optional<cost::CostTime> score(std::size_t part_index, const FixedScheme& s,
                                      bool on_chip) const;
  /// A lower bound of score(part_index, s, false), cheap: the same with the loop-blocking
  /// evaluation's buffer-sharing sweep left out (cost::evaluate_loop_blocking_unswept) and,
  /// with `on_chip`, without the placement's hops too. Its time is score()'s time and its
  /// cost is at most score()'s cost (every term left out is >= 0 and the sums round
  /// monotonically); nullopt exactly when score() is.
  std::optional<cost::CostTime> score_bound(std::size_t part_index, const FixedScheme& s,
                                            bool on_chip) const;
  /// score_bound with `fetch` in place of the scheme's fetch counts (its loop orders are not
  /// read; cost::evaluate_loop_blocking_at_fetch): where bound_grows_with_fetch(), at the least
  /// of several order pairs' counts it is at most score_bound of each pair, and nullopt only if
  /// every pair's is.
  std::optional<cost::CostTime> score_bound_at_fetch(std::size_t part_index, const FixedScheme& s,
                                                     const cost::FetchCounts& fetch,
                                                     bool on_chip) const;
  bool bound_grows_with_fetch() const { return cost::storage_fixed(p_->options); }
  /// The cost inputs of scheme `s` of partition `part_index` (evaluate()'s price is
  /// cost::cost_and_time of them with the placement's unit hops), or nullopt if the scheme is
  /// invalid; with `sweep` false, those of the evaluation without the buffer-sharing sweep.
  std::optional<cost::CostInputs> inputs(std::size_t part_index, const FixedScheme& s,
                                         bool sweep = true) const;

 private:
  cost::CostTime price(std::size_t part_index, const cost::CostInputs& in, bool on_chip) const;
  /// inputs() without its check of the top-level order; with `fetch`, those of the unswept
  /// evaluation at those fetch counts (the orders are not read).
  std::optional<cost::CostInputs> blocking_inputs(std::size_t part_index, const FixedScheme& s,
                                                  bool sweep, const cost::FetchCounts* fetch) const;
  static SharedPlacements new_placements(const LayerProblem& problem, std::size_t num_parts);
  const LayerProblem* p_;
  SharedSetups setups_;
  SharedPlacements placements_;
};

}  // namespace kapla::pricing
