// model/hardware.hpp's PE utilisation against hand-computed figures (the PE-utilisation floor
// of design spaces, docs/codesign.md).
#include "model/hardware.hpp"

#include <gtest/gtest.h>

namespace kapla::model {
namespace {

TEST(Hardware, PeUtilisationIsMacsOverPeCycles) {
  Hardware hw;
  hw.nodes = {2, 2};
  hw.pe_array = {4, 4};
  // 4 nodes x 16 PEs = 64 PEs; 1000 MACs in 125 cycles of 64 PEs = 8000 PE-cycles: 1/8.
  EXPECT_EQ(pe_utilisation(hw, 1000, 125), 0.125);
  // Every PE busy every cycle: 64 x 10 MACs in 10 cycles.
  EXPECT_EQ(pe_utilisation(hw, 640, 10), 1.0);
  // Thistle's Eyeriss, 14x12 = 168 PEs: 168 x 3 MACs in 4 cycles.
  hw.nodes = {1, 1};
  hw.pe_array = {14, 12};
  EXPECT_EQ(pe_utilisation(hw, 504, 4), 0.75);
  // No schedule (time 0): 0, not a division by zero.
  EXPECT_EQ(pe_utilisation(hw, 504, 0), 0.0);
  EXPECT_EQ(pe_utilisation(hw, 0, 0), 0.0);
}

}  // namespace
}  // namespace kapla::model
