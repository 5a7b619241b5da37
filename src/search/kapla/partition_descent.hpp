// K's cost-model-priced search over the node partition (docs/kapla.md §4 steps 7a-7c; the
// blocking steps are in blocking_descent.hpp). Sequential and deterministic.
#pragma once

#include <array>
#include <vector>

#include "search/kapla/layer_solver.hpp"
#include "search/kapla/on_chip_pricer.hpp"

namespace kapla::search::kapla::detail {

/// A loop-order pair (GBUF order, REGF order) that guides the fits of the partition steps.
using OrderPair = std::array<PerLoopDim<int>, 2>;

/// The first `n` guide `pairs`, then for each loop that none of them puts innermost below
/// GBUF (the GBUF>REGF order, rank 0), the first pair with that loop moved innermost and the
/// others kept in their order. The greedy ranks the pairs on its own nest; a fold variant's
/// nest can want innermost a loop that all the guides keep outer (ViT's Q projection: OFM,
/// where every guide had BAT).
std::vector<OrderPair> covering_pairs(const std::vector<OrderPair>& pairs, std::size_t n);

/// Step 7a (Refinement::size_screen): B's partitions grouped by their per-kind sizes (which
/// decide the data split); one representative of every group (the first in B's order) is
/// fitted with the best guide `pairs` and priced on chip (`pricer`, no NoC placement); the
/// best few are priced in full, and every partition of the best of those groups is tried
/// with every covering pair (covering_pairs). The mapper's fold variants (rs_fold_variants)
/// are fitted on the best group with every covering pair; if they lift it by more than
/// Refinement::variant_margin (goal_value), on every group with the first and the covering
/// pairs, else only on groups whose best canonical nest is within the margin of the best
/// group's, with the first pair. Moves `sol` to the best if it improves. Reaches partitions
/// several prime factors away from the greedy's (e.g. all 256 nodes on input channels), which
/// a one-factor descent cannot when the steps between are worse.
void screen_partition_sizes(const LayerOracle& o, const OnChipPricer& pricer,
                            const SolverOptions& opt, const std::vector<OrderPair>& pairs,
                            LayerSolution& sol);

/// Step 7b: from `sol`'s scheme, move to the best neighbouring partition of B's list (one
/// prime factor moved between two parallelism kinds, or the same sizes in another
/// order/direction), re-fitting the tensors with the scheme's orders and the guide `pairs`,
/// while the one cost model improves (at most Refinement::refine_steps moves). Neighbours are
/// ranked on chip (`pricer`); the best Refinement::descent_placed are priced in full.
void descend_partition(const LayerOracle& o, const OnChipPricer& pricer, const SolverOptions& opt,
                       const std::vector<OrderPair>& pairs, LayerSolution& sol);

/// Step 7c: on `sol`'s partition, every nest (PE replication choice) with each of the 36
/// order pairs; keeps the best.
void sweep_nests_and_orders(const LayerOracle& o, const SolverOptions& opt, LayerSolution& sol);

}  // namespace kapla::search::kapla::detail
