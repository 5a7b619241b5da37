// Canonical scheme -> directives (see directive_builder.hpp).
#include "search/kapla/directive_builder.hpp"

#include <algorithm>

#include "core/math.hpp"
#include "search/kapla/directive_parts.hpp"

namespace kapla::search::kapla {

RsGeometry rs_geometry(const cost::MapGeometry& g) { return {g.dim_lpeset, g.fold, g.dim_flpeset}; }

RsGeometry rs_geometry(const model::Layer& p, PhyDim2 a) {
  // The geometry does not depend on the batch, the occupancy or the cost-model variant.
  return rs_geometry(cost::map_eyeriss(p, 1, 1.0, a, model::CostModelVariant::Kapla).geometry);
}

DirectiveSchedule build_directives(const model::Layer& layer, const mapping::PartLayer& pl,
                                   const CanonicalScheme& s, const NodeNest& n, PhyDim2 pe_array,
                                   std::string layer_name) {
  return build_directives(layer, pl, s, n, rs_geometry(pl.p_layer, pe_array),
                          std::move(layer_name));
}

DirectiveSchedule build_directives(const model::Layer& layer, const mapping::PartLayer& pl,
                                   const CanonicalScheme& s, const NodeNest& n, const RsGeometry& g,
                                   std::string layer_name) {
  const auto& p = pl.p_layer;
  const bool local = p.is_local_region();
  const bool chw = local || p.is_depthwise();
  const PhyDim2 win = local ? p.sreg : p.sfil;
  const auto& t = s.blocking.bl_ts;
  DirectiveSchedule d;
  d.layer_name = std::move(layer_name);
  d.kind = kind_class(layer);
  d.mapping = model::ArrayMapping::RowStationary;
  d.rw_data = n.rw_data;
  d.occupancy = pl.p_occupancy;
  d.unit_ops = local ? p.nreg * win.w : win.w;

  // Loop dims of the canonical loops: IFM -> C (channelwise: K), OFM -> K, BAT -> N.
  const Dim ifm_dim = chw ? Dim::K : Dim::C;
  auto loop_dim = [&](LoopDim l) {
    return l == LoopDim::Ifm ? ifm_dim : (l == LoopDim::Ofm ? Dim::K : Dim::N);
  };
  // In a channelwise layer (depthwise, pooling) output channel k reads input channel k, so a
  // step over K moves the input tensor too (as the partition's K stacks do).
  auto channel_update = [&](Dim dim, std::int64_t step, std::int64_t count) {
    return chw && dim == Dim::K ? update2(Dim::K, step, Dim::C, step, count, false)
                                : update1(dim, step, count);
  };

  // REGF: one filter row and its input window per PE, grown by bl_ts[2].
  auto& r = d.regf;
  r.tensor[Dim::R] = win.w;
  r.tensor[Dim::S] = 1;
  r.tensor[Dim::Xi] = win.w;
  r.tensor[Dim::Yi] = 1;
  r.tensor[Dim::Xo] = 1;
  r.tensor[Dim::Yo] = 1;
  r.tensor[Dim::C] = chw ? t[2][LoopDim::Ofm] : t[2][LoopDim::Ifm];
  r.tensor[Dim::K] = t[2][LoopDim::Ofm];
  r.tensor[Dim::N] = t[2][LoopDim::Bat];
  d.regf_ops_iter = t[2][LoopDim::Ifm] * t[2][LoopDim::Ofm] * t[2][LoopDim::Bat];
  r.stacks.push_back(stack2(Dim::Yi, p.strd.h, Dim::Yo, 1, g.folded.w));
  r.stacks.push_back(stack2(Dim::S, 1, Dim::Yi, 1, g.folded.h));
  if (n.repl_ifm > 1 && !chw) r.stacks.push_back(stack1(Dim::C, r.tensor[Dim::C], n.repl_ifm));
  if (n.repl_ofm > 1) {
    r.stacks.push_back(chw ? stack2(Dim::C, r.tensor[Dim::C], Dim::K, r.tensor[Dim::K], n.repl_ofm)
                           : stack1(Dim::K, r.tensor[Dim::K], n.repl_ofm));
  }
  r.updates.push_back(update2(Dim::Xi, p.strd.w, Dim::Xo, 1, p.sofm.w, true));
  if (g.fold.h > 1)
    r.updates.push_back(update2(Dim::S, g.folded.h, Dim::Yi, g.folded.h, g.fold.h, true));
  for (auto l : inner_to_outer(s.blocking.bl_ords[1])) {
    if (t[1][l] <= 1) continue;
    const Dim dim = loop_dim(l);
    if (l == LoopDim::Bat && g.fold.w > 1) {  // BAT iterates (image, fold of output rows)
      r.updates.push_back(
          update2(Dim::Yi, p.strd.h * g.folded.w, Dim::Yo, g.folded.w, t[1][l], false));
      continue;
    }
    r.updates.push_back(channel_update(dim, r.tensor[dim], t[1][l]));
  }

  // GBUF: the per-node block, grown by bl_ts[1] * bl_ts[2].
  auto& b = d.gbuf;
  PerLoopDim<std::int64_t> t12{};
  for (auto l : all_values<LoopDim>()) t12[l] = t[1][l] * t[2][l];
  b.tensor[Dim::C] = chw ? n.repl_ofm * t12[LoopDim::Ofm] : n.repl_ifm * t12[LoopDim::Ifm];
  b.tensor[Dim::K] = n.repl_ofm * t12[LoopDim::Ofm];
  b.tensor[Dim::N] = std::max<std::int64_t>(1, t12[LoopDim::Bat] / g.fold.w);
  b.tensor[Dim::Yo] = std::min(p.sofm.h, g.folded.w * std::min(t12[LoopDim::Bat], g.fold.w));
  b.tensor[Dim::Xo] = p.sofm.w;
  b.tensor[Dim::R] = win.w;
  b.tensor[Dim::S] = win.h;
  b.tensor[Dim::Xi] = (b.tensor[Dim::Xo] - 1) * p.strd.w + win.w;
  b.tensor[Dim::Yi] = (b.tensor[Dim::Yo] - 1) * p.strd.h + win.h;
  PerParallelDim<Dim> pae_dim{{Dim::K, Dim::Yo, Dim::N, Dim::C}};
  DimExtents stride{};
  stride[Dim::K] = p.nofm;
  stride[Dim::C] = p.nifm;
  stride[Dim::N] = pl.p_batch;
  stride[Dim::Yo] = p.sofm.h;
  stride[Dim::Xo] = p.sofm.w;
  for (auto pae : s.part.order) {
    for (int dir = 0; dir < 2; ++dir) {
      const std::int64_t f = dir == 0 ? s.part.pdims[pae].h : s.part.pdims[pae].w;
      if (f <= 1) continue;
      Dim dim = pae_dim[pae];
      if (pae == ParallelDim::Ofmp && dir == 1) dim = Dim::Xo;
      if (dim == Dim::Yo) {
        b.stacks.push_back(stack2(Dim::Yo, stride[dim], Dim::Yi, stride[dim] * p.strd.h, f));
      } else if (dim == Dim::Xo) {
        b.stacks.push_back(stack2(Dim::Xo, stride[dim], Dim::Xi, stride[dim] * p.strd.w, f));
      } else if (dim == Dim::K && chw) {
        b.stacks.push_back(stack2(Dim::K, stride[dim], Dim::C, stride[dim], f));
      } else {
        b.stacks.push_back(stack1(dim, stride[dim], f));
      }
      stride[dim] *= f;
    }
  }
  for (auto l : inner_to_outer(s.blocking.bl_ords[0])) {
    if (t[0][l] <= 1) continue;
    const Dim dim = loop_dim(l);
    b.updates.push_back(channel_update(dim, b.tensor[dim], t[0][l]));
  }
  return d;
}

}  // namespace kapla::search::kapla
