// A layer oracle that remembers the one cost model's verdicts for the length of one layer
// search: K's greedy reaches the same canonical scheme from many order pairs and snaps, and
// its descents revisit neighbours; each distinct scheme is priced once. Thread-safe; the
// answers are the wrapped oracle's, so results do not depend on which thread priced first.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "core/flat_map.hpp"
#include "search/kapla/bound_pricer.hpp"
#include "search/kapla/fit_memo.hpp"
#include "search/kapla/forwarding_oracle.hpp"
#include "search/kapla/layer_oracle.hpp"
#include "search/kapla/on_chip_pricer.hpp"

namespace kapla::search::kapla {

class MemoOracle final : public ForwardingOracle, public OnChipPricer, public BoundPricer {
 public:
  /// How capacity() reports GBUF storage: as the wrapped oracle does (the cost model's rule),
  /// or as if no category could bypass GBUF (K's second fill, layer_solver.cpp).
  enum class Storage : std::uint8_t { AsInner, AllInGbuf };
  explicit MemoOracle(const LayerOracle& inner, Storage storage = Storage::AsInner)
      : ForwardingOracle(inner),
        on_chip_(dynamic_cast<const OnChipPricer*>(&inner)),
        bounds_(inner.bound_pricer()),
        storage_(storage),
        nests_at_(inner.partitions().size()) {}
  /// The wrapped oracle's (CostOracle remembers them for every search of the layer).
  std::vector<std::size_t> nearest_partitions(const PerParallelDim<PhyDim2>& want) const override {
    return inner().nearest_partitions(want);
  }
  /// The wrapped oracle's nests, remembered per partition (every fit asks for them).
  NestList nests(const mapping::PartitionScheme& part) const override;
  Capacity capacity(const mapping::PartitionScheme& part, int nest_index) const override {
    auto c = inner().capacity(part, nest_index);
    if (storage_ == Storage::AllInGbuf) c.always_in_gbuf = {{true, true, true}};
    return c;
  }
  std::vector<Blocking> bypass_blockings(const mapping::PartitionScheme& part,
                                         int nest_index) const override {
    return inner().bypass_blockings(part, nest_index);
  }
  std::optional<Score> evaluate(const CanonicalScheme& s) const override;
  /// The wrapped oracle's on-chip price (remembered by price_key_of), or its full price when it
  /// has none.
  std::optional<Score> evaluate_on_chip(const CanonicalScheme& s) const override;
  /// The wrapped oracle's lower bound, remembered by price_key_of (the steps ask again for
  /// most of theirs: on ViT-B/16 at cloud 64, 213 k of 583 k requests reach the cost model,
  /// 514 k when only the exact on-chip prices answered); the price itself once the scheme
  /// has been priced (its own tightest bound: on chip, the on-chip price) or when the wrapped
  /// oracle offers none.
  std::optional<Score> evaluate_bound(const CanonicalScheme& s, bool on_chip) const override;
  std::optional<Score> evaluate_bound_at_fetch(const CanonicalScheme& s,
                                               const cost::FetchCounts& fetch,
                                               bool on_chip) const override;
  /// Only over a wrapped oracle with a bound (without one, evaluate_bound is the price).
  bool bound_grows_with_fetch() const override {
    return bounds_ != nullptr && bounds_->bound_grows_with_fetch();
  }
  const BoundPricer* bound_pricer() const override { return this; }
  /// K's fits on this oracle, remembered for its lifetime (its capacities are fixed).
  const FitMemo* fit_memo() const override { return &fits_; }
  /// The wrapped oracle's, when capacity() is its own (the remembered steps fit with it).
  const LayoutFreeMemo* layout_free_memo() const override {
    return storage_ == Storage::AsInner ? inner().layout_free_memo() : nullptr;
  }
  /// Distinct schemes priced so far.
  std::size_t priced() const;
  /// The valid schemes priced so far, with their scores (in no particular order).
  std::vector<std::pair<CanonicalScheme, Score>> valid_priced() const;
  /// Distinct partitions priced so far (each costs the cost model one NoC placement).
  std::size_t partitions_priced() const;

  /// A scheme as a flat key: partition order and sizes, nest, factors, orders.
  using Key = std::array<std::int64_t, 28>;
  static Key key_of(const CanonicalScheme& s);
  /// key_of with each level's order in canonical_order's form: what the prices read. The cost
  /// model reads a level's order only through its loops of trip count > 1 (the fetch counts'
  /// innermost non-trivial loop and the unrelated loops outside it, whose trivial factors
  /// multiply by 1; the buffer-sharing sweep's fixed and free loops; the constraint's
  /// is_valid_top_bl), so schemes with equal keys have equal prices and bounds.
  static Key price_key_of(const CanonicalScheme& s);

 private:
  using PartKey = std::array<std::int64_t, 12>;  // mapping::PartitionScheme::flat_key
  const OnChipPricer* on_chip_;                  // null if the wrapped oracle has no on-chip price
  const BoundPricer* bounds_;                    // null if the wrapped oracle has no lower bound
  Storage storage_;
  mutable std::mutex mu_;
  struct Priced {
    CanonicalScheme scheme;
    std::optional<Score> score;
  };
  // The full prices by key_of, not price_key_of: valid_priced() (the runners-up) and priced()
  // list every scheme priced, whatever its trivial loops' order.
  mutable FlatMap<Key, Priced> seen_;
  mutable FlatMap<PartKey, bool> parts_;
  // By price_key_of: the on-chip prices, and the bounds on chip and in full.
  mutable FlatMap<Key, std::optional<Score>> on_chip_seen_;
  mutable FlatMap<Key, std::optional<Score>> on_chip_bounds_;
  mutable FlatMap<Key, std::optional<Score>> bounds_seen_;
  mutable FlatMap<PartKey, NestList> nests_;
  mutable std::vector<NestList> nests_at_;  // per position in partitions(), for its elements
  FitMemo fits_;
};

}  // namespace kapla::search::kapla
