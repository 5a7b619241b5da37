// Strategy K (see kapla_solver.hpp and docs/kapla.md).
#include "search/kapla_solver.hpp"

#include <algorithm>
#include <chrono>

#include "mapping/part_layer.hpp"
#include "search/kapla/cost_oracle.hpp"
#include "search/kapla/directive_builder.hpp"
#include "search/kapla/inter_layer.hpp"
#include "search/kapla/layer_solver.hpp"

namespace kapla::search {

std::vector<LayerSchedule> KaplaSolver::search(const LayerProblem& problem,
                                               const SearchContext& ctx) const {
  const directive::CostOracle oracle(problem);
  const auto start = std::chrono::steady_clock::now();
  const auto sol = directive::solve_layer(
      oracle, {problem.options.opt_goal, ctx.num_threads, opts_.fallback});
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
  return {*sched};
}

bool KaplaSolver::constraint_may_fit(const LayerProblem& problem) const {
  const auto& c = problem.constraint;
  if (c.topbat == 0) return true;  // only pipelined constraints are checked (§4.2)
  const auto& r = problem.resource;
  directive::OccupancyQuery q{&problem.layer,
                              problem.batch,
                              c.topbat,
                              c.topifm,
                              c.topofm,
                              static_cast<std::int64_t>(r.proc_region.dim.size()),
                              static_cast<std::int64_t>(r.dim_array.size()),
                              static_cast<std::int64_t>(r.size_gbuf),
                              opts_.capacity_factor};
  return directive::occupancy_may_fit(q);
}

directive::DirectiveSchedule directives_of(const LayerProblem& problem, const LayerSchedule& s,
                                           std::string layer_name) {
  const directive::CostOracle oracle(problem);
  directive::CanonicalScheme c;
  c.part = s.part;
  c.nest_index = s.nld_index;
  c.blocking.bl_ts = s.tvals;
  c.blocking.bl_ords = s.orders;
  const auto pl = mapping::part_layer(problem.layer, problem.batch, s.part);
  const auto nests = oracle.nests(s.part);
  return directive::build_directives(problem.layer, pl, c, nests.at(static_cast<std::size_t>(s.nld_index)),
                                     problem.resource.dim_array, std::move(layer_name));
}

}  // namespace kapla::search
