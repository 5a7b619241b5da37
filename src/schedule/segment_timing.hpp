// Timing of one pipeline segment as its layers are scheduled (nn_dataflow
// PipelineSegmentTiming): start/done times of fused or forwarded fmap groups, batch-group
// pipelining, and the segment's node and DRAM time. Spec: nn_dataflow-spec.md §9.7.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/enum_array.hpp"

namespace kapla::schedule {

/// What the timing model needs from one scheduled layer.
struct LayerTimingInput {
  /// Position in the segment: spatial vertex and temporal index (sched_seq[1], sched_seq[2]).
  int sp = 0;
  int tm = 0;
  /// Whether the layer counts as a Conv for fusing (nn_dataflow isinstance ConvLayer; the KAPLA
  /// fork includes depthwise and back filter layers, §12.8).
  bool is_conv = false;
  double time = 0;       // total time
  double node_time = 0;  // max(proc_time, bus_time)
  double dram_time = 0;
  std::int64_t num_nodes = 0;
  /// Level-0 (DRAM-level) blocking factors and loop orders (0 = innermost).
  PerLoopDim<std::int64_t> top_t{{1, 1, 1}};
  PerLoopDim<int> top_ord{{0, 1, 2}};
  /// (sp, tm) of the layer's predecessors that belong to this segment.
  std::vector<std::array<int, 2>> onchip_prevs;
};

class SegmentTiming {
 public:
  struct LayerTiming {
    double time = 0;
    double node_time = 0;
    double dram_time = 0;
    std::int64_t num_nodes = 0;
    std::int64_t ngrp = 1;
    double ts_xb = 0;
    double td_xb = 0;
  };

  /// Adds the next layer (in segment order: sp ascending, tm ascending within sp).
  void add(const LayerTimingInput& in);

  /// max(node_time, dram_time).
  double time() const { return node_time_ > dram_time_ ? node_time_ : dram_time_; }
  double node_time() const { return node_time_; }
  double dram_time() const { return dram_time_; }
  double critical_time() const { return critical_time_; }
  /// (time - time_indv) / time_indv, time_indv = Σ max(node_time·nodes/total_nodes, dram_time).
  double time_overhead() const;
  std::size_t num_layers() const;
  const std::vector<std::vector<LayerTiming>>& timing_list() const { return timing_; }

 private:
  std::vector<std::vector<LayerTiming>> timing_;
  std::int64_t bat_ngrp_ = 0;  // 0 = not set yet
  double dram_time_ = 0;
  double node_time_ = 0;
  double critical_time_ = 0;
};

}  // namespace kapla::schedule
