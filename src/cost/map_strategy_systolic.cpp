// TPU-like systolic mapping of the KAPLA fork (MapStrategySystolic): output positions x output
// channels on the array, input channels over repl.w and batch over repl.h (Conv); fold.h folds
// output positions, fold.w folds output channels. Spec: kapla-spec.md §1.6, nn_dataflow-spec.md
// §12.3.
#include <algorithm>

#include "core/errors.hpp"
#include "core/math.hpp"
#include "cost/map_strategy.hpp"
#include "cost/map_strategy_detail.hpp"
#include "mapping/data_loops.hpp"

namespace kapla::cost {
namespace {

using detail::ReplChoice;
using detail::UnitPass;

/// Largest divisor of v that is <= f when f >= 1, else the smallest divisor >= f (which is 1):
/// the first element of nn_dataflow util.closest_factor(v, f).
std::int64_t closest_factor_first(std::int64_t v, double f) {
  if (f >= 1) {
    std::int64_t best = 1;
    for (std::int64_t d : divisors(v))
      if (static_cast<double>(d) <= f) best = d;
    return best;
  }
  return 1;
}

}  // namespace

PhyDim2 systolic_position_folds(std::int64_t fold_h) {
  const std::int64_t rows = closest_factor_first(fold_h, static_cast<double>(fold_h) / 2);
  return {rows, fold_h / rows};
}

MapResult map_systolic(const model::Layer& L, std::int64_t batch, double occupancy, PhyDim2 a) {
  KAPLA_ASSERT(!L.is_back(), "MapSystolic: back-propagation layers are not supported");
  // Its batch loop also runs over folds of output positions and its replicas share a filter:
  // both wrong for a per-sample B (refused with an InputError in schedule::run_network).
  KAPLA_ASSERT(!L.is_matmul(), "MapSystolic: MatMul is not mapped on the systolic array");
  KAPLA_ASSERT(occupancy > 0 && occupancy <= 1, "MapSystolic: occupancy must be in (0, 1]");
  MapResult res;
  MapGeometry& g = res.geometry;
  const bool filter = L.has_filter();
  const bool dw = L.is_depthwise();
  if (filter) {
    g.ops_lpe = L.sfil.w * L.sfil.h;
  } else {
    KAPLA_ASSERT(L.is_local_region(), "MapSystolic: unknown layer kind");
    g.ops_lpe = L.nreg * L.sreg.w * L.sreg.h * L.ops_per_element();
  }
  g.dim_lpeset = {L.sofm.h * L.sofm.w, L.nofm};

  // _repl_fold, without Eyeriss's width-to-height adjustment.
  const auto [fold, repl] = detail::fold_or_replicate(g.dim_lpeset, a);
  g.fold = fold;
  g.repl = repl;
  g.dim_flpeset = {ceil_div(g.dim_lpeset.h, fold.h), ceil_div(g.dim_lpeset.w, fold.w)};
  g.dim_ppeset = {g.dim_flpeset.h * repl.h, g.dim_flpeset.w * repl.w};
  KAPLA_ASSERT(g.dim_ppeset.h <= a.h && g.dim_ppeset.w <= a.w,
               "MapSystolic: physical PE set does not fit in the array");
  g.util = 1. * static_cast<double>(g.dim_lpeset.size() * g.repl.size()) /
           static_cast<double>(a.size() * g.fold.size());

  // Unit pass: one folded block of output positions and channels, all data accessed once.
  const PhyDim2 pos_folds = systolic_position_folds(fold.h);
  const std::int64_t fold_hofm = pos_folds.h;
  const double fold_wofm = static_cast<double>(pos_folds.w);
  const double nofm = 1. * static_cast<double>(L.nofm) / static_cast<double>(fold.w);
  const double hofm = 1. * static_cast<double>(L.sofm.h) / static_cast<double>(fold_hofm);
  const double wofm = 1. * static_cast<double>(L.sofm.w) / fold_wofm;
  const PhyDim2 win = filter ? L.sfil : L.sreg;
  const double hifm = static_cast<double>(win.h) + (hofm - 1) * static_cast<double>(L.strd.h);
  const double wifm = static_cast<double>(win.w) + (wofm - 1) * static_cast<double>(L.strd.w);
  const double ofm = nofm * (hofm * wofm);
  // Conv's helper layer has one input channel; local-region and depthwise ones have nofm.
  const double nifm = (filter && !dw) ? 1.0 : nofm;
  const double ifm = nifm * (hifm * wifm);
  UnitPass up;
  double fil = 0;
  if (filter) {
    up.ops = ofm * static_cast<double>(win.h * win.w);
    fil = dw ? nofm * static_cast<double>(win.h * win.w)
             : (1.0 * nofm) * static_cast<double>(win.h * win.w);
  } else {
    up.ops = ofm * static_cast<double>(L.nreg * win.h * win.w * L.ops_per_element());
  }
  up.time = g.ops_lpe;
  // Row reductions read their input twice (docs/transformers.md §5.2).
  const double ifm_reads = ifm * static_cast<double>(L.input_passes());
  for (auto m : {MemLevel::Dram, MemLevel::Gbuf, MemLevel::Itcn})
    up.access[m] = {{fil, ifm_reads, ofm}};
  up.access[MemLevel::Regf] = {{filter ? up.ops : 0.0, up.ops, up.ops}};
  up.sz_gbuf = {{fil, ifm, ofm}};
  up.sz_regf = filter ? PerDataCategory<double>{{1.0, 1.0, 1.0}}
                      : PerDataCategory<double>{{0.0, static_cast<double>(L.nreg), 1.0}};
  up.regf_reusable = {{false, false, true}};

  // Replication choices.
  std::vector<ReplChoice> choices;
  if (filter && !dw) {
    const std::int64_t ifms = repl.w, batches = repl.h;
    ReplChoice rc;
    rc.rsz = ifms * batches;
    rc.lcnt = {{ceil_div(L.nifm, ifms), fold.w, ceil_div(batch, batches) * fold.h}};
    rc.locc[LoopDim::Ifm] = 1. * static_cast<double>(L.nifm) / static_cast<double>(ifms) /
                            static_cast<double>(rc.lcnt[LoopDim::Ifm]);
    rc.locc[LoopDim::Bat] = 1. * static_cast<double>(batch) / static_cast<double>(batches) *
                            static_cast<double>(fold.h) /
                            static_cast<double>(rc.lcnt[LoopDim::Bat]);
    rc.rcnt = {{ifms, ifms * batches, batches}};
    choices.push_back(rc);
  } else {
    for (std::int64_t h0 : divisors(repl.h)) {
      for (std::int64_t w0 : divisors(repl.w)) {
        const std::int64_t batches = std::min(h0 * w0, batch);
        const std::int64_t ofmaps = std::min((repl.h / h0) * (repl.w / w0), L.nofm);
        ReplChoice rc;
        rc.rsz = batches * ofmaps;
        rc.lcnt = {{1, ceil_div(fold.w, ofmaps), ceil_div(batch, batches) * fold.h}};
        rc.locc[LoopDim::Ofm] = 1. * static_cast<double>(fold.w) / static_cast<double>(ofmaps) /
                                static_cast<double>(rc.lcnt[LoopDim::Ofm]);
        rc.locc[LoopDim::Bat] = 1. * static_cast<double>(batch) * static_cast<double>(fold.h) /
                                static_cast<double>(batches) /
                                static_cast<double>(rc.lcnt[LoopDim::Bat]);
        rc.rcnt = {{dw ? ofmaps : 0, ofmaps * batches, ofmaps * batches}};
        choices.push_back(rc);
      }
    }
  }
  const auto dl = mapping::data_loops(L);
  for (const auto& rc : choices) {
    res.nlds.push_back(detail::build_nld(up, rc, occupancy, dl, L.rw_data, true));
    res.nld_geometry.push_back(res.geometry);
    res.nld_replicas.push_back(rc.rcnt);
  }
  return res;
}

}  // namespace kapla::cost
