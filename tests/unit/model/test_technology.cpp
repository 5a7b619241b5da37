// The technology model: area and capacity-dependent access energies against hand-computed
// figures (Thistle's 45 nm numbers, docs/codesign.md).
#include "model/technology.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "model/hardware.hpp"

namespace kapla::model {
namespace {

Technology thistle_45nm() {
  Technology t;
  t.source = "test";
  t.area = {1239.5, 19.874, 6.806, 1000};
  t.energy.mac_pj = 2.2;
  t.energy.dram_pj = 128;
  t.energy.regf = {4.64240128, 512};
  t.energy.gbuf = {4.57728, 65536};
  t.energy.itcn_pj = 4.4;
  t.energy.noc_hop_pj = 22;
  t.energy.idle_pj_per_cycle = 0.5;
  return t;
}

// 2x2 nodes of 8x8 PEs, 64 register words per PE (128 B), 16384 GBUF words (32 KiB).
Hardware small_chip() {
  Hardware hw;
  hw.name = "chip";
  hw.nodes = {2, 2};
  hw.pe_array = {8, 8};
  hw.regf_bytes = 128;
  hw.gbuf_bytes = 32768;
  hw.technology = thistle_45nm();
  return hw;
}

TEST(Technology, AreaByPartHandComputed) {
  const AreaBreakdown a = chip_area(small_chip());
  // 4 nodes x 64 PEs = 256 PEs.
  EXPECT_DOUBLE_EQ(a.mac_um2, 256 * 1239.5);        // 317312
  EXPECT_DOUBLE_EQ(a.regf_um2, 256 * 64 * 19.874);  // 325615.616
  EXPECT_DOUBLE_EQ(a.gbuf_um2, 4 * 16384 * 6.806);  // 446038.016
  EXPECT_DOUBLE_EQ(a.router_um2, 4 * 1000.0);       // 4000
  EXPECT_DOUBLE_EQ(a.total_um2(), 1092965.632);
  EXPECT_DOUBLE_EQ(a.total_mm2(), 1.092965632);
}

TEST(Technology, AccessEnergiesFollowCapacity) {
  const Hardware hw = small_chip();
  // REGF linear in words: 64 / 512 of 4.64240128 pJ; GBUF by sqrt: sqrt(16384 / 65536) = 1/2.
  EXPECT_DOUBLE_EQ(regf_access_pj(hw.technology->energy, 64), 0.58030016);
  EXPECT_DOUBLE_EQ(gbuf_access_pj(hw.technology->energy, 16384), 2.28864);
  const UnitCosts c = technology_costs(hw);
  EXPECT_DOUBLE_EQ(c.mem_hier[MemLevel::Regf], 0.58030016e-12);
  EXPECT_DOUBLE_EQ(c.mem_hier[MemLevel::Gbuf], 2.28864e-12);
  // Constant parts do not move with capacity.
  EXPECT_DOUBLE_EQ(c.mac_op, 2.2e-12);
  EXPECT_DOUBLE_EQ(c.mem_hier[MemLevel::Dram], 128e-12);
  EXPECT_DOUBLE_EQ(c.mem_hier[MemLevel::Itcn], 4.4e-12);
  EXPECT_DOUBLE_EQ(c.noc_hop, 22e-12);
  EXPECT_DOUBLE_EQ(c.idl_unit, 0.5e-12);
}

TEST(Technology, ValidationNamesTheField) {
  Technology t = thistle_45nm();
  t.energy.gbuf.pj = -1;
  try {
    validate(t);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "technology.energy_pj.gbuf.pj: must be a non-negative number at most 1e+30, got -1");
  }
}

}  // namespace
}  // namespace kapla::model
