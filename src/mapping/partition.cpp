// Partition-scheme geometry. Spec: nn_dataflow-spec.md §8.1.
#include "mapping/partition.hpp"

#include <limits>

#include "core/errors.hpp"
#include "core/math.hpp"

namespace kapla::mapping {

std::vector<PartIndex> gen_pidx(const PartitionScheme& part) {
  std::vector<PartIndex> out;
  out.reserve(static_cast<std::size_t>(part.size()));
  const auto& pd = part.pdims;
  PartIndex idx;
  // Nested loops in ParallelDim order, each over (h, w) with h outer (spec §8.1).
  for (idx[ParallelDim::Outp].h = 0; idx[ParallelDim::Outp].h < pd[ParallelDim::Outp].h;
       ++idx[ParallelDim::Outp].h)
    for (idx[ParallelDim::Outp].w = 0; idx[ParallelDim::Outp].w < pd[ParallelDim::Outp].w;
         ++idx[ParallelDim::Outp].w)
      for (idx[ParallelDim::Ofmp].h = 0; idx[ParallelDim::Ofmp].h < pd[ParallelDim::Ofmp].h;
           ++idx[ParallelDim::Ofmp].h)
        for (idx[ParallelDim::Ofmp].w = 0; idx[ParallelDim::Ofmp].w < pd[ParallelDim::Ofmp].w;
             ++idx[ParallelDim::Ofmp].w)
          for (idx[ParallelDim::Batp].h = 0; idx[ParallelDim::Batp].h < pd[ParallelDim::Batp].h;
               ++idx[ParallelDim::Batp].h)
            for (idx[ParallelDim::Batp].w = 0; idx[ParallelDim::Batp].w < pd[ParallelDim::Batp].w;
                 ++idx[ParallelDim::Batp].w)
              for (idx[ParallelDim::Inpp].h = 0; idx[ParallelDim::Inpp].h < pd[ParallelDim::Inpp].h;
                   ++idx[ParallelDim::Inpp].h)
                for (idx[ParallelDim::Inpp].w = 0;
                     idx[ParallelDim::Inpp].w < pd[ParallelDim::Inpp].w; ++idx[ParallelDim::Inpp].w)
                  out.push_back(idx);
  return out;
}

PhyDim2 coordinate(const PartitionScheme& part, const NodeRegion& region, const PartIndex& pidx) {
  PhyDim2 c{0, 0};
  for (ParallelDim pae : part.order) c = c * part.pdims[pae] + pidx[pae];
  return region.rel2abs(c);
}

FmapRange fmap_range(const PartitionScheme& part, const FmapRange& frng, const PartIndex& pidx) {
  const auto& pd = part.pdims;
  const PhyDim2 ib = pidx[ParallelDim::Batp];
  const PhyDim2 io = pidx[ParallelDim::Outp];
  const PhyDim2 ip = pidx[ParallelDim::Ofmp];
  const auto b = ith_range(frng.beg[0], frng.end[0], ib.h * pd[ParallelDim::Batp].w + ib.w,
                           pd[ParallelDim::Batp].size());
  const auto n = ith_range(frng.beg[1], frng.end[1], io.h * pd[ParallelDim::Outp].w + io.w,
                           pd[ParallelDim::Outp].size());
  const auto h = ith_range(frng.beg[2], frng.end[2], ip.h, pd[ParallelDim::Ofmp].h);
  const auto w = ith_range(frng.beg[3], frng.end[3], ip.w, pd[ParallelDim::Ofmp].w);
  return FmapRange{{b.first, n.first, h.first, w.first}, {b.second, n.second, h.second, w.second}};
}

bool is_applicable_to_fmap_range(const PartitionScheme& part) {
  return part.size(ParallelDim::Inpp) == 1;
}

PartitionScheme projection(const PartitionScheme& part, const NodeRegion& region, bool appl2frng) {
  KAPLA_ASSERT(region.dim.size() != 0, "projection onto an empty node region");
  PartitionScheme out = part;
  if (appl2frng) out.pdims[ParallelDim::Inpp] = PhyDim2{1, 1};
  const PhyDim2 pdim = out.dim();
  for (int di = 0; di < 2; ++di) {
    auto comp = [di](PhyDim2& d) -> std::int64_t& { return di == 0 ? d.h : d.w; };
    const std::int64_t pd = di == 0 ? pdim.h : pdim.w;
    std::int64_t rd = di == 0 ? region.dim.h : region.dim.w;
    if (rd > pd) {
      // Extend at the top-listed fmap-applicable parallelism, BATP (spec §8.1, §11.17).
      comp(out.pdims[ParallelDim::Batp]) *= rd / pd;
    } else {
      // Shrink from the bottom level up.
      for (auto it = out.order.rbegin(); it != out.order.rend(); ++it) {
        std::int64_t& f = comp(out.pdims[*it]);
        if (rd >= f) {
          rd /= f;
        } else {
          f = rd;
          rd = 1;
        }
      }
    }
  }
  return out;
}

Dist2 part_neighbor_dist(const PartitionScheme& part, const NodeRegion& region, ParallelDim pae) {
  return part_neighbor_dists(part, region)[pae];
}

namespace {

// An unfolded region maps relative coordinates linearly (rel2abs: origin + rel * dist), and a
// partition index's coordinate is mixed radix in part.order, so every step back along
// (pae, h|w) spans the same hops: the product of the later dimensions' sizes, times dist. The
// mean over the steps is that integer, as the general walk below would compute it (an exact
// sum divided by its count), without visiting the nodes (K sets up thousands of partitions).
PerParallelDim<Dist2> unfolded_neighbor_dists(const PartitionScheme& part,
                                              const NodeRegion& region) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  PerParallelDim<Dist2> out;
  PhyDim2 later{1, 1};  // product of the sizes after pae in part.order
  for (auto it = part.order.rbegin(); it != part.order.rend(); ++it) {
    const PhyDim2 d = part.pdims[*it];
    out[*it] = Dist2{d.h > 1 ? static_cast<double>(later.h * region.dist.h) : kInf,
                     d.w > 1 ? static_cast<double>(later.w * region.dist.w) : kInf};
    later = later * d;
  }
  return out;
}

}  // namespace

