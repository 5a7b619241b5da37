// From schedule to code (issue 21): one priced layer scheme written out as a
// self-contained C++ program that runs the scheme's DRAM -> GBUF -> REGF loop nest on random
// integer data, checks its output against a naive loop nest, and counts the words that cross
// each memory boundary, per data category, to compare them with the cost model's access counts.
//
// What the program runs and counts, and what it does not yet (docs/emit.md):
//  - every node's piece of the layer (emit/node_pieces: the model's per-node data ranges), the
//    nodes' outputs (and partial sums) adding up to the whole layer; the node holding the ceil
//    piece (mapping::part_layer) is checked against the model's per-layer counts divided by the
//    node count (and multiplied back by access forwarding), the whole layer against the model's
//    totals scaled by the words of the real pieces over the ceil pieces' (docs/emit.md, Nodes);
//  - the loop nest over the nested-loop description's units (IFM channel pieces, OFM channel
//    pieces, (sample, ofmap-row fold) pairs) with the scheme's blocking factors and orders;
//    a category's buffer at a level is refilled whenever the tile it must hold changes; trip
//    counts that cover a loop with a remainder (imperfect: full) run a guarded last block;
//  - DRAM and GBUF counts per category (a unit pass reads its GBUF data once per folded
//    filter-row group, FOLD_H, as the model's unit pass does); the array bus (ITCN) and REGF by
//    the row-stationary formula (Target::Loops) or counted by the PEs of the row-stationary
//    array written out with HLS pragmas (Target::Hls).
// Supported on the row-stationary mapping (every partition, with or without buffer sharing and
// bypass) and, for the loop-nest target, on the systolic mapping: Conv, FC, depthwise, Pooling,
// Eltwise and window-only local regions, and their input-gradient (BackAct) kinds, which run as
// the forward layer the fork prices them as. Anything else (weight-gradient kinds, LRN-like
// regions, the HLS target of a systolic scheme) is an InputError naming it.
#pragma once

#include <string>

#include "cost/loop_blocking.hpp"
#include "mapping/partition_scheme.hpp"
#include "pricing/layer_problem.hpp"

namespace kapla::emit {

/// One layer scheme to emit: the problem it was priced under, its partition, NLD index and the
/// loop-blocking evaluation (valid) that the cost model produced for it.
struct LayerScheme {
  std::string name;
  pricing::LayerProblem problem;
  mapping::PartitionScheme part;
  int nld_index = 0;
  cost::LoopBlockingEval eval;
};

/// What the unit pass is written as. Loops: a plain loop over its channels and rows, the array
/// bus and register-file counts by the row-stationary formula. Hls: the row-stationary PE array
/// (unrolled PE loops, per-PE register files, `#pragma HLS` UNROLL / ARRAY_PARTITION /
/// PIPELINE), whose PEs count the bus words and register-file accesses themselves.
enum class Target { Loops, Hls };

/// The program's source text (one translation unit; `c++ -O2 FILE` builds it). Throws
/// InputError when the scheme is invalid or of a kind this emitter does not handle yet.
std::string emit_layer_program(const LayerScheme& scheme, Target target = Target::Loops);

}  // namespace kapla::emit
