// Strategy B's per-layer search (nn_dataflow Scheduling.schedule_search). Spec:
// nn_dataflow-spec.md §9.2. Work items are (partition, nested-loop description) pairs in
// generation order; each runs its loop-blocking search independently (OpenMP, dynamic
// schedule), and the results are merged in generation order before the stable top-k, so the
// answer does not depend on the thread count.
#include "search/exhaustive.hpp"

#include <algorithm>
#include <numeric>
#include <set>

#include "cost/layer_cost.hpp"
#include "cost/loop_blocking_search.hpp"
#include "cost/map_strategy.hpp"
#include "mapping/buffer_sharing_scheme.hpp"
#include "mapping/data_layout_ops.hpp"
#include "mapping/gen_partition.hpp"
#include "mapping/noc_hops.hpp"
#include "mapping/part_layer.hpp"

namespace kapla::search {

namespace {

struct PartWork {
  mapping::PartitionScheme part;
  mapping::PartLayer pl;
  std::vector<cost::NestedLoopDesc> nlds;
  mapping::BufShrScheme bufshr;
};

struct Item {
  std::size_t part = 0;
  std::size_t nld = 0;
};

LayerSchedule make_schedule(const cost::LoopBlockingEval& lbs, const cost::LayerCost& lc,
                            const mapping::PartitionScheme& part, int nld_index,
                            const mapping::DataLayout& ofmap_layout,
                            const std::array<int, 3>& sched_seq) {
  LayerSchedule s;
  s.cost = lc.cost;
  s.cost_op = lc.cost_op;
  s.cost_access = lc.cost_access;
  s.cost_noc = lc.cost_noc;
  s.cost_static = lc.cost_static;
  s.time = lc.time;
  s.proc_time = static_cast<double>(lbs.proc_time);
  s.bus_time = static_cast<double>(lbs.bus_time);
  s.dram_time = static_cast<double>(lbs.dram_time);
  s.ops = lbs.ops;
  s.num_nodes = lbs.num_nodes;
  s.is_dram = {lbs.src_is_dram, lbs.dst_is_dram};
  s.access = lbs.access;
  s.remote_gbuf_access = lbs.remote_gbuf_access;
  s.total_nhops = lc.total_nhops;
  s.mem_nhops = lc.mem_nhops;
  s.node_nhops = lc.node_nhops;
  s.unit_nhops = lc.unit_nhops;
  for (std::size_t b = 0; b < 2; ++b) {
    for (auto d : all_values<DataCategory>()) s.fetch[b][d] = static_cast<double>(lbs.fetch[b][d]);
  }
  s.part = part;
  s.nld_index = nld_index;
  s.tvals = lbs.blocking.bl_ts;
  s.orders = lbs.blocking.bl_ords;
  s.ofmap_layout = ofmap_layout;
  s.sched_seq = sched_seq;
  s.detail = std::make_shared<const cost::LoopBlockingEval>(lbs);
  return s;
}

// The per-node part of the search (the reference's schedule_search_per_node): partitions, their
// NLDs and each NLD's loop-blocking tops. Independent of the ifmap layout.
struct PerNode {
  std::vector<PartWork> parts;
  std::vector<Item> items;
  std::vector<std::vector<cost::LoopBlockingEval>> found;
  // Search plan: the items searched (one per distinct (NLD, sharing) pair) and, per item,
  // the item whose result it shares.
  std::vector<std::size_t> unique;
  std::vector<std::size_t> same_as;
};

// Partitions, NLDs and the search plan (no loop blocking yet).
std::shared_ptr<PerNode> plan_per_node(const LayerProblem& p) {
  const auto& res = p.resource;
  auto out = std::make_shared<PerNode>();
  for (auto& part : mapping::gen_partition(p.layer, p.batch, res.proc_region.dim, p.options, true)) {
    PartWork w;
    w.part = part;
    w.pl = mapping::part_layer(p.layer, p.batch, part);
    w.nlds = cost::map_layer(cost::ArrayMapping::Eyeriss, w.pl.p_layer, w.pl.p_batch,
                             w.pl.p_occupancy, res.dim_array, p.options.cost_model)
                 .nlds;
    if (!w.nlds.empty()) {
      w.bufshr = mapping::make_bufshr_scheme(res.proc_region, part, w.nlds.front().data_loops);
    }
    for (std::size_t n = 0; n < w.nlds.size(); ++n) out->items.push_back({out->parts.size(), n});
    out->parts.push_back(std::move(w));
  }
  // The loop-blocking search depends on the partition only through the NLD and (with access
  // forwarding or buffer sharing) the sharing scheme: partitions differing only in order
  // often repeat both, so each distinct (NLD, sharing) pair is searched once.
  const bool uses_bufshr = p.options.hw_gbuf_sharing || p.options.hw_access_forwarding;
  out->same_as.resize(out->items.size());
  for (std::size_t i = 0; i < out->items.size(); ++i) {
    const Item& it = out->items[i];
    const PartWork& w = out->parts[it.part];
    out->same_as[i] = i;
    for (std::size_t u : out->unique) {
      const Item& iu = out->items[u];
      const PartWork& wu = out->parts[iu.part];
      if (wu.nlds[iu.nld] == w.nlds[it.nld] && (!uses_bufshr || wu.bufshr == w.bufshr)) {
        out->same_as[i] = u;
        break;
      }
    }
    if (out->same_as[i] == i) out->unique.push_back(i);
  }
  out->found.resize(out->items.size());
  return out;
}

// Runs the planned loop-blocking searches of several problems as one parallel loop (dynamic
// schedule over all their work items), so small and large layers balance across threads.
void run_plans(const std::vector<std::pair<PerNode*, const LayerProblem*>>& plans, int num_threads) {
  std::vector<std::pair<std::size_t, std::size_t>> work;  // (plan, item)
  for (std::size_t k = 0; k < plans.size(); ++k) {
    for (std::size_t i : plans[k].first->unique) work.emplace_back(k, i);
  }
  const int n = static_cast<int>(work.size());
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, num_threads))
#endif
  for (int w = 0; w < n; ++w) {
    const auto [k, i] = work[static_cast<std::size_t>(w)];
    PerNode& pn = *plans[k].first;
    const LayerProblem& p = *plans[k].second;
    const Item& it = pn.items[i];
    const PartWork& pw = pn.parts[it.part];
    pn.found[i] = cost::search_loop_blocking(pw.nlds[it.nld], p.resource, pw.bufshr,
                                             p.constraint.top_blocking(), p.options, p.costs);
  }
  (void)num_threads;
  for (const auto& [pn, p] : plans) {
    for (std::size_t i = 0; i < pn->found.size(); ++i) {
      if (pn->same_as[i] != i) pn->found[i] = pn->found[pn->same_as[i]];
    }
  }
}

