// KAPLA's intra-layer solver (kapla-spec.md §3, Algorithm 1), in the canonical coordinates of
// canonical.hpp: for each of the 36 loop-order pairs, bottom-up: PE-array stacking, REGF
// tensor, node stacking (the partition), GBUF tensor, top factors; each candidate is priced
// by the one cost model and the best is kept. Falls back to the exhaustive directive search
// when no order pair yields a valid scheme.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "search/kapla/layer_oracle.hpp"

namespace kapla::search::kapla {

/// The cost-model-priced steps K adds after the paper's greedy (docs/kapla.md §4 steps 7-9).
/// paper() turns them all off: the paper's Algorithm 1 plus only the snap to B's partition
/// list that lowering needs (step 5).
struct Refinement {
  int refine_steps = 8;         // greedy descent steps over the node partition (0 = off)
  int blocking_steps = 16;      // greedy descent steps over the blocking factors (0 = off)
  bool regf_beam = true;        // every fitting REGF tensor on the final nest (step 8)
  bool compound_moves = true;   // a stalled blocking descent tries orders and 2-loop moves
  bool size_screen = true;      // one fit per partition-size group of B's list (step 7a)
  int partition_starts = 1;     // descents also from the greedy's best distinct partitions
  int screen_pairs = 4;         // steps 7a-b: guide pairs fitted on each screened partition
  int screen_placed = 12;       // step 7a: best groups (on-chip price) priced in full
  int screen_open = 3;          // step 7a: best priced groups whose every partition is tried
  int descent_placed = 4;       // step 7b: best neighbours (on-chip price) priced in full
  double variant_margin = 0.1;  // step 7a: fold variants only on groups this close to the best
  int nest_beam = 3;            // step 8b, one-partition layers: best nests, 9 order pairs
  static Refinement paper() { return {0, 0, false, false, false, 0, 0, 0, 0, 0, 0}; }
  friend bool operator==(const Refinement&, const Refinement&) = default;
};

struct SolverOptions {
  model::Goal goal = model::Goal::Energy;
  int num_threads = 1;   // OpenMP over the 36 order pairs; the result does not depend on it
  bool fallback = true;  // exhaustive directive search when the greedy finds nothing
  Refinement refine{};
  int ntops = 1;  // schemes wanted: the best, then the next best distinct ones priced
  /// When the greedy finds nothing, run it again with the pipeline constraint's top factors
  /// reserved (TopFactors::Reserved) before the fallback; off: the exact fallback answers.
  bool reserved_retry = true;
  /// Skip the full price of a candidate whose cheap lower bound cannot beat the step's pick
  /// (best_candidate.hpp; with ntops = 1 only). Same answers either way; off for tests.
  bool bounded_picks = true;
  /// Remember the greedy's candidates and the partition screen's ranking for the other
  /// searches of the layer where the oracle offers (layout_free_memo.hpp). Same answers and
  /// fit counts either way; off for tests.
  bool share_across_layouts = true;
};

struct SolveStats {
  std::int64_t order_pairs = 0;      // order pairs tried
  std::int64_t capacity_fail = 0;    // unit tensors overflow (§3.2 c)
  std::int64_t constraint_fail = 0;  // top factors cannot meet the constraint
  std::int64_t invalid = 0;          // rejected by the cost model
  std::int64_t evaluated = 0;        // cost-model evaluations
  std::int64_t priced = 0;           // distinct schemes priced (the rest were repeats)
  std::int64_t partitions = 0;       // distinct partitions priced (each costs a NoC placement)
  bool reserved_retry = false;       // the greedy ran again with the top factors reserved
  bool fell_back = false;
};

struct LayerSolution {
  std::optional<CanonicalScheme> scheme;  // empty: nothing valid found
  Score score;                            // the one cost model's numbers for `scheme`
  /// With ntops > 1: other valid schemes the search priced, best first by the one cost model
  /// (ties by scheme key, so the list does not depend on the thread count); up to
  /// 16 (ntops - 1), as several may lower to one schedule (orders of unit loops).
  std::vector<CanonicalScheme> runners_up;
  SolveStats stats;
};

/// What the greedy decided on the way to one candidate (for tests and diagnostics).
struct CandidateTrace {
  std::int64_t want_repl_ifm = 1;         // PE stacking on input channels
  PerLoopDim<std::int64_t> whole_regf{};  // REGF factors on the whole layer
  PerParallelDim<PhyDim2> want_part{};    // node stacking per parallelism kind
  bool reserved_nodes = false;            // bottom-up left nodes idle: redone top-first
};

/// How the greedy treats a pipeline constraint's top factors.
enum class TopFactors {
  /// Left to what remains after the node stacking and tensors (K's first pass).
  Remaining,
  /// Reserved first, as the reference's solver does (kapla-spec.md §3.2 a, f): the stacking
  /// and tensors share only what lies below them (K's retry when the first pass finds
  /// nothing).
  Reserved,
};

/// The greedy's candidates for one order pair (exposed for tests): one per partition of B's
/// list nearest to the greedy node stacking; empty if the greedy fails for this pair.
std::vector<CanonicalScheme> greedy_candidates(const LayerOracle& o,
                                               const PerLoopDim<int>& ord_gbuf,
                                               const PerLoopDim<int>& ord_regf, SolveStats& stats,
                                               CandidateTrace* trace = nullptr,
                                               TopFactors top_factors = TopFactors::Remaining);

LayerSolution solve_layer(const LayerOracle& o, const SolverOptions& opt);

}  // namespace kapla::search::kapla
