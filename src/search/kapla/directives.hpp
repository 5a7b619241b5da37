// The tensor-centric directive representation of one layer's dataflow (kapla-spec.md §1.2):
// per memory level (GBUF = per node, REGF = per PE) a `tensor` (the resident block), `stack`s
// (spatial replication over nodes / PEs) and `update`s (temporal iteration, innermost first).
// Plain values; built by directive_builder.hpp from a canonical scheme, printed by
// format_directives; K and S price the scheme behind them with the one cost model (KAPLA's own
// estimator lives in tests/unit/search/kapla/).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "search/kapla/tensor_dims.hpp"

namespace kapla::search::kapla {

/// One (dim, step) pair of a stack or update.
struct DimStep {
  Dim dim = Dim::N;
  std::int64_t step = 1;
  friend bool operator==(const DimStep&, const DimStep&) = default;
};

/// `stack(dim1+=step1[, dim2+=step2], repl)`: `repl` copies of the level's tensor on `repl`
/// spatial units, copy i offset by i*step along each dim.
struct Stack {
  std::array<DimStep, 2> pairs{};
  int num_pairs = 1;
  std::int64_t repl = 1;
  friend bool operator==(const Stack&, const Stack&) = default;
};

/// `update(dim1+=step1[, dim2+=step2])`: the tensor window slides by step along dim between
/// iterations; `count` iterations in total (kapla-spec.md §1.2 analyze_dim_iters). `is_base`
/// marks template updates (not subject to the level's loop order).
struct Update {
  std::array<DimStep, 2> pairs{};
  int num_pairs = 1;
  std::int64_t count = 1;
  bool is_base = false;
  friend bool operator==(const Update&, const Update&) = default;
};

/// The directives of one memory level.
struct LevelDirectives {
  DimExtents tensor{};  // resident block, 0 = dim unused by this mapping
  std::vector<Stack> stacks;
  std::vector<Update> updates;  // innermost first
  friend bool operator==(const LevelDirectives&, const LevelDirectives&) = default;
};

/// A layer's dataflow in directives: what `kapla schedule --show-directives` prints.
struct DirectiveSchedule {
  std::string layer_name;
  KindClass kind = KindClass::Conv;
  model::ArrayMapping mapping = model::ArrayMapping::RowStationary;
  LevelDirectives gbuf;
  LevelDirectives regf;
  std::int64_t unit_ops = 1;       // MACs of one REGF unit pass of one PE
  std::int64_t regf_ops_iter = 1;  // unit passes held by one REGF tensor (its growth factor)
  DataCategory rw_data = DataCategory::Ofm;  // the read-modify-write data
  /// Share of the per-node layer's MACs that are real: an uneven partition split pads the
  /// per-node layer (nn_dataflow's p_occupancy); the padded MACs are not done.
  double occupancy = 1.0;
  friend bool operator==(const DirectiveSchedule&, const DirectiveSchedule&) = default;
};

/// Volume of data category `d` in a tensor (product of its dims; 0 when d has no tensor,
/// e.g. the filter of a local-region layer).
std::int64_t tensor_size(model::ArrayMapping m, KindClass k, const DimExtents& t, DataCategory d);

/// The paper's listing form, one level per block, e.g.
///   GBUF  tensor(N=4, C=3, K=16, ...)  stack(N+=4, 2) ...  update(K+=16) (C+=3) (N+=4)
/// Library code never prints; callers write the string.
std::string format_directives(const DirectiveSchedule& s);

}  // namespace kapla::search::kapla
