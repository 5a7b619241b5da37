// The per-layer result of one evaluated scheme (nn_dataflow Scheduling._get_result and the
// SchedulingResult properties): cost parts, the fork's breakdown fields, NoC hops and totals.
// Spec: nn_dataflow-spec.md §3.2-3.3, §9.2, §11.21, §11.23, §12.6.
#pragma once

#include "core/enum_array.hpp"
#include "cost/energy_breakdown.hpp"
#include "cost/loop_blocking.hpp"
#include "model/hardware.hpp"

namespace kapla::cost {

struct LayerCost {
  double cost = 0;         // ((cost_op + cost_access) + cost_noc) + cost_static
  double cost_op = 0;      // mac_op * ops
  double cost_access = 0;  // the loop-blocking access cost (incl. remote GBUF)
  double cost_noc = 0;     // noc_hop * Σ total_nhops
  double cost_static = 0;  // idl_unit * time
  /// Where the energy goes (GBUF with the remote accesses); the parts sum to `cost`.
  EnergyBreakdown energy;
  // The fork's breakdown fields as the reference reports them (§12.6, golden parity only):
  // mem_hier[m] * Σ_d access[m][d] (no remote GBUF), and the NoC cost split into
  // buffer-sharing (node) and memory hops.
  double cost_dram = 0, cost_sram = 0, cost_itcn = 0, cost_regf = 0;
  double cost_node_nhops = 0, cost_mem_nhops = 0;
  PerDataCategory<double> unit_nhops{};
  PerDataCategory<double> mem_nhops{};    // unit_nhops * top-level fetch (after pinning)
  PerDataCategory<double> node_nhops{};   // buffer-sharing traffic
  PerDataCategory<double> total_nhops{};  // node + mem
  double time = 0;
  double total_node_time = 0;            // max(proc, bus)
  PerMemLevel<double> total_accesses{};  // Σ_d access, remote GBUF added to GBUF
  double total_noc_hops = 0;
};

/// The few numbers of a valid evaluation that a layer's total cost and time depend on, once
/// the partition's unit NoC hops are known: a search that prices one scheme under several
/// ifmap layouts or constraints can keep these instead of the whole evaluation.
struct CostInputs {
  double ops = 0;
  double access_cost = 0;
  double time = 0;                       // max(proc, bus, dram)
  PerDataCategory<double> node_nhops{};  // buffer-sharing traffic (noc_access)
  PerDataCategory<double> top_fetch{};   // fetch[0] (after pinning)
};
CostInputs cost_inputs(const LoopBlockingEval& lbs);

/// A layer's total cost and time (LayerCost::cost and time): layer_cost computes its `cost`
/// with this function, so a search's score and the layer result are the same numbers.
struct CostTime {
  double cost = 0;
  double time = 0;
};
CostTime cost_and_time(const CostInputs& in, const PerDataCategory<double>& unit_nhops,
                       const model::UnitCosts& costs);

/// Assembles the result of a VALID scheme (InternalError otherwise) given the partition's unit
/// NoC hops (mapping::unit_nhops_to_proc_region).
LayerCost layer_cost(const LoopBlockingEval& lbs, const PerDataCategory<double>& unit_nhops,
                     const model::UnitCosts& costs);

}  // namespace kapla::cost
