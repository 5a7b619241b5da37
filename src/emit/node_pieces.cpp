#include "emit/node_pieces.hpp"

#include "core/errors.hpp"
#include "mapping/partition.hpp"

namespace kapla::emit {
namespace {

mapping::IntRange range(const mapping::FmapRange& f, int dim) { return {f.beg[dim], f.end[dim]}; }

}  // namespace

NodePieces node_pieces(const model::Layer& layer, std::int64_t batch,
                       const mapping::PartitionScheme& part, const mapping::PartLayer& pl) {
  NodePieces out;
  out.whole = mapping::part_layer(layer, batch, mapping::PartitionScheme{}).p_layer;
  const bool conv = layer.has_filter() && !layer.is_depthwise();
  // A back kind's forward layer has the gradient input's rows and columns as its ofmap.
  const mapping::FmapRange back_ofmap{{0, 0, 0, 0},
                                      {batch, layer.nofm, layer.sifm.h, layer.sifm.w}};
  for (const auto& pidx : mapping::gen_pidx(part)) {
    const auto r = mapping::proc_data_range(layer, batch, part, pidx);
    NodePiece p;
    p.n = range(r.ofm, 0);
    if (!layer.is_back()) {
      p.m = range(r.ofm, 1);
      p.h = range(r.ofm, 2);
      p.w = range(r.ofm, 3);
      p.c = conv ? r.fil.ifm : p.m;
    } else {
      const auto f = mapping::fmap_range(part, back_ofmap, pidx);
      p.h = range(f, 2);
      p.w = range(f, 3);
      p.c = range(r.ofm, 1);  // OUTP: the back layer's output channels
      p.m = conv ? r.fil.ifm : p.c;
    }
    out.nodes.push_back(p);
  }
  // The ceil piece: every node is priced as it; one node holds it (each split's largest piece
  // is its ceil, and the splits are independent).
  const auto& L = pl.p_layer;
  const std::int64_t ceil_c = conv ? L.nifm : L.nofm;
  bool found = false;
  for (std::size_t k = 0; k < out.nodes.size(); ++k) {
    const auto& p = out.nodes[k];
    const bool fits = p.n.size() <= pl.p_batch && p.c.size() <= ceil_c && p.m.size() <= L.nofm &&
                      p.h.size() <= L.sofm.h && p.w.size() <= L.sofm.w;
    if (!fits)
      throw InternalError("emit: node " + std::to_string(k) + "'s piece exceeds part_layer's");
    if (!found && p.n.size() == pl.p_batch && p.c.size() == ceil_c && p.m.size() == L.nofm &&
        p.h.size() == L.sofm.h && p.w.size() == L.sofm.w) {
      out.ceil_node = k;
      found = true;
    }
  }
  if (!found) throw InternalError("emit: no node holds part_layer's ceil piece");
  return out;
}

}  // namespace kapla::emit
