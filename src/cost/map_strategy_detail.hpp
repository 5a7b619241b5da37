// Internals shared by the two map strategies: one unit pass, one replication choice, and the
// NLD built from them. Spec: nn_dataflow-spec.md §6.3-6.4.
#pragma once

#include <cstdint>

#include "core/math.hpp"
#include "core/phy_dim2.hpp"
#include "cost/nested_loop_desc.hpp"

namespace kapla::cost::detail {

/// The first step of the reference's _repl_fold, shared by both mappings: per side, a logical PE
/// set larger than the array folds (ceil), one that fits replicates (floor). Eyeriss then trades
/// width folds for height replicas; the systolic mapping does not.
struct FoldRepl {
  PhyDim2 fold{1, 1};
  PhyDim2 repl{1, 1};
};
inline FoldRepl fold_or_replicate(PhyDim2 lpeset, PhyDim2 array) {
  FoldRepl r;
  if (lpeset.h > array.h)
    r.fold.h = ceil_div(lpeset.h, array.h);
  else
    r.repl.h = array.h / lpeset.h;
  if (lpeset.w > array.w)
    r.fold.w = ceil_div(lpeset.w, array.w);
  else
    r.repl.w = array.w / lpeset.w;
  return r;
}

/// One unit pass (before replication).
struct UnitPass {
  double ops = 0;
  std::int64_t time = 0;
  PerMemLevel<PerDataCategory<double>> access{};
  PerDataCategory<double> sz_gbuf{};
  PerDataCategory<double> sz_regf{};
  PerDataCategory<bool> regf_reusable{{true, true, true}};
};

/// One replication choice (the reference's _gen_repl yields).
struct ReplChoice {
  PerLoopDim<std::int64_t> lcnt{};
  PerLoopDim<double> locc{{1.0, 1.0, 1.0}};
  std::int64_t rsz = 1;
  PerDataCategory<std::int64_t> rcnt{};
};

/// Builds the NLD of one replication choice. `itcn_like_dram`: the systolic mapping replicates
/// ITCN accesses by the replicated data counts (as DRAM/GBUF); Eyeriss by the replication size.
/// Products are evaluated left to right as in the reference (§11.23).
inline NestedLoopDesc build_nld(const UnitPass& up, const ReplChoice& rc, double occupancy,
                                const PerDataCategory<mapping::LoopSet>& data_loops,
                                DataCategory rw_data, bool itcn_like_dram) {
  NestedLoopDesc nld;
  nld.loopcnt = rc.lcnt;
  const double plocc =
      ((1.0 * rc.locc[LoopDim::Ifm]) * rc.locc[LoopDim::Ofm]) * rc.locc[LoopDim::Bat];
  nld.unit_ops = ((up.ops * static_cast<double>(rc.rsz)) * occupancy) * plocc;
  nld.unit_time = up.time;
  PerDataCategory<double> aocc{};
  for (auto d : all_values<DataCategory>()) {
    double o = 1.0;
    for (auto l : all_values<LoopDim>())
      if (data_loops[d].contains(l)) o = o * rc.locc[l];
    aocc[d] = o;
    nld.usize_gbuf[d] = up.sz_gbuf[d] * static_cast<double>(rc.rcnt[d]);
    nld.usize_regf[d] = up.sz_regf[d];
  }
  for (auto d : all_values<DataCategory>()) {
    const double n = static_cast<double>(rc.rcnt[d]);
    nld.unit_access[MemLevel::Dram][d] = (up.access[MemLevel::Dram][d] * n) * aocc[d];
    nld.unit_access[MemLevel::Gbuf][d] = (up.access[MemLevel::Gbuf][d] * n) * aocc[d];
    const double ni = itcn_like_dram ? n : static_cast<double>(rc.rsz);
    nld.unit_access[MemLevel::Itcn][d] = (up.access[MemLevel::Itcn][d] * ni) * aocc[d];
    nld.unit_access[MemLevel::Regf][d] =
        ((up.access[MemLevel::Regf][d] * static_cast<double>(rc.rsz)) * occupancy) * plocc;
  }
  nld.data_loops = data_loops;
  nld.regf_reusable = up.regf_reusable;
  nld.rw_data = rw_data;
  return nld;
}

}  // namespace kapla::cost::detail
