// Hardware -> the resource a lone layer is scheduled on, in words and cycles, exactly as the
// reference CLI builds it. Spec: nn_dataflow-spec.md §2.4.
#pragma once

#include "mapping/resource.hpp"
#include "model/hardware.hpp"

namespace kapla::schedule {

/// The processing region is all nodes; the DRAM region is the four chip corners (2D memory) or
/// one memory per node (3D); ifmaps come from and ofmaps go to the DRAM region.
mapping::Resource build_resource(const model::Hardware& hw);

}  // namespace kapla::schedule
