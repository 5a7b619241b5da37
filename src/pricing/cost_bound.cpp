// The layer cost bound (see cost_bound.hpp). Each term names the cost-model line it bounds.
#include "pricing/cost_bound.hpp"

#include <algorithm>
#include <cmath>

namespace kapla::pricing {

namespace {

// Ifmap words as `rows_per_ofmap_row` input rows per output row, per channel and sample, and
// n * min(window, stride) columns for n output columns. Channels: nifm for a convolution, one
// per output channel for depthwise and local-region layers (their unit passes read one input
// channel per output channel, even an Eltwise layer whose nifm is nreg * nofm).
double ifmap_words(const model::Layer& L, std::int64_t batch, std::int64_t rows_per_ofmap_row) {
  const PhyDim2 win = L.has_filter() ? L.sfil : L.sreg;
  const double rows = static_cast<double>(L.sofm.h * rows_per_ofmap_row);
  const double cols = static_cast<double>(L.sofm.w * std::min(win.w, L.strd.w));
  const bool per_ofm = !L.has_filter() || L.is_depthwise();
  const double channels = static_cast<double>(per_ofm ? L.nofm : L.nifm);
  return channels * static_cast<double>(batch) * rows * cols;
}

// The words the array bus (ITCN) carries at least (calc_stats: unit ITCN accesses x
// fetch[1] >= 1, over the nodes; the replicas count rsz, at least the DRAM level's replica
// count; pinning clears fetch[0] only). A systolic unit pass sends each word of its blocks
// once (map_strategy_systolic.cpp): the DRAM-level words. A row-stationary pass of a filter
// kind (map_strategy.cpp unit_pass) sends wifm * P * F ifmap and ew * P * F ofmap words,
// with P * F >= (window rows) x (the pass's ofmap rows): each ofmap word window-rows times
// and each ifmap row to every filter row, window rows x ofmap rows instead of the
// min(window, stride) x ofmap rows of min_ifmap_words. A row-stationary local region sends
// wifm * P ifmap words per input pass without F, with P >= the pass's ofmap rows: one input
// row per ofmap row; its ofmap words window-rows times as for filters.
struct ItcnWords {
  double fil = 0, ifm = 0, ofm = 0;
};
ItcnWords min_itcn_words(const model::Layer& L, std::int64_t batch, double fil_words,
                         model::ArrayMapping mapping) {
  const double ofm = static_cast<double>(L.total_ofmap_size(batch));
  if (mapping == model::ArrayMapping::Systolic) return {fil_words, min_ifmap_words(L, batch), ofm};
  const PhyDim2 win = L.has_filter() ? L.sfil : L.sreg;
  const double ifm = L.has_filter()
                         ? ifmap_words(L, batch, win.h)
                         : ifmap_words(L, batch, 1) * static_cast<double>(L.input_passes());
  return {fil_words, ifm, ofm * static_cast<double>(win.h)};
}

}  // namespace

// How often the filters cross DRAM at least. A constraint with topbat > 1 makes BAT the
// outermost top-level loop (TopBlockingConstraint::is_valid_top_bl); with topifm or topofm > 1
// as well, a filter loop of factor > 1 sits inside it, so set_fetch counts the whole BAT factor:
// fetch[0][FIL] = topbat, and no pinning (that needs every filter top factor 1). Without such
// a constraint: once, or never when pinning is possible (no_time_mux) or the layer has no filter.
double min_filter_fetches(const LayerProblem& p, const RefetchFloor& floor) {
  if (!p.layer.has_filter()) return 0;
  // A MatMul's B differs per sample and head (its data loops hold BAT): every word crosses
  // DRAM at least once, a batch block fetches its own words, and it is never pinned.
  if (p.layer.is_matmul()) return 1;
  const auto top = p.constraint.top_blocking();
  // A filter loop of top factor > 1 is also forced when no node's filter slice can stay on
  // chip with those factors at 1 (RefetchFloor::filters_may_stay): under topbat > 1 a filter
  // kept apart from GBUF has fetch[1] >= topbat > fetch[0], so GBUF stores it, unless all
  // its loops sit at the REGF level.
  const bool fil_loop_outer = top.topifm > 1 || top.topofm > 1 || !floor.filters_may_stay;
  if (top.topbat > 1 && fil_loop_outer) return static_cast<double>(top.topbat);
  if (p.resource.no_time_mux) return 0;
  return 1;
}

// How often the ifmaps cross DRAM at least. A constraint with topofm > 1 (and no IFM factor
// above 1 forced) makes OFM the outermost top-level loop but for a constrained BAT
// (is_valid_top_bl), so an IFM or unconstrained BAT factor > 1 sits inside it and set_fetch
// counts the whole OFM factor: fetch[0][IFM] = topofm. Fetched once, then, only with those
// factors at 1, a BAT block of the node's ifmaps (unit_cnt[0][IFM], the floor's least words /
// topbat) stays: GBUF stores it (fetch[1][IFM] >= topofm > fetch[0]) unless its loops all
// sit at the REGF level (no GBUF-level inn, fetch[1] = fetch[0]), so it fits one or the other.
double min_ifmap_fetches(const LayerProblem& p, const RefetchFloor& floor) {
  const auto top = p.constraint.top_blocking();
  if (top.topofm <= 1 || top.topifm > 1 || floor.least_ifmap_gbuf <= 0) return 1;
  const auto blocks = static_cast<double>(std::max<std::int64_t>(top.topbat, 1));
  constexpr double kSlack = 1 + 1e-9;
  const bool may_stay =
      floor.least_ifmap_gbuf / blocks <= static_cast<double>(p.resource.size_gbuf) * kSlack ||
      floor.least_ifmap_regf / blocks <= static_cast<double>(p.resource.size_regf) * kSlack;
  return may_stay ? 1 : static_cast<double>(top.topofm);
}

// Per channel, `n` output rows need (n - f) * stride + f * window >= n * min(window, stride)
// input rows for a fold count f <= n (Eyeriss and systolic unit passes alike,
// map_strategy*.cpp), and the same for columns; partitioning only adds halos.
double min_ifmap_words(const model::Layer& L, std::int64_t batch) {
  const PhyDim2 win = L.has_filter() ? L.sfil : L.sreg;
  return ifmap_words(L, batch, std::min(win.h, L.strd.h));
}

LayerCostBound layer_cost_bound(const LayerProblem& p, const RefetchFloor& floor) {
  const model::Layer& L = p.layer;
  const auto& c = p.costs;
  // Σ ops over the nodes is the layer's MACs (the reference's identity, nn_dataflow-spec §6.4:
  // p_occ scales the per-node ceil'd layer back); MAC energy is mac_op per op.
  const double ops = static_cast<double>(L.total_ops(p.batch));
  LayerCostBound b;
  b.energy = c.mac_op * ops;
  // Back kinds (training) price through rules we do not bound further: MACs only.
  if (L.is_back()) return b;
  // REGF (calc_stats): every unit pass charges ops per category, OFM twice (read + write); no
  // filter accesses without a filter.
  const double regf_per_op = L.has_filter() ? 4.0 : 3.0;
  b.energy += c.mem_hier[MemLevel::Regf] * (regf_per_op * ops);
  // DRAM (calc_stats): a category's top-level accesses are its data times fetch[0] >= 1 over
  // the nodes, divided by the sharing group that fetches replicated data once; IFM read from
  // (OFM written to) a processing region instead of DRAM is charged as remote GBUF accesses.
  const double fil_words = static_cast<double>(L.total_filter_size()) *
                           static_cast<double>(L.is_matmul() ? p.batch : 1);  // B per sample
  const double fil = fil_words * min_filter_fetches(p, floor);
  const double ifm = min_ifmap_words(L, p.batch);
  const double ofm = static_cast<double>(L.total_ofmap_size(p.batch));
  const bool src_dram = p.resource.src_data_region.type == mapping::RegionType::Dram;
  const bool dst_dram = p.resource.dst_data_region.type == mapping::RegionType::Dram;
  const double dram_words =
      fil + (src_dram ? ifm * min_ifmap_fetches(p, floor) : 0) + (dst_dram ? ofm : 0);
  b.energy += c.mem_hier[MemLevel::Dram] * dram_words;
  b.energy += c.mem_hier[MemLevel::Gbuf] * ((src_dram ? 0 : ifm) + (dst_dram ? 0 : ofm));
  // ITCN: every word a unit pass uses crosses the array bus (min_itcn_words).
  const ItcnWords itcn = min_itcn_words(L, p.batch, fil_words, p.resource.array_mapping);
  // GBUF (calc_stats: unit GBUF accesses x fetch[1] x stored_in_gbuf): a category that may
  // not bypass GBUF is stored, and its unit GBUF accesses are at least its DRAM-level ones.
  const auto& bypass = p.options.sw_gbuf_bypass;
  const double one_pass =
      c.mem_hier[MemLevel::Itcn] * (itcn.fil + itcn.ifm + itcn.ofm) +
      c.mem_hier[MemLevel::Gbuf] *
          ((bypass[DataCategory::Fil] ? 0 : fil_words) + (bypass[DataCategory::Ifm] ? 0 : ifm) +
           (bypass[DataCategory::Ofm] ? 0 : ofm));
  // NoC (cost_and_time: unit hops x fetch[0]; noc_hops.cpp): each filter word travels from a
  // memory node at least to the nearest processing node (a forwarding tree's weight, or each
  // node's own fetch, is at least that), as often as it crosses DRAM; each ofmap word is read
  // by (and accumulated back from) at least the processing node nearest its stored piece,
  // and ceil((read + accumulate) / 2) >= read. IFM hops depend on the layout: not bounded.
  const auto& r = p.resource;
  const double fil_hops =
      fil > 0 ? fil * static_cast<double>(r.dram_region.min_hops_to(r.proc_region)) : 0;
  const double ofm_hops =
      ofm > 0 ? ofm * static_cast<double>(r.dst_data_region.min_hops_to(r.proc_region)) : 0;
  // The refetch floor bounds the ITCN, stored-GBUF and NoC energy at once, its filter hops the
  // same hops as fil_hops; its ofmap hops are the INPP partial sums, which an ofmap transfer
  // adds to the read from the nearest node (refetch_bound.cpp), so ofm_hops add to it.
  b.energy +=
      std::max(one_pass + c.noc_hop * (fil_hops + ofm_hops), floor.energy + c.noc_hop * ofm_hops);
  // Time (LoopBlockingEval::time = max(proc, bus, dram)): a node's array does at most one MAC
  // per PE per cycle, and DRAM moves dram_bandwidth words per cycle.
  const double pes =
      static_cast<double>(p.resource.proc_region.dim.size() * p.resource.dim_array.size());
  // The processing time is unit_time x the passes whatever the blocking: at least the
  // floor's least over the partitions and nests.
  const double proc = std::max(std::ceil(ops / pes), floor.time);
  b.dram_time = std::ceil(dram_words / p.resource.dram_bandwidth);
  b.time = std::max(proc, b.dram_time);
  return b;
}

}  // namespace kapla::pricing
