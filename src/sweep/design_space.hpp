// Hardware design spaces of job files (issue 19, docs/codesign.md): a base hardware and axes
// (node grids, PE arrays, GBUF and REGF bytes, array bus width, DRAM bandwidth), constraints on
// the area of the technology model and a PE-utilisation floor, and sampling (the full grid, N
// seeded random points, or a local search: sweep/design_search.hpp). expand_space turns one into
// named design points; the sweep runs them as hardware entries. Pure values: the job parser
// (io/job_json) fills a DesignSpace, with every axis's values already listed.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/phy_dim2.hpp"
#include "model/hardware.hpp"

namespace kapla::sweep {

/// What a design point set, for the results' columns. A tuple on a plain preset or file has
/// the empty value (base "" and zeros): only design points carry parameters.
struct DesignParams {
  std::string base;  // the base hardware's name; "" = not a design point
  std::int64_t nodes_h = 0;
  std::int64_t nodes_w = 0;
  std::int64_t pe_h = 0;
  std::int64_t pe_w = 0;
  std::int64_t gbuf_bytes = 0;
  std::int64_t regf_bytes = 0;
  std::int64_t array_bus_width_bits = 0;  // 0 = unlimited, as in model::Hardware
  double dram_bandwidth_bytes_per_cycle = 0;
  double area_mm2 = 0;  // 0 when the base has no technology
  /// The space's PE-utilisation floor (0 = none). Only known after scheduling, so it does not
  /// filter the grid: a design with a tuple below it is priced but infeasible
  /// (meets_utilisation_floor in design_search.hpp).
  double min_pe_utilisation = 0;
  friend bool operator==(const DesignParams&, const DesignParams&) = default;
};

/// "Same area as" a reference hardware, within a relative tolerance.
struct SameArea {
  std::string design;         // its name, as the job gave it
  model::Hardware reference;  // priced with the space's technology if it has none of its own
  double tolerance = 0;       // |area - reference| <= tolerance * reference
};

/// What a local search minimises per design, summed over the design's tuples.
enum class SearchObjective { Energy, Time, Edp };
std::string_view objective_name(SearchObjective objective);

/// Sampling {"local_search": {...}} (docs/codesign.md): round 0 prices `initial` designs drawn
/// as random sampling draws them; each next round prices the grid neighbours of the Pareto
/// front of (area, objective) not priced yet, until a round has none or a limit is reached.
struct LocalSearchSettings {
  SearchObjective objective = SearchObjective::Energy;
  std::int64_t initial = 1;
  std::uint64_t seed = 1;
  std::int64_t radius = 1;                  // neighbours: up to this many steps along one axis
  std::optional<std::int64_t> max_rounds;   // rounds in all, round 0 included; none = no limit
  std::optional<std::int64_t> max_designs;  // designs priced in all; none = no limit
  friend bool operator==(const LocalSearchSettings&, const LocalSearchSettings&) = default;
};

struct DesignSpace {
  model::Hardware base;
  // The axes; an empty axis keeps the base's value and stays out of the design names.
  std::vector<PhyDim2> nodes;
  std::vector<PhyDim2> pe_array;
  std::vector<std::int64_t> gbuf_bytes;
  std::vector<std::int64_t> regf_bytes;
  std::vector<std::int64_t> array_bus_width_bits;
  std::vector<double> dram_bandwidth_bytes_per_cycle;
  // A shape axis given as {"h": AXIS, "w": AXIS} lists its shapes h-major; this is the number
  // of w values, so that a local search steps along h and w separately (0: a list of shapes).
  std::size_t nodes_columns = 0;
  std::size_t pe_array_columns = 0;
  // Constraints on the area (need a technology in the base), and the PE-utilisation floor
  // (0 < x <= 1; needs no technology): every tuple of a feasible design reaches it.
  std::optional<double> area_budget_mm2;
  std::optional<SameArea> same_area;
  std::optional<double> min_pe_utilisation;
  // Sampling: the full grid, `random_count` distinct points of the constrained grid, or a
  // local search (sweep/design_search.hpp).
  std::optional<std::int64_t> random_count;
  std::uint64_t random_seed = 1;
  std::optional<LocalSearchSettings> local_search;
};

struct DesignPoint {
  model::Hardware hardware;  // named after its parameters; costs re-derived by its technology
  DesignParams params;
};

/// The number of axes of a space (nodes, pe_array, gbuf, regf, bus, DRAM bandwidth).
inline constexpr std::size_t kNumDesignAxes = 6;

/// A point of the constrained grid with its position (value index) on every axis.
struct GridPoint {
  DesignPoint point;
  std::array<std::size_t, kNumDesignAxes> position{};
};

/// The stable name of a point: the base's name, then one "~<axis><value>" per axis of the
/// space in a fixed order, e.g. "eyeriss~pe14x12~gbuf108k~regf512" (byte sizes in k = KiB or M
/// = MiB when they divide evenly). Axes that the space does not declare are left out.
std::string design_name(const DesignSpace& space, const model::Hardware& point);

/// The grid in axis order (nodes, pe_array, gbuf, regf, bus, DRAM bandwidth; the last
/// innermost), less the points that fail a constraint. Throws InputError "FIELD: reason" when
/// a point is invalid hardware or when no point meets the constraints.
std::vector<GridPoint> constrained_grid(const DesignSpace& space);

/// k distinct indices of [0, n), sorted: a partial Fisher-Yates shuffle seeded by `seed` with
/// a portable generator (the same on every platform and standard library). k <= n.
std::vector<std::size_t> sample_indices(std::size_t n, std::size_t k, std::uint64_t seed);

/// The constrained grid, sampled: every point, or `random_count` points drawn by
/// sample_indices, in grid order. Throws as constrained_grid does, and when more points are
/// asked than meet the constraints. (A local-search space: make_design_search.)
std::vector<DesignPoint> expand_space(const DesignSpace& space);

/// The number of grid points before constraints (for messages and limits), or -1 when it does
/// not fit an int64 (six axes of 4096 values are 2^72 points).
std::int64_t grid_size(const DesignSpace& space);

}  // namespace kapla::sweep
