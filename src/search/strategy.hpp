// The per-layer search interface every strategy implements (house-style §3.4, §3.12; the
// registry of strategies is strategy_registry.hpp). A strategy schedules ONE layer under one
// condition (the reference's SchedulingCondition: resource, constraint, ifmap layout); the
// network-level search (schedule/network_search.hpp) calls it for every layer of every segment.
// Strategy names: exhaustive (B), directive-exhaustive (S), random (R), guided (M), kapla (K).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/scoped_keys.hpp"
#include "pricing/layer_problem.hpp"
#include "pricing/layer_schedule.hpp"
#include "search/anytime_curve.hpp"
#include "search/inter_layer_pruning.hpp"
#include "search/strategy_registry.hpp"

namespace kapla::search {

/// A caller-owned memo that strategies may use to share intermediate results between calls
/// whose problems differ only in what the intermediate does not depend on (e.g. B's per-node
/// loop-blocking tops do not depend on the ifmap layout, as the reference's
/// schedule_search_per_node memo). Thread-safe; no numeric effect.
///
/// An entry may name its scope (pricing::layer_scope of its problem): the caller releases a
/// scope once no later call asks for problems of that layer shape, so a network search holds
/// the entries of the layers in flight only (ResNet-50 inference on cloud with K: 919 MiB at
/// the peak when every entry was kept). A released key asked for again is made again.
class SearchMemo {
 public:
  std::shared_ptr<const void> find(const std::string& key) const;
  void put(const std::string& key, std::shared_ptr<const void> value,
           const std::string& scope = {});
  /// The value under key, else make()'s, kept unless null (a stopped search's partial
  /// answer). Concurrent requests for one key wait for the one making it, so every request
  /// after the first finds the value (a hit) whatever the thread timing.
  std::shared_ptr<const void> get_or_make(const std::string& key,
                                          const std::function<std::shared_ptr<const void>()>& make,
                                          const std::string& scope = {});
  /// Drops the entries made under `scope` (values still held by callers live on with them).
  void release(const std::string& scope);
  std::size_t hits() const;

 private:
  struct Slot {
    std::mutex mu;  // held while the value is made
    std::shared_ptr<const void> value;
  };
  std::shared_ptr<Slot> find_slot(const std::string& key) const;                 // null if none
  std::shared_ptr<Slot> slot(const std::string& key, const std::string& scope);  // made if none
  std::shared_ptr<const void> take(Slot& s) const;  // the value, counting a hit; s.mu held

  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, std::shared_ptr<Slot>> slots_;
  ScopedKeys scoped_;
  mutable std::size_t hits_ = 0;
};

/// What one search() call did, written by the strategy into SearchContext::stats (a per-call
/// sink owned by the caller: no sharing, no locking). Strategies that run threads inside a call
/// merge their counts before writing, so the figures do not depend on the thread count.
struct LayerSearchStats {
  bool reported = false;       // the strategy filled this in
  std::int64_t evaluated = 0;  // cost-model evaluations (valid and invalid)
  std::int64_t valid = -1;     // valid evaluations; -1 = not counted by the strategy
  double seconds = 0;          // wall time of the call (run-dependent)
  AnytimeCurve curve;          // best-so-far curve (R, M); empty otherwise
};

/// Run-time settings of a search call (nothing global).
struct SearchContext {
  int num_threads = 1;
  SearchMemo* memo = nullptr;         // optional
  LayerSearchStats* stats = nullptr;  // optional per-call statistics sink
  /// Optional cooperative stop (a tuple time limit, a signal). Long searches poll it at cheap
  /// points (B: per loop-blocking work item; S: per partition; R, M: per evaluation) and, once
  /// it is true, return at once with whatever they have; the caller discards that result.
  /// Thread-safe and monotonic: once true, it stays true.
  const std::function<bool()>* stop = nullptr;
  bool stop_requested() const { return stop != nullptr && (*stop)(); }
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
  virtual std::vector<pricing::LayerSchedule> search(const pricing::LayerProblem& problem,
                                                     const SearchContext& ctx) const = 0;
  /// Optional: precompute into ctx.memo what search() will need for this problem and does
  /// not depend on its ifmap layout, so callers can prepare many layers in parallel. The
  /// default does nothing. Must not change what search() returns.
  virtual void prepare(const pricing::LayerProblem& /*problem*/,
                       const SearchContext& /*ctx*/) const {}
  /// prepare() for many problems, using ctx.num_threads across all of them. The default
  /// prepares them one after another.
  virtual void prepare_many(const std::vector<pricing::LayerProblem>& problems,
                            const SearchContext& ctx) const {
    for (const auto& p : problems) prepare(p, ctx);
  }
  /// Optional: how the network run may prune segments and constraints before searching
  /// (K's §4.2-4.4); the default prunes nothing. The result may refer to this strategy.
  virtual InterLayerPruning inter_layer_pruning() const { return {}; }
  /// Optional: true if search() returns nothing only when no valid schedule exists for the
  /// problem whatever its ifmap layout (the layout prices NoC hops, never validity), so the
  /// network search's branch and bound may skip a pair with a layer already found empty under
  /// the same conditions. The default (false) suits searches that may miss a valid schedule.
  virtual bool empty_means_infeasible() const { return false; }
};

}  // namespace kapla::search
