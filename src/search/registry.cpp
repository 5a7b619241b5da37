// The strategy registry: the only file that names every strategy, one line each (house-style
// §3.4). Each strategy's entry lives beside its code.
#include "search/strategy_registry.hpp"

#include <cctype>
#include <sstream>

#include "search/directive_exhaustive.hpp"
#include "search/exhaustive.hpp"
#include "search/guided.hpp"
#include "search/kapla_solver.hpp"
#include "search/random_sampling.hpp"

namespace kapla::search {

StrategyRegistry builtin_strategies() {
  StrategyRegistry r;
  r.add(exhaustive_entry());            // B
  r.add(directive_exhaustive_entry());  // S
  r.add(random_sampling_entry());       // R
  r.add(guided_entry());                // M
  r.add(kapla_solver_entry());          // K
  return r;
}

void StrategyRegistry::add(StrategyEntry entry) {
  for (const auto& e : entries_) {
    if (e.name == entry.name || std::toupper(static_cast<unsigned char>(e.letter)) ==
                                    std::toupper(static_cast<unsigned char>(entry.letter))) {
      throw InternalError("strategy '" + entry.name + "' (" + entry.letter +
                          "): name or letter taken by '" + e.name + "'");
    }
  }
  if (!entry.parse || !entry.describe || !entry.make) {
    throw InternalError("strategy '" + entry.name + "': parse, describe and make are required");
  }
  entries_.push_back(std::move(entry));
}

const StrategyEntry& StrategyRegistry::find(std::string_view s) const {
  for (const auto& e : entries_) {
    if (s == e.name) return e;
    if (s.size() == 1 && std::toupper(static_cast<unsigned char>(s[0])) == e.letter) return e;
  }
  std::string known;
  for (const auto& e : entries_) {
    if (!known.empty()) known += ", ";
    known += e.name + " (" + e.letter + ")";
  }
  throw InputError("unknown strategy '" + std::string(s) + "'; known: " + known);
}

model::SearchOptions options_for(const StrategyEntry& entry, model::SearchOptions options) {
  if (!options.rs_fold_variants) options.rs_fold_variants = entry.rs_fold_variants;
  return options;
}

std::unique_ptr<LayerStrategy> make_layer_strategy(std::string_view name_or_letter) {
  const auto registry = builtin_strategies();
  const auto& e = registry.find(name_or_letter);
  return e.make(e.parse(NoParams{}), 1);
}

std::string number_text(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

std::string flag_text(bool b) { return b ? "true" : "false"; }

StrategyParams parse_no_params(const ParamSource& src) {
  src.allow({});
  return {};
}

DescribedParams describe_no_params(const StrategyParams&, std::uint64_t) { return {}; }

}  // namespace kapla::search
