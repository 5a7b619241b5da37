// Hardware design spaces of job files (issue 19, docs/codesign.md): a base hardware and axes
// (node grids, PE arrays, GBUF and REGF bytes, array bus width, DRAM bandwidth), constraints on
// the area of the technology model, and sampling (the full grid, or N seeded random points).
// expand_space turns one into named design points; the sweep runs them as hardware entries.
// Pure values: the job parser (io/job_json) fills a DesignSpace, with every axis's values
// already listed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
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
  friend bool operator==(const DesignParams&, const DesignParams&) = default;
};

/// "Same area as" a reference hardware, within a relative tolerance.
struct SameArea {
  std::string design;         // its name, as the job gave it
  model::Hardware reference;  // priced with the space's technology if it has none of its own
  double tolerance = 0;       // |area - reference| <= tolerance * reference
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
  // Constraints (need a technology in the base).
  std::optional<double> area_budget_mm2;
  std::optional<SameArea> same_area;
  // Sampling: the full grid, or `random_count` distinct points of the constrained grid.
  std::optional<std::int64_t> random_count;
  std::uint64_t random_seed = 1;
};

struct DesignPoint {
  model::Hardware hardware;  // named after its parameters; costs re-derived by its technology
  DesignParams params;
};

/// The stable name of a point: the base's name, then one "~<axis><value>" per axis of the
/// space in a fixed order, e.g. "eyeriss~pe14x12~gbuf108k~regf512" (byte sizes in k = KiB or M
/// = MiB when they divide evenly). Axes that the space does not declare are left out.
std::string design_name(const DesignSpace& space, const model::Hardware& point);

/// The grid in axis order (nodes, pe_array, gbuf, regf, bus, DRAM bandwidth; the last
/// innermost), less the points that fail a constraint, then sampled. Random sampling draws
/// distinct points with a portable generator seeded by random_seed and keeps grid order.
/// Throws InputError "FIELD: reason" when a point is invalid hardware, when no point meets the
/// constraints, or when more random points are asked than remain.
std::vector<DesignPoint> expand_space(const DesignSpace& space);

/// The number of grid points before constraints (for messages and limits), or -1 when it does
/// not fit an int64 (six axes of 4096 values are 2^72 points).
std::int64_t grid_size(const DesignSpace& space);

}  // namespace kapla::sweep
