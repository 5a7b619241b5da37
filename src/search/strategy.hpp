// The per-layer search interface every strategy implements, and the registry of strategies
// (house-style §3.4, §3.12). A strategy schedules ONE layer under one condition (the reference's
// SchedulingCondition: resource, constraint, ifmap layout); the network-level search
// (schedule/network_search.hpp) calls it for every layer of every segment.
// Strategy names: exhaustive (B), directive-exhaustive (S), random (R), guided (M), kapla (K).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <string_view>
#include <vector>

#include "core/enum_array.hpp"
#include "search/anytime_curve.hpp"
#include "cost/loop_blocking.hpp"
#include "cost/loop_blocking_search.hpp"
#include "mapping/data_layout.hpp"
#include "mapping/partition_scheme.hpp"
#include "mapping/resource.hpp"
#include "model/hardware.hpp"
#include "model/layer.hpp"
#include "model/options.hpp"

namespace kapla::search {

/// Constraint on the top-level (DRAM-level) blocking of a layer (nn_dataflow
/// SchedulingConstraintLayerPipeline after its lazy rules are applied); 0 = unconstrained.
/// fbifm/fbofm (fully buffered fmaps) imply topifm/topofm == 1. Spec: nn_dataflow-spec.md §9.3.
struct LayerConstraint {
  std::int64_t topbat = 0;
  std::int64_t topifm = 0;
  std::int64_t topofm = 0;
  bool fbifm = false;
  bool fbofm = false;
  /// The factors the loop-blocking search enforces (fbifm/fbofm folded in).
  cost::TopBlockingConstraint top_blocking() const {
    return {topbat, fbifm ? 1 : topifm, fbofm ? 1 : topofm};
  }
  /// nn_dataflow is_valid_top_bl (cost::TopBlockingConstraint's rule on top_blocking()).
  bool is_valid_top_bl(const PerLoopDim<std::int64_t>& top_t, const PerLoopDim<int>& top_ord) const {
    return top_blocking().is_valid_top_bl(top_t, top_ord);
  }
  friend bool operator==(const LayerConstraint&, const LayerConstraint&) = default;
};

/// Everything one per-layer search needs (nn_dataflow Scheduling + SchedulingCondition).
struct LayerProblem {
  model::Layer layer;
  std::int64_t batch = 1;
  mapping::Resource resource;
  LayerConstraint constraint;
  mapping::DataLayout ifmap_layout;
  /// (segment, spatial, temporal) index; copied into results only.
  std::array<int, 3> sched_seq{0, 0, 0};
  model::UnitCosts costs;
  model::SearchOptions options;
};

/// One scheduled layer (nn_dataflow SchedulingResult): the figures the network search and
/// the reports need, the chosen scheme, and where the ofmaps end up.
struct LayerSchedule {
  // Cost parts (§3.2) and time (§3.3).
  double cost = 0;
  double cost_op = 0;
  double cost_access = 0;
  double cost_noc = 0;
  double cost_static = 0;
  double time = 0;
  double proc_time = 0;
  double bus_time = 0;
  double dram_time = 0;
  double ops = 0;
  std::int64_t num_nodes = 0;
  std::array<bool, 2> is_dram{true, true};  // ifmaps from / ofmaps to DRAM
  PerMemLevel<PerDataCategory<double>> access{};
  PerDataCategory<double> remote_gbuf_access{};
  PerDataCategory<double> total_nhops{};
  PerDataCategory<double> mem_nhops{};
  PerDataCategory<double> node_nhops{};
  PerDataCategory<double> unit_nhops{};
  std::array<PerDataCategory<double>, 2> fetch{};
  // The scheme.
  mapping::PartitionScheme part;
  int nld_index = 0;
  std::array<PerLoopDim<std::int64_t>, 3> tvals{};  // blocking factors per level
  std::array<PerLoopDim<int>, 2> orders{};          // loop orders (final), 0 = innermost
  // Placement.
  mapping::DataLayout ofmap_layout;
  std::array<int, 3> sched_seq{0, 0, 0};
  /// The evaluated loop-blocking scheme behind these figures (sizes, unit counts, buffer
  /// sharing), when the strategy has one.
  std::shared_ptr<const cost::LoopBlockingEval> detail;

