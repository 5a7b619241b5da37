// The strategy registry: the only file that names every strategy (house-style §3.4).
#include <algorithm>
#include <cctype>

#include "core/errors.hpp"
#include "search/directive_exhaustive.hpp"
#include "search/exhaustive.hpp"
#include "search/guided.hpp"
#include "search/kapla_solver.hpp"
#include "search/random_sampling.hpp"
#include "search/strategy.hpp"

namespace kapla::search {

const std::vector<StrategyInfo>& strategies() {
  static const std::vector<StrategyInfo> table{
      {"exhaustive", 'B', "nn_dataflow exhaustive search (partitions x mappings x loop blocking)", true},
      {"directive-exhaustive", 'S', "exhaustive search over KAPLA directives", true},
      {"random", 'R', "uniform random sampling of schemes (seed, budget, victory condition)", true},
      {"guided", 'M', "guided search: batched simulated annealing, optional surrogate (AutoTVM role)", true},
      {"kapla", 'K', "KAPLA solver", true},
  };
  return table;
}

std::string_view canonical_strategy_name(std::string_view s) {
  for (const auto& info : strategies()) {
    if (s == info.name) return info.name;
    if (s.size() == 1 && std::toupper(static_cast<unsigned char>(s[0])) == info.label) return info.name;
  }
  std::string known;
  for (const auto& info : strategies()) {
    if (!known.empty()) known += ", ";
    known += std::string(info.name) + " (" + info.label + ")";
  }
  throw InputError("unknown strategy '" + std::string(s) + "'; known: " + known);
}

std::unique_ptr<LayerStrategy> make_layer_strategy(std::string_view name_or_label) {
  const auto name = canonical_strategy_name(name_or_label);
  if (name == "exhaustive") return std::make_unique<ExhaustiveStrategy>();
  if (name == "random") return std::make_unique<RandomSampling>();
  if (name == "guided") return std::make_unique<Guided>();
  if (name == "directive-exhaustive") return std::make_unique<DirectiveExhaustive>();
  if (name == "kapla") return std::make_unique<KaplaSolver>();
  throw InputError("strategy '" + std::string(name) + "' is not available in this build");
}

}  // namespace kapla::search
