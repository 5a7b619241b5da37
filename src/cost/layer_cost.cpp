// Spec: nn_dataflow-spec.md §9.2 (_get_result), §3.2 evaluation order, §12.6.
#include "cost/layer_cost.hpp"

#include "core/errors.hpp"

namespace kapla::cost {

CostInputs cost_inputs(const LoopBlockingEval& lbs) {
  KAPLA_ASSERT(lbs.valid(), "cost_inputs: the scheme is invalid");
  CostInputs in;
  in.ops = lbs.ops;
  in.access_cost = lbs.access_cost;
  in.time = lbs.time();
  for (auto d : all_values<DataCategory>()) {
    in.node_nhops[d] = lbs.noc_access[d];
    in.top_fetch[d] = static_cast<double>(lbs.fetch[0][d]);
  }
  return in;
}

// The evaluation order is the reference's (nn_dataflow-spec §3.2): the hops summed over the
// categories, then ((op + access) + noc) + static.
CostTime cost_and_time(const CostInputs& in, const PerDataCategory<double>& unit_nhops,
                       const model::UnitCosts& costs) {
  double s_total = 0;
  for (auto d : all_values<DataCategory>())
    s_total += in.node_nhops[d] + unit_nhops[d] * in.top_fetch[d];
  const double cost_static = costs.idl_unit * in.time;
  return {((costs.mac_op * in.ops + in.access_cost) + costs.noc_hop * s_total) + cost_static,
          in.time};
}

LayerCost layer_cost(const LoopBlockingEval& lbs, const PerDataCategory<double>& unit_nhops,
                     const model::UnitCosts& costs) {
  KAPLA_ASSERT(lbs.valid(), "layer_cost: the scheme is invalid");
  LayerCost r;
  r.unit_nhops = unit_nhops;
  double s_total = 0, s_node = 0, s_mem = 0;
  for (auto d : all_values<DataCategory>()) {
    r.node_nhops[d] = lbs.noc_access[d];
    r.mem_nhops[d] = unit_nhops[d] * static_cast<double>(lbs.fetch[0][d]);
    r.total_nhops[d] = r.node_nhops[d] + r.mem_nhops[d];
    s_total += r.total_nhops[d];
    s_node += r.node_nhops[d];
    s_mem += r.mem_nhops[d];
  }
  r.cost_noc = costs.noc_hop * s_total;
  r.cost_node_nhops = costs.noc_hop * s_node;
  r.cost_mem_nhops = costs.noc_hop * s_mem;
  r.cost_op = costs.mac_op * lbs.ops;
  r.time = lbs.time();
  r.cost_static = costs.idl_unit * r.time;
  r.cost_access = lbs.access_cost;
  PerMemLevel<double> sums{};
  for (auto m : all_values<MemLevel>()) {
    double s = 0;
    for (auto d : all_values<DataCategory>()) s += lbs.access[m][d];
    sums[m] = s;
  }
  r.cost_dram = sums[MemLevel::Dram] * costs.mem_hier[MemLevel::Dram];
  r.cost_sram = sums[MemLevel::Gbuf] * costs.mem_hier[MemLevel::Gbuf];
  r.cost_itcn = sums[MemLevel::Itcn] * costs.mem_hier[MemLevel::Itcn];
  r.cost_regf = sums[MemLevel::Regf] * costs.mem_hier[MemLevel::Regf];
  r.cost = cost_and_time(cost_inputs(lbs), unit_nhops, costs).cost;
  r.total_node_time =
      static_cast<double>(lbs.proc_time > lbs.bus_time ? lbs.proc_time : lbs.bus_time);
  double remote = 0;
  for (auto d : all_values<DataCategory>()) remote += lbs.remote_gbuf_access[d];
  // The same products loop_blocking sums into access_cost, remote GBUF accesses with GBUF.
  r.energy.op = r.cost_op;
  r.energy.regf = r.cost_regf;
  r.energy.itcn = r.cost_itcn;
  r.energy.gbuf = r.cost_sram + costs.mem_hier[MemLevel::Gbuf] * remote;
  r.energy.dram = r.cost_dram;
  r.energy.noc = r.cost_noc;
  r.energy.idle = r.cost_static;
  r.total_accesses = sums;
  r.total_accesses[MemLevel::Gbuf] += remote;
  r.total_noc_hops = s_total;
  return r;
}

}  // namespace kapla::cost
