// CostOracle: prices through the one fixed-scheme evaluator, exactly as strategy B does
// (nn_dataflow-spec.md §9.2 schedule_search / _get_result).
#include "search/kapla/cost_oracle.hpp"

#include <cmath>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "core/errors.hpp"
#include "core/math.hpp"
#include "core/once.hpp"
#include "core/remembered.hpp"
#include "cost/loop_blocking_search.hpp"
#include "search/kapla/layout_free_memo.hpp"

namespace kapla::search::kapla {

NodeNest node_nest(const cost::NestedLoopDesc& nld, const model::Layer& p_layer) {
  NodeNest n;
  n.loopcnt = nld.loopcnt;
  for (auto d : all_values<DataCategory>()) {
    n.usize_gbuf[d] = static_cast<std::int64_t>(std::ceil(nld.usize_gbuf[d]));
    n.usize_regf[d] = static_cast<std::int64_t>(std::ceil(nld.usize_regf[d]));
  }
  n.data_loops = nld.data_loops;
  n.rw_data = nld.rw_data;
  n.regf_reusable = nld.regf_reusable;
  // Replication recovered from the loop counts (lcnt = ceil(channels / replication)).
  const bool chw = p_layer.is_local_region() || p_layer.is_depthwise();
  n.repl_ifm = chw ? 1 : ceil_div(p_layer.nifm, nld.loopcnt[LoopDim::Ifm]);
  n.repl_ofm = ceil_div(p_layer.nofm, nld.loopcnt[LoopDim::Ofm]);
  return n;
}

struct CostOracle::Derived {
  struct Slot {
    Once once;
    NestList nests;
  };
  explicit Derived(std::size_t num_parts) : nests(std::make_unique<Slot[]>(num_parts)) {}
  std::unique_ptr<Slot[]> nests;  // per position in the partition list
  using WantKey = std::array<std::int64_t, 2 * EnumTraits<ParallelDim>::size>;
  std::mutex mu;
  std::unordered_map<WantKey, std::vector<std::size_t>, WordsHash> nearest;
  // Keyed on the constraint too: oracles sharing this differ in it and in the layout only.
  LayoutFreeMemo layout_free;
};

const LayoutFreeMemo* CostOracle::layout_free_memo() const { return &derived_->layout_free; }

CostOracle::CostOracle(const pricing::LayerProblem& problem)
    : eval_(problem),
      distinct_parts_(eval_.distinct_partitions()),
      derived_(std::make_shared<Derived>(eval_.partitions().size())) {}

CostOracle::CostOracle(const pricing::LayerProblem& problem,
                       pricing::FixedSchemeEvaluator::SharedSetups setups,
                       pricing::FixedSchemeEvaluator::SharedPlacements placements)
    : CostOracle(problem, std::move(setups), std::move(placements), nullptr) {}

CostOracle::CostOracle(const pricing::LayerProblem& problem,
                       pricing::FixedSchemeEvaluator::SharedSetups setups,
                       pricing::FixedSchemeEvaluator::SharedPlacements placements,
                       SharedDerived derived)
    : eval_(problem, std::move(setups), std::move(placements)),
      distinct_parts_(eval_.distinct_partitions()),
      derived_(std::move(derived)) {
  if (!derived_) derived_ = std::make_shared<Derived>(eval_.partitions().size());
}

std::optional<std::size_t> CostOracle::index_of(const mapping::PartitionScheme& part) const {
  // An element of the list itself (most fits' partition) is at its own position, which is
  // the evaluator's answer when no two elements are equal.
  if (distinct_parts_)
    if (const auto i = element_index(eval_.partitions(), part)) return i;
  return eval_.index_of(part);
}

PerLoopDim<std::int64_t> CostOracle::top_constraint() const {
  const auto c = eval_.problem().constraint.top_blocking();
  return {{c.topifm, c.topofm, c.topbat}};
}

cost::MapResult CostOracle::map(const mapping::PartitionScheme& part) const {
  if (const auto i = index_of(part)) return eval_.setup(*i).map;
  return pricing::setup_partition(eval_.problem(), part).map;
}

namespace {
NestList nests_of(const pricing::PartitionSetup& s) {
  std::vector<NodeNest> out;
  out.reserve(s.map.nlds.size());
  for (std::size_t k = 0; k < s.map.nlds.size(); ++k) {
    out.push_back(node_nest(s.map.nlds[k], s.pl.p_layer));
    out.back().fold_variant = !(s.map.nld_geometry[k] == s.map.geometry);
  }
  return std::make_shared<const std::vector<NodeNest>>(std::move(out));
}
}  // namespace

NestList CostOracle::nests(const mapping::PartitionScheme& part) const {
  const auto i = index_of(part);
  if (!i) return nests_of(pricing::setup_partition(eval_.problem(), part));
  auto& slot = derived_->nests[*i];
  slot.once.call([&] { slot.nests = nests_of(eval_.setup(*i)); });
  return slot.nests;
}

std::vector<std::size_t> CostOracle::nearest_partitions(const PerParallelDim<PhyDim2>& want) const {
  Derived::WantKey k{};
  std::size_t i = 0;
  for (const auto& d : want) {
    k[i++] = d.h;
    k[i++] = d.w;
  }
  return remembered(derived_->mu, derived_->nearest, k,
                    [&] { return LayerOracle::nearest_partitions(want); });
}

Capacity CostOracle::capacity(const mapping::PartitionScheme& part, int /*nest_index*/) const {
  const auto& p = eval_.problem();
  Capacity c;
  c.regf_words = p.resource.size_regf;
  c.gbuf_words = p.resource.size_gbuf;
  const auto& r = p.resource;
  for (auto dc : all_values<DataCategory>()) c.always_in_gbuf[dc] = !p.options.sw_gbuf_bypass[dc];
  // On-chip data in the layer's own region is kept in GBUF whatever the blocking (§7.4 step 5):
  // the ifmaps, and of the read-write data only the ofmaps (a weight-gradient layer must write
  // its filters to DRAM, or the model rejects the scheme).
  if (r.src_data_region.type != mapping::RegionType::Dram && r.src_data_region == r.proc_region)
    c.always_in_gbuf[DataCategory::Ifm] = true;
  if (r.dst_data_region.type != mapping::RegionType::Dram && r.dst_data_region == r.proc_region)
    c.always_in_gbuf[DataCategory::Ofm] = true;
  // Buffer-sharing groups are those of the partition (all nests share the data loops).
  if (p.options.hw_gbuf_sharing) {
    if (const auto i = index_of(part)) {
      const auto& bufshr = eval_.setup(*i).bufshr;
      for (auto dc : all_values<DataCategory>()) c.gbuf_share[dc] = bufshr.size(dc);
    }
  }
  return c;
}

std::vector<Blocking> CostOracle::bypass_blockings(const mapping::PartitionScheme& part,
                                                   int nest_index) const {
  const auto i = index_of(part);
  if (!i) return {};
  const auto& nlds = eval_.setup(*i).map.nlds;
  if (nest_index < 0 || nest_index >= static_cast<int>(nlds.size())) return {};
  const auto& nld = nlds[static_cast<std::size_t>(nest_index)];
  if (!nld.has_conv_data_loops()) return {};
  const auto& p = eval_.problem();
  return cost::solve_loop_blocking(nld, p.resource, p.options);
}

std::optional<pricing::LayerSchedule> CostOracle::schedule(const CanonicalScheme& s) const {
  const auto i = index_of(s.part);
  KAPLA_ASSERT(i.has_value(), "CostOracle: a scheme's partition is not one of B's");
  return eval_.evaluate(*i,
                        pricing::FixedScheme{s.nest_index, {s.blocking.bl_ts, s.blocking.bl_ords}});
}

// Both prices come from the evaluator's score(), which remembers each scheme's loop-blocking
// figures across the oracles sharing its setups; they equal the layer result's cost and time.
std::optional<Score> CostOracle::evaluate(const CanonicalScheme& s) const {
  return score(s, false);
}

std::optional<Score> CostOracle::evaluate_on_chip(const CanonicalScheme& s) const {
  return score(s, true);
}

std::optional<Score> CostOracle::evaluate_bound(const CanonicalScheme& s, bool on_chip) const {
  const auto i = index_of(s.part);
  KAPLA_ASSERT(i.has_value(), "CostOracle: a scheme's partition is not one of B's");
  const auto ct = eval_.score_bound(
      *i, pricing::FixedScheme{s.nest_index, {s.blocking.bl_ts, s.blocking.bl_ords}}, on_chip);
  if (!ct) return std::nullopt;
  return Score{ct->cost, ct->time};
}

std::optional<Score> CostOracle::evaluate_bound_at_fetch(const CanonicalScheme& s,
                                                         const cost::FetchCounts& fetch,
                                                         bool on_chip) const {
  const auto i = index_of(s.part);
  KAPLA_ASSERT(i.has_value(), "CostOracle: a scheme's partition is not one of B's");
  const auto ct = eval_.score_bound_at_fetch(
      *i, pricing::FixedScheme{s.nest_index, {s.blocking.bl_ts, s.blocking.bl_ords}}, fetch,
      on_chip);
  if (!ct) return std::nullopt;
  return Score{ct->cost, ct->time};
}

std::optional<Score> CostOracle::score(const CanonicalScheme& s, bool on_chip) const {
  const auto i = index_of(s.part);
  KAPLA_ASSERT(i.has_value(), "CostOracle: a scheme's partition is not one of B's");
  const auto ct = eval_.score(
      *i, pricing::FixedScheme{s.nest_index, {s.blocking.bl_ts, s.blocking.bl_ords}}, on_chip);
  if (!ct) return std::nullopt;
  return Score{ct->cost, ct->time};
}

}  // namespace kapla::search::kapla