  double node_time() const { return proc_time > bus_time ? proc_time : bus_time; }
  /// Σ_d access[m][d], with the remote GBUF accesses added to GBUF.
  PerMemLevel<double> total_accesses() const;
  double total_noc_hops() const;
};

/// Comparison key of the goal (§3.5): e (cost, time), d (time, cost), ed cost*time.
bool goal_less(const LayerSchedule& a, const LayerSchedule& b, model::Goal goal);

/// A caller-owned memo that strategies may use to share intermediate results between calls
/// whose problems differ only in what the intermediate does not depend on (e.g. B's per-node
/// loop-blocking tops do not depend on the ifmap layout, as the reference's
/// schedule_search_per_node memo). Thread-safe; no numeric effect.
class SearchMemo {
 public:
  std::shared_ptr<const void> find(const std::string& key) const;
  void put(const std::string& key, std::shared_ptr<const void> value);
  std::size_t hits() const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const void>> map_;
  mutable std::size_t hits_ = 0;
};

/// What one search() call did, written by the strategy into SearchContext::stats (a per-call
/// sink owned by the caller: no sharing, no locking). Strategies that run threads inside a call
/// merge their counts before writing, so the figures do not depend on the thread count.
struct LayerSearchStats {
  bool reported = false;        // the strategy filled this in
  std::int64_t evaluated = 0;   // cost-model evaluations (valid and invalid)
  std::int64_t valid = -1;      // valid evaluations; -1 = not counted by the strategy
  double seconds = 0;           // wall time of the call (run-dependent)
  AnytimeCurve curve;           // best-so-far curve (R, M); empty otherwise
};

/// Run-time settings of a search call (nothing global).
struct SearchContext {
  int num_threads = 1;
  SearchMemo* memo = nullptr;        // optional
  LayerSearchStats* stats = nullptr;  // optional per-call statistics sink
  /// Optional cooperative stop (a tuple time limit, a signal). Long searches poll it at cheap
  /// points (B: per loop-blocking work item; S: per partition; R, M: per evaluation) and, once
  /// it is true, return at once with whatever they have; the caller discards that result.
  /// Thread-safe and monotonic: once true, it stays true.
  const std::function<bool()>* stop = nullptr;
  bool stop_requested() const { return stop != nullptr && (*stop)(); }
};

/// A canonical text key of a problem: every input, except the ifmap layout unless
/// `with_layout`, and never sched_seq (copied into results only).
std::string problem_key(const LayerProblem& p, bool with_layout);

/// One pipelining segment offered to LayerStrategy::select_segments, on plain values (search
/// does not know schedule::PipelineSegment). Layers in the segment's (spatial, temporal) order.
struct SegmentCandidate {
  std::size_t first = 0;  // positions of its first and last layer in the scheduling order
  std::size_t last = 0;
  /// Each layer on its allocated resource (batch, costs, options set; constraint unset).
  std::vector<LayerProblem> layers;
  /// The segment's constraints in generation order, one LayerConstraint per layer (a topofm
  /// taken lazily from another layer's result is 0 = unconstrained).
  std::vector<std::vector<LayerConstraint>> constraints;
  bool single_layer() const { return layers.size() == 1; }
};

/// A per-layer strategy: configured at construction, no live state, one instance serves
/// every layer and thread.
class LayerStrategy {
 public:
  virtual ~LayerStrategy() = default;
  virtual std::string_view name() const = 0;
  virtual char label() const = 0;
  /// The best options.ntops schedules, best first (fewer if fewer are valid; empty = nothing
  /// fits). Deterministic whatever ctx.num_threads is.
  virtual std::vector<LayerSchedule> search(const LayerProblem& problem,
                                            const SearchContext& ctx) const = 0;
  /// Optional: precompute into ctx.memo what search() will need for this problem and does
  /// not depend on its ifmap layout, so callers can prepare many layers in parallel. The
  /// default does nothing. Must not change what search() returns.
  virtual void prepare(const LayerProblem& /*problem*/, const SearchContext& /*ctx*/) const {}
  /// prepare() for many problems, using ctx.num_threads across all of them. The default
  /// prepares them one after another.
  virtual void prepare_many(const std::vector<LayerProblem>& problems,
                            const SearchContext& ctx) const {
    for (const auto& p : problems) prepare(p, ctx);
  }
  /// Optional inter-layer pruning (K: kapla-spec.md §4.2). Whether the strategy wants the
  /// network search to drop (segment, constraint) pairs by constraint_may_fit().
  virtual bool prunes_constraints() const { return false; }
  /// Conservative: false only if problem.layer certainly cannot fit on problem.resource under
  /// problem.constraint (so search() would find nothing). Ignores the ifmap layout. Default true.
  virtual bool constraint_may_fit(const LayerProblem& /*problem*/) const { return true; }
  /// Optional segment selection (K: kapla-spec.md §4.3): a keep-flag per segment of a network
  /// whose scheduling order has `num_layers` layers. Must keep enough segments to cover the
  /// network (K keeps every single-layer one) and be deterministic. Default: keep all.
  virtual std::vector<bool> select_segments(const std::vector<SegmentCandidate>& segments,
                                            std::size_t /*num_layers*/) const {
    return std::vector<bool>(segments.size(), true);
  }
  /// Whether the network search should skip a segment's constraints whose hints dominate
  /// those of one that already succeeded (K: the hint frontier of kapla-spec.md §4.4).
  virtual bool uses_constraint_frontier() const { return false; }
};

/// Registry entry.
struct StrategyInfo {
  std::string_view name;
  char label;
  std::string_view description;
  bool available;  // implemented in this build
};

/// All strategies, in table order (B, S, R, M, K).
const std::vector<StrategyInfo>& strategies();
/// The canonical name of a strategy given its name or letter (case-insensitive letter);
/// InputError listing the known names otherwise.
std::string_view canonical_strategy_name(std::string_view name_or_label);
/// A per-layer strategy by name or letter; InputError for unknown or unavailable ones.
/// Default options (seed 1, default budgets).
std::unique_ptr<LayerStrategy> make_layer_strategy(std::string_view name_or_label);

struct StrategyOptions;  // search/strategy_options.hpp
/// The same with options (seed and per-strategy knobs; validated, InputError naming the
/// field). Each strategy reads only its own part.
std::unique_ptr<LayerStrategy> make_layer_strategy(std::string_view name_or_label,
                                                   const StrategyOptions& options);

}  // namespace kapla::search
