// A nested-loop description (nn_dataflow NestedLoopDesc): the per-node loops over (C, M, N)
// whose body is one processing pass of the PE array, with the per-pass ops, time, accesses and
// buffer footprints. Produced by a map strategy (cost/map_strategy.hpp), priced by a
// loop-blocking scheme (cost/loop_blocking.hpp). Spec: nn_dataflow-spec.md §6.4, §12.2.
#pragma once

#include <cstdint>

#include "core/enum_array.hpp"
#include "mapping/data_loops.hpp"

namespace kapla::cost {

struct NestedLoopDesc {
  /// Loop trip counts (IFM, OFM, BAT).
  PerLoopDim<std::int64_t> loopcnt{};
  /// Words of each category one pass keeps in GBUF / in each PE's REGF. Doubles because the
  /// systolic mapping gives fractional sizes; Eyeriss sizes are integral.
  PerDataCategory<double> usize_gbuf{};
  PerDataCategory<double> usize_regf{};
  /// Accesses of one pass per memory level and category.
  PerMemLevel<PerDataCategory<double>> unit_access{};
  double unit_ops = 0;
  std::int64_t unit_time = 0;
  /// Loops each category depends on.
  PerDataCategory<mapping::LoopSet> data_loops{};
  /// KAPLA fork (§12.2): whether a category's REGF copy survives unrelated loops at the REGF
  /// level. Always true under the upstream (Tangram) rules.
  PerDataCategory<bool> regf_reusable{{true, true, true}};
  /// The read-modify-write category (OFM; FIL for weight-gradient layers in the fork).
  DataCategory rw_data = DataCategory::Ofm;

  /// Π loopcnt.
  constexpr std::int64_t total_loopcnt() const {
    return loopcnt[LoopDim::Ifm] * loopcnt[LoopDim::Ofm] * loopcnt[LoopDim::Bat];
  }
  /// Π of the loop counts of d's data loops (the reference's prod(take(loopcnt))).
  constexpr std::int64_t data_loopcnt(DataCategory d) const {
    std::int64_t p = 1;
    for (auto l : all_values<LoopDim>())
      if (data_loops[d].contains(l)) p *= loopcnt[l];
    return p;
  }
  /// Accesses of all data of `d` once at level `m`: unit_access * Π data-loop counts.
  constexpr double total_access_at_of(MemLevel m, DataCategory d) const {
    return unit_access[m][d] * static_cast<double>(data_loopcnt(d));
  }
  constexpr double total_ops() const { return unit_ops * static_cast<double>(total_loopcnt()); }
  /// Whether the data loops are those of a Conv/FC layer (the skip rules and the solver apply).
  bool has_conv_data_loops() const {
    using mapping::LoopSet;
    return data_loops[DataCategory::Fil] == LoopSet{LoopDim::Ifm, LoopDim::Ofm} &&
           data_loops[DataCategory::Ifm] == LoopSet{LoopDim::Ifm, LoopDim::Bat} &&
           data_loops[DataCategory::Ofm] == LoopSet{LoopDim::Ofm, LoopDim::Bat};
  }

  friend bool operator==(const NestedLoopDesc&, const NestedLoopDesc&) = default;
};

}  // namespace kapla::cost
