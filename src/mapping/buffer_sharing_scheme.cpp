// Buffer-sharing node groups and rotation / wide-fetch hops. Spec: nn_dataflow-spec.md
// §8.9.1-§8.9.2.
#include "mapping/buffer_sharing_scheme.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "core/errors.hpp"

namespace kapla::mapping {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Sub-group dims (t) and the priority-dimension index (spec §8.9.2 _subgrp_dim).
struct SubGroup {
  PhyDim2 t;
  int i_pr;
};

std::int64_t get(PhyDim2 d, int i) { return i == 0 ? d.h : d.w; }

SubGroup subgroup_dims(const BufShrScheme& s, DataCategory d, std::int64_t subgrp_size) {
  const std::int64_t size = s.size(d);
  // Round M up to a divisor of the group size.
  std::int64_t m = subgrp_size;
  while (size % m != 0) {
    ++m;
    KAPLA_ASSERT(m <= size, "BufShrScheme: subgroup " + std::to_string(subgrp_size) +
                                " larger than group " + std::to_string(size));
  }
  const Dist2 nbr = s.nbr_dists[d];
  // The dimension with the smaller neighbour distance has priority (ties: h).
  const int i_sm = nbr.h <= nbr.w ? 0 : 1;
  const std::int64_t dim_sm = get(s.dims[d], i_sm);
  // Largest divisor of dim_sm that divides M': their gcd.
  const std::int64_t f_best = std::gcd(dim_sm, m);
  PhyDim2 t = i_sm == 0 ? PhyDim2{f_best, m / f_best} : PhyDim2{m / f_best, f_best};
  return {t, i_sm};
}

/// Snake-order position of the k-th node along the priority dimension (spec §8.9.2).
PhyDim2 snake_coordinate(std::int64_t k, PhyDim2 t, int i_pr) {
  const std::int64_t d_pr = get(t, i_pr);
  const std::int64_t q = k / d_pr;
  std::int64_t r = k % d_pr;
  if (q % 2 == 1) r = d_pr - 1 - r;
  return i_pr == 0 ? PhyDim2{r, q} : PhyDim2{q, r};
}

/// Hops from (0, 0) to `c` scaled by the neighbour distances; a zero coordinate contributes
/// 0 even where the distance is +inf.
double scaled_hops(PhyDim2 c, Dist2 nbr) {
  const double dh = c.h != 0 ? static_cast<double>(c.h) * nbr.h : 0.0;
  const double dw = c.w != 0 ? static_cast<double>(c.w) * nbr.w : 0.0;
  return dh + dw;
}

}  // namespace

BufShrScheme::BufShrScheme() {
  for (auto& n : nbr_dists) n = Dist2{kInf, kInf};
}

BufShrScheme::BufShrScheme(const PerDataCategory<PhyDim2>& dims_,
                           const PerDataCategory<Dist2>& nbr_dists_)
    : dims(dims_), nbr_dists(nbr_dists_) {
  for (DataCategory d : all_values<DataCategory>()) {
    for (int i = 0; i < 2; ++i) {
      const double nd = nbr_dists[d][i];
      KAPLA_ASSERT(!std::isnan(nd) && (!std::isinf(nd) || get(dims[d], i) == 1),
                   "BufShrScheme: bad neighbour distance for " + std::string(name_of(d)));
    }
  }
}

BufShrScheme::RotationPath BufShrScheme::rotation_path(DataCategory d,
                                                       std::int64_t subgrp_size) const {
  const SubGroup sg = subgroup_dims(*this, d, subgrp_size);
  const std::int64_t d_pr = get(sg.t, sg.i_pr);
  const std::int64_t d_npr = get(sg.t, 1 - sg.i_pr);
  // 1. Every node sends to its chain neighbour: (d_pr-1)*d_npr hops along the priority
  // dimension, d_npr-1 along the other.
  const std::int64_t n_pr = (d_pr - 1) * d_npr;
  const std::int64_t n_npr = d_npr - 1;
  const PhyDim2 step = sg.i_pr == 0 ? PhyDim2{n_pr, n_npr} : PhyDim2{n_npr, n_pr};
  const double nhops_nbr = scaled_hops(step, nbr_dists[d]);
  // 2. The (M-1)-th node loops back to node 0 (uses M, not M').
  const double nhops_lpbk =
      scaled_hops(snake_coordinate(subgrp_size - 1, sg.t, sg.i_pr), nbr_dists[d]);
  return RotationPath{d, subgrp_size, nhops_nbr + nhops_lpbk};
}

double BufShrScheme::nhops_rotate_all(const RotationPath& path, double rotation_unit_cnt) const {
  const double m = static_cast<double>(path.subgrp_size);
  const double skipped = std::max(1.0, 1.0 * m / rotation_unit_cnt);
  // Evaluation order as the reference: all steps; normalise; all subgroups.
  return path.round_hops * (m - skipped) * (1. / m) *
         static_cast<double>(size(path.d) / path.subgrp_size);
}

