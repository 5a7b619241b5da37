// Strategy K (see kapla_solver.hpp and docs/kapla.md).
#include "search/kapla_solver.hpp"

#include <algorithm>
#include <chrono>

#include "mapping/part_layer.hpp"
#include "search/kapla/cost_oracle.hpp"
#include "search/kapla/directive_builder.hpp"
#include "search/kapla/inter_layer.hpp"
#include "search/kapla/layer_solver.hpp"
#include "search/kapla/segment_estimate.hpp"
#include "search/kapla/systolic_template.hpp"

namespace kapla::search {

namespace {

// The network search asks K for one layer under many constraints and ifmap layouts of the
// segments it is in (AlexNet inference: 1969 solves of 66 problems that differ only in those).
// The partition setups (mapping, buffer sharing) and what K derives from them (nests, nearest
// partitions) depend on neither, the placements not on the
// constraint, so the solves share them through the caller's memo, keyed on everything else
// (pricing::FixedSchemeEvaluator). (Sharing the schemes' prices as well was measured: 10 %
// slower and 34x the memory, as the greedy walks mostly different schemes under different
// constraints.)
kapla::CostOracle oracle_for(const pricing::LayerProblem& problem, SearchMemo* memo) {
  if (memo == nullptr) return kapla::CostOracle(problem);
  pricing::LayerProblem unconstrained = problem;
  unconstrained.constraint = {};
  const std::string layer_key = pricing::problem_key(unconstrained, false);
  const std::string setups_key = std::string("kapla.setups|").append(layer_key);
  const std::string placements_key =
      "kapla.placements|" + pricing::problem_key(unconstrained, true);
  const std::string scope = pricing::layer_scope(problem);
  using Setups = pricing::FixedSchemeEvaluator::SharedSetups;
  using Placements = pricing::FixedSchemeEvaluator::SharedPlacements;
  // Made once per key even when solves run concurrently (SearchMemo::get_or_make).
  const auto setups = std::static_pointer_cast<const Setups>(memo->get_or_make(
      setups_key,
      [&] { return std::make_shared<const Setups>(kapla::CostOracle(problem).shared_setups()); },
      scope));
  const auto placements = std::static_pointer_cast<const Placements>(memo->get_or_make(
      placements_key,
      [&] {
        return std::make_shared<const Placements>(
            kapla::CostOracle(problem, *setups, nullptr).shared_placements());
      },
      scope));
  using Derived = kapla::CostOracle::SharedDerived;
  const auto derived = std::static_pointer_cast<const Derived>(memo->get_or_make(
      std::string("kapla.derived|").append(layer_key),
      [&] {
        return std::make_shared<const Derived>(
            kapla::CostOracle(problem, *setups, *placements).shared_derived());
      },
      scope));
  return kapla::CostOracle(problem, *setups, *placements, *derived);
}

}  // namespace

std::vector<pricing::LayerSchedule> KaplaSolver::search(const pricing::LayerProblem& problem,
                                                        const SearchContext& ctx) const {
  const kapla::CostOracle oracle = oracle_for(problem, ctx.memo);
  const auto start = std::chrono::steady_clock::now();
  const auto sol =
      kapla::solve_layer(oracle, {problem.options.opt_goal, ctx.num_threads, opts_.fallback,
                                  opts_.refinement, problem.options.ntops, opts_.reserved_retry});
  if (ctx.stats != nullptr) {
    ctx.stats->reported = true;
    ctx.stats->evaluated = sol.stats.evaluated;
    ctx.stats->valid = std::max<std::int64_t>(0, sol.stats.evaluated - sol.stats.invalid);
    ctx.stats->seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  if (!sol.scheme) return {};
  auto sched = oracle.schedule(*sol.scheme);  // the one cost model's result for the scheme
  if (!sched) return {};
  // ntops > 1: the next best distinct schedules (schemes that differ only in the order of
  // unit loops are one schedule, as B's loop-order generator skips such orders).
  std::vector<pricing::LayerSchedule> out{*sched};
  auto same = [](const pricing::LayerSchedule& a, const pricing::LayerSchedule& b) {
    return a.part == b.part && a.nld_index == b.nld_index && a.tvals == b.tvals &&
           a.orders == b.orders;
  };
  for (const auto& c : sol.runners_up) {
    if (static_cast<int>(out.size()) >= problem.options.ntops) break;
    auto s = oracle.schedule(c);
    if (s && std::none_of(out.begin(), out.end(), [&](const auto& o) { return same(o, *s); }))
      out.push_back(std::move(*s));
  }
  return out;
}

bool KaplaSolver::constraint_may_fit(const pricing::LayerProblem& problem) const {
  const auto& c = problem.constraint;
  if (c.topbat == 0) return true;  // only pipelined constraints are checked (§4.2)
  const auto& r = problem.resource;
  kapla::OccupancyQuery q{&problem.layer,
                          problem.batch,
                          c.topbat,
                          c.topifm,
                          c.topofm,
                          static_cast<std::int64_t>(r.proc_region.dim.size()),
                          static_cast<std::int64_t>(r.dim_array.size()),
                          static_cast<std::int64_t>(r.size_gbuf),
                          opts_.capacity_factor};
  return kapla::occupancy_may_fit(q);
}

InterLayerPruning KaplaSolver::inter_layer_pruning() const {
  InterLayerPruning p;
  if (opts_.inter_layer_pruning) {
    p.constraint_may_fit = [this](const pricing::LayerProblem& q) { return constraint_may_fit(q); };
  }
  if (opts_.segment_selection) {
    p.select_segments = [this](const std::vector<SegmentCandidate>& segs, std::size_t n) {
      return select_segments(segs, n);
    };
  }
  p.constraint_frontier = opts_.constraint_frontier;
  p.bound_pruning = opts_.bound_pruning;
  p.pair_wave = static_cast<std::size_t>(opts_.pair_wave);
  return p;
}

std::vector<bool> KaplaSolver::select_segments(const std::vector<SegmentCandidate>& segments,
                                               std::size_t num_layers) const {
  kapla::SegmentEstimateOptions eo;
  eo.capacity_factor = opts_.capacity_factor;
  eo.chain_margin = opts_.segment_margin;
  return kapla::choose_segments(segments, num_layers, eo);
}

kapla::DirectiveSchedule directives_of(const pricing::LayerProblem& problem,
                                       const pricing::LayerSchedule& s, std::string layer_name) {
  const kapla::CostOracle oracle(problem);
  kapla::CanonicalScheme c;
  c.part = s.part;
  c.nest_index = s.nld_index;
  c.blocking.bl_ts = s.tvals;
  c.blocking.bl_ords = s.orders;
  const auto pl = mapping::part_layer(problem.layer, problem.batch, s.part);
  const auto nests_ref = oracle.nests(s.part);
  const auto& nests = *nests_ref;
  if (problem.resource.array_mapping == model::ArrayMapping::Systolic) {
    return kapla::build_systolic_directives(problem.layer, pl, c,
                                            nests.at(static_cast<std::size_t>(s.nld_index)),
                                            oracle.map(s.part).geometry, std::move(layer_name));
  }
  const auto geometry = oracle.map(s.part).nld_geometry.at(static_cast<std::size_t>(s.nld_index));
  return kapla::build_directives(problem.layer, pl, c,
                                 nests.at(static_cast<std::size_t>(s.nld_index)),
                                 kapla::rs_geometry(geometry), std::move(layer_name));
}

void validate(const KaplaSolverOptions& o) {
  if (!(o.capacity_factor > 0 && o.capacity_factor <= 1)) {
    throw InputError("capacity_factor: must be in (0, 1]");
  }
  if (!(o.segment_margin >= 0)) throw InputError("segment_margin: must be >= 0");
  if (o.pair_wave < 1 || o.pair_wave > 4096) throw InputError("pair_wave: must be in [1, 4096]");
}

StrategyEntry kapla_solver_entry() {
  StrategyEntry e;
  e.name = "kapla";
  e.letter = 'K';
  e.label = "K (kapla)";
  e.description = "KAPLA solver";
  e.cost_weight = 1;
  e.rs_fold_variants = true;  // the directive space includes them (docs/kapla.md §3)
  e.parse = [](const ParamSource& src) {
    src.allow({"inter_layer_pruning", "fallback", "reserved_retry", "capacity_factor",
               "segment_selection", "segment_margin", "constraint_frontier", "refinement",
               "bound_pruning", "pair_wave"});
    KaplaSolverOptions o;
    if (src.has("segment_selection")) o.segment_selection = src.boolean("segment_selection");
    if (src.has("constraint_frontier")) o.constraint_frontier = src.boolean("constraint_frontier");
    if (src.has("segment_margin")) o.segment_margin = src.number("segment_margin");
    if (src.has("refinement")) {
      const std::string r = src.string("refinement");
      if (r == "paper") {
        o.refinement = kapla::Refinement::paper();
      } else if (r != "kapla") {
        src.fail("refinement", "must be \"kapla\" (default) or \"paper\"");
      }
    }
    if (src.has("inter_layer_pruning")) o.inter_layer_pruning = src.boolean("inter_layer_pruning");
    if (src.has("bound_pruning")) o.bound_pruning = src.boolean("bound_pruning");
    if (src.has("pair_wave")) o.pair_wave = src.integer("pair_wave");
    if (src.has("fallback")) o.fallback = src.boolean("fallback");
    if (src.has("reserved_retry")) o.reserved_retry = src.boolean("reserved_retry");
    if (src.has("capacity_factor")) o.capacity_factor = src.number("capacity_factor");
    try {
      validate(o);
    } catch (const InputError& err) {
      src.rethrow(err);
    }
    return StrategyParams::of(o);
  };
  e.describe = [](const StrategyParams& p, std::uint64_t) -> DescribedParams {
    const auto& o = p.get<KaplaSolverOptions>();
    return {{"strategy.fallback", flag_text(o.fallback)},
            {"strategy.reserved_retry", flag_text(o.reserved_retry)},
            {"strategy.inter_layer_pruning", flag_text(o.inter_layer_pruning)},
            {"strategy.capacity_factor", number_text(o.capacity_factor)},
            {"strategy.segment_selection", flag_text(o.segment_selection)},
            {"strategy.segment_margin", number_text(o.segment_margin)},
            {"strategy.constraint_frontier", flag_text(o.constraint_frontier)},
            {"strategy.bound_pruning", flag_text(o.bound_pruning)},
            {"strategy.pair_wave", std::to_string(o.pair_wave)},
            {"strategy.refinement", o.refinement == kapla::Refinement::paper() ? "paper"
                                    : o.refinement == kapla::Refinement{}      ? "kapla"
                                                                               : "custom"}};
  };
  e.make = [](const StrategyParams& p, std::uint64_t) -> std::unique_ptr<LayerStrategy> {
    const auto& o = p.get<KaplaSolverOptions>();
    validate_as("kapla", [&] { validate(o); });
    return std::make_unique<KaplaSolver>(o);
  };
  return e;
}

}  // namespace kapla::search
