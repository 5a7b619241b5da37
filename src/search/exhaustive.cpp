// Strategy B's per-layer search (nn_dataflow Scheduling.schedule_search). Spec:
// nn_dataflow-spec.md §9.2. Work items are (partition, nested-loop description) pairs in
// generation order; each runs its loop-blocking search independently (OpenMP, dynamic
// schedule), and the results are merged in generation order before the stable top-k, so the
// answer does not depend on the thread count.
#include "search/exhaustive.hpp"

#include <algorithm>
#include <atomic>
#include <numeric>

#include "cost/loop_blocking_search.hpp"
#include "mapping/gen_partition.hpp"
#include "mapping/noc_hops.hpp"
#include "pricing/fixed_scheme.hpp"

namespace kapla::search {

namespace {

struct Item {
  std::size_t part = 0;
  std::size_t nld = 0;
};

// The per-node part of the search (the reference's schedule_search_per_node): partitions, their
// NLDs and each NLD's loop-blocking tops. Independent of the ifmap layout.
struct PerNode {
  std::vector<pricing::PartitionSetup> parts;
  std::vector<Item> items;
  std::vector<std::vector<cost::LoopBlockingEval>> found;
  // Schemes priced / valid per searched item (zero for shared or skipped items).
  std::vector<cost::LoopBlockingSearchStats> counts;
  // Set by the first search() call that reports these counts: a per-node result reused from
  // the memo (another ifmap layout) or prepared ahead is counted once, by the call that uses it
  // first, so the totals do not depend on the thread count. The only mutable part.
  mutable std::atomic<bool> counted{false};
  // Search plan: the items searched (one per distinct (NLD, sharing) pair) and, per item,
  // the item whose result it shares.
  std::vector<std::size_t> unique;
  std::vector<std::size_t> same_as;
};

// Partitions, NLDs and the search plan (no loop blocking yet).
std::shared_ptr<PerNode> plan_per_node(const pricing::LayerProblem& p) {
  const auto& res = p.resource;
  auto out = std::make_shared<PerNode>();
  for (auto& part :
       mapping::gen_partition(p.layer, p.batch, res.proc_region.dim, p.options, true)) {
    pricing::PartitionSetup w = pricing::setup_partition(p, part);
    for (std::size_t n = 0; n < w.map.nlds.size(); ++n)
      out->items.push_back({out->parts.size(), n});
    out->parts.push_back(std::move(w));
  }
  // The loop-blocking search depends on the partition only through the NLD, its node count and
  // (with access forwarding or buffer sharing) the sharing scheme: partitions differing only in
  // order often repeat both, so each distinct (NLD, sharing) pair is searched once.
  const bool uses_bufshr = p.options.hw_gbuf_sharing || p.options.hw_access_forwarding;
  out->same_as.resize(out->items.size());
  for (std::size_t i = 0; i < out->items.size(); ++i) {
    const Item& it = out->items[i];
    const pricing::PartitionSetup& w = out->parts[it.part];
    out->same_as[i] = i;
    for (std::size_t u : out->unique) {
      const Item& iu = out->items[u];
      const pricing::PartitionSetup& wu = out->parts[iu.part];
      // The node count always matters (a sub-grid partition computes on fewer nodes).
      if (wu.map.nlds[iu.nld] == w.map.nlds[it.nld] &&
          wu.bufshr.used_nodes == w.bufshr.used_nodes && (!uses_bufshr || wu.bufshr == w.bufshr)) {
        out->same_as[i] = u;
        break;
      }
    }
    if (out->same_as[i] == i) out->unique.push_back(i);
  }
  out->found.resize(out->items.size());
  out->counts.resize(out->items.size());
  return out;
}

// Runs the planned loop-blocking searches of several problems as one parallel loop (dynamic
// schedule over all their work items), so small and large layers balance across threads.
// Once ctx.stop_requested(), the remaining items are skipped (left empty).
void run_plans(const std::vector<std::pair<PerNode*, const pricing::LayerProblem*>>& plans,
               const SearchContext& ctx) {
  const int num_threads = ctx.num_threads;
  std::vector<std::pair<std::size_t, std::size_t>> work;  // (plan, item)
  for (std::size_t k = 0; k < plans.size(); ++k) {
    for (std::size_t i : plans[k].first->unique) work.emplace_back(k, i);
  }
  const int n = static_cast<int>(work.size());
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, num_threads))
#endif
  for (int w = 0; w < n; ++w) {
    if (ctx.stop_requested()) continue;
    const auto [k, i] = work[static_cast<std::size_t>(w)];
    PerNode& pn = *plans[k].first;
    const pricing::LayerProblem& p = *plans[k].second;
    const Item& it = pn.items[i];
    const pricing::PartitionSetup& pw = pn.parts[it.part];
    pn.found[i] =
        cost::search_loop_blocking(pw.map.nlds[it.nld], p.resource, pw.bufshr,
                                   p.constraint.top_blocking(), p.options, p.costs, &pn.counts[i]);
  }
  (void)num_threads;
  for (const auto& [pn, p] : plans) {
    for (std::size_t i = 0; i < pn->found.size(); ++i) {
      if (pn->same_as[i] != i) pn->found[i] = pn->found[pn->same_as[i]];
    }
  }
}