double BufShrScheme::nhops_wide_fetch_once(const RotationPath& path, double fetch_width) const {
  if (fetch_width <= 1) return 0.0;
  KAPLA_ASSERT(fetch_width <= static_cast<double>(path.subgrp_size),
               "BufShrScheme: fetch width larger than subgroup size");
  const double per_step = nhops_rotate_all(path, static_cast<double>(path.subgrp_size)) /
                          static_cast<double>(path.subgrp_size - 1);
  const double cw = std::ceil(fetch_width - 1e-6);
  // 0 + 1 + ... + (cw-1), minus the partial last step.
  const double total_steps = (cw - 1) * cw / 2 - (cw - 1) * (cw - fetch_width);
  return per_step * total_steps / fetch_width;
}

BufShrScheme make_bufshr_scheme(const NodeRegion& region, const PartitionScheme& part,
                                const PerDataCategory<LoopSet>& data_loops) {
  const PhyDim2 pdim = part.dim();
  KAPLA_ASSERT(pdim.h <= region.dim.h && pdim.w <= region.dim.w,
               "BufShrScheme: partitioning scheme does not fit in the node region");

  PerLoopDim<PhyDim2> lpe_dims{{PhyDim2{1, 1}, PhyDim2{1, 1}, PhyDim2{1, 1}}};
  PerLoopDim<Dist2> lpe_nbr;

  // BAT ~ OFMP and BATP (spec §8.9.1).
  const PerParallelDim<Dist2> nbr_dist = part_neighbor_dists(part, region);
  std::size_t idx_ofmp = 0, idx_batp = 0;
  for (std::size_t i = 0; i < part.order.size(); ++i) {
    if (part.order[i] == ParallelDim::Ofmp) idx_ofmp = i;
    if (part.order[i] == ParallelDim::Batp) idx_batp = i;
  }
  const PhyDim2 dim_ofmp = part.pdims[ParallelDim::Ofmp];
  const PhyDim2 dim_batp = part.pdims[ParallelDim::Batp];
  if (dim_ofmp.size() == 1) {
    lpe_dims[LoopDim::Bat] = dim_batp;
    lpe_nbr[LoopDim::Bat] = nbr_dist[ParallelDim::Batp];
  } else if (dim_batp.size() == 1) {
    lpe_dims[LoopDim::Bat] = dim_ofmp;
    lpe_nbr[LoopDim::Bat] = nbr_dist[ParallelDim::Ofmp];
  } else if (idx_ofmp + 1 == idx_batp || idx_batp + 1 == idx_ofmp) {
    // Adjacent levels: use both; the neighbour distance is the smaller one.
    lpe_dims[LoopDim::Bat] = dim_batp * dim_ofmp;
    const Dist2 a = nbr_dist[ParallelDim::Ofmp];
    const Dist2 b = nbr_dist[ParallelDim::Batp];
    lpe_nbr[LoopDim::Bat] = Dist2{std::min(a.h, b.h), std::min(a.w, b.w)};
  } else if (idx_ofmp > idx_batp) {
    // Not adjacent: the bottom one.
    lpe_dims[LoopDim::Bat] = dim_ofmp;
    lpe_nbr[LoopDim::Bat] = nbr_dist[ParallelDim::Ofmp];
  } else {
    lpe_dims[LoopDim::Bat] = dim_batp;
    lpe_nbr[LoopDim::Bat] = nbr_dist[ParallelDim::Batp];
  }
  lpe_dims[LoopDim::Ofm] = part.pdims[ParallelDim::Outp];
  lpe_nbr[LoopDim::Ofm] = nbr_dist[ParallelDim::Outp];
  lpe_dims[LoopDim::Ifm] = part.pdims[ParallelDim::Inpp];
  lpe_nbr[LoopDim::Ifm] = nbr_dist[ParallelDim::Inpp];

  PerDataCategory<PhyDim2> dims;
  PerDataCategory<Dist2> nbr;
  for (DataCategory d : all_values<DataCategory>()) {
    // Shared by the nodes of the first loop that is not a data loop of d.
    const LoopSet others = data_loops[d].complement();
    bool found = false;
    for (LoopDim l : all_values<LoopDim>()) {
      if (!others.contains(l)) continue;
      dims[d] = lpe_dims[l];
      nbr[d] = lpe_nbr[l];
      found = true;
      break;
    }
    if (!found) {
      dims[d] = PhyDim2{1, 1};
      nbr[d] = Dist2{kInf, kInf};
    }
  }
  BufShrScheme out(dims, nbr);
  out.used_nodes = part.size();
  return out;
}

}  // namespace kapla::mapping
