// Greedy cost descents over the node partition and the blocking (docs/kapla.md §4 steps 7-8).
#pragma once

#include <array>
#include <vector>

#include "search/kapla/layer_solver.hpp"

namespace kapla::search::directive::detail {

/// From `sol`'s scheme: move to the best neighbouring partition of B's list (one prime factor
/// moved between two parallelism kinds, or the same sizes in another order/direction),
/// re-fitting the tensors with the scheme's orders and the guide `pairs`, while the one cost
/// model improves (at most opt.refine_steps moves); then re-run the 36 order pairs with every
/// nest (PE replication choice) on the final partition. Sequential and deterministic.
void descend_partition(const LayerOracle& o, const SolverOptions& opt,
                       const std::vector<std::array<PerLoopDim<int>, 2>>& pairs, LayerSolution& sol);

/// Greedy cost descent over the blocking factors of `sol`'s scheme: move one prime factor of
/// one loop between two adjacent levels while the one cost model improves (at most
/// opt.blocking_steps moves). The tensor-level counterpart of descend_partition: it corrects
/// the fill_tensor greedy, whose refetch estimate ignores the REGF reuse rule.
void descend_blocking(const LayerOracle& o, const SolverOptions& opt, LayerSolution& sol);

}  // namespace kapla::search::directive::detail
