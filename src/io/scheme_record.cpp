#include "io/scheme_record.hpp"

#include <array>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "io/golden_record.hpp"
#include "io/json_util.hpp"
#include "model/limits.hpp"

namespace kapla::io {
namespace {

using nlohmann::json;

// The golden records' number form: non-finite values as "inf", "-inf", "nan" (golden::to_double).
json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

json dim2(PhyDim2 d) { return json::array({d.h, d.w}); }

json layer_json(const model::Layer& l) {
  return {{"type", std::string(model::class_name(l.type))},
          {"nifm", l.nifm},
          {"nofm", l.nofm},
          {"hofm", l.sofm.h},
          {"wofm", l.sofm.w},
          {"hfil", l.sfil.h},
          {"wfil", l.sfil.w},
          {"htrd", l.strd.h},
          {"wtrd", l.strd.w},
          {"nreg", l.nreg},
          {"hreg", l.sreg.h},
          {"wreg", l.sreg.w},
          {"ntrd", l.ntrd}};
}

json region_json(const mapping::NodeRegion& r) {
  return {{"dim", dim2(r.dim)},   {"origin", dim2(r.origin)},
          {"dist", dim2(r.dist)}, {"type", r.type == mapping::RegionType::Proc ? "PROC" : "DRAM"},
          {"wtot", r.wtot},       {"wbeg", r.wbeg}};
}

json resource_json(const mapping::Resource& r) {
  return {{"proc_region", region_json(r.proc_region)},
          {"dram_region", region_json(r.dram_region)},
          {"src_data_region", region_json(r.src_data_region)},
          {"dst_data_region", region_json(r.dst_data_region)},
          {"dim_array", dim2(r.dim_array)},
          {"size_gbuf_words", r.size_gbuf},
          {"size_regf_words", r.size_regf},
          {"array_bus_width_words", number(r.array_bus_width)},
          {"dram_bandwidth_words_per_cycle", number(r.dram_bandwidth)},
          {"no_time_mux", r.no_time_mux}};
}

json cost_json(const model::UnitCosts& c) {
  json hier = json::array();
  for (auto m : all_values<MemLevel>()) hier.push_back(number(c.mem_hier[m]));
  return {{"mac_op", number(c.mac_op)},
          {"mem_hier", hier},
          {"noc_hop", number(c.noc_hop)},
          {"idl_unit", number(c.idl_unit)}};
}

json options_json(const model::SearchOptions& o) {
  json bypass = json::array();
  for (auto d : all_values<DataCategory>()) bypass.push_back(o.sw_gbuf_bypass[d]);
  json j = {{"sw_gbuf_bypass", bypass},
            {"sw_solve_loopblocking", o.sw_solve_loopblocking},
            {"hw_access_forwarding", o.hw_access_forwarding},
            {"hw_gbuf_sharing", o.hw_gbuf_sharing},
            {"hw_gbuf_save_writeback", o.hw_gbuf_save_writeback},
            {"partition_hybrid", o.partition_hybrid},
            {"partition_batch", o.partition_batch},
            {"partition_ifmaps", o.partition_ifmaps},
            {"partition_interlayer", o.partition_interlayer},
            {"layer_pipeline_time_ovhd", number(o.layer_pipeline_time_ovhd)},
            {"layer_pipeline_max_degree", number(o.layer_pipeline_max_degree)},
            {"layer_pipeline_opt", o.layer_pipeline_opt},
            {"opt_goal", std::string(model::goal_name(o.opt_goal))},
            {"ntops", o.ntops},
            {"rs_fold_variants", model::fold_variants_on(o)}};  // the priced, effective value
  // Only when not none, so the reference's records are unchanged: a blocking with a remainder
  // is priced only under full (docs/imperfect.md).
  if (o.imperfect != model::Imperfect::None)
    j["imperfect"] = std::string(model::imperfect_name(o.imperfect));
  return j;
}

json part_json(const mapping::PartitionScheme& p) {
  json order = json::array();
  for (auto d : p.order) order.push_back(index_of(d));
  json pdims = json::array();
  for (auto d : all_values<ParallelDim>()) pdims.push_back(dim2(p.pdims[d]));
  return {{"order", order}, {"pdims", pdims}};
}

// The numbers the pricing pipeline assumes valid (its assertions are internal errors): the
// limits every other input obeys, a partition that fits its node region, positive factors.
void check_bounds(const SchemeRecord& r) {
  const auto& res = r.problem.resource;
  // A segment's region may be folded over the node grid (2 x 71 on 16 x 16 nodes): one side
  // may hold every node.
  constexpr std::int64_t kMaxRegionSide = model::limits::kMaxNodeSide * model::limits::kMaxNodeSide;
  model::limits::check_batch("inputs.batch_size", r.problem.batch);
  model::limits::check_dim("inputs.resource.dim_array", res.dim_array, 1,
                           model::limits::kMaxPeSide);
  model::limits::check_dim("inputs.resource.proc_region.dim", res.proc_region.dim, 1,
                           kMaxRegionSide);
  std::array<bool, 4> seen{};
  for (auto d : r.part.order) {
    const int i = static_cast<int>(d);
    if (i < 0 || i > 3 || seen[static_cast<std::size_t>(i)])
      throw InputError("inputs.scheme.part.order: must be a permutation of 0, 1, 2, 3");
    seen[static_cast<std::size_t>(i)] = true;
  }
  for (auto d : all_values<ParallelDim>())
    model::limits::check_dim("inputs.scheme.part.pdims", r.part.pdims[d], 1, kMaxRegionSide);
  const PhyDim2 used = r.part.dim();
  if (used.h > res.proc_region.dim.h || used.w > res.proc_region.dim.w)
    throw InputError("inputs.scheme.part: its node grid does not fit the proc_region");
  for (const auto& level : r.blocking.bl_ts)
    for (auto l : all_values<LoopDim>())
      model::limits::check_int("inputs.scheme.bl_ts", level[l], 1,
                               model::limits::kMaxBatch * model::limits::kMaxChannels);
}

}  // namespace

json scheme_record_json(const SchemeRecord& r) {
  const auto& p = r.problem;
  json ts = json::array();
  for (const auto& level : r.blocking.bl_ts) {
    json row = json::array();
    for (auto l : all_values<LoopDim>()) row.push_back(level[l]);
    ts.push_back(row);
  }
  json ords = json::array();
  for (const auto& level : r.blocking.bl_ords) {
    json row = json::array();
    for (auto l : all_values<LoopDim>()) row.push_back(level[l]);
    ords.push_back(row);
  }
  return {{"model", std::string(model::variant_name(p.options.cost_model))},
          {"array_mapping",
           p.resource.array_mapping == model::ArrayMapping::Systolic ? "systolic" : "eyeriss"},
          {"inputs",
           {{"layer", layer_json(p.layer)},
            {"batch_size", p.batch},
            {"resource", resource_json(p.resource)},
            {"cost", cost_json(p.costs)},
            {"options", options_json(p.options)},
            {"scheme",
             {{"part", part_json(r.part)},
              {"nld_index", r.nld_index},
              {"bl_ts", ts},
              {"bl_ords", ords}}}}}};
}

SchemeRecord parse_scheme_record(const json& j, const std::string& origin) {
  try {
    return golden::parsing_record([&] {
      SchemeRecord r;
      const json& in = j.at("inputs");
      const std::string model_field = j.at("model").get<std::string>();
      r.problem.layer = golden::parse_layer(in.at("layer"));
      r.problem.batch = as_int(in.at("batch_size"), "inputs.batch_size");
      r.problem.resource = golden::parse_resource(in.at("resource"));
      if (j.value("array_mapping", std::string("eyeriss")) == "systolic")
        r.problem.resource.array_mapping = model::ArrayMapping::Systolic;
      r.problem.costs = golden::parse_cost(in.at("cost"));
      r.problem.options = golden::parse_options(in.at("options"), model_field);
      const auto s = golden::parse_fixed_scheme(in.at("scheme"));
      r.part = s.part;
      r.nld_index = s.nld_index;
      r.blocking = {s.bl_ts, s.bl_ords};
      check_bounds(r);
      return r;
    });
  } catch (const InputError& e) {
    throw InputError(origin + ": " + e.what());
  }
}

}  // namespace kapla::io
