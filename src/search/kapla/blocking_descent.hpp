// K's refinement of the loop blocking on the final partition (docs/kapla.md §4 steps 8-9),
// every candidate priced by the one cost model through the layer oracle. Both steps correct
// fill_tensor, whose refetch estimate ignores the KAPLA fork's REGF reuse rule and static
// energy, and whose one-factor-at-a-time growth stops at the first capacity wall.
#pragma once

#include "search/kapla/layer_solver.hpp"

namespace kapla::search::kapla::detail {

/// Step 8 (Refinement::regf_beam): on `sol`'s partition and nest, every REGF tensor that fits
/// (all divisor combinations of the loops below the constraint), each completed by the GBUF
/// fill_tensor with the scheme's orders and priced; keeps the best if it improves. Step 8b
/// (Refinement::nest_beam), where the layer has one partition: the same on every nest of it,
/// and on the best `nest_beam` nests under 9 order pairs.
void refit_regf(const LayerOracle& o, const SolverOptions& opt, LayerSolution& sol);

/// Step 9: greedy cost descent over the blocking factors of `sol`'s scheme: move one prime
/// factor of one loop between two levels while the one cost model improves (at most
/// Refinement::blocking_steps moves). With Refinement::compound_moves, a stalled descent
/// first tries every order pair with the current factors and moves of two loops at once
/// (the same or opposite directions), and goes on if one of them improves.
void descend_blocking(const LayerOracle& o, const SolverOptions& opt, LayerSolution& sol);

/// With remainders (imperfect: full, LayerOracle::remainders), after the descent: on `sol`'s
/// partition, nest and orders, each free loop's GBUF or REGF block is changed to another of
/// S's trip-count triples (exact factors or Ruby-T covers with a smaller last block), one
/// loop and one tile size at a time, while the one cost model improves (at most
/// Refinement::blocking_steps changes). It starts from the exact descent's result and only
/// takes strict improvements, so K with full is never worse than K with spatial; it comes
/// last because a prime move of descend_blocking does not keep a cover a cover.
void descend_remainders(const LayerOracle& o, const SolverOptions& opt, LayerSolution& sol);

}  // namespace kapla::search::kapla::detail
