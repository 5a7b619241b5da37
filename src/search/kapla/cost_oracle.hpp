// The layer oracle over the one cost model (layer_oracle.hpp): B's partition generator, the
// Eyeriss map strategy, the loop-blocking evaluation and the layer result, for one
// pricing::LayerProblem, all through the one fixed-scheme evaluator (pricing/fixed_scheme.hpp),
// which computes what depends only on the partition once per partition of B's list, on first use.
#pragma once

#include <array>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/words_hash.hpp"
#include "cost/map_strategy.hpp"
#include "pricing/fixed_scheme.hpp"
#include "search/kapla/bound_pricer.hpp"
#include "search/kapla/layer_oracle.hpp"
#include "search/kapla/on_chip_pricer.hpp"
#include "search/strategy.hpp"

namespace kapla::search::kapla {

class CostOracle final : public LayerOracle, public OnChipPricer, public BoundPricer {
 public:
  explicit CostOracle(const pricing::LayerProblem& problem);
  /// The same over partition setups (mapping, buffer sharing, remembered scores) shared with
  /// the oracles of problems that differ from this one only in the layout, constraint and
  /// sched_seq, and placements shared with those that differ only in the constraint and
  /// sched_seq (null: its own); neither enters them (pricing::FixedSchemeEvaluator).
  CostOracle(const pricing::LayerProblem& problem,
             pricing::FixedSchemeEvaluator::SharedSetups setups,
             pricing::FixedSchemeEvaluator::SharedPlacements placements);
  /// What K derives from the partitions, made on first use: each partition's nests and the
  /// partitions nearest to a wanted node stacking. Oracles over the same setups may share it
  /// (K's searches of one layer under its many constraints and layouts ask for the same ones).
  struct Derived;
  using SharedDerived = std::shared_ptr<Derived>;
  CostOracle(const pricing::LayerProblem& problem,
             pricing::FixedSchemeEvaluator::SharedSetups setups,
             pricing::FixedSchemeEvaluator::SharedPlacements placements, SharedDerived derived);
  /// What such oracles may share.
  pricing::FixedSchemeEvaluator::SharedSetups shared_setups() const {
    return eval_.shared_setups();
  }
  pricing::FixedSchemeEvaluator::SharedPlacements shared_placements() const {
    return eval_.shared_placements();
  }
  SharedDerived shared_derived() const { return derived_; }

  const model::Layer& layer() const override { return eval_.problem().layer; }
  std::int64_t batch() const override { return eval_.problem().batch; }
  PhyDim2 node_dims() const override { return eval_.problem().resource.proc_region.dim; }
  PerLoopDim<std::int64_t> top_constraint() const override;
  bool remainders() const override {
    return eval_.problem().options.imperfect == model::Imperfect::Full;
  }
  OnChipData on_chip_data() const override {
    const auto& r = eval_.problem().resource;
    return {r.src_data_region.type != mapping::RegionType::Dram,
            r.dst_data_region.type != mapping::RegionType::Dram};
  }
  const std::vector<mapping::PartitionScheme>& partitions() const override {
    return eval_.partitions();
  }
  std::vector<std::size_t> nearest_partitions(const PerParallelDim<PhyDim2>& want) const override;
  NestList nests(const mapping::PartitionScheme& part) const override;
  Capacity capacity(const mapping::PartitionScheme& part, int nest_index) const override;
  std::vector<Blocking> bypass_blockings(const mapping::PartitionScheme& part,
                                         int nest_index) const override;
  std::optional<Score> evaluate(const CanonicalScheme& s) const override;
  std::optional<Score> evaluate_on_chip(const CanonicalScheme& s) const override;
  std::optional<Score> evaluate_bound(const CanonicalScheme& s, bool on_chip) const override;
  std::optional<Score> evaluate_bound_at_fetch(const CanonicalScheme& s,
                                               const cost::FetchCounts& fetch,
                                               bool on_chip) const override;
  bool bound_grows_with_fetch() const override { return eval_.bound_grows_with_fetch(); }
  const BoundPricer* bound_pricer() const override { return this; }
  /// In what the oracles over the same Derived share.
  const LayoutFreeMemo* layout_free_memo() const override;

  /// The full layer result of a canonical scheme (what the strategy returns).
  std::optional<pricing::LayerSchedule> schedule(const CanonicalScheme& s) const;
  /// The map strategy's nested loops of the layer under `part`.
  cost::MapResult map(const mapping::PartitionScheme& part) const;

 private:
  std::optional<Score> score(const CanonicalScheme& s, bool on_chip) const;
  /// Index of `part` in B's list: K asks for every priced scheme, so it is hashed, not scanned.
  std::optional<std::size_t> index_of(const mapping::PartitionScheme& part) const;

  pricing::FixedSchemeEvaluator eval_;
  bool distinct_parts_ = false;  // no two partitions of B's list are equal
  SharedDerived derived_;
};

/// A cost-model nested loop as the greedy sees it.
NodeNest node_nest(const cost::NestedLoopDesc& nld, const model::Layer& p_layer);

}  // namespace kapla::search::kapla
