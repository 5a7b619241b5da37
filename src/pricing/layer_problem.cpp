// The canonical text key of a layer problem (memo and cache keys).
#include "pricing/layer_problem.hpp"

#include <sstream>

namespace kapla::pricing {

namespace {

void put_region(std::ostringstream& os, const mapping::NodeRegion& r) {
  os << r.dim.h << ',' << r.dim.w << ',' << r.origin.h << ',' << r.origin.w << ',' << r.dist.h
     << ',' << r.dist.w << ',' << static_cast<int>(r.type) << ',' << r.effective_wtot() << ','
     << r.effective_wbeg() << ';';
}

void put_part(std::ostringstream& os, const mapping::PartitionScheme& p) {
  for (auto pe : p.order) os << static_cast<int>(pe);
  for (const auto& d : p.pdims) os << ',' << d.h << ',' << d.w;
  os << ';';
}

}  // namespace

void set_layer(LayerProblem& p, const model::Layer& layer, std::int64_t network_batch) {
  p.layer = layer;
  p.layer.nhead = 1;
  p.batch = network_batch * layer.nhead;
}

std::string problem_key(const LayerProblem& p, bool with_layout) {
  std::ostringstream os;
  os.precision(17);
  const auto& l = p.layer;
  os << static_cast<int>(l.type) << ',' << l.nifm << ',' << l.nofm << ',' << l.sofm.h << ','
     << l.sofm.w << ',' << l.sifm.h << ',' << l.sifm.w << ',' << l.strd.h << ',' << l.strd.w << ','
     << l.sfil.h << ',' << l.sfil.w << ',' << l.nreg << ',' << l.sreg.h << ',' << l.sreg.w << ','
     << l.ntrd << ',' << l.crop << ',' << static_cast<int>(l.rw_data) << '|' << p.batch << '|';
  const auto& r = p.resource;
  put_region(os, r.proc_region);
  put_region(os, r.dram_region);
  put_region(os, r.src_data_region);
  put_region(os, r.dst_data_region);
  os << r.dim_array.h << ',' << r.dim_array.w << ',' << r.size_gbuf << ',' << r.size_regf << ','
     << r.array_bus_width << ',' << r.dram_bandwidth << ',' << r.no_time_mux << '|';
  const auto& c = p.constraint;
  os << c.topbat << ',' << c.topifm << ',' << c.topofm << ',' << c.fbifm << ',' << c.fbofm << '|';
  const auto& o = p.options;
  for (bool b : o.sw_gbuf_bypass) os << b;
  os << o.sw_solve_loopblocking << o.hw_access_forwarding << o.hw_gbuf_sharing
     << o.hw_gbuf_save_writeback << o.partition_hybrid << o.partition_batch << o.partition_ifmaps
     << o.partition_interlayer << ',' << static_cast<int>(o.opt_goal) << ',' << o.ntops << ','
     << static_cast<int>(o.cost_model) << ',' << model::fold_variants_on(o) << ','
     << static_cast<int>(o.imperfect) << '|';
  const auto& k = p.costs;
  os << k.mac_op << ',' << k.mem_hier[MemLevel::Dram] << ',' << k.mem_hier[MemLevel::Gbuf] << ','
     << k.mem_hier[MemLevel::Itcn] << ',' << k.mem_hier[MemLevel::Regf] << ',' << k.noc_hop << ','
     << k.idl_unit << '|';
  if (with_layout) {
    for (std::size_t i = 0; i < p.ifmap_layout.frngs.size(); ++i) {
      const auto& f = p.ifmap_layout.frngs[i];
      for (std::size_t d = 0; d < 4; ++d) os << f.beg[d] << ',' << f.end[d] << ',';
      put_region(os, p.ifmap_layout.regions[i]);
      put_part(os, p.ifmap_layout.parts[i]);
    }
  }
  return os.str();
}

}  // namespace kapla::pricing
