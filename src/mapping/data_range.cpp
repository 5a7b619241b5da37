// Per-node data ranges. Spec: nn_dataflow-spec.md §8.4, §12.4 (fork back-layer variants).
#include "mapping/data_range.hpp"

#include <algorithm>

#include "core/errors.hpp"
#include "core/math.hpp"

namespace kapla::mapping {
namespace {

/// Python's floor division (rounds toward -inf).
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

/// Forward window: [ob*strd, max(ob*strd, (oe-1)*strd + win)).
std::pair<std::int64_t, std::int64_t> forward_window(std::int64_t ob, std::int64_t oe,
                                                     std::int64_t strd, std::int64_t win) {
  const std::int64_t b = ob * strd;
  return {b, std::max(b, (oe - 1) * strd + win)};
}

/// Back kinds: reverse_low of the begin, reverse_high of the (exclusive) end, as the fork.
std::pair<std::int64_t, std::int64_t> reverse_window(std::int64_t ob, std::int64_t oe,
                                                     std::int64_t len, std::int64_t win,
                                                     std::int64_t strd) {
  return {reverse_low(ob, len, win, strd), reverse_high(oe, len, win, strd)};
}

}  // namespace

std::int64_t reverse_low(std::int64_t pos, std::int64_t /*length*/, std::int64_t fil,
                         std::int64_t strd) {
  if (pos < fil) return 0;
  const std::int64_t r = pos + 1 - fil;  // >= 1
  return ceil_div(r, strd);
}

std::int64_t reverse_high(std::int64_t pos, std::int64_t length, std::int64_t fil,
                          std::int64_t strd) {
  if (length - (pos + 1) < fil) return floor_div(length - fil, strd);
  return floor_div(pos, strd);
}

ProcDataRange proc_data_range(const model::Layer& layer, std::int64_t batch,
                              const PartitionScheme& part, const PartIndex& pidx) {
  using model::LayerType;
  ProcDataRange r;
  const FmapRange full{{0, 0, 0, 0}, {batch, layer.nofm, layer.sofm.h, layer.sofm.w}};
  r.ofm = fmap_range(part, full, pidx);
  const FmapRange& o = r.ofm;

  std::int64_t nb = 0, ne = 0;
  std::pair<std::int64_t, std::int64_t> h, w;
  const PhyDim2 inpp = part.pdims[ParallelDim::Inpp];
  const PhyDim2 ip = pidx[ParallelDim::Inpp];
  auto inpp_split = [&] {
    const auto n = ith_range(0, layer.nifm, ip.h * inpp.w + ip.w, inpp.size());
    nb = n.first;
    ne = n.second;
  };

  const bool filter = layer.has_filter();
  const PhyDim2 win = filter ? layer.sfil : layer.sreg;
  if (!layer.is_back()) {
    if (filter && !layer.is_depthwise()) {
      inpp_split();
    } else if (filter) {
      // Depthwise: the ofmap's own channels.
      nb = o.beg[1];
      ne = std::min(layer.nifm, o.end[1]);
    } else {
      // Local region: channel window, clipped to the original nifm (spec §11.19).
      nb = std::max<std::int64_t>(0, o.beg[1] - layer.nreg / 2);
      ne = std::min(layer.nifm, o.end[1] + layer.nreg - layer.nreg / 2);
    }
    h = forward_window(o.beg[2], o.end[2], layer.strd.h, win.h);
    w = forward_window(o.beg[3], o.end[3], layer.strd.w, win.w);
  } else {
    if (filter && !layer.is_depthwise()) {
      inpp_split();
    } else if (filter) {
      nb = reverse_low(o.beg[1], layer.nofm, 1, 1);
      ne = reverse_high(o.end[1], layer.nofm, 1, 1);
    } else {
      nb = reverse_low(o.beg[1], layer.nofm, layer.nreg, layer.ntrd);
      ne = reverse_high(o.end[1], layer.nofm, layer.nreg, layer.ntrd);
    }
    h = reverse_window(o.beg[2], o.end[2], layer.sofm.h, win.h, layer.strd.h);
    w = reverse_window(o.beg[3], o.end[3], layer.sofm.w, win.w, layer.strd.w);
  }
  KAPLA_ASSERT(ne <= layer.nifm && h.second <= layer.sifm.h && w.second <= layer.sifm.w,
               "proc_data_range: ifmap range exceeds the layer's ifmap");
  r.ifm = FmapRange{{o.beg[0], nb, h.first, w.first}, {o.end[0], ne, h.second, w.second}};

  if (!filter) {
    r.fil = FilterRange{{0, 0}, {0, 0}};
  } else if (layer.is_depthwise()) {
    r.fil = FilterRange{{0, 1}, {o.beg[1], o.end[1]}};
  } else {
    r.fil = FilterRange{{nb, ne}, {o.beg[1], o.end[1]}};
  }
  return r;
}

}  // namespace kapla::mapping
