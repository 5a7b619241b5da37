// CostOracle: composes the one cost model's parts exactly as strategy B does
// (nn_dataflow-spec.md §9.2 schedule_search / _get_result).
#include "search/kapla/cost_oracle.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/errors.hpp"
#include "core/math.hpp"
#include "cost/layer_cost.hpp"
#include "cost/loop_blocking.hpp"
#include "mapping/buffer_sharing_scheme.hpp"
#include "mapping/data_layout_ops.hpp"
#include "mapping/gen_partition.hpp"
#include "mapping/noc_hops.hpp"
#include "mapping/part_layer.hpp"

namespace kapla::search::directive {

NodeNest node_nest(const cost::NestedLoopDesc& nld, const model::Layer& p_layer) {
  NodeNest n;
  n.loopcnt = nld.loopcnt;
  for (auto d : all_values<DataCategory>()) {
    n.usize_gbuf[d] = static_cast<std::int64_t>(std::ceil(nld.usize_gbuf[d]));
    n.usize_regf[d] = static_cast<std::int64_t>(std::ceil(nld.usize_regf[d]));
  }
  n.data_loops = nld.data_loops;
  n.rw_data = nld.rw_data;
  // Replication recovered from the loop counts (lcnt = ceil(channels / replication)).
  const bool chw = p_layer.is_local_region() || p_layer.is_depthwise();
  n.repl_ifm = chw ? 1 : ceil_div(p_layer.nifm, nld.loopcnt[LoopDim::Ifm]);
  n.repl_ofm = ceil_div(p_layer.nofm, nld.loopcnt[LoopDim::Ofm]);
  return n;
}

CostOracle::CostOracle(const LayerProblem& problem)
    : p_(problem),
      parts_(mapping::gen_partition(problem.layer, problem.batch, problem.resource.proc_region.dim,
                                    problem.options, true)),
      filter_nodes_(problem.resource.dram_region.nodes()),
      cache_(std::make_unique<PartData[]>(parts_.size())) {
  // Filters are fetched from every distinct memory node, sorted (as strategy B, spec §11.20).
  std::sort(filter_nodes_.begin(), filter_nodes_.end());
  filter_nodes_.erase(std::unique(filter_nodes_.begin(), filter_nodes_.end()), filter_nodes_.end());
}

PerLoopDim<std::int64_t> CostOracle::top_constraint() const {
  const auto c = p_.constraint.top_blocking();
  return {{c.topifm, c.topofm, c.topbat}};
}

const CostOracle::PartData* CostOracle::part_data(const mapping::PartitionScheme& part) const {
  const auto it = std::find(parts_.begin(), parts_.end(), part);
  if (it == parts_.end()) return nullptr;
  PartData& d = cache_[static_cast<std::size_t>(it - parts_.begin())];
  std::call_once(d.once, [&] {
    const auto pl = mapping::part_layer(p_.layer, p_.batch, part);
    d.map = cost::map_eyeriss(pl.p_layer, pl.p_batch, pl.p_occupancy, p_.resource.dim_array,
                              p_.options.cost_model);
    for (const auto& nld : d.map.nlds) d.nests.push_back(node_nest(nld, pl.p_layer));
    if (!d.map.nlds.empty())
      d.bufshr = mapping::make_bufshr_scheme(p_.resource.proc_region, part, d.map.nlds.front().data_loops);
    d.ofmap_layout = mapping::ofmap_layout(p_.layer, p_.batch, part, p_.resource.dst_data_region);
    d.unit_nhops = mapping::unit_nhops_to_proc_region(p_.layer, p_.batch, p_.resource.proc_region, part,
                                                      filter_nodes_, p_.ifmap_layout, d.ofmap_layout,
                                                      p_.options);
  });
  return &d;
}

cost::MapResult CostOracle::map(const mapping::PartitionScheme& part) const {
  if (const auto* d = part_data(part)) return d->map;
  const auto pl = mapping::part_layer(p_.layer, p_.batch, part);
  return cost::map_eyeriss(pl.p_layer, pl.p_batch, pl.p_occupancy, p_.resource.dim_array,
                           p_.options.cost_model);
}

std::vector<NodeNest> CostOracle::nests(const mapping::PartitionScheme& part) const {
  if (const auto* d = part_data(part)) return d->nests;
  const auto pl = mapping::part_layer(p_.layer, p_.batch, part);
  const auto m = cost::map_eyeriss(pl.p_layer, pl.p_batch, pl.p_occupancy, p_.resource.dim_array,
                                   p_.options.cost_model);
  std::vector<NodeNest> out;
  out.reserve(m.nlds.size());
  for (const auto& nld : m.nlds) out.push_back(node_nest(nld, pl.p_layer));
  return out;
}

Capacity CostOracle::capacity(const mapping::PartitionScheme& part, int /*nest_index*/) const {
  Capacity c;
  c.regf_words = p_.resource.size_regf;
  c.gbuf_words = p_.resource.size_gbuf;
  // Buffer-sharing groups are those of the partition (all nests share the data loops).
  if (p_.options.hw_gbuf_sharing) {
    if (const auto* d = part_data(part))
      for (auto dc : all_values<DataCategory>()) c.gbuf_share[dc] = d->bufshr.size(dc);
  }
  return c;
}

std::optional<LayerSchedule> CostOracle::schedule(const CanonicalScheme& s) const {
  if (!p_.constraint.top_blocking().is_valid_top_bl(s.blocking.bl_ts[0], s.blocking.bl_ords[0]))
    return std::nullopt;
  const auto* pd = part_data(s.part);
  KAPLA_ASSERT(pd != nullptr, "CostOracle: a scheme's partition is not one of B's");
  if (s.nest_index < 0 || static_cast<std::size_t>(s.nest_index) >= pd->map.nlds.size()) return std::nullopt;
  const auto& nld = pd->map.nlds[static_cast<std::size_t>(s.nest_index)];
  cost::LoopBlocking b;
  b.bl_ts = s.blocking.bl_ts;
  b.bl_ords = s.blocking.bl_ords;
  const auto ev = cost::evaluate_loop_blocking(nld, b, p_.resource, pd->bufshr, p_.options, p_.costs);
  if (!ev.valid()) return std::nullopt;
  // The layer result (nn_dataflow _get_result) from the cost model's layer_cost.
  LayerSchedule r;
  r.ofmap_layout = pd->ofmap_layout;
  const auto lc = cost::layer_cost(ev, pd->unit_nhops, p_.costs);
  r.unit_nhops = lc.unit_nhops;
  r.node_nhops = lc.node_nhops;
  r.mem_nhops = lc.mem_nhops;
  r.total_nhops = lc.total_nhops;
  r.cost = lc.cost;
  r.cost_op = lc.cost_op;
  r.cost_access = lc.cost_access;
  r.cost_noc = lc.cost_noc;
  r.cost_static = lc.cost_static;
  r.time = lc.time;
  r.ops = ev.ops;
  r.cost = lc.cost;
  r.cost_op = lc.cost_op;
  r.cost_access = lc.cost_access;
  r.cost_noc = lc.cost_noc;
  r.cost_static = lc.cost_static;
  r.time = lc.time;
  r.proc_time = static_cast<double>(ev.proc_time);
  r.bus_time = static_cast<double>(ev.bus_time);
  r.dram_time = static_cast<double>(ev.dram_time);
  r.num_nodes = ev.num_nodes;
  r.is_dram = {ev.src_is_dram, ev.dst_is_dram};
  r.access = ev.access;
  r.remote_gbuf_access = ev.remote_gbuf_access;
  for (int bl = 0; bl < 2; ++bl)
    for (auto d : all_values<DataCategory>())
      r.fetch[static_cast<std::size_t>(bl)][d] = static_cast<double>(ev.fetch[static_cast<std::size_t>(bl)][d]);
  r.part = s.part;
  r.nld_index = s.nest_index;
  r.tvals = ev.blocking.bl_ts;
  r.orders = ev.blocking.bl_ords;
  r.sched_seq = p_.sched_seq;
  r.detail = std::make_shared<const cost::LoopBlockingEval>(ev);
  return r;
}

std::optional<Score> CostOracle::evaluate(const CanonicalScheme& s) const {
  const auto r = schedule(s);
  if (!r) return std::nullopt;
  return Score{r->cost, r->time};
}

}  // namespace kapla::search::directive
