// PE-array map strategies: turn the per-node (partitioned) layer into nested-loop descriptions.
// Eyeriss row-stationary (nn_dataflow MapStrategyEyeriss, incl. the KAPLA fork's depthwise
// branch and regf_reusable flags) and the fork's TPU-like systolic mapping
// (MapStrategySystolic). Spec: nn_dataflow-spec.md §6, §11.3-5, §12.2-3; kapla-spec.md §1.6.
#pragma once

#include <cstdint>
#include <vector>

#include "core/phy_dim2.hpp"
#include "cost/nested_loop_desc.hpp"
#include "model/hardware.hpp"
#include "model/layer.hpp"
#include "model/options.hpp"

namespace kapla::cost {

/// The mapping geometry (reported as derived.map_strategy in the golden records).
struct MapGeometry {
  PhyDim2 dim_lpeset;  // logical PE set
  std::int64_t ops_lpe = 0;
  PhyDim2 repl;         // replication (h, w)
  PhyDim2 fold;         // folding (h, w)
  PhyDim2 dim_flpeset;  // folded logical PE set
  PhyDim2 dim_ppeset;   // physical PE set
  double util = 0;      // PE utilisation
  friend bool operator==(const MapGeometry&, const MapGeometry&) = default;
};

struct MapResult {
  /// nn_dataflow's geometry (what the golden records report).
  MapGeometry geometry;
  /// In the reference's gen_nested_loop_desc order (nld_index indexes this); with fold
  /// variants, the variants' NLDs follow nn_dataflow's.
  std::vector<NestedLoopDesc> nlds;
  /// The geometry each NLD was built from (`geometry`, or a fold variant's).
  std::vector<MapGeometry> nld_geometry;
  /// Each NLD's replicated data counts per unit pass (row stationary: FIL ifms x ofms, IFM
  /// ifms, OFM ofms), what the emitted PE array broadcasts to (emit/).
  std::vector<PerDataCategory<std::int64_t>> nld_replicas;
};

/// Maps a per-node layer (a forward Conv/FC, DWConv or local-region kind, as produced by
/// mapping::part_layer) of `batch` samples with partition occupancy `occupancy` (0 < occ <= 1)
/// onto a `dim_array` PE array. `variant` selects the fork's or upstream's formulas (§12.2-3:
/// regf_reusable, rw_data, local-region REGF ifmap size). Upstream's `util > 0.5` assertion is
/// not applied; callers that need it read geometry.util. Throws InternalError for a
/// back-propagation kind (part_layer turns those into forward kinds) and, for Systolic, under
/// the Tangram variant (upstream has no systolic mapping).
///
/// `fold_variants` (kapla's extension, SearchOptions::rs_fold_variants) appends the NLDs of
/// geometries with more temporal folds of the ofmap rows than nn_dataflow's (which folds as
/// little as possible and wraps the folded set onto spare PE rows): each fold count that
/// shrinks the folded PE set, without the wrap, so the spare rows replicate the set over input
/// channels (partial sums accumulated inside the array) or output channels, priced by the same
/// unit-pass formulas. Only variants whose PE utilisation is at least nn_dataflow's are kept
/// (they are not slower), and NLDs equal to an earlier one are dropped.
///
/// `exact` (imperfect: perfect, docs/imperfect.md) emulates Timeloop's perfect factorisation on
/// the array: only folds that divide the filter rows and the ofmap rows (the ofmap rows split
/// exactly into folds x wraps x columns) and replica counts that divide the channels, where
/// nn_dataflow folds and replicates with ceil. Off: the reference's mapping, bit for bit.
MapResult map_eyeriss(const model::Layer& p_layer, std::int64_t batch, double occupancy,
                      PhyDim2 dim_array, model::CostModelVariant variant,
                      bool fold_variants = false, bool exact = false);
MapResult map_systolic(const model::Layer& p_layer, std::int64_t batch, double occupancy,
                       PhyDim2 dim_array);
/// The systolic mapping's `fold_h` folds of output positions as (row, column) pieces of the
/// ofmap: rows = the largest divisor of fold_h up to fold_h / 2 (1 if there is none, the first
/// element of nn_dataflow util.closest_factor), columns = fold_h / rows. Its unit pass covers
/// one such piece; the emitted loop nest (emit/) splits the ofmap the same way.
PhyDim2 systolic_position_folds(std::int64_t fold_h);
/// `fold_variants` and `exact` apply to the row-stationary mapping only.
MapResult map_layer(model::ArrayMapping mapping, const model::Layer& p_layer, std::int64_t batch,
                    double occupancy, PhyDim2 dim_array, model::CostModelVariant variant,
                    bool fold_variants = false, bool exact = false);

}  // namespace kapla::cost
