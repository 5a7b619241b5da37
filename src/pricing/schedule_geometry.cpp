// The PE-array geometry of a priced layer (see schedule_geometry.hpp).
#include "pricing/schedule_geometry.hpp"

#include <cstddef>

#include "mapping/part_layer.hpp"
#include "pricing/fixed_scheme.hpp"

namespace kapla::pricing {

std::optional<cost::MapGeometry> schedule_geometry(const LayerProblem& p, const LayerSchedule& s) {
  const auto map = map_partitioned_layer(p, mapping::part_layer(p.layer, p.batch, s.part));
  if (s.nld_index < 0 || static_cast<std::size_t>(s.nld_index) >= map.nld_geometry.size()) {
    return std::nullopt;
  }
  return map.nld_geometry[static_cast<std::size_t>(s.nld_index)];
}

}  // namespace kapla::pricing
