// The outer search over hardware designs (issue 19 step 3, docs/codesign.md): a seeded Pareto
// local search on one design space. Round 0 prices a random sample of the constrained grid;
// each next round prices the grid neighbours (up to `radius` steps along one axis) of the
// current Pareto front of (area, objective) that are not priced yet. Pure functions of the space
// and the scores of what was priced, so every rank, thread count and resume chooses the same
// designs; sweep/search_rounds runs the rounds through the sweep.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sweep/design_space.hpp"

namespace kapla::sweep {

struct TupleResult;
struct TupleRecord;

/// One local-search space of a job, as the job parser leaves it for the sweep.
struct DesignSearch {
  using Position = std::array<std::size_t, kNumDesignAxes>;
  std::vector<DesignPoint> grid;   // the constrained grid, in grid order
  std::vector<Position> position;  // of each grid design: ascending, as the grid runs
  Position axis_size{};            // values per axis (1 for an axis the space leaves alone)
  Position axis_columns{};         // of a {"h", "w"} shape axis; 0 otherwise (DesignSpace)
  LocalSearchSettings settings;
  std::vector<std::int64_t> batches;  // the space's batch sizes
  std::vector<std::size_t> initial;   // round 0: grid indices, ascending
};

/// The search over `space` (which must have local_search settings). Throws as expand_space.
DesignSearch make_design_search(const DesignSpace& space, std::vector<std::int64_t> batches);

/// The grid designs up to settings.radius steps from `design` along one axis (for a shape
/// product, along h or along w), ascending. Computed when asked, not stored: a radius of
/// thousands on a grid of 10^5 designs would hold billions of them.
std::vector<std::size_t> neighbours(const DesignSearch& search, std::size_t design);

/// A priced design: its area (0 without a technology) and its objective, summed over its tuples.
struct DesignScore {
  double area_mm2 = 0;
  double value = 0;
  friend bool operator==(const DesignScore&, const DesignScore&) = default;
};

/// The objective of one tuple's result: energy, time (cycles) or energy x time.
double objective_value(SearchObjective objective, const TupleResult& result);

/// Whether a tuple's schedule reaches its design's PE-utilisation floor (true without a floor).
/// A design is feasible only when every one of its tuples does: the floor is a requirement on
/// the chip for every network, batch, strategy and seed the job runs on it.
bool meets_utilisation_floor(const TupleRecord& record);

/// The score of every design point among `records` (by hardware name): its area and the
/// objective summed over its records; nullopt when one of them is not status ok or is below
/// the PE-utilisation floor (the design is infeasible). Records of plain hardware (no design
/// base) are left out.
std::map<std::string, std::optional<DesignScore>> score_records(
    const std::vector<const TupleRecord*>& records, SearchObjective objective);

/// Indices of the designs no other design dominates (no larger area and objective, one of them
/// smaller), ascending. Equal designs are all kept. Without areas (all 0) it is the optimum.
std::vector<std::size_t> pareto_front(const std::vector<DesignScore>& designs);

/// The designs of the next round: grid indices, ascending, of the unpriced neighbours of the
/// front of the priced designs that have a score (a design without one, e.g. a tuple without a
/// schedule or below the utilisation floor, is priced but not on the front); at most max_designs -
/// priced. `round` is the next round's number; empty when the search is over (no candidate, or
/// max_rounds reached).
std::vector<std::size_t> next_designs(const DesignSearch& search,
                                      const std::vector<std::optional<DesignScore>>& scores,
                                      const std::vector<bool>& priced, std::size_t round);

/// How far `found` falls short of the `reference` front, as a fraction: the multiplicative
/// epsilon indicator (Zitzler et al., 2003): the least e >= 0 such that every reference design
/// has a found design with area and objective each within (1 + e) times its own. 0 when
/// `found` holds the reference front; infinity when `found` is empty.
double front_gap(const std::vector<DesignScore>& reference, const std::vector<DesignScore>& found);

/// The /resolved rows that say how a searched design came to be priced: "search.round" and the
/// search's settings ("search.objective", "search.initial", "search.seed", "search.radius",
/// "search.max_rounds", "search.max_designs"; "none" for an absent limit).
std::vector<std::pair<std::string, std::string>> search_rows(const LocalSearchSettings& settings,
                                                             std::size_t round);

}  // namespace kapla::sweep