// The per-node search's counts, into the call's statistics the first time it is used.
void report_counts(const PerNode& pn, LayerSearchStats& out) {
  out.reported = true;
  out.valid = 0;
  if (pn.counted.exchange(true)) return;
  for (const auto& c : pn.counts) {
    out.evaluated += c.evaluated;
    out.valid += c.valid;
  }
}

std::string memo_key(const pricing::LayerProblem& p) {
  return "exhaustive/per-node|" + problem_key(p, false);
}

// The per-node result, from the memo when there is one (made once per key even when layer
// searches run concurrently; a stopped one is partial and not kept).
std::shared_ptr<const PerNode> per_node(const pricing::LayerProblem& p, const SearchContext& ctx) {
  std::shared_ptr<PerNode> made;
  auto make = [&] {
    made = plan_per_node(p);
    run_plans({{made.get(), &p}}, ctx);
  };
  if (!ctx.memo) {
    make();
    return made;
  }
  const auto v = ctx.memo->get_or_make(
      memo_key(p),
      [&]() -> std::shared_ptr<const void> {
        make();
        if (ctx.stop_requested()) return nullptr;
        return made;
      },
      pricing::layer_scope(p));
  return v ? std::static_pointer_cast<const PerNode>(v) : made;
}

}  // namespace

void ExhaustiveStrategy::prepare_many(const std::vector<pricing::LayerProblem>& problems,
                                      const SearchContext& ctx) const {
  if (!ctx.memo) return;
  std::vector<std::shared_ptr<PerNode>> owned;
  std::vector<std::pair<PerNode*, const pricing::LayerProblem*>> plans;
  std::vector<std::string> keys;
  for (const auto& p : problems) {
    auto key = memo_key(p);
    if (ctx.memo->find(key) || std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    owned.push_back(plan_per_node(p));
    plans.emplace_back(owned.back().get(), &p);
    keys.push_back(std::move(key));
  }
  run_plans(plans, ctx);
  if (ctx.stop_requested()) return;  // partial results are not memoised
  for (std::size_t k = 0; k < owned.size(); ++k)
    ctx.memo->put(keys[k], owned[k], pricing::layer_scope(*plans[k].second));
}

void ExhaustiveStrategy::prepare(const pricing::LayerProblem& p, const SearchContext& ctx) const {
  if (ctx.memo) per_node(p, ctx);
}

std::vector<pricing::LayerSchedule> ExhaustiveStrategy::search(const pricing::LayerProblem& p,
                                                               const SearchContext& ctx) const {
  // Filters are fetched from every distinct memory node (§11.20).
  const auto sources = mapping::placement_sources(p.resource.dram_region, p.ifmap_layout);

  const auto pn = per_node(p, ctx);
  if (ctx.stats != nullptr) report_counts(*pn, *ctx.stats);
  if (ctx.stop_requested()) return {};  // partial: the caller discards it
  const auto& parts = pn->parts;
  const auto& items = pn->items;
  const auto& found = pn->found;

  // Merge in generation order: per partition its NLDs' schemes, then the partition's layout
  // and unit hops (computed only for partitions with a valid scheme, as the reference).
  std::vector<pricing::LayerSchedule> tops;
  std::size_t i = 0;
  for (std::size_t pi = 0; pi < parts.size(); ++pi) {
    const std::size_t beg = i;
    while (i < items.size() && items[i].part == pi) ++i;
    bool any = false;
    for (std::size_t k = beg; k < i; ++k) any = any || !found[k].empty();
    if (!any) continue;
    const auto& part = parts[pi].part;
    const auto placement = pricing::place_partition(p, part, sources);
    for (std::size_t k = beg; k < i; ++k) {
      for (const auto& lbs : found[k]) {
        tops.push_back(
            pricing::schedule_of(p, part, static_cast<int>(items[k].nld), lbs, placement));
      }
    }
  }
  const auto goal = p.options.opt_goal;
  std::stable_sort(tops.begin(), tops.end(),
                   [goal](const pricing::LayerSchedule& a, const pricing::LayerSchedule& b) {
                     return goal_less(a, b, goal);
                   });
  if (tops.size() > static_cast<std::size_t>(p.options.ntops)) {
    tops.erase(tops.begin() + p.options.ntops, tops.end());
  }
  return tops;
}

StrategyEntry exhaustive_entry() {
  StrategyEntry e;
  e.name = "exhaustive";
  e.letter = 'B';
  e.label = "B (exhaustive)";
  e.description = "nn_dataflow exhaustive search (partitions x mappings x loop blocking)";
  e.cost_weight = 5.67;
  e.parse = parse_no_params;
  e.describe = describe_no_params;
  e.make = [](const StrategyParams&, std::uint64_t) -> std::unique_ptr<LayerStrategy> {
    return std::make_unique<ExhaustiveStrategy>();
  };
  return e;
}

}  // namespace kapla::search
