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
#include "search/strategy_options.hpp"

#include <cmath>
#include <sstream>

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
  return make_layer_strategy(name_or_label, StrategyOptions{});
}

bool operator==(const StrategyOptions& a, const StrategyOptions& b) {
  const auto& x = a.guided;
  const auto& y = b.guided;
  const bool guided_equal =
      x.budget == y.budget && x.batch_size == y.batch_size && x.num_chains == y.num_chains &&
      x.initial_fraction == y.initial_fraction && x.random_fraction == y.random_fraction &&
      x.t_start == y.t_start && x.t_end == y.t_end && x.patience == y.patience &&
      x.elite == y.elite && x.max_retries == y.max_retries &&
      x.moves.blocking == y.moves.blocking && x.moves.order == y.moves.order &&
      x.moves.nld == y.moves.nld && x.moves.partition == y.moves.partition &&
      x.surrogate == y.surrogate && x.surrogate_candidates == y.surrogate_candidates &&
      x.surrogate_min_samples == y.surrogate_min_samples && x.ridge_lambda == y.ridge_lambda;
  return a.seed == b.seed && a.random == b.random && guided_equal && a.kapla == b.kapla;
}

void validate(const StrategyOptions& o) {
  auto at = [](const char* field, auto&& check) {
    try {
      check();
    } catch (const InputError& e) {
      throw InputError(std::string(field) + ": " + e.what());
    }
  };
  at("random", [&] { validate(o.random); });
  at("guided", [&] { validate(o.guided); });
  if (!(o.kapla.capacity_factor > 0 && o.kapla.capacity_factor <= 1)) {
    throw InputError("kapla: capacity_factor must be in (0, 1]");
  }
  if (!(o.kapla.segment_margin >= 0)) throw InputError("kapla: segment_margin must be >= 0");
}

std::unique_ptr<LayerStrategy> make_layer_strategy(std::string_view name_or_label,
                                                   const StrategyOptions& options) {
  const auto name = canonical_strategy_name(name_or_label);
  StrategyOptions o = options;
  o.random.budget.seed = o.seed;
  o.guided.budget.seed = o.seed;
  validate(o);
  if (name == "exhaustive") return std::make_unique<ExhaustiveStrategy>();
  if (name == "random") return std::make_unique<RandomSampling>(o.random);
  if (name == "guided") return std::make_unique<Guided>(o.guided);
  if (name == "directive-exhaustive") return std::make_unique<DirectiveExhaustive>();
  if (name == "kapla") return std::make_unique<KaplaSolver>(o.kapla);
  throw InputError("strategy '" + std::string(name) + "' is not available in this build");
}

std::vector<std::pair<std::string, std::string>> describe_options(std::string_view strategy,
                                                                   const StrategyOptions& o) {
  auto num = [](double v) {
    std::ostringstream os;
    os.precision(17);
    os << v;
    return os.str();
  };
  auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
  std::vector<std::pair<std::string, std::string>> out;
  const auto name = canonical_strategy_name(strategy);
  if (name == "random") {
    out = {{"strategy.seed", std::to_string(o.seed)},
           {"strategy.max_evaluations", std::to_string(o.random.budget.max_evaluations)},
           {"strategy.max_seconds", num(o.random.budget.max_seconds)},
           {"strategy.victory_condition", std::to_string(o.random.victory_condition)},
           {"strategy.batch_size", std::to_string(o.random.batch_size)}};
  } else if (name == "guided") {
    out = {{"strategy.seed", std::to_string(o.seed)},
           {"strategy.max_evaluations", std::to_string(o.guided.budget.max_evaluations)},
           {"strategy.max_seconds", num(o.guided.budget.max_seconds)},
           {"strategy.batch_size", std::to_string(o.guided.batch_size)},
           {"strategy.num_chains", std::to_string(o.guided.num_chains)},
           {"strategy.surrogate", flag(o.guided.surrogate)}};
  } else if (name == "kapla") {
    out = {{"strategy.fallback", flag(o.kapla.fallback)},
           {"strategy.inter_layer_pruning", flag(o.kapla.inter_layer_pruning)},
           {"strategy.capacity_factor", num(o.kapla.capacity_factor)},
           {"strategy.segment_selection", flag(o.kapla.segment_selection)},
           {"strategy.segment_margin", num(o.kapla.segment_margin)},
           {"strategy.constraint_frontier", flag(o.kapla.constraint_frontier)},
           {"strategy.refinement",
            o.kapla.refinement == kapla::Refinement::paper() ? "paper"
            : o.kapla.refinement == kapla::Refinement{}       ? "kapla"
                                                                  : "custom"}};
  }
  return out;
}

}  // namespace kapla::search
