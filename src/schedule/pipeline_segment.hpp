// Inter-layer pipeline segments (nn_dataflow PipelineSegment / InterLayerPipeline.gen_segment):
// runs of DAG vertices scheduled spatially (disjoint node subregions) or temporally (one after
// another on all nodes, fmaps kept in GBUF), their dependency checks, node allocation,
// per-layer resources and the scheduling constraints between pipelined layers.
// Spec: nn_dataflow-spec.md §9.5-9.6; kapla-spec.md §4.1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "mapping/resource.hpp"
#include "model/network.hpp"
#include "model/options.hpp"
#include "schedule/sched_dag.hpp"

namespace kapla::schedule {

/// Position of a layer in a segment: spatial vertex, temporal index within it.
struct SegIndex {
  int sp = 0;
  int tm = 0;
  friend bool operator==(const SegIndex&, const SegIndex&) = default;
  friend auto operator<=>(const SegIndex&, const SegIndex&) = default;
};

/// The constraint one layer of a segment is scheduled under (nn_dataflow
/// SchedulingConstraintLayerPipeline after symbol substitution). 0 = unconstrained factor.
struct SegmentLayerConstraint {
  std::int64_t topbat = 0;
  std::int64_t topifm = 0;
  std::int64_t topofm = 0;
  bool fbifm = false;
  bool fbofm = false;
  /// Lazy rule: take topofm from the level-0 OFM factor chosen for this (earlier) layer of the
  /// segment, when scheduling (nn_dataflow update_dict with TopOfmUpdateLambda).
  std::optional<std::size_t> topofm_from_layer;
  friend bool operator==(const SegmentLayerConstraint&, const SegmentLayerConstraint&) = default;
};

/// One constraint choice for a whole segment, per [sp][tm], plus its pruning hints.
struct SegmentConstraint {
  std::vector<std::vector<SegmentLayerConstraint>> layers;
  std::vector<std::int64_t> hints;
};

namespace detail {
struct SymbolicConstraints;  // pipeline_constraints.cpp
}

class PipelineSegment {
 public:
  /// Layer indices per spatial vertex, in temporal order.
  const std::vector<std::vector<std::size_t>>& layers() const { return layers_; }
  std::size_t size() const { return layers_.size(); }
  std::size_t num_layers() const;
  std::size_t first_layer() const { return layers_.front().front(); }
  std::size_t last_layer() const { return layers_.back().back(); }
  /// Resource of each layer ([sp][tm]).
  const std::vector<std::vector<mapping::Resource>>& allocation() const { return alloc_; }
  /// The region a layer reads its ifmaps from instead of DRAM (a shared memory source or ofmaps
  /// forwarded on chip: the fetching/producing layer's processing region); nullopt = DRAM.
  std::optional<mapping::NodeRegion> forward_region(SegIndex idx) const;
  /// Number of fully buffered spatial pairs on the critical forwarding path.
  std::int64_t num_sp_fbs() const { return num_sp_fbs_; }

  /// All constraint choices in the reference's order (symbols sorted by name, values
  /// ascending, first symbol slowest); topbat values below num_sp_fbs / max_time_overhead are
  /// dropped. Choices the reference would reject (both topifm and topofm > 1) are skipped.
  std::vector<SegmentConstraint> constraints(double max_time_overhead) const;

  friend bool operator==(const PipelineSegment& a, const PipelineSegment& b) {
    return a.layers_ == b.layers_;
  }

  // Construction state, filled by make_pipeline_segment.
  struct Deps;

 private:
  friend std::optional<PipelineSegment> make_pipeline_segment(
      std::vector<std::vector<std::size_t>> layers, const model::Network& net, std::int64_t batch,
      const mapping::Resource& resource, const model::SearchOptions& options);
  std::vector<std::vector<std::size_t>> layers_;
  std::vector<std::vector<mapping::Resource>> alloc_;
  std::vector<std::pair<SegIndex, mapping::NodeRegion>> fwd_regions_;
  std::int64_t num_sp_fbs_ = 0;
  std::shared_ptr<const detail::SymbolicConstraints> cstrs_;
};

/// Builds a segment; nullopt when it is invalid (dependencies, node allocation or constraints).
std::optional<PipelineSegment> make_pipeline_segment(std::vector<std::vector<std::size_t>> layers,
                                                     const model::Network& net, std::int64_t batch,
                                                     const mapping::Resource& resource,
                                                     const model::SearchOptions& options);

/// The vertex runs of _gen_vseg, in the reference's (recursive) order.
std::vector<std::vector<int>> gen_vertex_segments(const SchedDag& dag);

/// All valid segments in generation order: every layer alone first, then per vertex run
/// (at most layer_pipeline_max_degree vertices) its spatial form (partition_interlayer) and
/// its temporal form (hw_gbuf_save_writeback).
std::vector<PipelineSegment> gen_segments(const SchedDag& dag, const model::Network& net,
                                          std::int64_t batch, const mapping::Resource& resource,
                                          const model::SearchOptions& options);

}  // namespace kapla::schedule
