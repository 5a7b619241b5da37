// What the directive searches (K, S) need from the rest of kapla for one layer under one
// scheduling condition: B's partitions, the map strategy's nested loops, capacities, and the
// ONE cost model's price of a canonical scheme. Implemented over cost/ and mapping/ by
// CostOracle (cost_oracle.hpp) and its memoising wrapper MemoOracle (memo_oracle.hpp); tests
// use small fakes. All queries are const and thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/phy_dim2.hpp"
#include "model/layer.hpp"
#include "model/options.hpp"
#include "search/kapla/canonical.hpp"

namespace kapla::search::kapla {

class BoundPricer;
class FitMemo;
struct LayoutFreeMemo;

/// The one cost model's verdict on a scheme (energy in the hardware's units, time in cycles).
struct Score {
  double energy = 0;
  double time = 0;
  friend bool operator==(const Score&, const Score&) = default;
};

/// Strict "better than" under a goal (nn_dataflow keys: e = (energy, time), d = (time,
/// energy), ed = energy*time then energy; score.cpp says why ed differs from model::goal_less).
/// Ties are not better: the first found wins.
bool better(const Score& a, const Score& b, model::Goal goal);

/// The goal's primary figure (energy, time or their product), for relative margins.
double goal_value(const Score& s, model::Goal goal);

/// The position of `part` in `parts` when it IS one of that vector's elements (the searches
/// pass partitions()[i] by reference), found without hashing or comparing it; else nullopt.
inline std::optional<std::size_t> element_index(const std::vector<mapping::PartitionScheme>& parts,
                                                const mapping::PartitionScheme& part) {
  const std::less<const mapping::PartitionScheme*> before;  // a total order on any pointers
  if (before(&part, parts.data()) || !before(&part, parts.data() + parts.size()))
    return std::nullopt;
  return static_cast<std::size_t>(&part - parts.data());
}

/// Which of a layer's data live on chip rather than in DRAM: the ifmaps it reads from, and
/// the ofmaps it writes to, a processing region (a pipelined segment's). The cost model lets
/// such data cross the top level once only (cost::on_chip_refetch).
struct OnChipData {
  bool ifmaps = false;
  bool ofmaps = false;
};

/// A partition's nests (LayerOracle::nests).
using NestList = std::shared_ptr<const std::vector<NodeNest>>;

class LayerOracle {
 public:
  virtual ~LayerOracle() = default;
  virtual const model::Layer& layer() const = 0;
  virtual std::int64_t batch() const = 0;
  virtual PhyDim2 node_dims() const = 0;
  /// Top-level factors required by the scheduling constraint (0 = free), per loop.
  virtual PerLoopDim<std::int64_t> top_constraint() const = 0;
  /// Whether a loop free of the constraint may be blocked with a smaller last block
  /// (imperfect: full, docs/imperfect.md); the cost model prices such covers only then.
  /// Pure: a wrapper that forgot to forward it would search the exact space silently.
  virtual bool remainders() const = 0;
  /// Where the layer's data live (OnChipData). Pure, as remainders(): a wrapper that forgot to
  /// forward it would make the enumerator try top levels the cost model then rejects.
  virtual OnChipData on_chip_data() const = 0;
  /// Every partition B's generator yields for this layer, in its order (never empty).
  virtual const std::vector<mapping::PartitionScheme>& partitions() const = 0;
  /// Indexes into partitions() of those nearest to a wanted node stacking (the greedy's step
  /// 5, detail::snap_partitions); a wrapper may remember them.
  virtual std::vector<std::size_t> nearest_partitions(const PerParallelDim<PhyDim2>& want) const;
  /// The map strategy's nested-loop descriptions of the layer partitioned by `part` (never
  /// null), shared: a memo hands the same list to every fit instead of copying it.
  virtual NestList nests(const mapping::PartitionScheme& part) const = 0;
  /// Capacities (and buffer-sharing group sizes) for nest `nest_index` under `part`.
  virtual Capacity capacity(const mapping::PartitionScheme& part, int nest_index) const = 0;
  /// nn_dataflow's analytical bypass solver (§7.8) on nest `nest_index` under `part`: one
  /// blocking per category that resides in GBUF while the others bypass it, where the options
  /// allow it and the nest has conv loops; none otherwise. Seeds for K's blocking steps.
  virtual std::vector<Blocking> bypass_blockings(const mapping::PartitionScheme& /*part*/,
                                                 int /*nest_index*/) const {
    return {};
  }
  /// The one cost model's price; nullopt if the scheme is invalid (capacity, constraint,
  /// on-chip spilling).
  virtual std::optional<Score> evaluate(const CanonicalScheme& s) const = 0;
  /// This oracle's cheap lower bound, if it offers one (bound_pricer.hpp), found without a
  /// dynamic_cast: K asks for it in every pick it makes.
  virtual const BoundPricer* bound_pricer() const { return nullptr; }
  /// Where K's fits on this oracle may be remembered (a layer search's MemoOracle); null: they
  /// are made every time.
  virtual const FitMemo* fit_memo() const { return nullptr; }
  /// Where K's steps that do not read the ifmap layout may be remembered for every search of
  /// the layer (layout_free_memo.hpp); null: they are made every time.
  virtual const LayoutFreeMemo* layout_free_memo() const { return nullptr; }
};

}  // namespace kapla::search::kapla
