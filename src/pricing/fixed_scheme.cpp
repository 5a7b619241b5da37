// The one fixed-scheme evaluator (see fixed_scheme.hpp). Spec: nn_dataflow-spec.md §9.2.
#include "pricing/fixed_scheme.hpp"

#include <array>

#include "core/errors.hpp"
#include "core/flat_map.hpp"
#include "core/once.hpp"
#include "cost/layer_cost.hpp"
#include "mapping/data_layout_ops.hpp"
#include "mapping/gen_partition.hpp"
#include "mapping/noc_hops.hpp"

namespace kapla::pricing {

cost::MapResult map_partitioned_layer(const LayerProblem& p, const mapping::PartLayer& pl) {
  return cost::map_layer(p.resource.array_mapping, pl.p_layer, pl.p_batch, pl.p_occupancy,
                         p.resource.dim_array, p.options.cost_model,
                         model::fold_variants_on(p.options),
                         p.options.imperfect == model::Imperfect::Perfect);
}

PartitionSetup setup_partition(const LayerProblem& p, const mapping::PartitionScheme& part) {
  PartitionSetup s;
  s.part = part;
  s.pl = mapping::part_layer(p.layer, p.batch, part);
  s.map = map_partitioned_layer(p, s.pl);
  if (!s.map.nlds.empty()) {
    s.bufshr =
        mapping::make_bufshr_scheme(p.resource.proc_region, part, s.map.nlds.front().data_loops);
  }
  s.bufshr.used_nodes = part.size();
  return s;
}

PartitionReach reach_partition(const LayerProblem& p, const mapping::PartitionScheme& part,
                               const std::vector<PhyDim2>& filter_nodes) {
  PartitionReach out;
  out.ofmap_layout = mapping::ofmap_layout(p.layer, p.batch, part, p.resource.dst_data_region);
  out.hops = mapping::partition_hops(p.layer, p.batch, p.resource.proc_region, part, filter_nodes,
                                     out.ofmap_layout, p.options);
  return out;
}

PartitionPlacement place_partition(const PartitionReach& reach,
                                   const mapping::LayoutPieces& ifmap_pieces) {
  return {reach.ofmap_layout, mapping::unit_nhops(reach.hops, ifmap_pieces)};
}

PartitionPlacement place_partition(const LayerProblem& p, const mapping::PartitionScheme& part,
                                   const mapping::PlacementSources& sources) {
  return place_partition(reach_partition(p, part, sources.filter_nodes), sources.ifmap_pieces);
}

namespace {

bool nld_in_range(const PartitionSetup& setup, const FixedScheme& s) {
  return s.nld_index >= 0 && static_cast<std::size_t>(s.nld_index) < setup.map.nlds.size();
}

cost::LoopBlockingEval evaluate_nld_blocking(const LayerProblem& p, const PartitionSetup& setup,
                                             const FixedScheme& s) {
  return cost::evaluate_loop_blocking(setup.map.nlds[static_cast<std::size_t>(s.nld_index)],
                                      s.blocking, p.resource, setup.bufshr, p.options, p.costs);
}

LayerSchedule schedule_with_cost(const LayerProblem& p, const mapping::PartitionScheme& part,
                                 int nld_index, const cost::LoopBlockingEval& ev,
                                 const PartitionPlacement& placement, const cost::LayerCost& lc) {
  LayerSchedule s;
  s.cost = lc.cost;
  s.cost_op = lc.cost_op;
  s.cost_access = lc.cost_access;
  s.cost_noc = lc.cost_noc;
  s.cost_static = lc.cost_static;
  s.energy = lc.energy;
  s.time = lc.time;
  s.proc_time = static_cast<double>(ev.proc_time);
  s.bus_time = static_cast<double>(ev.bus_time);
  s.dram_time = static_cast<double>(ev.dram_time);
  s.ops = ev.ops;
  s.num_nodes = ev.num_nodes;
  s.is_dram = {ev.src_is_dram, ev.dst_is_dram};
  s.access = ev.access;
  s.remote_gbuf_access = ev.remote_gbuf_access;
  s.total_nhops = lc.total_nhops;
  s.mem_nhops = lc.mem_nhops;
  s.node_nhops = lc.node_nhops;
  s.unit_nhops = lc.unit_nhops;
  for (std::size_t b = 0; b < 2; ++b) {
    for (auto d : all_values<DataCategory>()) s.fetch[b][d] = static_cast<double>(ev.fetch[b][d]);
  }
  s.part = part;
  s.nld_index = nld_index;
  s.tvals = ev.blocking.bl_ts;
  s.orders = ev.blocking.bl_ords;
  s.ofmap_layout = placement.ofmap_layout;
  s.sched_seq = p.sched_seq;
  s.resource = p.resource;
  s.detail = std::make_shared<const cost::LoopBlockingEval>(ev);
  return s;
}

}  // namespace

std::optional<cost::LoopBlockingEval> evaluate_blocking(const LayerProblem& p,
                                                        const PartitionSetup& setup,
                                                        const FixedScheme& s) {
  if (!p.constraint.is_valid_top_bl(s.blocking.bl_ts[0], s.blocking.bl_ords[0])) {
    return std::nullopt;
  }
  if (!nld_in_range(setup, s)) return std::nullopt;
  auto ev = evaluate_nld_blocking(p, setup, s);
  if (!ev.valid()) return std::nullopt;
  return ev;
}

LayerSchedule schedule_of(const LayerProblem& p, const mapping::PartitionScheme& part,
                          int nld_index, const cost::LoopBlockingEval& ev,
                          const PartitionPlacement& placement) {
  return schedule_with_cost(p, part, nld_index, ev, placement,
                            cost::layer_cost(ev, placement.unit_nhops, p.costs));
}

PricedScheme price_fixed_scheme(const LayerProblem& p, const mapping::PartitionScheme& part,
                                const FixedScheme& s) {
  PricedScheme out;
  out.setup = setup_partition(p, part);
  if (!nld_in_range(out.setup, s)) return out;
  out.blocking = evaluate_nld_blocking(p, out.setup, s);
  if (!out.blocking->valid() ||
      !p.constraint.is_valid_top_bl(s.blocking.bl_ts[0], s.blocking.bl_ords[0])) {
    return out;
  }
  out.placement =
      place_partition(p, part, mapping::placement_sources(p.resource.dram_region, p.ifmap_layout));
  out.cost = cost::layer_cost(*out.blocking, out.placement.unit_nhops, p.costs);
  out.schedule = schedule_with_cost(p, part, s.nld_index, *out.blocking, out.placement, *out.cost);
  return out;
}

std::optional<LayerSchedule> evaluate_fixed_scheme(const LayerProblem& p,
                                                   const PartitionSetup& setup,
                                                   const PartitionPlacement& placement,
                                                   const FixedScheme& s) {
  const auto ev = evaluate_blocking(p, setup, s);
  if (!ev) return std::nullopt;
  return schedule_of(p, setup.part, s.nld_index, *ev, placement);
}

// ---- FixedSchemeEvaluator ----------------------------------------------------------------

struct FixedSchemeEvaluator::Setups {
  struct Slot {
    Once once;
    PartitionSetup setup;
    Once reach_once;
    PartitionReach reach;
  };
  std::vector<mapping::PartitionScheme> parts;
  std::unique_ptr<Slot[]> slots;
  // Position of each partition by its flat key (the first of equal ones): searches ask for
  // every scheme they price, so it is hashed once here, for every evaluator sharing the setups.
  FlatMap<std::array<std::int64_t, 12>, std::size_t> index;
};

struct FixedSchemeEvaluator::Placements {
  struct Slot {
    Once once;
    PartitionPlacement placement;
  };
  mapping::PlacementSources sources;
  std::unique_ptr<Slot[]> slots;
};

FixedSchemeEvaluator::SharedPlacements FixedSchemeEvaluator::new_placements(
    const LayerProblem& problem, std::size_t num_parts) {
  auto out = std::make_shared<Placements>();
  out->sources = mapping::placement_sources(problem.resource.dram_region, problem.ifmap_layout);
  out->slots = std::make_unique<Placements::Slot[]>(num_parts);
  return out;
}

FixedSchemeEvaluator::FixedSchemeEvaluator(const LayerProblem& problem)
    : FixedSchemeEvaluator(problem, mapping::gen_partition(problem.layer, problem.batch,
                                                           problem.resource.proc_region.dim,
                                                           problem.options, /*guaranteed=*/true)) {}

FixedSchemeEvaluator::FixedSchemeEvaluator(const LayerProblem& problem,
                                           std::vector<mapping::PartitionScheme> parts)
    : p_(&problem), setups_(std::make_shared<Setups>()) {
  setups_->parts = std::move(parts);
  setups_->slots = std::make_unique<Setups::Slot[]>(setups_->parts.size());
  setups_->index.reserve(setups_->parts.size());
  for (std::size_t i = 0; i < setups_->parts.size(); ++i)
    setups_->index.emplace(setups_->parts[i].flat_key(), i);  // first wins
  placements_ = new_placements(problem, setups_->parts.size());
}

FixedSchemeEvaluator::FixedSchemeEvaluator(const LayerProblem& problem, SharedSetups setups,
                                           SharedPlacements placements)
    : p_(&problem), setups_(std::move(setups)), placements_(std::move(placements)) {
  KAPLA_ASSERT(setups_ != nullptr, "FixedSchemeEvaluator: no setups to share");
  if (!placements_) placements_ = new_placements(problem, setups_->parts.size());
}

const std::vector<mapping::PartitionScheme>& FixedSchemeEvaluator::partitions() const {
  return setups_->parts;
}

std::optional<std::size_t> FixedSchemeEvaluator::index_of(
    const mapping::PartitionScheme& part) const {
  const auto& index = setups_->index;
  if (const auto it = index.find(part.flat_key()); it != index.end()) return it->second;
  return std::nullopt;
}

bool FixedSchemeEvaluator::distinct_partitions() const {
  return setups_->index.size() == setups_->parts.size();
}

const PartitionSetup& FixedSchemeEvaluator::setup(std::size_t i) const {
  KAPLA_ASSERT(i < setups_->parts.size(), "FixedSchemeEvaluator: partition index out of range");
  auto& s = setups_->slots[i];
  s.once.call([&] { s.setup = setup_partition(*p_, setups_->parts[i]); });
  return s.setup;
}

const PartitionPlacement& FixedSchemeEvaluator::placement(std::size_t i) const {
  KAPLA_ASSERT(i < setups_->parts.size(), "FixedSchemeEvaluator: partition index out of range");
  auto& s = placements_->slots[i];
  s.once.call([&] {
    // What does not depend on the ifmap layout is found once for every layout.
    auto& r = setups_->slots[i];
    r.reach_once.call([&] {
      r.reach = reach_partition(*p_, setups_->parts[i], placements_->sources.filter_nodes);
    });
    s.placement = place_partition(r.reach, placements_->sources.ifmap_pieces);
  });
  return s.placement;
}

std::optional<LayerSchedule> FixedSchemeEvaluator::evaluate(std::size_t part_index,
                                                            const FixedScheme& s) const {
  const auto ev = evaluate_blocking(*p_, setup(part_index), s);
  if (!ev) return std::nullopt;
  return schedule_of(*p_, setups_->parts[part_index], s.nld_index, *ev, placement(part_index));
}

std::optional<cost::CostTime> FixedSchemeEvaluator::score(std::size_t part_index,
                                                          const FixedScheme& s,
                                                          bool on_chip) const {
  const auto in = inputs(part_index, s);
  if (!in) return std::nullopt;
  return price(part_index, *in, on_chip);
}

std::optional<cost::CostTime> FixedSchemeEvaluator::score_bound(std::size_t part_index,
                                                                const FixedScheme& s,
                                                                bool on_chip) const {
  const auto in = inputs(part_index, s, false);
  if (!in) return std::nullopt;
  return price(part_index, *in, on_chip);
}

std::optional<cost::CostTime> FixedSchemeEvaluator::score_bound_at_fetch(
    std::size_t part_index, const FixedScheme& s, const cost::FetchCounts& fetch,
    bool on_chip) const {
  const auto in = blocking_inputs(part_index, s, false, &fetch);
  if (!in) return std::nullopt;
  return price(part_index, *in, on_chip);
}

cost::CostTime FixedSchemeEvaluator::price(std::size_t part_index, const cost::CostInputs& in,
                                           bool on_chip) const {
  return cost::cost_and_time(
      in, on_chip ? PerDataCategory<double>{} : placement(part_index).unit_nhops, p_->costs);
}

std::optional<cost::CostInputs> FixedSchemeEvaluator::inputs(std::size_t part_index,
                                                             const FixedScheme& s,
                                                             bool sweep) const {
  if (!p_->constraint.is_valid_top_bl(s.blocking.bl_ts[0], s.blocking.bl_ords[0])) {
    return std::nullopt;
  }
  return blocking_inputs(part_index, s, sweep, nullptr);
}

std::optional<cost::CostInputs> FixedSchemeEvaluator::blocking_inputs(
    std::size_t part_index, const FixedScheme& s, bool sweep,
    const cost::FetchCounts* fetch) const {
  const auto& st = setup(part_index);
  if (!nld_in_range(st, s)) return std::nullopt;
  const auto& nld = st.map.nlds[static_cast<std::size_t>(s.nld_index)];
  const auto evaluate = [&] {
    if (fetch != nullptr)
      return cost::evaluate_loop_blocking_at_fetch(nld, s.blocking, *fetch, p_->resource, st.bufshr,
                                                   p_->options, p_->costs);
    if (sweep)
      return cost::evaluate_loop_blocking(nld, s.blocking, p_->resource, st.bufshr, p_->options,
                                          p_->costs);
    return cost::evaluate_loop_blocking_unswept(nld, s.blocking, p_->resource, st.bufshr,
                                                p_->options, p_->costs);
  };
  const auto ev = evaluate();
  if (!ev.valid()) return std::nullopt;
  return cost::cost_inputs(ev);
}

}  // namespace kapla::pricing
