// PE-array map strategies: turn the per-node (partitioned) layer into nested-loop descriptions.
// Eyeriss row-stationary (nn_dataflow MapStrategyEyeriss, incl. the KAPLA fork's depthwise
// branch and regf_reusable flags) and the fork's TPU-like systolic mapping
// (MapStrategySystolic). Spec: nn_dataflow-spec.md §6, §11.3-5, §12.2-3; kapla-spec.md §1.6.
#pragma once

#include <cstdint>
#include <vector>

#include "core/phy_dim2.hpp"
#include "cost/nested_loop_desc.hpp"
#include "model/layer.hpp"
#include "model/options.hpp"

namespace kapla::cost {

enum class ArrayMapping : std::uint8_t { Eyeriss, Systolic };

/// The mapping geometry (reported as derived.map_strategy in the golden records).
struct MapGeometry {
  PhyDim2 dim_lpeset;      // logical PE set
  std::int64_t ops_lpe = 0;
  PhyDim2 repl;            // replication (h, w)
  PhyDim2 fold;            // folding (h, w)
  PhyDim2 dim_flpeset;     // folded logical PE set
  PhyDim2 dim_ppeset;      // physical PE set
  double util = 0;         // PE utilisation
  friend bool operator==(const MapGeometry&, const MapGeometry&) = default;
};

struct MapResult {
  MapGeometry geometry;
  /// In the reference's gen_nested_loop_desc order (nld_index indexes this).
  std::vector<NestedLoopDesc> nlds;
};

/// Maps a per-node layer (a forward Conv/FC, DWConv or local-region kind, as produced by
/// mapping::part_layer) of `batch` samples with partition occupancy `occupancy` (0 < occ <= 1)
/// onto a `dim_array` PE array. `variant` selects the fork's or upstream's formulas (§12.2-3:
/// regf_reusable, rw_data, local-region REGF ifmap size). Upstream's `util > 0.5` assertion is
/// not applied; callers that need it read geometry.util. Throws InternalError for a
/// back-propagation kind (part_layer turns those into forward kinds) and, for Systolic, under
/// the Tangram variant (upstream has no systolic mapping).
MapResult map_eyeriss(const model::Layer& p_layer, std::int64_t batch, double occupancy,
                      PhyDim2 dim_array, model::CostModelVariant variant);
MapResult map_systolic(const model::Layer& p_layer, std::int64_t batch, double occupancy,
                       PhyDim2 dim_array);
MapResult map_layer(ArrayMapping mapping, const model::Layer& p_layer, std::int64_t batch,
                    double occupancy, PhyDim2 dim_array, model::CostModelVariant variant);

}  // namespace kapla::cost
