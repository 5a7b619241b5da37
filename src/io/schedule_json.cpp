// The schedule document (see schedule_json.hpp). Field by field: docs/schedule_json.md.
#include "io/schedule_json.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "io/scheme_record.hpp"

namespace kapla::io {
namespace {

using json = nlohmann::ordered_json;

json region_json(const mapping::NodeRegion& r) {
  return json::array({json::array({r.dim.h, r.dim.w}), json::array({r.origin.h, r.origin.w}),
                      json::array({r.dist.h, r.dist.w}), static_cast<int>(r.type),
                      r.effective_wtot(), r.effective_wbeg()});
}

json part_json(const mapping::PartitionScheme& p) {
  json order = json::array();
  for (auto pe : p.order) order.push_back(static_cast<int>(pe));
  json pdims = json::array();
  for (const auto& d : p.pdims) pdims.push_back(json::array({d.h, d.w}));
  return json::array({order, pdims});
}

json layout_json(const mapping::DataLayout& l) {
  json frngs = json::array();
  json regions = json::array();
  json parts = json::array();
  for (std::size_t i = 0; i < l.frngs.size(); ++i) {
    const auto& f = l.frngs[i];
    frngs.push_back(json::array({json(f.beg), json(f.end)}));
    regions.push_back(region_json(l.regions[i]));
    parts.push_back(part_json(l.parts[i]));
  }
  return json::array({frngs, regions, parts});
}

json number(double v) {
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (std::isnan(v)) return "NaN";
  if (v == std::floor(v) && std::fabs(v) < 9e15) return static_cast<std::int64_t>(v);
  return v;
}

template <class E>
json per(const EnumArray<E, double>& a) {
  json out = json::array();
  for (double v : a) out.push_back(number(v));
  return out;
}

// The breakdown as {"op": .., "noc": .., "static": .., ...} (cost::EnergyBreakdown::kPartNames).
json energy_json(const cost::EnergyBreakdown& e) {
  json j = json::object();
  const auto parts = e.parts();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    j[std::string(cost::EnergyBreakdown::kPartNames[i])] = parts[i];
  }
  return j;
}

json scheme_json(const pricing::LayerSchedule& s) {
  json j = json::object();
  j["cost"] = s.cost;
  j["time"] = number(s.time);
  j["ops"] = number(s.ops);
  j["num_nodes"] = s.num_nodes;
  j["is_dram"] = json::array({s.is_dram[0], s.is_dram[1]});
  j["cost_op"] = s.cost_op;
  j["cost_access"] = s.cost_access;
  j["cost_noc"] = s.cost_noc;
  j["cost_static"] = s.cost_static;
  j["energy"] = energy_json(s.energy);
  j["proc_time"] = number(s.proc_time);
  j["bus_time"] = number(s.bus_time);
  j["dram_time"] = number(s.dram_time);
  json access = json::array();
  for (const auto& a : s.access) access.push_back(per(a));
  j["access"] = access;
  j["remote_gbuf_access"] = per(s.remote_gbuf_access);
  j["total_nhops"] = per(s.total_nhops);
  json fetch = json::array();
  for (const auto& f : s.fetch) fetch.push_back(per(f));
  j["fetch"] = fetch;
  for (auto [key, loop] : {std::pair{"ti", LoopDim::Ifm}, std::pair{"to", LoopDim::Ofm},
                           std::pair{"tb", LoopDim::Bat}}) {
    json t = json::array();
    for (const auto& lvl : s.tvals) t.push_back(lvl[loop]);
    j[key] = t;
  }
  json tvals = json::array();
  for (const auto& lvl : s.tvals) tvals.push_back(json(lvl.values));
  j["tvals"] = tvals;
  json orders = json::array();
  for (const auto& lvl : s.orders) orders.push_back(json(lvl.values));
  j["orders"] = orders;
  j["part"] = part_json(s.part);
  j["mem_nhops"] = per(s.mem_nhops);
  j["node_nhops"] = per(s.node_nhops);
  j["unit_nhops"] = per(s.unit_nhops);
  return j;
}

}  // namespace

json schedule_json(const schedule::ScheduledNetwork& s) {
  const auto& net = s.net;
  const auto& best = s.best;
  json out = json::object();
  out["net"] = net.name();
  out["batch"] = s.batch;
  out["cost_model"] = std::string(model::variant_name(s.options.cost_model));
  if (s.options.imperfect != model::Imperfect::None)  // files of the reference's space unchanged
    out["imperfect"] = std::string(model::imperfect_name(s.options.imperfect));
  out["strategy"] = std::string(s.strategy);
  for (const auto& [key, text] : s.described) {  // seeded strategies: seed and budget
    if (key == "strategy.seed") out["seed"] = std::stoull(text);
    if (key == "strategy.max_evaluations" && out.contains("seed")) out["budget"] = std::stoll(text);
  }
  out["total_cost"] = best.total_cost();
  out["total_time"] = number(best.total_time());
  out["total_ops"] = number(best.total_ops());
  out["total_accesses"] = per(best.total_accesses());
  out["total_noc_hops"] = number(best.total_noc_hops());
  // The reference CLI's cost fields, from the cost model's breakdown (no re-pricing here).
  const auto energy = best.energy();
  out["total_op_cost"] = energy.op;
  out["total_access_cost"] = energy.access();
  out["total_noc_cost"] = energy.noc;
  out["total_static_cost"] = energy.idle;
  out["energy"] = energy_json(energy);
  json pes = json::object();
  json bw = json::object();
  json scheds = json::object();
  for (std::size_t l : best.order()) {
    const auto* ls = best.get(l);
    pes[net.layer_name(l)] = ls->ops / ls->proc_time / static_cast<double>(ls->num_nodes);
    bw[net.layer_name(l)] = ls->total_accesses()[MemLevel::Dram] / ls->time;
    scheds[net.layer_name(l)] =
        json::array({scheme_json(*ls), layout_json(ls->ofmap_layout), json(ls->sched_seq)});
  }
  out["active_node_pes"] = pes;
  out["dram_bandwidth"] = bw;
  json seg_time = json::array();
  json seg_dram = json::array();
  for (const auto& t : best.segment_timings()) {
    seg_time.push_back(number(t.time()));
    seg_dram.push_back(number(t.dram_time()));
  }
  out["segment_time"] = seg_time;
  out["segment_dram_time"] = seg_dram;
  out["input_layout"] = layout_json(best.input_layout());
  json ext = json::object();
  for (std::size_t i = 0; i < net.externals().size(); ++i) {
    ext[net.externals()[i].name] = layout_json(best.ext_layouts()[i]);
  }
  out["ext_layout_dict"] = ext;
  out["schedules"] = scheds;
  // Each layer's scheme with the inputs it is priced under, for `kapla emit` (the document
  // alone is enough to rebuild and re-price the scheme: io/scheme_record.hpp).
  json records = json::object();
  for (std::size_t l : best.order()) {
    const auto* ls = best.get(l);
    records[net.layer_name(l)] = scheme_record_json(
        {schedule::scheduled_layer_problem(s, l), ls->part, ls->nld_index, ls->detail->blocking});
  }
  out["scheme_records"] = records;
  return out;
}

}  // namespace kapla::io
