// One layer's scheme space as a compact, indexable value: partition x nested-loop description
// (NLD) x 3-level blocking factors per loop x loop-order pair, the space strategy B enumerates
// (nn_dataflow-spec.md §7.1, §8.2, §9.2), with uniform sampling and neighbour moves for the
// sampling strategies R (random_sampling.hpp) and M (guided.hpp). The space is built from the
// shared enumerators (mapping::gen_partition, the array mapping's NLDs via
// pricing::setup_partition, kapla::factorize); this file only indexes and walks it. Seeds and the
// portable RNG used by R and M live here too.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "core/enum_array.hpp"
#include "cost/nested_loop_desc.hpp"
#include "mapping/partition_scheme.hpp"
#include "search/strategy.hpp"

namespace kapla::search {

// ---- Seeds and random numbers ------------------------------------------------------------

/// splitmix64 finaliser (Steele, Lea, Flood 2014): a bijection on 64-bit words with good
/// avalanche; the building block of every seed derivation below.
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/// The documented seed-mixing function: mix_seed(a, b) = splitmix64(splitmix64(a) ^ b).
/// Per-layer seed = mix_seed(run seed, layer key); per-stream seed = mix_seed(layer seed, i).
constexpr std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b) {
  return splitmix64(splitmix64(a) ^ b);
}

/// A stable 64-bit key of a layer problem's content (layer, batch, processing region,
/// constraint, source/destination kinds); used as the "layer index" when mixing seeds, so
/// the same problem gets the same random stream whatever order the network search visits it.
std::uint64_t problem_key(const pricing::LayerProblem& problem);

/// xoshiro256** (Blackman, Vigna 2018) with portable integer and real draws: results do not
/// depend on the standard library's distributions.
class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next();
  /// Uniform in [0, n) (n > 0), unbiased (rejection).
  std::uint64_t uniform(std::uint64_t n);
  /// Uniform in [0, 1), 53 bits.
  double uniform01();

 private:
  std::array<std::uint64_t, 4> s_{};
};

// ---- Points ----------------------------------------------------------------------------

/// One point of the space: indexes of the partition and of the NLD (in the map strategy's
/// order for that partition), blocking factors bl_ts[level][loop] (level 0 = DRAM/top,
/// 1 = GBUF, 2 = REGF; product over levels = NLD loop count, or with imperfect: full a cover
/// with a remainder, cost::blocks_cover) and the loop positions
/// bl_ords[level][loop] at levels 0 and 1 (0 = innermost).
struct SchemePoint {
  int part_index = 0;
  int nld_index = 0;
  std::array<PerLoopDim<std::int64_t>, 3> bl_ts{};
  std::array<PerLoopDim<int>, 2> bl_ords{};
  friend bool operator==(const SchemePoint&, const SchemePoint&) = default;
};

/// The 6 permutations of (0,1,2) in lexicographic order (itertools.permutations).
const std::array<PerLoopDim<int>, 6>& loop_permutations();

/// Relative weights of the neighbour move kinds (a kind that cannot apply is skipped).
struct NeighbourWeights {
  double blocking = 6;   // move one prime factor of one loop between two levels
  double order = 2;      // swap two loops' positions at level 0 or 1
  double nld = 1;        // another NLD of the same partition (blocking projected)
  double partition = 1;  // another partition (NLD index kept if possible, blocking projected)
  friend bool operator==(const NeighbourWeights&, const NeighbourWeights&) = default;
};

// ---- The space ---------------------------------------------------------------------------

/// Loop counts of each NLD of each partition: the only structure the indexing needs.
using SpaceShape = std::vector<std::vector<PerLoopDim<std::int64_t>>>;

class SchemeSpace {
 public:
  /// A space over an explicit shape (tests, toy spaces). `top` fixes the level-0 factor of a
  /// loop when non-zero (the scheduling constraint's topifm/topofm/topbat). `remainders`
  /// (imperfect: full) adds B's blockings with a remainder (cost::loop_blockings3) after the
  /// exact factors of every unconstrained loop.
  explicit SchemeSpace(SpaceShape shape, PerLoopDim<std::int64_t> top = {},
                       bool remainders = false);

  /// The space strategy B searches for `problem` (gen_partition x the array mapping's NLDs x
  /// factorize x 36 order pairs; with imperfect: full the blockings with a remainder too), with
  /// the NLDs and partitions kept for evaluation.
  static SchemeSpace of_problem(const pricing::LayerProblem& problem);

  /// Number of points (every combination; 0 if nothing can be built).
  std::uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  /// The point of a flat index in [0, size()): partitions in order, NLDs in order, then
  /// factor tuples of IFM, OFM, BAT (factorize order), then order pairs (permutations^2).
  SchemePoint at(std::uint64_t index) const;
  /// Inverse of at(); nullopt if the point is not in the space.
  std::optional<std::uint64_t> index_of(const SchemePoint& p) const;
  bool contains(const SchemePoint& p) const { return index_of(p).has_value(); }