std::string memo_key(const LayerProblem& p) { return "exhaustive/per-node|" + problem_key(p, false); }

// The per-node result, from the memo when there is one.
std::shared_ptr<const PerNode> per_node(const LayerProblem& p, const SearchContext& ctx) {
  std::string key;
  if (ctx.memo) {
    key = memo_key(p);
    if (auto hit = ctx.memo->find(key)) return std::static_pointer_cast<const PerNode>(hit);
  }
  auto pn = plan_per_node(p);
  run_plans({{pn.get(), &p}}, ctx.num_threads);
  if (ctx.memo) ctx.memo->put(key, pn);
  return pn;
}

}  // namespace

void ExhaustiveStrategy::prepare_many(const std::vector<LayerProblem>& problems,
                                      const SearchContext& ctx) const {
  if (!ctx.memo) return;
  std::vector<std::shared_ptr<PerNode>> owned;
  std::vector<std::pair<PerNode*, const LayerProblem*>> plans;
  std::vector<std::string> keys;
  for (const auto& p : problems) {
    auto key = memo_key(p);
    if (ctx.memo->find(key) || std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    owned.push_back(plan_per_node(p));
    plans.emplace_back(owned.back().get(), &p);
    keys.push_back(std::move(key));
  }
  run_plans(plans, ctx.num_threads);
  for (std::size_t k = 0; k < owned.size(); ++k) ctx.memo->put(keys[k], owned[k]);
}

void ExhaustiveStrategy::prepare(const LayerProblem& p, const SearchContext& ctx) const {
  if (ctx.memo) per_node(p, ctx);
}

std::vector<LayerSchedule> ExhaustiveStrategy::search(const LayerProblem& p,
                                                      const SearchContext& ctx) const {
  const auto& res = p.resource;
  // Filters are fetched from every distinct memory node (§11.20).
  std::vector<PhyDim2> filter_nodes;
  {
    std::set<PhyDim2> seen;
    for (const auto& n : res.dram_region.nodes()) {
      if (seen.insert(n).second) filter_nodes.push_back(n);
    }
    std::sort(filter_nodes.begin(), filter_nodes.end());
  }

  const auto pn = per_node(p, ctx);
  const auto& parts = pn->parts;
  const auto& items = pn->items;
  const auto& found = pn->found;

  // Merge in generation order: per partition its NLDs' schemes, then the partition's layout
  // and unit hops (computed only for partitions with a valid scheme, as the reference).
  std::vector<LayerSchedule> tops;
  std::size_t i = 0;
  for (std::size_t pi = 0; pi < parts.size(); ++pi) {
    const std::size_t beg = i;
    while (i < items.size() && items[i].part == pi) ++i;
    bool any = false;
    for (std::size_t k = beg; k < i; ++k) any = any || !found[k].empty();
    if (!any) continue;
    const auto& part = parts[pi].part;
    const auto ofl = mapping::ofmap_layout(p.layer, p.batch, part, res.dst_data_region);
    const auto unit_nhops = mapping::unit_nhops_to_proc_region(
        p.layer, p.batch, res.proc_region, part, filter_nodes, p.ifmap_layout, ofl, p.options);
    for (std::size_t k = beg; k < i; ++k) {
      for (const auto& lbs : found[k]) {
        const auto lc = cost::layer_cost(lbs, unit_nhops, p.costs);
        tops.push_back(make_schedule(lbs, lc, part, static_cast<int>(items[k].nld), ofl, p.sched_seq));
      }
    }
  }
  const auto goal = p.options.opt_goal;
  std::stable_sort(tops.begin(), tops.end(),
                   [goal](const LayerSchedule& a, const LayerSchedule& b) { return goal_less(a, b, goal); });
  if (tops.size() > static_cast<std::size_t>(p.options.ntops)) {
    tops.erase(tops.begin() + p.options.ntops, tops.end());
  }
  return tops;
}

}  // namespace kapla::search
