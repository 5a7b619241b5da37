// Evaluation of one loop-blocking scheme (nn_dataflow LoopBlockingScheme.__init__ and
// _calc_stats, with the KAPLA fork's REGF refetch rule and rw_data).
// Spec: nn_dataflow-spec.md §7.2-7.5, §8.8, §11.6-7, §11.14, §12.2; kapla-spec.md §1.6.
#include "cost/loop_blocking.hpp"

#include <cmath>
#include <limits>

#include "core/errors.hpp"
#include "cost/loop_blocking_detail.hpp"

namespace kapla::cost {

using detail::bl_tp;
using detail::data_size;
using detail::innt_dim_loop;
using detail::kNoLoop;

std::string_view invalid_reason_name(InvalidReason r) {
  switch (r) {
    case InvalidReason::None:
      return "";
    case InvalidReason::CapacityInitial:
      return "capacity_initial";
    case InvalidReason::SrcNotDramRefetch:
      return "src_not_dram_refetch";
    case InvalidReason::DstNotDramRefetch:
      return "dst_not_dram_refetch";
    case InvalidReason::CapacityFinal:
      return "capacity_final";
    case InvalidReason::RwFilDstNotDram:
      return "rw_fil_dst_not_dram";
  }
  return "";
}

bool blocks_cover(std::int64_t t0, std::int64_t t1, std::int64_t t2, std::int64_t n) {
  // Exact factors satisfy these too (t1 divides m); no product is formed, so any input is safe.
  if (t0 < 1 || t1 < 1 || t2 < 1 || n < 1 || t2 > n) return false;
  const std::int64_t m = (n + t2 - 1) / t2;  // REGF blocks
  return t1 <= m && t0 == (m + t1 - 1) / t1;
}

std::array<PerLoopDim<std::int64_t>, 3> trips_above(const LoopBlocking& b,
                                                    const PerLoopDim<std::int64_t>& loopcnt) {
  std::array<PerLoopDim<std::int64_t>, 3> above{};
  for (auto l : all_values<LoopDim>()) {
    const std::int64_t t0 = b.bl_ts[0][l], t1 = b.bl_ts[1][l], t2 = b.bl_ts[2][l];
    above[0][l] = 1;
    above[1][l] = t0;  // = ceil(n / (t1 t2)) for a cover (blocks_cover)
    // The REGF blocks that run: fewer than t0 t1 when the last GBUF block is partial.
    above[2][l] = t0 * t1 * t2 == loopcnt[l] ? t0 * t1 : (loopcnt[l] + t2 - 1) / t2;
  }
  return above;
}

// Level 0 of _set_fetch: above the top level every loop has one trip, and below it t0's.
PerDataCategory<std::int64_t> top_fetch_counts(const PerDataCategory<mapping::LoopSet>& data_loops,
                                               DataCategory rw_data,
                                               const PerLoopDim<std::int64_t>& t0,
                                               const PerLoopDim<int>& ord0) {
  PerDataCategory<std::int64_t> fetch{};
  for (auto d : all_values<DataCategory>()) {
    const int inn = innt_dim_loop(data_loops[d], t0, ord0);
    if (inn == kNoLoop) {
      fetch[d] = 1;
      continue;
    }
    std::int64_t f = 1;
    for (auto l : all_values<LoopDim>())
      if (!data_loops[d].contains(l) && ord0[l] > ord0[static_cast<LoopDim>(inn)]) f *= t0[l];
    fetch[d] = d == rw_data ? 2 * f - 1 : f;
  }
  return fetch;
}

// _set_fetch (§7.3; fork REGF rule §12.2: a non-reusable REGF copy counts every unrelated
// factor of levels 0 and 1 and never inherits the outer fetch). The reference's T_l^{0:start}
// is trips_above[start][l], the blocks that run (docs/imperfect.md).
std::array<PerDataCategory<std::int64_t>, 2> fetch_counts(
    const PerDataCategory<mapping::LoopSet>& data_loops, const PerDataCategory<bool>& regf_reusable,
    DataCategory rw_data, const LoopBlocking& b, const PerLoopDim<std::int64_t>& loopcnt) {
  const auto above = trips_above(b, loopcnt);
  std::array<PerDataCategory<std::int64_t>, 2> fetch{};
  fetch[0] = top_fetch_counts(data_loops, rw_data, b.bl_ts[0], b.bl_ords[0]);
  const auto& t = b.bl_ts[1];
  const auto& ord = b.bl_ords[1];
  for (auto d : all_values<DataCategory>()) {
    const int inn = innt_dim_loop(data_loops[d], t, ord);
    const bool reusable = regf_reusable[d];
    if (inn == kNoLoop && reusable) {
      fetch[1][d] = fetch[0][d];
      continue;
    }
    std::int64_t f = 1;
    for (auto l : all_values<LoopDim>()) {
      if (data_loops[d].contains(l)) continue;
      const int start = reusable ? 1 + (ord[l] > ord[static_cast<LoopDim>(inn)] ? 1 : 0) : 2;
      f *= above[static_cast<std::size_t>(start)][l];
    }
    fetch[1][d] = d == rw_data ? 2 * f - 1 : f;
  }
  return fetch;
}

std::array<PerDataCategory<std::int64_t>, 2> fetch_counts(
    const PerDataCategory<mapping::LoopSet>& data_loops, const PerDataCategory<bool>& regf_reusable,
    DataCategory rw_data, const LoopBlocking& b) {
  PerLoopDim<std::int64_t> loopcnt{};
  for (auto l : all_values<LoopDim>()) loopcnt[l] = bl_tp(b, l, 0, 3);
  return fetch_counts(data_loops, regf_reusable, rw_data, b, loopcnt);
}

PerDataCategory<std::int64_t> least_gbuf_fetch(const PerDataCategory<mapping::LoopSet>& data_loops,
                                               const PerDataCategory<bool>& regf_reusable,
                                               DataCategory rw_data, const LoopBlocking& b,
                                               const PerDataCategory<std::int64_t>& top) {
  const auto& t0 = b.bl_ts[0];
  const auto& t1 = b.bl_ts[1];
  PerDataCategory<std::int64_t> out{};
  for (auto d : all_values<DataCategory>()) {
    bool own = false;  // fetch_counts' innermost loop at the GBUF level exists
    for (auto l : all_values<LoopDim>()) own = own || (data_loops[d].contains(l) && t1[l] > 1);
    if (!own && regf_reusable[d]) {
      out[d] = top[d];
      continue;
    }
    // Each factor of fetch_counts' product is trips_above at level 1 or 2: at least t0.
    std::int64_t f = 1;
    for (auto l : all_values<LoopDim>())
      if (!data_loops[d].contains(l)) f *= t0[l];
    out[d] = d == rw_data ? 2 * f - 1 : f;
  }
  return out;
}

InvalidReason on_chip_refetch(const PerDataCategory<std::int64_t>& fetch0, DataCategory rw_data,
                              bool src_is_dram, bool dst_is_dram) {
  if (!src_is_dram && fetch0[DataCategory::Ifm] > 1) return InvalidReason::SrcNotDramRefetch;
  if (!dst_is_dram && fetch0[rw_data] > 1) return InvalidReason::DstNotDramRefetch;
  return InvalidReason::None;
}

namespace {

bool over_capacity(const LoopBlockingEval& ev, const NestedLoopDesc& nld,
                   const mapping::Resource& res) {
  return data_size(ev, nld, 1) > static_cast<double>(res.size_regf) ||
         data_size(ev, nld, 0) > static_cast<double>(res.size_gbuf);
}

/// _set_fetch: the blocking's fetch counts (fetch_counts, above).
void set_fetch(LoopBlockingEval& ev, const NestedLoopDesc& nld) {
  ev.fetch = fetch_counts(nld.data_loops, nld.regf_reusable, nld.rw_data, ev.blocking, nld.loopcnt);
  ev.fetch_computed = true;
}

void record_sizes(LoopBlockingEval& ev, const NestedLoopDesc& nld) {
  for (int bl = 0; bl < 2; ++bl)
    for (auto d : all_values<DataCategory>())
      ev.size[static_cast<std::size_t>(bl)][d] = data_size(ev, nld, bl, d);
}

/// _calc_stats (§7.5).
void calc_stats(LoopBlockingEval& ev, const NestedLoopDesc& nld, const mapping::Resource& res,
                const model::UnitCosts& costs) {
  const double lcnt = static_cast<double>(ev.lcnt);
  const double nn = static_cast<double>(ev.num_nodes);
  ev.ops = (nld.unit_ops * lcnt) * nn;
  ev.proc_time = nld.unit_time * ev.lcnt;
  constexpr PerDataCategory<double> kRegfMul{{1.0, 1.0, 2.0}};  // OFM read + write
  for (auto d : all_values<DataCategory>()) {
    const double f0 = static_cast<double>(ev.fetch[0][d]);
    const double f1 = static_cast<double>(ev.fetch[1][d]);
    ev.access[MemLevel::Regf][d] = ((nld.unit_access[MemLevel::Regf][d] * lcnt) * kRegfMul[d]) * nn;
    ev.access[MemLevel::Itcn][d] = (nld.total_access_at_of(MemLevel::Itcn, d) * f1) * nn;
    const double s = ev.stored_in_gbuf[d] ? 1.0 : 0.0;
    ev.access[MemLevel::Gbuf][d] = ((nld.total_access_at_of(MemLevel::Gbuf, d) * f1) * s) * nn;
    // A bypassed category streams DRAM->REGF with the GBUF access pattern (§11.14).
    const double ta = ev.stored_in_gbuf[d] ? nld.total_access_at_of(MemLevel::Dram, d)
                                           : nld.total_access_at_of(MemLevel::Gbuf, d);
    ev.access[MemLevel::Dram][d] = ((ta * f0) * nn) / static_cast<double>(ev.accfwd_reduction[d]);
    // Buffer-sharing NoC accesses, over all groups.
    const double tag = nld.total_access_at_of(MemLevel::Gbuf, d);
    const double ngrp = static_cast<double>(ev.num_nodes / ev.bufshr.grp_size[d]);
    ev.bufshr_rotation_access[d] = (tag * ev.bufshr.rot_fetch[d]) * ngrp;
    ev.bufshr_wide_fetch_access[d] = (tag * ev.bufshr.wide_fetch[d]) * ngrp;
    ev.noc_access[d] = ev.bufshr_rotation_access[d] + ev.bufshr_wide_fetch_access[d];
  }
  ev.remote_gbuf_access = {};
  if (!ev.src_is_dram) {
    ev.remote_gbuf_access[DataCategory::Ifm] += ev.access[MemLevel::Dram][DataCategory::Ifm];
    ev.access[MemLevel::Dram][DataCategory::Ifm] = 0;
  }
  if (!ev.dst_is_dram) {
    ev.remote_gbuf_access[DataCategory::Ofm] += ev.access[MemLevel::Dram][DataCategory::Ofm];
    ev.access[MemLevel::Dram][DataCategory::Ofm] = 0;
  }
  double dram_sum = 0;
  for (auto d : all_values<DataCategory>()) dram_sum += ev.access[MemLevel::Dram][d];
  ev.dram_time = static_cast<std::int64_t>(std::ceil(dram_sum / res.dram_bandwidth));
  double gmax = ev.access[MemLevel::Gbuf][DataCategory::Fil];
  for (auto d : {DataCategory::Ifm, DataCategory::Ofm})
    if (ev.access[MemLevel::Gbuf][d] > gmax) gmax = ev.access[MemLevel::Gbuf][d];
  const auto per_node = static_cast<std::int64_t>(std::ceil(1. * gmax / nn));
  if (std::isinf(res.array_bus_width)) {
    ev.bus_time = 0;
  } else {
    const double bw = res.array_bus_width;
    if (bw == std::floor(bw)) {
      const auto w = static_cast<std::int64_t>(bw);
      ev.bus_time = (per_node + w - 1) / w;
    } else {
      ev.bus_time = static_cast<std::int64_t>(
          detail::py_floordiv(static_cast<double>(per_node) + bw - 1, bw));
    }
  }
  // Access cost (§3.2): categories FIL, IFM, OFM, then levels DRAM..REGF, then remote GBUF.
  double acc = 0;
  for (auto m : all_values<MemLevel>()) {
    double s = 0;
    for (auto d : all_values<DataCategory>()) s += ev.access[m][d];
    acc += costs.mem_hier[m] * s;
  }
  double rs = 0;
  for (auto d : all_values<DataCategory>()) rs += ev.remote_gbuf_access[d];
  acc += costs.mem_hier[MemLevel::Gbuf] * rs;
  ev.access_cost = acc;
}

LoopBlockingEval evaluate(const NestedLoopDesc& nld, const LoopBlocking& blocking,
                          const mapping::Resource& resource, const mapping::BufShrScheme& bufshr,
                          const model::SearchOptions& options, const model::UnitCosts& costs,
                          bool sweep, const FetchCounts* given_fetch) {
  LoopBlockingEval ev;
  ev.blocking = blocking;
  std::int64_t lcnt = 1;
  for (auto l : all_values<LoopDim>()) {
    const std::int64_t n = nld.loopcnt[l];
    if (bl_tp(blocking, l, 0, 3) != n) {
      KAPLA_ASSERT(options.imperfect == model::Imperfect::Full,
                   "LoopBlocking: blocking factors do not multiply to the loop count");
      KAPLA_ASSERT(
          blocks_cover(blocking.bl_ts[0][l], blocking.bl_ts[1][l], blocking.bl_ts[2][l], n),
          "LoopBlocking: trip counts do not cover the loop count with a remainder");
    }
    lcnt *= n;  // the passes run; Π trip counts >= lcnt counts padded ones
  }
  for (const auto& ord : blocking.bl_ords) {
    unsigned seen = 0;
    for (auto l : all_values<LoopDim>()) {
      KAPLA_ASSERT(ord[l] >= 0 && ord[l] < 3, "LoopBlocking: loop order out of range");
      seen |= 1u << ord[l];
    }
    KAPLA_ASSERT(seen == 7u, "LoopBlocking: loop order is not a permutation");
  }
  ev.lcnt = lcnt;

  // Sharing groups: the whole group holds the data until the sweep shrinks it (§8.9.3).
  for (auto d : all_values<DataCategory>()) {
    ev.bufshr.grp_size[d] = options.hw_gbuf_sharing ? bufshr.size(d) : 1;
    ev.bufshr.subgrp_size[d] = ev.bufshr.grp_size[d];
  }
  for (int bl = 0; bl < 2; ++bl) {
    for (auto d : all_values<DataCategory>()) {
      std::int64_t uc = 1;
      for (auto l : all_values<LoopDim>())
        if (nld.data_loops[d].contains(l)) uc *= bl_tp(blocking, l, bl + 1, 3);
      ev.unit_cnt[static_cast<std::size_t>(bl)][d] = uc;
    }
  }
  // Storage flags start conservative: stored unless bypass is allowed (§7.4 step 1).
  for (auto d : all_values<DataCategory>()) ev.stored_in_gbuf[d] = !options.sw_gbuf_bypass[d];

  auto reject = [&](InvalidReason r) {
    ev.invalid = r;
    record_sizes(ev, nld);
    return ev;
  };
  if (over_capacity(ev, nld, resource)) return reject(InvalidReason::CapacityInitial);

  if (given_fetch != nullptr) {
    ev.fetch = *given_fetch;
    ev.fetch_computed = true;
  } else {
    set_fetch(ev, nld);
  }
  ev.src_is_dram = resource.src_data_region.type == mapping::RegionType::Dram;
  ev.dst_is_dram = resource.dst_data_region.type == mapping::RegionType::Dram;
  if (nld.rw_data == DataCategory::Fil && !ev.dst_is_dram)
    return reject(InvalidReason::RwFilDstNotDram);
  // On-chip data can be read / written only once (no spilling), §7.4 step 5.
  if (const auto r = on_chip_refetch(ev.fetch[0], nld.rw_data, ev.src_is_dram, ev.dst_is_dram);
      r != InvalidReason::None)
    return reject(r);
  if (!ev.src_is_dram && resource.src_data_region == resource.proc_region)
    ev.stored_in_gbuf[DataCategory::Ifm] = true;
  if (!ev.dst_is_dram && resource.dst_data_region == resource.proc_region)
    ev.stored_in_gbuf[nld.rw_data] = true;
  // Keep in GBUF only with reuse at the GBUF level (§7.4 step 6).
  for (auto d : all_values<DataCategory>())
    if (!ev.stored_in_gbuf[d] && reused_in_gbuf(ev.fetch, d)) ev.stored_in_gbuf[d] = true;
  if (over_capacity(ev, nld, resource)) return reject(InvalidReason::CapacityFinal);

  // The nodes that compute: ops and accesses count them only (idle nodes of a sub-grid
  // partition, docs/imperfect.md, cost static energy alone).
  ev.num_nodes = bufshr.used_nodes > 0 ? bufshr.used_nodes : resource.proc_region.dim.size();
  if (options.hw_gbuf_sharing && sweep) detail::apply_bufshr(ev, nld, resource, bufshr);
  if (options.hw_access_forwarding || options.hw_gbuf_sharing)
    for (auto d : all_values<DataCategory>()) ev.accfwd_reduction[d] = bufshr.size(d);
  // Filter pinning (§7.4 step 11; the fork never pins a read-write filter). A filter that
  // depends on the batch loop (a MatMul's B, docs/transformers.md §5.1) is new data in every
  // run of the network: never pinned.
  if (resource.no_time_mux && nld.rw_data != DataCategory::Fil &&
      !nld.data_loops[DataCategory::Fil].contains(LoopDim::Bat)) {
    bool all_one = true;
    for (auto l : all_values<LoopDim>())
      if (nld.data_loops[DataCategory::Fil].contains(l) && blocking.bl_ts[0][l] != 1)
        all_one = false;
    if (all_one) {
      ev.filter_pinned = true;
      ev.fetch[0][DataCategory::Fil] = 0;
    }
  }
  record_sizes(ev, nld);
  calc_stats(ev, nld, resource, costs);
  return ev;
}

}  // namespace

LoopBlockingEval evaluate_loop_blocking(const NestedLoopDesc& nld, const LoopBlocking& blocking,
                                        const mapping::Resource& resource,
                                        const mapping::BufShrScheme& bufshr,
                                        const model::SearchOptions& options,
                                        const model::UnitCosts& costs) {
  return evaluate(nld, blocking, resource, bufshr, options, costs, true, nullptr);
}

LoopBlockingEval evaluate_loop_blocking_unswept(const NestedLoopDesc& nld,
                                                const LoopBlocking& blocking,
                                                const mapping::Resource& resource,
                                                const mapping::BufShrScheme& bufshr,
                                                const model::SearchOptions& options,
                                                const model::UnitCosts& costs) {
  return evaluate(nld, blocking, resource, bufshr, options, costs, false, nullptr);
}

LoopBlockingEval evaluate_loop_blocking_at_fetch(
    const NestedLoopDesc& nld, const LoopBlocking& blocking, const FetchCounts& fetch,
    const mapping::Resource& resource, const mapping::BufShrScheme& bufshr,
    const model::SearchOptions& options, const model::UnitCosts& costs) {
  return evaluate(nld, blocking, resource, bufshr, options, costs, false, &fetch);
}

}  // namespace kapla::cost
