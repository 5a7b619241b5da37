// The technology model: area and capacity-dependent access energies (see technology.hpp).
#include "model/technology.hpp"

#include <cmath>

#include "model/hardware.hpp"
#include "model/limits.hpp"

namespace kapla::model {

AreaBreakdown chip_area(const Hardware& hw) {
  const TechnologyArea& a = hw.technology->area;
  const auto nodes = static_cast<double>(hw.nodes.size());
  const auto pes = static_cast<double>(hw.pe_array.size()) * nodes;
  AreaBreakdown out;
  out.mac_um2 = pes * a.mac_um2;
  out.regf_um2 = pes * static_cast<double>(hw.regf_words()) * a.regf_word_um2;
  out.gbuf_um2 = nodes * static_cast<double>(hw.gbuf_words()) * a.gbuf_word_um2;
  out.router_um2 = nodes * a.router_um2;
  return out;
}

double regf_access_pj(const TechnologyEnergy& e, std::int64_t regf_words) {
  return e.regf.pj * static_cast<double>(regf_words) / static_cast<double>(e.regf.at_words);
}

double gbuf_access_pj(const TechnologyEnergy& e, std::int64_t gbuf_words) {
  return e.gbuf.pj *
         std::sqrt(static_cast<double>(gbuf_words) / static_cast<double>(e.gbuf.at_words));
}

UnitCosts technology_costs(const Hardware& hw) {
  const TechnologyEnergy& e = hw.technology->energy;
  // Divided, not multiplied by 1e-12: 2.2 pJ gives the double nearest 2.2e-12.
  constexpr double kPjPerJoule = 1e12;
  UnitCosts c;
  c.mac_op = e.mac_pj / kPjPerJoule;
  c.mem_hier[MemLevel::Dram] = e.dram_pj / kPjPerJoule;
  c.mem_hier[MemLevel::Gbuf] = gbuf_access_pj(e, hw.gbuf_words()) / kPjPerJoule;
  c.mem_hier[MemLevel::Itcn] = e.itcn_pj / kPjPerJoule;
  c.mem_hier[MemLevel::Regf] = regf_access_pj(e, hw.regf_words()) / kPjPerJoule;
  c.noc_hop = e.noc_hop_pj / kPjPerJoule;
  c.idl_unit = e.idle_pj_per_cycle / kPjPerJoule;
  return c;
}

void validate(const Technology& t) {
  using limits::check_real;
  // Areas in um^2 and energies in pJ: 1e30 is far beyond any chip and keeps products finite.
  constexpr double kMax = limits::kMaxUnitCost;
  check_real("technology.area_um2.mac", t.area.mac_um2, 0, kMax);
  check_real("technology.area_um2.regf_word", t.area.regf_word_um2, 0, kMax);
  check_real("technology.area_um2.gbuf_word", t.area.gbuf_word_um2, 0, kMax);
  check_real("technology.area_um2.router", t.area.router_um2, 0, kMax);
  check_real("technology.energy_pj.mac", t.energy.mac_pj, 0, kMax);
  check_real("technology.energy_pj.dram", t.energy.dram_pj, 0, kMax);
  check_real("technology.energy_pj.regf.pj", t.energy.regf.pj, 0, kMax);
  limits::check_int("technology.energy_pj.regf.at_words", t.energy.regf.at_words, 1,
                    limits::kMaxBufferBytes);
  check_real("technology.energy_pj.gbuf.pj", t.energy.gbuf.pj, 0, kMax);
  limits::check_int("technology.energy_pj.gbuf.at_words", t.energy.gbuf.at_words, 1,
                    limits::kMaxBufferBytes);
  check_real("technology.energy_pj.itcn", t.energy.itcn_pj, 0, kMax);
  check_real("technology.energy_pj.noc_hop", t.energy.noc_hop_pj, 0, kMax);
  check_real("technology.energy_pj.idle_per_cycle", t.energy.idle_pj_per_cycle, 0, kMax);
}

}  // namespace kapla::model
