// The Pareto local search over designs (see design_search.hpp).
#include "sweep/design_search.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "core/errors.hpp"
#include "sweep/record.hpp"
#include "sweep/tuple_runner.hpp"

namespace kapla::sweep {
namespace {

using Position = DesignSearch::Position;

// Ratio of a found figure to a reference one; two zeros (no area) are equal.
double ratio(double found, double reference) {
  if (reference > 0) return found / reference;
  return found <= 0 ? 1.0 : std::numeric_limits<double>::infinity();
}

}  // namespace

DesignSearch make_design_search(const DesignSpace& space, std::vector<std::int64_t> batches) {
  KAPLA_ASSERT(space.local_search.has_value(), "make_design_search: not a local-search space");
  auto grid = constrained_grid(space);
  DesignSearch search;
  search.settings = *space.local_search;
  search.batches = std::move(batches);
  const auto k = static_cast<std::size_t>(search.settings.initial);
  if (k > grid.size()) {
    throw InputError("sampling.local_search.initial: asks for " + std::to_string(k) +
                     " designs, but only " + std::to_string(grid.size()) +
                     " meet the constraints (use \"grid\" for all)");
  }
  search.initial = sample_indices(grid.size(), k, search.settings.seed);
  auto n = [](const auto& axis) { return std::max<std::size_t>(axis.size(), 1); };
  search.axis_size = {n(space.nodes),
                      n(space.pe_array),
                      n(space.gbuf_bytes),
                      n(space.regf_bytes),
                      n(space.array_bus_width_bits),
                      n(space.dram_bandwidth_bytes_per_cycle)};
  search.axis_columns[0] = space.nodes_columns;
  search.axis_columns[1] = space.pe_array_columns;
  for (auto& g : grid) {
    search.grid.push_back(std::move(g.point));
    search.position.push_back(g.position);
  }
  return search;
}

std::vector<std::size_t> neighbours(const DesignSearch& s, std::size_t design) {
  const Position& p = s.position.at(design);
  const auto radius = static_cast<std::size_t>(s.settings.radius);
  std::vector<std::size_t> out;
  // A grid design at q, if q meets the constraints (positions ascend as the grid runs).
  auto add = [&](std::size_t axis, std::size_t value) {
    Position q = p;
    q[axis] = value;
    const auto it = std::lower_bound(s.position.begin(), s.position.end(), q);
    if (it != s.position.end() && *it == q) {
      out.push_back(static_cast<std::size_t>(it - s.position.begin()));
    }
  };
  for (std::size_t axis = 0; axis < kNumDesignAxes; ++axis) {
    const std::size_t i = p[axis];
    const std::size_t c = s.axis_columns[axis];
    for (std::size_t d = 1; d <= std::min(radius, s.axis_size[axis]); ++d) {
      if (c == 0) {  // a list: the values before and after
        if (i >= d) add(axis, i - d);
        if (i + d < s.axis_size[axis]) add(axis, i + d);
        continue;
      }
      // h-major shapes: w before and after in the same row, h before and after.
      if (i % c >= d) add(axis, i - d);
      if (i % c + d < c) add(axis, i + d);
      if (i >= d * c) add(axis, i - d * c);
      if (i + d * c < s.axis_size[axis]) add(axis, i + d * c);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

double objective_value(SearchObjective objective, const TupleResult& result) {
  switch (objective) {
    case SearchObjective::Energy:
      return result.energy;
    case SearchObjective::Time:
      return result.time;
    case SearchObjective::Edp:
      return result.edp;
  }
  return 0;
}

bool meets_utilisation_floor(const TupleRecord& r) {
  return r.result.pe_utilisation >= r.tuple.design.min_pe_utilisation;
}

std::map<std::string, std::optional<DesignScore>> score_records(
    const std::vector<const TupleRecord*>& records, SearchObjective objective) {
  std::map<std::string, std::optional<DesignScore>> scores;
  for (const auto* r : records) {
    if (r->tuple.design.base.empty()) continue;
    const auto [it, first] =
        scores.emplace(r->tuple.hardware, DesignScore{r->tuple.design.area_mm2, 0});
    if (!it->second) continue;  // already out
    if (r->result.status != TupleStatus::Ok || !meets_utilisation_floor(*r)) {
      it->second.reset();
      continue;
    }
    it->second->value += objective_value(objective, r->result);
  }
  return scores;
}

std::vector<std::size_t> pareto_front(const std::vector<DesignScore>& d) {
  std::vector<std::size_t> order(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (d[a].area_mm2 != d[b].area_mm2) return d[a].area_mm2 < d[b].area_mm2;
    if (d[a].value != d[b].value) return d[a].value < d[b].value;
    return a < b;
  });
  // By area, then objective: within one area only the least objective can be on the front,
  // and only if every smaller area's best is larger.
  std::vector<std::size_t> front;
  double best_smaller = std::numeric_limits<double>::infinity();
  for (std::size_t g = 0; g < order.size();) {
    std::size_t end = g;
    while (end < order.size() && d[order[end]].area_mm2 == d[order[g]].area_mm2) ++end;
    const double least = d[order[g]].value;
    if (least < best_smaller) {
      for (std::size_t k = g; k < end && d[order[k]].value == least; ++k) front.push_back(order[k]);
      best_smaller = least;
    }
    g = end;
  }
  std::sort(front.begin(), front.end());
  return front;
}

std::vector<std::size_t> next_designs(const DesignSearch& search,
                                      const std::vector<std::optional<DesignScore>>& scores,
                                      const std::vector<bool>& priced, std::size_t round) {
  KAPLA_ASSERT(scores.size() == search.grid.size() && priced.size() == search.grid.size(),
               "next_designs: one score and one flag per grid design");
  const auto& settings = search.settings;
  if (settings.max_rounds && static_cast<std::int64_t>(round) >= *settings.max_rounds) return {};
  std::vector<std::size_t> scored;
  std::vector<DesignScore> values;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    if (priced[i] && scores[i]) {
      scored.push_back(i);
      values.push_back(*scores[i]);
    }
  }
  std::set<std::size_t> next;
  for (const auto f : pareto_front(values)) {
    for (const auto n : neighbours(search, scored[f])) {
      if (!priced[n]) next.insert(n);
    }
  }
  std::vector<std::size_t> out(next.begin(), next.end());
  if (settings.max_designs) {
    const auto done = static_cast<std::int64_t>(std::count(priced.begin(), priced.end(), true));
    out.resize(static_cast<std::size_t>(std::clamp<std::int64_t>(
        *settings.max_designs - done, 0, static_cast<std::int64_t>(out.size()))));
  }
  return out;
}

double front_gap(const std::vector<DesignScore>& reference, const std::vector<DesignScore>& found) {
  double gap = 0;
  for (const auto& r : reference) {
    double nearest = std::numeric_limits<double>::infinity();
    for (const auto& f : found) {
      nearest = std::min(nearest, std::max(ratio(f.area_mm2, r.area_mm2), ratio(f.value, r.value)));
    }
    gap = std::max(gap, nearest - 1);
  }
  return gap;
}

std::vector<std::pair<std::string, std::string>> search_rows(const LocalSearchSettings& s,
                                                             std::size_t round) {
  auto limit = [](const std::optional<std::int64_t>& v) {
    return v ? std::to_string(*v) : std::string("none");
  };
  return {{"search.round", std::to_string(round)},
          {"search.objective", std::string(objective_name(s.objective))},
          {"search.initial", std::to_string(s.initial)},
          {"search.seed", std::to_string(s.seed)},
          {"search.radius", std::to_string(s.radius)},
          {"search.max_rounds", limit(s.max_rounds)},
          {"search.max_designs", limit(s.max_designs)}};
}

}  // namespace kapla::sweep
