// How a priced layer sits on the PE array, for people (`kapla schedule`'s text): the search keeps
// only the partition and the index of the nested-loop description (NLD) it chose, so the
// geometry is recomputed from them by the same map strategy (pricing/fixed_scheme.hpp).
#pragma once

#include <optional>

#include "cost/map_strategy.hpp"
#include "pricing/layer_problem.hpp"
#include "pricing/layer_schedule.hpp"

namespace kapla::pricing {

/// The geometry (logical PE set, folding, replication, utilisation) that `s`'s NLD was built
/// from. `p` needs the layer, batch, resource (PE array, mapping) and options the schedule was
/// priced with. nullopt when s.nld_index is not one of the map strategy's NLDs.
std::optional<cost::MapGeometry> schedule_geometry(const LayerProblem& p, const LayerSchedule& s);

}  // namespace kapla::pricing
