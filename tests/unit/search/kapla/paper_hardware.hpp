// The paper's hardware (kapla-spec §7.1, data/hardware/), built in code so that tests of the
// search module need no JSON reader. One copy for every KAPLA test.
#pragma once

#include "model/hardware.hpp"

namespace kapla::test {

/// The multi-array training hardware ("cloud": 16x16 nodes of 8x8 PEs, 32 KB GBUF, 64 B REGF;
/// data/hardware/cloud.json).
inline model::Hardware paper_cloud_hardware() {
  model::Hardware hw;
  hw.nodes = {16, 16};
  hw.pe_array = {8, 8};
  hw.gbuf_bytes = 32768;
  hw.regf_bytes = 64;
  hw.array_bus_width_bits = 128;
  hw.dram_bandwidth_bytes_per_cycle = 51.2;
  hw.costs = {9.984e-13,
              {{4.0189027539954336e-10, 2.8325450000000004e-12, 1.6416e-12, 9.408850000000001e-14}},
              9.76e-12,
              1.2728688055044508e-09};
  return hw;
}

/// KAPLA's single-array hardware ("edge": one node of 16x16 PEs, 256 KB GBUF, 512 B REGF;
/// data/hardware/edge.json).
inline model::Hardware paper_edge_hardware() {
  model::Hardware hw;
  hw.nodes = {1, 1};
  hw.pe_array = {16, 16};
  hw.gbuf_bytes = 262144;
  hw.regf_bytes = 512;
  hw.array_bus_width_bits = 256;
  hw.dram_bandwidth_bytes_per_cycle = 12.8;
  hw.costs = {9.984e-13,
              {{4.0189027539954336e-10, 7.483700000000001e-12, 3.2832e-12, 2.507285e-13}},
              9.76e-12,
              5.410220055044509e-10};
  return hw;
}

}  // namespace kapla::test
