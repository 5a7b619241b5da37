// Strategy S (see directive_exhaustive.hpp and docs/kapla.md).
#include "search/directive_exhaustive.hpp"

#include <chrono>

#include "search/kapla/cost_oracle.hpp"
#include "search/kapla/exhaustive.hpp"

namespace kapla::search {

std::vector<LayerSchedule> DirectiveExhaustive::search(const LayerProblem& problem,
                                                       const SearchContext& ctx) const {
  const directive::CostOracle oracle(problem);
  const auto start = std::chrono::steady_clock::now();
  const auto r = directive::search_exhaustive(oracle, {problem.options.opt_goal, ctx.num_threads});
  if (ctx.stats != nullptr) {
    ctx.stats->reported = true;
    ctx.stats->evaluated = r.evaluated;  // valid ones are not counted
    ctx.stats->seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  if (!r.scheme) return {};
  auto sched = oracle.schedule(*r.scheme);
  if (!sched) return {};
  return {*sched};
}

}  // namespace kapla::search
