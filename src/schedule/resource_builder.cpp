// Spec: nn_dataflow-spec.md §2.4 (word = ceil(bits/8) bytes; bus width 0 -> unlimited).
#include "schedule/resource_builder.hpp"

#include <limits>

namespace kapla::schedule {

using mapping::NodeRegion;
using mapping::RegionType;

mapping::Resource build_resource(const model::Hardware& hw) {
  mapping::Resource r;
  r.proc_region = NodeRegion::rectangle(hw.nodes, {0, 0}, RegionType::Proc);
  const NodeRegion data_region =
      hw.mem_type == model::MemoryType::TwoD
          ? NodeRegion::rectangle({2, 2}, {0, 0}, RegionType::Dram, hw.nodes - PhyDim2{1, 1})
          : NodeRegion::rectangle(hw.nodes, {0, 0}, RegionType::Dram);
  r.dram_region = data_region;
  r.src_data_region = data_region;
  r.dst_data_region = data_region;
  r.dim_array = hw.pe_array;
  r.array_mapping = hw.array_mapping;
  r.size_gbuf = hw.gbuf_words();
  r.size_regf = hw.regf_words();
  const std::int64_t bus_words = hw.array_bus_width_bits / hw.word_bits;
  r.array_bus_width =
      bus_words == 0 ? std::numeric_limits<double>::infinity() : static_cast<double>(bus_words);
  r.dram_bandwidth = hw.dram_bandwidth_bytes_per_cycle / static_cast<double>(hw.word_bytes());
  r.no_time_mux = false;
  return r;
}

}  // namespace kapla::schedule
