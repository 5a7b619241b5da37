// The canonical key of a layer problem (memo and cache keys).
#include "pricing/layer_problem.hpp"

#include <bit>
#include <cstring>
#include <initializer_list>

namespace kapla::pricing {

namespace {

/// Appends 8-byte words to a key. The key is compared, hashed and never shown, so raw words
/// do: formatting the doubles as text was ~4 % of K's inference runs (it is built for every
/// layer search and every memo lookup). Doubles go in by their bits, which tells apart every
/// value the text with 17 digits did (and -0 from 0, as the text did).
class KeyWords {
 public:
  void put(std::int64_t v) { append(static_cast<std::uint64_t>(v)); }
  void put(double v) { append(std::bit_cast<std::uint64_t>(v)); }
  void put(std::initializer_list<std::int64_t> vs) {
    for (auto v : vs) put(v);
  }
  void put(const mapping::NodeRegion& r) {
    put({r.dim.h, r.dim.w, r.origin.h, r.origin.w, r.dist.h, r.dist.w,
         static_cast<std::int64_t>(r.type), r.effective_wtot(), r.effective_wbeg()});
  }
  void put(const mapping::PartitionScheme& p) {
    for (auto w : p.flat_key()) put(w);
  }
  std::string take() { return std::move(s_); }

 private:
  void append(std::uint64_t w) {
    char b[sizeof w];
    std::memcpy(b, &w, sizeof w);
    s_.append(b, sizeof w);
  }
  std::string s_;
};

}  // namespace

void set_layer(LayerProblem& p, const model::Layer& layer, std::int64_t network_batch) {
  p.layer = layer;
  p.layer.nhead = 1;
  p.batch = network_batch * layer.nhead;
}

std::string problem_key(const LayerProblem& p, bool with_layout) {
  KeyWords k;
  const auto& l = p.layer;
  k.put({static_cast<std::int64_t>(l.type), l.nifm, l.nofm, l.sofm.h, l.sofm.w, l.sifm.h, l.sifm.w,
         l.strd.h, l.strd.w, l.sfil.h, l.sfil.w, l.nreg, l.sreg.h, l.sreg.w, l.ntrd, l.crop,
         static_cast<std::int64_t>(l.rw_data), p.batch});
  const auto& r = p.resource;
  k.put(r.proc_region);
  k.put(r.dram_region);
  k.put(r.src_data_region);
  k.put(r.dst_data_region);
  k.put({r.dim_array.h, r.dim_array.w, static_cast<std::int64_t>(r.array_mapping), r.size_gbuf,
         r.size_regf});
  k.put(r.array_bus_width);
  k.put(r.dram_bandwidth);
  k.put(static_cast<std::int64_t>(r.no_time_mux));
  const auto& c = p.constraint;
  k.put({c.topbat, c.topifm, c.topofm, c.fbifm, c.fbofm});
  const auto& o = p.options;
  for (bool b : o.sw_gbuf_bypass) k.put(static_cast<std::int64_t>(b));
  k.put({o.sw_solve_loopblocking, o.hw_access_forwarding, o.hw_gbuf_sharing,
         o.hw_gbuf_save_writeback, o.partition_hybrid, o.partition_batch, o.partition_ifmaps,
         o.partition_interlayer, static_cast<std::int64_t>(o.opt_goal), o.ntops,
         static_cast<std::int64_t>(o.cost_model), model::fold_variants_on(o),
         static_cast<std::int64_t>(o.imperfect)});
  const auto& u = p.costs;
  for (double v : {u.mac_op, u.mem_hier[MemLevel::Dram], u.mem_hier[MemLevel::Gbuf],
                   u.mem_hier[MemLevel::Itcn], u.mem_hier[MemLevel::Regf], u.noc_hop, u.idl_unit})
    k.put(v);
  if (with_layout) {
    const auto& dl = p.ifmap_layout;
    k.put(static_cast<std::int64_t>(dl.frngs.size()));
    for (std::size_t i = 0; i < dl.frngs.size(); ++i) {
      const auto& f = dl.frngs[i];
      for (std::size_t d = 0; d < 4; ++d) k.put({f.beg[d], f.end[d]});
      k.put(dl.regions[i]);
      k.put(dl.parts[i]);
    }
  }
  return k.take();
}

std::string layer_scope(const LayerProblem& p) {
  LayerProblem k;
  k.layer = p.layer;
  k.batch = p.batch;
  return problem_key(k, false);
}

}  // namespace kapla::pricing
