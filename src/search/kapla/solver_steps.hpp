// The steps K's greedy shares between its first pass and its partition descent
// (kapla-spec.md §3.2 (c)-(f) in canonical coordinates; docs/kapla.md §4): data totals, nest
// choice, snapping a node stacking to B's partitions, and fitting tensors on one partition.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "search/kapla/greedy.hpp"
#include "search/kapla/layer_solver.hpp"

namespace kapla::search::kapla::detail {

DataTotals data_totals(const model::Layer& layer, std::int64_t batch);
/// The words of each category one node holds under nest `n` (its unit sizes times its loop
/// counts): what a fit on a partition weighs its refetch estimates by. The layer's totals
/// would miss what the partition replicates (an INPP node holds partial sums of all its
/// output channels, an OUTP node all of its input channels).
DataTotals node_data_totals(const NodeNest& n);
/// Index of the nest whose input-channel replication is the largest not above `want_ifm`
/// (first such in the map strategy's order), else 0.
int pick_nest(const std::vector<NodeNest>& nests, std::int64_t want_ifm);
/// |log2 a - log2 b|.
double log_gap(std::int64_t a, std::int64_t b);
/// Sum over parallelism kinds of the log2 gaps of the partition sizes.
double size_gap(const mapping::PartitionScheme& a, const mapping::PartitionScheme& b);
/// Indexes into `parts` of the partitions nearest to a wanted node stacking.
std::vector<std::size_t> snap_partitions(const std::vector<mapping::PartitionScheme>& parts,
                                         const PerParallelDim<PhyDim2>& want);
/// Steps (5)-(6) on one partition; `forced_nest` >= 0 picks the nest instead of `repl_ifm`.
std::optional<CanonicalScheme> fit_on_partition(const LayerOracle& o,
                                                const mapping::PartitionScheme& part,
                                                std::int64_t repl_ifm,
                                                const PerLoopDim<int>& ord_gbuf,
                                                const PerLoopDim<int>& ord_regf, SolveStats& stats,
                                                int forced_nest = -1, bool reserve_top = false);
/// Step (6) from a chosen REGF tensor `t2` of nest `n` (index `nest_index` of `part`, capacity
/// `cap`): GBUF tensor (fill_tensor), then the top factors; nullopt if t2 does not divide the
/// loops below the constraint or nothing fits. `reserve_top`: the GBUF tile first takes all
/// of a constrained loop below its top factor (TopFactors::Reserved).
std::optional<CanonicalScheme> fit_gbuf(const LayerOracle& o, const mapping::PartitionScheme& part,
                                        int nest_index, const NodeNest& n, const Capacity& cap,
                                        const PerLoopDim<std::int64_t>& t2,
                                        const PerLoopDim<int>& ord_gbuf,
                                        const PerLoopDim<int>& ord_regf, SolveStats& stats,
                                        bool reserve_top = false);

}  // namespace kapla::search::kapla::detail
