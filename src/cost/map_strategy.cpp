// Eyeriss row-stationary mapping (nn_dataflow MapStrategyEyeriss; the KAPLA fork's version for
// the Kapla variant). Spec: nn_dataflow-spec.md §6, §11.3-5, §12.2-3.
#include "cost/map_strategy.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

#include "core/errors.hpp"
#include "core/math.hpp"
#include "cost/map_strategy_detail.hpp"
#include "mapping/data_loops.hpp"

namespace kapla::cost {
namespace {

using detail::ReplChoice;
using detail::UnitPass;
using model::CostModelVariant;
constexpr auto kFil = DataCategory::Fil;
constexpr auto kIfm = DataCategory::Ifm;
constexpr auto kOfm = DataCategory::Ofm;

/// _repl_fold with the width-to-height adjustment (§6.2).
void repl_fold(MapGeometry& g, PhyDim2 a) {
  auto [fold, repl] = detail::fold_or_replicate(g.dim_lpeset, a);
  const std::int64_t f_w2h = std::min(repl.h, fold.w);
  fold.w = ceil_div(fold.w, f_w2h);
  repl.h = repl.h / f_w2h;
  g.fold = fold;
  g.repl = repl;
  g.dim_flpeset = {ceil_div(g.dim_lpeset.h, fold.h), ceil_div(g.dim_lpeset.w, fold.w)};
  g.dim_ppeset = {g.dim_flpeset.h * repl.h * f_w2h, ceil_div(g.dim_flpeset.w * repl.w, f_w2h)};
  KAPLA_ASSERT(g.dim_ppeset.h <= a.h && g.dim_ppeset.w <= a.w,
               "MapEyeriss: physical PE set does not fit in the array");
}

/// The smallest divisor of n that is at least f (n itself at the most): the fewest time folds
/// that split n rows evenly.
std::int64_t fewest_even_folds(std::int64_t n, std::int64_t f) {
  for (std::int64_t d : divisors(n))
    if (d >= f) return d;
  return n;
}

/// The largest divisor of n that is at most cap (cap >= 1): the most replicas that split n
/// channels evenly.
std::int64_t most_even_replicas(std::int64_t n, std::int64_t cap) {
  std::int64_t best = 1;
  for (std::int64_t d : divisors(n))
    if (d <= cap) best = d;
  return best;
}

/// Timeloop's perfect factorisation of the logical PE set on the array (imperfect: perfect,
/// docs/imperfect.md): the filter rows fold an even number of times, and the ofmap rows are
/// split exactly as folds x wraps x columns (E = f x w x c, c <= the array's width, w <= the
/// spare PE-row groups): the fewest folds f, then the fewest wraps. Where nn_dataflow's ceil
/// fold is already even this is its geometry; otherwise more folds or fewer PEs.
void exact_repl_fold(MapGeometry& g, PhyDim2 a) {
  const PhyDim2 l = g.dim_lpeset;
  auto [fold, repl] = detail::fold_or_replicate(l, a);
  fold.h = fewest_even_folds(l.h, fold.h);
  // The fewest folds f, then the fewest wraps w, with E / (f w) columns that fit; f = E (one
  // row per fold, no wrap) always does.
  const auto [folds, wraps] = [&]() -> std::pair<std::int64_t, std::int64_t> {
    for (std::int64_t f : divisors(l.w))
      for (std::int64_t w : divisors(l.w / f)) {
        if (w > repl.h) break;
        if (l.w / (f * w) <= a.w) return {f, w};
      }
    return {l.w, 1};
  }();
  g.fold = {fold.h, folds};
  g.repl = {repl.h / wraps, repl.w};
  g.dim_flpeset = {l.h / fold.h, l.w / folds};
  g.dim_ppeset = {g.dim_flpeset.h * g.repl.h * wraps, g.dim_flpeset.w * g.repl.w / wraps};
  KAPLA_ASSERT(g.dim_ppeset.h <= a.h && g.dim_ppeset.w <= a.w,
               "MapEyeriss: physical PE set does not fit in the array");
}

/// Unit pass of a filter layer (Conv/FC/DWConv: identical numbers since the helper layers have
/// one input and one output channel) or a local-region layer (§6.3).
UnitPass unit_pass(const model::Layer& L, const MapGeometry& g, CostModelVariant variant) {
  UnitPass up;
  const std::int64_t F = g.fold.h;
  const std::int64_t P = g.dim_flpeset.size();
  const double eh_acc = static_cast<double>(L.sofm.h) / static_cast<double>(g.fold.w);
  const std::int64_t eh_buf = ceil_div(L.sofm.h, g.fold.w);
  const std::int64_t ew = L.sofm.w;
  const bool filter = L.has_filter();
  const PhyDim2 win = filter ? L.sfil : L.sreg;
  const double acc_hifm = static_cast<double>(win.h) + (eh_acc - 1) * static_cast<double>(L.strd.h);
  const std::int64_t wifm = win.w + (ew - 1) * L.strd.w;
  const std::int64_t buf_hifm = win.h + (eh_buf - 1) * L.strd.h;
  const double ofm_acc = eh_acc * static_cast<double>(ew);
  const double ifm_acc = acc_hifm * static_cast<double>(wifm);
  auto& A = up.access;
  if (filter) {
    up.ops = ofm_acc * static_cast<double>(win.h * win.w);
    up.time = F * g.ops_lpe;
    const double fil = static_cast<double>(win.h * win.w);
    A[MemLevel::Dram] = {{fil, ifm_acc, ofm_acc}};
    A[MemLevel::Gbuf] = {{fil, ifm_acc * static_cast<double>(F), ofm_acc * static_cast<double>(F)}};
    A[MemLevel::Itcn] = {{static_cast<double>(win.w * P * F), static_cast<double>(wifm * P * F),
                          static_cast<double>(ew * P * F)}};
    A[MemLevel::Regf] = {{up.ops, up.ops, up.ops}};
    up.sz_gbuf = {{fil, static_cast<double>(buf_hifm * wifm), static_cast<double>(eh_buf * ew)}};
    up.sz_regf = {{static_cast<double>(win.w), static_cast<double>(win.w), 1.0}};
  } else {
    // Row reductions (Softmax, LayerNorm) read their input twice and count several ops per
    // element (docs/transformers.md §5.2); both factors are 1 for the nn_dataflow kinds.
    const auto passes = static_cast<double>(L.input_passes());
    up.ops = ofm_acc * static_cast<double>(L.nreg * win.h * win.w * L.ops_per_element());
    up.time = F * g.ops_lpe;
    A[MemLevel::Dram] = {{0.0, ifm_acc * passes, ofm_acc}};
    A[MemLevel::Gbuf] = {{0.0, ifm_acc * passes, ofm_acc * static_cast<double>(F)}};
    A[MemLevel::Itcn] = {
        {0.0, static_cast<double>(wifm * P) * passes, static_cast<double>(ew * P * F)}};
    A[MemLevel::Regf] = {{0.0, up.ops, up.ops}};
    up.sz_gbuf = {{0.0, static_cast<double>(buf_hifm * wifm), static_cast<double>(eh_buf * ew)}};
    // The fork keeps a whole nreg-deep window per PE (§12.3).
    const std::int64_t regf_ifm = variant == CostModelVariant::Kapla ? win.w * L.nreg : win.w;
    up.sz_regf = {{0.0, static_cast<double>(regf_ifm), 1.0}};
  }
  if (variant == CostModelVariant::Kapla) {
    // Sliding-window REGF copies are refetched across unrelated loops (§12.2).
    up.regf_reusable[kIfm] = (win.w == buf_hifm);
    up.regf_reusable[kOfm] = (ew == 1);
    up.regf_reusable[kFil] = (g.fold.h == 1);
  }
  return up;
}

/// `exact`: only replica counts that divide the channels (Timeloop's perfect factorisation);
/// otherwise nn_dataflow's min(replicas, channels), whose last pass may leave replicas idle.
std::vector<ReplChoice> gen_repl(const model::Layer& L, std::int64_t batch, const MapGeometry& g,
                                 bool exact) {
  std::vector<ReplChoice> out;
  const bool conv = L.has_filter() && !L.is_depthwise();
  const auto replicas = [exact](std::int64_t channels, std::int64_t cap) {
    return exact ? most_even_replicas(channels, cap) : std::min(cap, channels);
  };
  if (conv) {
    const std::int64_t C = L.nifm, M = L.nofm;
    double min_cnt = std::numeric_limits<double>::infinity();
    for (std::int64_t a : divisors(g.repl.h)) {
      const std::int64_t b = g.repl.h / a;
      const std::int64_t ifms = replicas(C, a);
      const std::int64_t ofms = replicas(M, b * g.repl.w);
      ReplChoice rc;
      rc.rsz = ifms * ofms;
      rc.lcnt = {{ceil_div(C, ifms), ceil_div(M, ofms), batch * g.fold.w}};
      // In double: the int64 product of three loop counts can overflow at the input limits.
      const double cnt = static_cast<double>(rc.lcnt[LoopDim::Ifm]) *
                         static_cast<double>(rc.lcnt[LoopDim::Ofm]) *
                         static_cast<double>(rc.lcnt[LoopDim::Bat]);
      // Running minimum: a choice is kept if no earlier one had fewer loops (§11.5).
      if (cnt < min_cnt)
        min_cnt = cnt;
      else if (cnt > min_cnt)
        continue;
      rc.locc[LoopDim::Ifm] = static_cast<double>(C) / static_cast<double>(ifms) /
                              static_cast<double>(rc.lcnt[LoopDim::Ifm]);
      rc.locc[LoopDim::Ofm] = static_cast<double>(M) / static_cast<double>(ofms) /
                              static_cast<double>(rc.lcnt[LoopDim::Ofm]);
      rc.rcnt = {{ifms * ofms, ifms, ofms}};
      out.push_back(rc);
    }
  } else {
    // Local-region and depthwise: replication only over channels.
    const std::int64_t K = L.nofm;
    const std::int64_t ofms = replicas(K, g.repl.size());
    ReplChoice rc;
    rc.rsz = ofms;
    rc.lcnt = {{1, ceil_div(K, ofms), batch * g.fold.w}};
    rc.locc[LoopDim::Ofm] = static_cast<double>(K) / static_cast<double>(ofms) /
                            static_cast<double>(rc.lcnt[LoopDim::Ofm]);
    rc.rcnt = {{L.is_depthwise() ? ofms : 0, ofms, ofms}};
    out.push_back(rc);
  }
  return out;
}

/// nn_dataflow's logical PE set of a filter or local-region layer (§6.1): one filter (or
/// region) row per PE row, one ofmap row per PE column.
MapGeometry logical_set(const model::Layer& L) {
  MapGeometry g;
  if (L.has_filter()) {
    g.ops_lpe = L.sfil.w * L.sofm.w;
    g.dim_lpeset = {L.sfil.h, L.sofm.h};
  } else {
    KAPLA_ASSERT(L.is_local_region(), "MapEyeriss: unknown layer kind");
    g.ops_lpe = L.nreg * L.sreg.w * L.sofm.w * L.ops_per_element();
    g.dim_lpeset = {L.sreg.h, L.sofm.h};
  }
  return g;
}

double utilisation(const MapGeometry& g, PhyDim2 a) {
  return 1. * static_cast<double>(g.dim_lpeset.size() * g.repl.size()) /
         static_cast<double>(a.size() * g.fold.size());
}

/// The logical set `logical` with exactly `fold_w` temporal folds of its ofmap rows and no
/// width-to-height wrap (rows folded and replicated as nn_dataflow does), or nullopt if the
/// folded set is wider than the array.
std::optional<MapGeometry> fold_variant(MapGeometry g, std::int64_t fold_w, PhyDim2 a, bool exact) {
  const PhyDim2 l = g.dim_lpeset;
  const std::int64_t folded_w = ceil_div(l.w, fold_w);
  if (folded_w > a.w || (exact && l.w % fold_w != 0)) return std::nullopt;
  std::int64_t fold_h = l.h > a.h ? ceil_div(l.h, a.h) : 1;
  if (exact) fold_h = fewest_even_folds(l.h, fold_h);
  const std::int64_t repl_h = l.h > a.h ? 1 : a.h / l.h;
  g.fold = {fold_h, fold_w};
  g.repl = {repl_h, a.w / folded_w};
  g.dim_flpeset = {ceil_div(l.h, fold_h), folded_w};
  g.dim_ppeset = {g.dim_flpeset.h * g.repl.h, g.dim_flpeset.w * g.repl.w};
  g.util = utilisation(g, a);
  return g;
}

/// Fold variants of nn_dataflow's geometry `canon` (see map_eyeriss): for every folded width
/// from the array's width down to one column, the fewest folds that give it.
std::vector<MapGeometry> fold_variants(const MapGeometry& canon, PhyDim2 a, bool exact) {
  std::vector<MapGeometry> out;
  const std::int64_t lw = canon.dim_lpeset.w;
  std::int64_t last_fold = 0;
  for (std::int64_t fw = std::min(lw, a.w); fw >= 1; --fw) {
    const std::int64_t fold_w = ceil_div(lw, fw);
    if (fold_w == last_fold) continue;
    last_fold = fold_w;
    const auto g = fold_variant(canon, fold_w, a, exact);
    if (!g || g->util < canon.util) continue;
    if (g->fold == canon.fold && g->repl == canon.repl) continue;
    out.push_back(*g);
  }
  return out;
}

/// Appends the NLDs of geometry `g`; `drop_repeats` skips NLDs equal to an earlier one (only
/// for variants: nn_dataflow's own list is kept as it is, repeats included, for nld_index parity).
void append_nlds(MapResult& res, const model::Layer& L, std::int64_t batch, double occupancy,
                 const MapGeometry& g, CostModelVariant variant, bool drop_repeats, bool exact) {
  const UnitPass up = unit_pass(L, g, variant);
  const auto dl = mapping::data_loops(L);
  const DataCategory rw = variant == CostModelVariant::Kapla ? L.rw_data : DataCategory::Ofm;
  for (const auto& rc : gen_repl(L, batch, g, exact)) {
    auto nld = detail::build_nld(up, rc, occupancy, dl, rw, false);
    if (drop_repeats && std::find(res.nlds.begin(), res.nlds.end(), nld) != res.nlds.end())
      continue;
    res.nlds.push_back(std::move(nld));
    res.nld_geometry.push_back(g);
    res.nld_replicas.push_back(rc.rcnt);
  }
}

}  // namespace

MapResult map_eyeriss(const model::Layer& L, std::int64_t batch, double occupancy,
                      PhyDim2 dim_array, CostModelVariant variant, bool fold_variants_too,
                      bool exact) {
  KAPLA_ASSERT(!L.is_back(),
               "MapEyeriss: back-propagation kinds must be mapped as their "
               "forward per-node layer (part_layer)");
  KAPLA_ASSERT(occupancy > 0 && occupancy <= 1, "MapEyeriss: occupancy must be in (0, 1]");
  MapResult res;
  MapGeometry& g = res.geometry;
  g = logical_set(L);
  if (exact)
    exact_repl_fold(g, dim_array);
  else
    repl_fold(g, dim_array);
  g.util = utilisation(g, dim_array);
  append_nlds(res, L, batch, occupancy, g, variant, false, exact);
  if (fold_variants_too) {
    for (const auto& v : fold_variants(g, dim_array, exact))
      append_nlds(res, L, batch, occupancy, v, variant, true, exact);
  }
  return res;
}

MapResult map_layer(model::ArrayMapping mapping, const model::Layer& p_layer, std::int64_t batch,
                    double occupancy, PhyDim2 dim_array, CostModelVariant variant,
                    bool fold_variants_too, bool exact) {
  if (mapping == model::ArrayMapping::Systolic) {
    KAPLA_ASSERT(variant == CostModelVariant::Kapla,
                 "the systolic mapping exists only in the KAPLA fork");
    return map_systolic(p_layer, batch, occupancy, dim_array);
  }
  return map_eyeriss(p_layer, batch, occupancy, dim_array, variant, fold_variants_too, exact);
}

}  // namespace kapla::cost
