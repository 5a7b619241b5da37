#include "scheme_eval_json.hpp"

#include "io/golden_record.hpp"

namespace kapla::testing {

using nlohmann::json;

namespace {

template <class E, class T>
json arr(const EnumArray<E, T>& a) {
  json j = json::array();
  for (const auto& v : a) j.push_back(v);
  return j;
}
template <class T, std::size_t N>
json arr2(const std::array<T, N>& a) {
  json j = json::array();
  for (const auto& v : a) j.push_back(arr(v));
  return j;
}
template <class E, class T>
json arr2(const EnumArray<E, T>& a) {
  json j = json::array();
  for (const auto& v : a) j.push_back(arr(v));
  return j;
}
json dim(PhyDim2 d) { return json::array({d.h, d.w}); }

}  // namespace

json nld_json(const cost::NestedLoopDesc& nld, bool fork_fields) {
  json j;
  j["loopcnt"] = arr(nld.loopcnt);
  j["usize_gbuf"] = arr(nld.usize_gbuf);
  j["usize_regf"] = arr(nld.usize_regf);
  j["unit_access"] = arr2(nld.unit_access);
  j["unit_ops"] = nld.unit_ops;
  j["unit_time"] = nld.unit_time;
  json dl = json::array();
  for (auto d : all_values<DataCategory>()) {
    json l = json::array();
    for (auto lp : all_values<LoopDim>())
      if (nld.data_loops[d].contains(lp)) l.push_back(static_cast<int>(lp));
    dl.push_back(l);
  }
  j["data_loops"] = dl;
  json ta = json::array();
  for (auto m : all_values<MemLevel>()) {
    json r = json::array();
    for (auto d : all_values<DataCategory>()) r.push_back(nld.total_access_at_of(m, d));
    ta.push_back(r);
  }
  j["total_access_at_of"] = ta;
  if (fork_fields) {
    j["regf_reusable"] = arr(nld.regf_reusable);
    j["rw_data"] = static_cast<int>(nld.rw_data);
  }
  return j;
}

json geometry_json(const cost::MapGeometry& g) {
  return {{"dim_lpeset", dim(g.dim_lpeset)},
          {"ops_lpe", g.ops_lpe},
          {"repl", dim(g.repl)},
          {"fold", dim(g.fold)},
          {"dim_flpeset", dim(g.dim_flpeset)},
          {"dim_ppeset", dim(g.dim_ppeset)},
          {"util", g.util}};
}

json result_json(const cost::LoopBlockingEval& lbs, const cost::LayerCost& lc,
                 const cost::NestedLoopDesc& nld, const mapping::PartitionScheme& part,
                 bool fork_fields) {
  json r;
  r["cost"] = lc.cost;
  r["time"] = lc.time;
  r["ops"] = lbs.ops;
  r["num_nodes"] = lbs.num_nodes;
  r["is_dram"] = json::array({lbs.src_is_dram, lbs.dst_is_dram});
  r["cost_op"] = lc.cost_op;
  r["cost_access"] = lc.cost_access;
  r["cost_noc"] = lc.cost_noc;
  r["cost_static"] = lc.cost_static;
  r["proc_time"] = lbs.proc_time;
  r["bus_time"] = lbs.bus_time;
  r["dram_time"] = lbs.dram_time;
  r["access"] = arr2(lbs.access);
  r["remote_gbuf_access"] = arr(lbs.remote_gbuf_access);
  r["total_nhops"] = arr(lc.total_nhops);
  r["fetch"] = arr2(lbs.fetch);
  const auto& b = lbs.blocking;
  for (auto [name, l] : {std::pair{"ti", LoopDim::Ifm}, std::pair{"to", LoopDim::Ofm},
                         std::pair{"tb", LoopDim::Bat}}) {
    json t = json::array();
    for (const auto& lv : b.bl_ts) t.push_back(lv[l]);
    r[name] = t;
  }
  r["tvals"] = arr2(b.bl_ts);
  r["orders"] = arr2(b.bl_ords);
  r["size"] = arr2(lbs.size);
  r["unit_size"] = json::array({arr(nld.usize_gbuf), arr(nld.usize_regf)});
  r["unit_cnt"] = arr2(lbs.unit_cnt);
  r["accfwd_reduction"] = arr(lbs.accfwd_reduction);
  const auto& bs = lbs.bufshr;
  r["bufshr_grp_size"] = arr(bs.grp_size);
  r["bufshr_subgrp_size"] = arr(bs.subgrp_size);
  r["bufshr_bs_t"] = arr(bs.bs_t);
  r["bufshr_bs_ord"] = arr(bs.bs_ord);
  r["bufshr_rot_fetch"] = arr(bs.rot_fetch);
  r["bufshr_rot_round_cnt"] = arr(bs.rot_round_cnt);
  r["bufshr_rot_unit_cnt"] = arr(bs.rot_unit_cnt);
  r["bufshr_wide_fetch"] = arr(bs.wide_fetch);
  r["bufshr_wide_fetch_width"] = arr(bs.wide_fetch_width);
  json pd = json::array();
  for (const auto& p : part.pdims) pd.push_back(dim(p));
  json ord = json::array();
  for (auto p : part.order) ord.push_back(static_cast<int>(p));
  r["part"] = {{"order", ord}, {"pdims", pd}};
  r["mem_nhops"] = arr(lc.mem_nhops);
  r["node_nhops"] = arr(lc.node_nhops);
  r["unit_nhops"] = arr(lc.unit_nhops);
  r["totals"] = {{"total_cost", lc.cost},
                 {"total_time", lc.time},
                 {"total_node_time", lc.total_node_time},
                 {"total_dram_time", lbs.dram_time},
                 {"total_proc_time", lbs.proc_time},
                 {"total_ops", lbs.ops},
                 {"total_accesses", arr(lc.total_accesses)},
                 {"total_noc_hops", lc.total_noc_hops},
                 {"num_nodes", lbs.num_nodes}};
  json l;
  l["access_cost"] = lbs.access_cost;
  l["lcnt"] = lbs.lcnt;
  l["stored_in_gbuf"] = arr(lbs.stored_in_gbuf);
  l["src_is_dram"] = lbs.src_is_dram;
  l["dst_is_dram"] = lbs.dst_is_dram;
  l["filter_pinned"] = lbs.filter_pinned;
  l["noc_access"] = arr(lbs.noc_access);
  l["bufshr_rotation_access"] = arr(lbs.bufshr_rotation_access);
  l["bufshr_wide_fetch_access"] = arr(lbs.bufshr_wide_fetch_access);
  l["bl_ords_final"] = arr2(b.bl_ords);
  l["bl_ords_changed_by_bufshr"] = lbs.ords_changed_by_bufshr;
  r["lbs"] = l;
  if (fork_fields) {
    r["cost_dram"] = lc.cost_dram;
    r["cost_sram"] = lc.cost_sram;
    r["cost_itcn"] = lc.cost_itcn;
    r["cost_regf"] = lc.cost_regf;
    r["cost_node_nhops"] = lc.cost_node_nhops;
    r["cost_mem_nhops"] = lc.cost_mem_nhops;
    r["unit_access"] = arr2(nld.unit_access);
  }
  return r;
}

std::string first_mismatch(const json& got, const json& want, const std::string& path) {
  auto fail = [&] { return path + ": got " + got.dump() + ", want " + want.dump(); };
  if (got.is_object()) {
    if (!want.is_object()) return fail();
    for (auto it = got.begin(); it != got.end(); ++it) {
      if (!want.contains(it.key())) return path + "/" + it.key() + ": missing in golden";
      auto m = first_mismatch(it.value(), want.at(it.key()), path + "/" + it.key());
      if (!m.empty()) return m;
    }
    return "";
  }
  if (got.is_array()) {
    if (!want.is_array() || want.size() != got.size()) return fail();
    for (std::size_t i = 0; i < got.size(); ++i) {
      auto m = first_mismatch(got[i], want[i], path + "/" + std::to_string(i));
      if (!m.empty()) return m;
    }
    return "";
  }
  if (got.is_boolean()) return want.is_boolean() && got == want ? "" : fail();
  if (got.is_number()) {
    if (!(want.is_number() || want.is_string())) return fail();
    return io::golden::rel_equal(got.get<double>(), io::golden::to_double(want)) ? "" : fail();
  }
  return got == want ? "" : fail();
}

}  // namespace kapla::testing
