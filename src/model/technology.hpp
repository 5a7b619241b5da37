// The opt-in technology model of a hardware file (issue 19): an area per unit of every part
// and per-access energies that follow the buffers' capacities, after Thistle (CGO'23, 45 nm):
// register energy proportional to the registers per PE, GBUF energy proportional to the square
// root of its words, DRAM, MAC, array bus and NoC hop constant. When a hardware has one, its
// UnitCosts are derived from it here and nowhere else (technology_costs); the cost model is
// unchanged and presets without the section keep their numbers. Format: docs/codesign.md.
#pragma once

#include <cstdint>
#include <string>

namespace kapla::model {

struct Hardware;
struct UnitCosts;

/// Area of one unit of each part, in um^2.
struct TechnologyArea {
  double mac_um2 = 0;        // one MAC unit (one per PE)
  double regf_word_um2 = 0;  // one register word of a PE
  double gbuf_word_um2 = 0;  // one global-buffer (SRAM) word of a node
  double router_um2 = 0;     // one node's NoC router
  friend bool operator==(const TechnologyArea&, const TechnologyArea&) = default;
};

/// An access energy measured at one capacity, scaled to others by the technology's law.
struct ScaledEnergy {
  double pj = 0;              // energy per word access at `at_words`
  std::int64_t at_words = 1;  // the reference capacity, in words
  friend bool operator==(const ScaledEnergy&, const ScaledEnergy&) = default;
};

/// Per-access energies, in pJ.
struct TechnologyEnergy {
  double mac_pj = 0;
  double dram_pj = 0;
  ScaledEnergy regf;   // linear in the register words per PE
  ScaledEnergy gbuf;   // proportional to sqrt(GBUF words per node)
  double itcn_pj = 0;  // array bus (PE-array interconnect), per word
  double noc_hop_pj = 0;
  double idle_pj_per_cycle = 0;  // static energy of all nodes per cycle
  friend bool operator==(const TechnologyEnergy&, const TechnologyEnergy&) = default;
};

struct Technology {
  std::string source;  // where the figures come from
  TechnologyArea area;
  TechnologyEnergy energy;
  friend bool operator==(const Technology&, const Technology&) = default;
};

/// A chip's area by part, in um^2: every node's MACs, registers, GBUF and router.
struct AreaBreakdown {
  double mac_um2 = 0;
  double regf_um2 = 0;
  double gbuf_um2 = 0;
  double router_um2 = 0;
  double total_um2() const { return mac_um2 + regf_um2 + gbuf_um2 + router_um2; }
  double total_mm2() const { return total_um2() * 1e-6; }
};

/// Thistle's linear area model extended to nodes: nodes * (PEs * (MAC + regf words * register
/// word) + GBUF words * SRAM word + router). `hw` must have a technology.
AreaBreakdown chip_area(const Hardware& hw);

/// The REGF and GBUF access energies (pJ) at `hw`'s capacities, by the technology's laws.
double regf_access_pj(const TechnologyEnergy& e, std::int64_t regf_words);
double gbuf_access_pj(const TechnologyEnergy& e, std::int64_t gbuf_words);

/// `hw.costs` as `hw.technology` gives them for `hw`'s capacities, in joules. `hw` must have a
/// technology. Every hardware with a technology gets its costs from here (file parse, design
/// spaces), so a resized design is priced with its own energies.
UnitCosts technology_costs(const Hardware& hw);

/// Throws InputError naming the field ("technology.area_um2.mac: ...") when a figure is NaN,
/// negative, above limits or a reference capacity is not positive.
void validate(const Technology& t);

}  // namespace kapla::model
