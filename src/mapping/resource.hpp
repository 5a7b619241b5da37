// The resources one layer is scheduled on (nn_dataflow Resource), in words and cycles:
// derived once from model::Hardware, or replaced per layer by inter-layer pipelining.
// Spec: nn_dataflow-spec.md §2.3-2.4.
#pragma once

#include <cstdint>
#include <limits>

#include "core/phy_dim2.hpp"
#include "mapping/node_region.hpp"
#include "model/hardware.hpp"

namespace kapla::mapping {

struct Resource {
  NodeRegion proc_region;      // processing nodes of this layer
  NodeRegion dram_region;      // memory nodes; all hold the filters
  NodeRegion src_data_region;  // where the ifmaps live (DRAM, or a PROC region when forwarded)
  NodeRegion dst_data_region;  // where the ofmaps go
  PhyDim2 dim_array;           // PE array per node
  /// The PE array's dataflow (the map strategy every search uses; hardware's array_mapping).
  model::ArrayMapping array_mapping = model::ArrayMapping::RowStationary;
  std::int64_t size_gbuf = 0;  // GBUF words per node
  std::int64_t size_regf = 0;  // REGF words per PE
  /// Words per cycle per data category on the array bus; +inf = unlimited.
  double array_bus_width = std::numeric_limits<double>::infinity();
  /// Words per cycle, all DRAM channels together; +inf = unlimited.
  double dram_bandwidth = std::numeric_limits<double>::infinity();
  /// Set by inter-layer pipelining only: enables filter pinning.
  bool no_time_mux = false;

  friend bool operator==(const Resource&, const Resource&) = default;
};

}  // namespace kapla::mapping