  /// A uniformly random point (every point equally likely).
  SchemePoint sample(Rng& rng) const;
  /// A random neighbour of `p` (one local move), always in the space; equals `p` only when
  /// the space has no other point reachable by the enabled moves.
  SchemePoint neighbour(const SchemePoint& p, Rng& rng, const NeighbourWeights& w = {}) const;

  // Structure.
  int num_partitions() const { return static_cast<int>(shape_.size()); }
  int num_nlds(int part) const { return static_cast<int>(shape_[part].size()); }
  const PerLoopDim<std::int64_t>& loopcnt(int part, int nld) const { return shape_[part][nld]; }
  const PerLoopDim<std::int64_t>& top() const { return top_; }
  /// The partitions and NLDs of of_problem() (empty for explicit shapes).
  const std::vector<mapping::PartitionScheme>& partitions() const { return parts_; }
  const cost::NestedLoopDesc& nld(int part, int nld) const { return nlds_[part][nld]; }
  bool has_nlds() const { return !nlds_.empty(); }

 private:
  struct Nest {
    int part = 0;
    int nld = 0;
    std::uint64_t first = 0;    // flat index of its first point
    PerLoopDim<int> factors{};  // ids into factor_lists_
    std::uint64_t count = 0;
  };
  int factor_list_id(LoopDim l, std::int64_t n);
  const std::vector<std::array<std::int64_t, 3>>& factors(const Nest& n, LoopDim l) const {
    return factor_lists_[n.factors[l]];
  }
  void build();
  std::optional<int> nest_of(int part, int nld) const;
  SchemePoint with_nest(const SchemePoint& p, int part, int nld) const;
  bool move_factor(SchemePoint& p, Rng& rng) const;
  bool move_block(SchemePoint& p, Rng& rng) const;

  // Description.
  SpaceShape shape_;
  PerLoopDim<std::int64_t> top_{};
  bool remainders_ = false;
  std::vector<mapping::PartitionScheme> parts_;
  std::vector<std::vector<cost::NestedLoopDesc>> nlds_;
  // Index.
  std::vector<std::vector<std::array<std::int64_t, 3>>> factor_lists_;
  std::vector<std::pair<int, std::int64_t>> factor_keys_;  // (loop, count) of each list
  std::vector<Nest> nests_;                                // non-empty nests in flat order
  std::vector<std::vector<int>> nest_slot_;                // [part][nld] -> index into nests_ or -1
  std::uint64_t size_ = 0;
};

// ---- Evaluation --------------------------------------------------------------------------

/// Prices one point with the one cost model: the layer schedule, or nullopt if the scheme is
/// invalid (capacity, constraint, on-chip spilling). Must be thread-safe (called from OpenMP).
using SchemeEvaluator = std::function<std::optional<pricing::LayerSchedule>(const SchemePoint&)>;

/// The scalar the explorers anneal: e -> cost, d -> time, ed -> cost * time.
double goal_scalar(const pricing::LayerSchedule& s, model::Goal goal);

/// The one cost model's evaluator for a space built by SchemeSpace::of_problem(problem)
/// (B's pricing of a fixed scheme: loop blocking + NoC hops + the layer's cost parts). The
/// space must outlive the evaluator.
SchemeEvaluator cost_model_evaluator(const pricing::LayerProblem& problem,
                                     const SchemeSpace& space);

/// evaluate(points[i]) for every i, with up to num_threads OpenMP threads; out[i] belongs to
/// points[i] whatever the threads do. An exception from any evaluation is rethrown.
std::vector<std::optional<pricing::LayerSchedule>> evaluate_batch(
    const std::vector<SchemePoint>& points, const SchemeEvaluator& evaluate, int num_threads);

/// The best `k` distinct points seen so far, best first by goal_less; on equal keys the point
/// offered first stays ahead (B's first-generated tie-break).
class TopSchedules {
 public:
  TopSchedules(int k, model::Goal goal) : k_(k < 1 ? 1 : k), goal_(goal) {}
  /// Offers a valid schedule; true if it became the new best.
  bool offer(const SchemePoint& p, const pricing::LayerSchedule& s);
  bool empty() const { return items_.empty(); }
  const pricing::LayerSchedule& best() const { return items_.front().second; }
  std::vector<pricing::LayerSchedule> schedules() const;
  std::vector<SchemePoint> points() const;

 private:
  int k_;
  model::Goal goal_;
  std::vector<std::pair<SchemePoint, pricing::LayerSchedule>> items_;
};

}  // namespace kapla::search