PerParallelDim<Dist2> part_neighbor_dists(const PartitionScheme& part, const NodeRegion& region) {
  if (region.effective_wtot() == region.dim.w && region.effective_wbeg() == region.dim.w)
    return unfolded_neighbor_dists(part, region);
  return part_neighbor_dists_walked(part, region);
}

PerParallelDim<Dist2> part_neighbor_dists_walked(const PartitionScheme& part,
                                                 const NodeRegion& region) {
  // gen_pidx enumerates indices in mixed radix (OUTP.h outermost ... INPP.w innermost), so the
  // neighbour one step back along (pae, h|w) sits a fixed stride earlier in that sequence.
  const std::vector<PartIndex> pidxs = gen_pidx(part);
  std::vector<PhyDim2> coords;
  coords.reserve(pidxs.size());
  for (const PartIndex& pidx : pidxs) coords.push_back(coordinate(part, region, pidx));
  PerParallelDim<PhyDim2> stride;
  std::int64_t s = 1;
  for (ParallelDim pae :
       {ParallelDim::Inpp, ParallelDim::Batp, ParallelDim::Ofmp, ParallelDim::Outp}) {
    stride[pae].w = s;
    s *= part.pdims[pae].w;
    stride[pae].h = s;
    s *= part.pdims[pae].h;
  }
  PerParallelDim<Dist2> out;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (ParallelDim pae : all_values<ParallelDim>()) {
    std::int64_t hsum = 0, hcnt = 0, wsum = 0, wcnt = 0;
    for (std::size_t i = 0; i < pidxs.size(); ++i) {
      if (pidxs[i][pae].h > 0) {
        hsum += coords[i].hop_dist(coords[i - static_cast<std::size_t>(stride[pae].h)]);
        ++hcnt;
      }
      if (pidxs[i][pae].w > 0) {
        wsum += coords[i].hop_dist(coords[i - static_cast<std::size_t>(stride[pae].w)]);
        ++wcnt;
      }
    }
    // One division of exact integer sums: the reference's 1. * sum / len.
    out[pae] = Dist2{hcnt ? static_cast<double>(hsum) / static_cast<double>(hcnt) : kInf,
                     wcnt ? static_cast<double>(wsum) / static_cast<double>(wcnt) : kInf};
  }
  return out;
}

}  // namespace kapla::mapping
