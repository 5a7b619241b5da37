// Design-space expansion (see design_space.hpp).
#include "sweep/design_space.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/checked_math.hpp"
#include "core/errors.hpp"
#include "core/number_text.hpp"
#include "sweep/job.hpp"

namespace kapla::sweep {
namespace {

// "108k" for 110592, "2M" for 2097152, else the bytes.
std::string bytes_text(std::int64_t bytes) {
  constexpr std::int64_t kKi = 1024;
  if (bytes % (kKi * kKi) == 0) return std::to_string(bytes / (kKi * kKi)) + "M";
  if (bytes % kKi == 0) return std::to_string(bytes / kKi) + "k";
  return std::to_string(bytes);
}

std::string dim_text(PhyDim2 d) { return std::to_string(d.h) + "x" + std::to_string(d.w); }

template <class T>
std::vector<T> axis_or(const std::vector<T>& axis, const T& base) {
  return axis.empty() ? std::vector<T>{base} : axis;
}

// The area a constraint compares: the space's technology prices a reference without its own.
double area_mm2(const model::Hardware& hw, const std::optional<model::Technology>& fallback) {
  if (hw.technology) return model::chip_area(hw).total_mm2();
  model::Hardware priced = hw;
  priced.technology = fallback;
  return model::chip_area(priced).total_mm2();
}

bool meets_constraints(const DesignSpace& s, double area, double reference_area) {
  if (s.area_budget_mm2 && area > *s.area_budget_mm2) return false;
  if (s.same_area && std::fabs(area - reference_area) > s.same_area->tolerance * reference_area) {
    return false;
  }
  return true;
}

}  // namespace

std::string_view objective_name(SearchObjective objective) {
  switch (objective) {
    case SearchObjective::Energy:
      return "energy";
    case SearchObjective::Time:
      return "time";
    case SearchObjective::Edp:
      return "edp";
  }
  return "?";
}

// No std:: distribution: their output differs between standard libraries.
std::vector<std::size_t> sample_indices(std::size_t n, std::size_t k, std::uint64_t seed) {
  std::vector<std::size_t> idx(n);
  for (std::size_t i = 0; i < n; ++i) idx[i] = i;
  for (std::size_t i = 0; i < k; ++i) {
    const std::uint64_t r = mix_seed(seed, i);
    const std::size_t j = i + static_cast<std::size_t>(r % (n - i));
    std::swap(idx[i], idx[j]);
  }
  idx.resize(k);
  std::sort(idx.begin(), idx.end());
  return idx;
}

std::string design_name(const DesignSpace& s, const model::Hardware& p) {
  std::string name = s.base.name;
  if (!s.nodes.empty()) name += "~nodes" + dim_text(p.nodes);
  if (!s.pe_array.empty()) name += "~pe" + dim_text(p.pe_array);
  if (!s.gbuf_bytes.empty()) name += "~gbuf" + bytes_text(p.gbuf_bytes);
  if (!s.regf_bytes.empty()) name += "~regf" + bytes_text(p.regf_bytes);
  if (!s.array_bus_width_bits.empty()) {
    name += "~bus" + (p.array_bus_width_bits == 0 ? std::string("inf")
                                                  : std::to_string(p.array_bus_width_bits));
  }
  if (!s.dram_bandwidth_bytes_per_cycle.empty()) {
    name += "~bw" + shortest_text(p.dram_bandwidth_bytes_per_cycle);
  }
  return name;
}

std::int64_t grid_size(const DesignSpace& s) {
  auto n = [](const auto& axis) {
    return static_cast<std::int64_t>(std::max<std::size_t>(axis.size(), 1));
  };
  return checked_product({n(s.nodes), n(s.pe_array), n(s.gbuf_bytes), n(s.regf_bytes),
                          n(s.array_bus_width_bits), n(s.dram_bandwidth_bytes_per_cycle)});
}

std::vector<GridPoint> constrained_grid(const DesignSpace& s) {
  const model::Hardware& b = s.base;
  // The utilisation floor needs no areas: only the area constraints need a technology.
  const bool constrained = s.area_budget_mm2 || s.same_area;
  if (constrained && !b.technology) {
    throw InputError("constraints: need a \"technology\" section in the base hardware '" + b.name +
                     "' (areas come from it)");
  }
  const double reference_area = s.same_area ? area_mm2(s.same_area->reference, b.technology) : 0.0;
  const auto nodes_axis = axis_or(s.nodes, b.nodes);
  const auto pe_axis = axis_or(s.pe_array, b.pe_array);
  const auto gbuf_axis = axis_or(s.gbuf_bytes, b.gbuf_bytes);
  const auto regf_axis = axis_or(s.regf_bytes, b.regf_bytes);
  const auto bus_axis = axis_or(s.array_bus_width_bits, b.array_bus_width_bits);
  const auto bw_axis = axis_or(s.dram_bandwidth_bytes_per_cycle, b.dram_bandwidth_bytes_per_cycle);
  std::vector<GridPoint> grid;
  double min_area = std::numeric_limits<double>::infinity();
  for (std::size_t i0 = 0; i0 < nodes_axis.size(); ++i0) {
    for (std::size_t i1 = 0; i1 < pe_axis.size(); ++i1) {
      for (std::size_t i2 = 0; i2 < gbuf_axis.size(); ++i2) {
        for (std::size_t i3 = 0; i3 < regf_axis.size(); ++i3) {
          for (std::size_t i4 = 0; i4 < bus_axis.size(); ++i4) {
            for (std::size_t i5 = 0; i5 < bw_axis.size(); ++i5) {
              GridPoint g;
              g.position = {i0, i1, i2, i3, i4, i5};
              model::Hardware& hw = g.point.hardware;
              hw = b;
              hw.nodes = nodes_axis[i0];
              hw.pe_array = pe_axis[i1];
              hw.gbuf_bytes = gbuf_axis[i2];
              hw.regf_bytes = regf_axis[i3];
              hw.array_bus_width_bits = bus_axis[i4];
              hw.dram_bandwidth_bytes_per_cycle = bw_axis[i5];
              hw.name = design_name(s, hw);
              if (hw.technology) hw.costs = model::technology_costs(hw);
              try {
                model::validate(hw);
              } catch (const InputError& e) {
                throw InputError("design '" + hw.name + "': " + e.what());
              }
              const double area = hw.technology ? model::chip_area(hw).total_mm2() : 0.0;
              min_area = std::min(min_area, area);
              if (!meets_constraints(s, area, reference_area)) continue;
              g.point.params = {b.name,
                                hw.nodes.h,
                                hw.nodes.w,
                                hw.pe_array.h,
                                hw.pe_array.w,
                                hw.gbuf_bytes,
                                hw.regf_bytes,
                                hw.array_bus_width_bits,
                                hw.dram_bandwidth_bytes_per_cycle,
                                area,
                                s.min_pe_utilisation.value_or(0.0)};
              grid.push_back(std::move(g));
            }
          }
        }
      }
    }
  }
  if (grid.empty()) {
    std::ostringstream os;
    os << "constraints: none of the " << grid_size(s) << " designs meets them (smallest area "
       << shortest_text(min_area) << " mm^2";
    if (s.same_area) os << ", reference area " << shortest_text(reference_area) << " mm^2";
    os << ")";
    throw InputError(os.str());
  }
  return grid;
}

std::vector<DesignPoint> expand_space(const DesignSpace& s) {
  KAPLA_ASSERT(!s.local_search, "expand_space: a local-search space is make_design_search's");
  auto grid = constrained_grid(s);
  std::vector<DesignPoint> out;
  if (!s.random_count) {
    for (auto& g : grid) out.push_back(std::move(g.point));
    return out;
  }
  const auto k = static_cast<std::size_t>(*s.random_count);
  if (k > grid.size()) {
    throw InputError("sampling.random.count: asks for " + std::to_string(k) +
                     " designs, but only " + std::to_string(grid.size()) +
                     " meet the constraints (use \"grid\" for all)");
  }
  for (const auto i : sample_indices(grid.size(), k, s.random_seed)) out.push_back(grid[i].point);
  return out;
}

}  // namespace kapla::sweep
