// Systolic template: nest replication and directives (see systolic_template.hpp).
#include "search/kapla/systolic_template.hpp"

#include <algorithm>
#include <array>

#include "core/errors.hpp"
#include "core/math.hpp"
#include "search/kapla/directive_parts.hpp"

namespace kapla::search::kapla {

SystolicReplication systolic_replication(const model::Layer& p, std::int64_t batch,
                                         const cost::MapGeometry& g, int nest_index) {
  SystolicReplication r;
  if (p.has_filter() && !p.is_depthwise()) {
    KAPLA_ASSERT(nest_index == 0, "systolic: Conv/FC layers have one nest");
    r.batches = g.repl.h;
    r.ifms = g.repl.w;
    return r;
  }
  const auto hs = divisors(g.repl.h);
  const auto ws = divisors(g.repl.w);
  KAPLA_ASSERT(nest_index >= 0 && static_cast<std::size_t>(nest_index) < hs.size() * ws.size(),
               "systolic: nest index out of range");
  const std::int64_t h0 = hs[static_cast<std::size_t>(nest_index) / ws.size()];
  const std::int64_t w0 = ws[static_cast<std::size_t>(nest_index) % ws.size()];
  r.batches = std::min(h0 * w0, batch);
  r.ofmaps = std::min((g.repl.h / h0) * (g.repl.w / w0), p.nofm);
  return r;
}

DirectiveSchedule build_systolic_directives(const model::Layer& layer, const mapping::PartLayer& pl,
                                            const CanonicalScheme& s, const NodeNest& n,
                                            const cost::MapGeometry& g, std::string layer_name) {
  const auto& p = pl.p_layer;
  const bool local = p.is_local_region();
  const bool chw = local || p.is_depthwise();
  const PhyDim2 win = local ? p.sreg : p.sfil;
  const std::int64_t window = win.h * win.w;
  const std::int64_t ntrd = local ? p.nreg : 1;  // input channels per output channel
  const std::int64_t positions = p.sofm.h * p.sofm.w;
  const PhyDim2 logic = g.dim_flpeset;  // (h = output positions, w = output channels)
  const auto rep = systolic_replication(p, pl.p_batch, g, s.nest_index);
  const auto& t = s.blocking.bl_ts;

  DirectiveSchedule d;
  d.layer_name = std::move(layer_name);
  d.kind = kind_class(layer);
  d.mapping = model::ArrayMapping::Systolic;
  d.rw_data = n.rw_data;
  d.occupancy = pl.p_occupancy;
  d.unit_ops = ntrd;  // one MAC (ntrd for local regions) per filter-window element

  // The BAT loop iterates the folds of output positions first, then the images.
  auto images = [&](std::int64_t f) { return std::max<std::int64_t>(1, f / g.fold.h); };
  auto position_folds = [&](std::int64_t f) { return std::min(f, g.fold.h); };

  // REGF: one output (position, channel) per PE, the window streamed through ("F", 1).
  auto& r = d.regf;
  r.tensor[Dim::F] = 1;
  r.tensor[Dim::XY] = 1;
  r.tensor[Dim::K] = t[2][LoopDim::Ofm];
  r.tensor[Dim::C] = chw ? t[2][LoopDim::Ofm] * ntrd : t[2][LoopDim::Ifm];
  r.tensor[Dim::N] = images(t[2][LoopDim::Bat]);
  d.regf_ops_iter = t[2][LoopDim::Ifm] * t[2][LoopDim::Ofm] * t[2][LoopDim::Bat];
  r.stacks.push_back(stack2(Dim::K, 1, Dim::F, 1, logic.w));
  r.stacks.push_back(stack2(Dim::XY, 1, Dim::F, 1, logic.h));
  if (rep.ifms > 1) r.stacks.push_back(stack1(Dim::C, r.tensor[Dim::C], rep.ifms));
  if (rep.ofmaps > 1) {
    r.stacks.push_back(stack2(Dim::C, logic.w * r.tensor[Dim::K] * ntrd, Dim::K,
                              logic.w * r.tensor[Dim::K], rep.ofmaps));
  }
  if (rep.batches > 1) r.stacks.push_back(stack1(Dim::N, r.tensor[Dim::N], rep.batches));
  r.updates.push_back(update1(Dim::F, 1, window, true));
  for (auto l : inner_to_outer(s.blocking.bl_ords[1])) {
    if (t[1][l] <= 1) continue;
    if (l == LoopDim::Ifm) {
      r.updates.push_back(update1(Dim::C, r.tensor[Dim::C] * rep.ifms, t[1][l]));
    } else if (l == LoopDim::Ofm) {
      r.updates.push_back(update1(Dim::K, logic.w * r.tensor[Dim::K] * rep.ofmaps, t[1][l]));
    } else if (g.fold.h > 1) {
      r.updates.push_back(update1(Dim::XY, logic.h, t[1][l]));
    } else {
      r.updates.push_back(update1(Dim::N, r.tensor[Dim::N] * rep.batches, t[1][l]));
    }
  }

  // GBUF: the per-node block, grown by bl_ts[1] * bl_ts[2].
  auto& b = d.gbuf;
  PerLoopDim<std::int64_t> t12{};
  for (auto l : all_values<LoopDim>()) t12[l] = t[1][l] * t[2][l];
  b.tensor[Dim::K] = std::min(p.nofm, logic.w * rep.ofmaps * t12[LoopDim::Ofm]);
  b.tensor[Dim::C] = chw ? b.tensor[Dim::K] * ntrd : std::min(p.nifm, rep.ifms * t12[LoopDim::Ifm]);
  b.tensor[Dim::XY] = std::min(positions, logic.h * position_folds(t12[LoopDim::Bat]));
  b.tensor[Dim::N] = std::min(pl.p_batch, rep.batches * images(t12[LoopDim::Bat]));
  b.tensor[Dim::F] = window;
  PerParallelDim<Dim> pae_dim{{Dim::K, Dim::XY, Dim::N, Dim::C}};
  DimExtents stride{};
  stride[Dim::K] = p.nofm;
  stride[Dim::C] = p.nifm;
  stride[Dim::N] = pl.p_batch;
  stride[Dim::XY] = positions;
  for (auto pae : s.part.order) {
    for (int dir = 0; dir < 2; ++dir) {
      const std::int64_t f = dir == 0 ? s.part.pdims[pae].h : s.part.pdims[pae].w;
      if (f <= 1) continue;
      const Dim dim = pae_dim[pae];  // both fmap directions partition the output positions
      if (dim == Dim::K && chw) {
        b.stacks.push_back(stack2(Dim::K, stride[dim], Dim::C, stride[dim] * ntrd, f));
      } else {
        b.stacks.push_back(stack1(dim, stride[dim], f));
      }
      stride[dim] *= f;
    }
  }
  for (auto l : inner_to_outer(s.blocking.bl_ords[0])) {
    if (t[0][l] <= 1) continue;
    if (l == LoopDim::Ifm) {
      b.updates.push_back(update1(Dim::C, b.tensor[Dim::C], t[0][l]));
    } else if (l == LoopDim::Ofm) {
      b.updates.push_back(update1(Dim::K, b.tensor[Dim::K], t[0][l]));
    } else if (t12[LoopDim::Bat] < g.fold.h) {
      b.updates.push_back(update1(Dim::XY, b.tensor[Dim::XY], t[0][l]));
    } else {
      b.updates.push_back(update1(Dim::N, b.tensor[Dim::N], t[0][l]));
    }
  }
  return d;
}

}  // namespace kapla::search::kapla
