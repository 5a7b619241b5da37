// Strategy S (see directive_exhaustive.hpp and docs/kapla.md).
#include "search/directive_exhaustive.hpp"

#include "search/kapla/cost_oracle.hpp"
#include "search/kapla/exhaustive.hpp"

namespace kapla::search {

std::vector<LayerSchedule> DirectiveExhaustive::search(const LayerProblem& problem,
                                                       const SearchContext& ctx) const {
  const directive::CostOracle oracle(problem);
  const auto r = directive::search_exhaustive(oracle, {problem.options.opt_goal, ctx.num_threads});
  if (!r.scheme) return {};
  auto sched = oracle.schedule(*r.scheme);
  if (!sched) return {};
  return {*sched};
}

}  // namespace kapla::search
