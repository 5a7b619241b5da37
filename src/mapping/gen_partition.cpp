// Partition-scheme enumeration. Spec: nn_dataflow-spec.md §8.2 (upstream), §12.4 (fork).
#include "mapping/gen_partition.hpp"

#include <algorithm>
#include <array>
#include <set>

#include "core/errors.hpp"
#include "core/math.hpp"

namespace kapla::mapping {
namespace {

/// The reference's isinstance classes that gen_partition distinguishes.
enum class Kind : std::uint8_t {
  Conv,
  ConvBack,
  Region,
  RegionBack,
  Depthwise,
  DepthwiseBack,
  Input
};

struct Target {
  Kind kind;
  std::int64_t nifm, nofm;
  PhyDim2 sofm, sifm;
};

Kind kind_of(const model::Layer& l) {
  using model::LayerType;
  switch (l.type) {
    case LayerType::Conv:
    case LayerType::FC:
    case LayerType::MatMul:  // an FC over m positions (docs/transformers.md §5)
      return Kind::Conv;
    case LayerType::ConvBackAct:
    case LayerType::ConvBackWeight:
    case LayerType::FCBackAct:
    case LayerType::FCBackWeight:
      return Kind::ConvBack;
    case LayerType::LocalRegion:
    case LayerType::Pooling:
    case LayerType::Eltwise:
    case LayerType::Softmax:
    case LayerType::LayerNorm:
    case LayerType::GELU:
      return Kind::Region;
    case LayerType::LocalRegionBack:
    case LayerType::PoolingBack:
    case LayerType::EltwiseBack:
      return Kind::RegionBack;
    case LayerType::DWConv:
      return Kind::Depthwise;
    case LayerType::DWConvBackAct:
    case LayerType::DWConvBackWeight:
      return Kind::DepthwiseBack;
  }
  KAPLA_ASSERT(false, "gen_partition: unknown layer type");
  return Kind::Conv;
}

bool is_back(Kind k) {
  return k == Kind::ConvBack || k == Kind::RegionBack || k == Kind::DepthwiseBack;
}

constexpr std::array<ParallelDim, 4> kPaes{ParallelDim::Outp, ParallelDim::Ofmp, ParallelDim::Batp,
                                           ParallelDim::Inpp};

/// Whether a 1x1-output layer: partition output channels only (naive mode and fallback).
/// The fork tests the back kinds on their ifmap and some forward kinds on the ofmap; upstream
/// tests every layer's ofmap (spec §8.2, §12.4).
bool fc_like(const Target& t, bool fork, bool fallback) {
  const bool ofm11 = t.sofm.h == 1 && t.sofm.w == 1;
  if (!fork) return ofm11;
  if (is_back(t.kind)) return t.sifm.h == 1 && t.sifm.w == 1;
  const bool forward_tested =
      t.kind == Kind::Conv || t.kind == Kind::Region || (!fallback && t.kind == Kind::Depthwise);
  return forward_tested && ofm11;
}

/// Whether `total` may be split `num` ways: the reference's approx_dividable (at most 10 %
/// padding), or with imperfect splits any split whose pieces are all non-empty.
bool splittable(std::int64_t total, std::int64_t num, bool imperfect) {
  return approx_dividable(total, num) || (imperfect && nonempty_split(total, num));
}

/// Appends the schemes whose factors multiply to `dim_nodes` (the region's grid or a sub-grid
/// of it), in the reference's order; `imperfect` relaxes the splits (splittable).
void generate_on(const Target& t, std::int64_t batch, PhyDim2 dim_nodes,
                 const model::SearchOptions& opt, bool imperfect,
                 std::vector<PartitionScheme>& out) {
  const bool fork = opt.cost_model == model::CostModelVariant::Kapla;
  const auto fh = factorize(dim_nodes.h, 4);
  const auto fw = factorize(dim_nodes.w, 4);

  // Permutations of (0,1,2,3) in lexicographic order.
  std::vector<std::array<ParallelDim, 4>> orders;
  {
    std::array<int, 4> p{0, 1, 2, 3};
    do {
      orders.push_back({static_cast<ParallelDim>(p[0]), static_cast<ParallelDim>(p[1]),
                        static_cast<ParallelDim>(p[2]), static_cast<ParallelDim>(p[3])});
    } while (std::next_permutation(p.begin(), p.end()));
  }

  for (const auto& ph : fh) {
    for (const auto& pw : fw) {
      PerParallelDim<PhyDim2> pd;
      for (std::size_t i = 0; i < 4; ++i) pd[kPaes[i]] = PhyDim2{ph[i], pw[i]};
      const PhyDim2 outp = pd[ParallelDim::Outp];
      const PhyDim2 ofmp = pd[ParallelDim::Ofmp];
      const PhyDim2 batp = pd[ParallelDim::Batp];
      const PhyDim2 inpp = pd[ParallelDim::Inpp];

      if (!opt.partition_batch && batp.size() > 1) continue;
      if (batch % batp.size() != 0) continue;
      // Each parallelism but OFMP fully uses one dimension before starting the other.
      bool skip = false;
      for (ParallelDim pae : kPaes) {
        const PhyDim2 d = pd[pae];
        if (pae != ParallelDim::Ofmp && 1 < d.h && d.h < dim_nodes.h && 1 < d.w &&
            d.w < dim_nodes.w)
          skip = true;
      }
      if (skip) continue;

      if (opt.partition_hybrid) {
        // Back kinds partition their gradient ifmap (the forward layer's ofmap).
        const std::int64_t nch = (fork && t.kind == Kind::RegionBack) ? t.nifm : t.nofm;
        if (!splittable(nch, outp.size(), imperfect)) continue;
        const PhyDim2 s = (fork && is_back(t.kind)) ? t.sifm : t.sofm;
        if (!splittable(s.h, ofmp.h, imperfect) || !splittable(s.w, ofmp.w, imperfect)) continue;
        if (!opt.partition_ifmaps && inpp.size() > 1) continue;
        if (t.kind == Kind::Conv || t.kind == Kind::ConvBack) {
          if (!splittable(t.nifm, inpp.size(), imperfect)) continue;
        } else if (t.kind != Kind::Input) {
          if (inpp.size() > 1) continue;
        }
      } else {
        if (inpp.size() != 1) continue;
        // The reference checks no split here (a 7x7 fmap takes 16x16 nodes, most empty); the
        // wider space adds only splits with no empty piece.
        const PhyDim2 s = (fork && is_back(t.kind)) ? t.sifm : t.sofm;
        if (fc_like(t, fork, false)) {
          if (ofmp.size() != 1) continue;
          if (imperfect && !nonempty_split(t.nofm, outp.size())) continue;
        } else {
          if (outp.size() != 1) continue;
          if (imperfect && (!nonempty_split(s.h, ofmp.h) || !nonempty_split(s.w, ofmp.w))) continue;
        }
      }

      // Transpose equivalence: keep only the variant with h's <= w's (lexicographic).
      if (ofmp.size() == 1 && std::all_of(kPaes.begin(), kPaes.end(), [&](ParallelDim p) {
            return pd[p].h == 1 || pd[p].w == 1;
          })) {
        const std::array<std::int64_t, 4> hs{ph[0], ph[1], ph[2], ph[3]};
        const std::array<std::int64_t, 4> ws{pw[0], pw[1], pw[2], pw[3]};
        if (hs > ws) continue;
      }

      std::size_t n_nopart = 0;
      for (ParallelDim p : kPaes) n_nopart += pd[p].size() == 1 ? 1 : 0;
      const bool batp_part = batp.size() != 1;

      for (const auto& order : orders) {
        bool bad = false;
        for (std::size_t i = 0; i + 1 < 4 && !bad; ++i) {
          const ParallelDim a = order[i];
          const ParallelDim b = order[i + 1];
          const PhyDim2 d1 = pd[a];
          const PhyDim2 d2 = pd[b];
          if (d1.size() == 1 && d2.size() == 1 && a > b) bad = true;
          if (d1.size() > 1 && d2.size() == 1) bad = true;
          if (a != ParallelDim::Batp && d2.h == 1 && d2.w > 1 && d1.h > 1 && d1.w == 1) bad = true;
        }
        if (bad) continue;
        // BATP must be the top-most non-trivial level.
        if (batp_part && order[n_nopart] != ParallelDim::Batp) continue;
        PartitionScheme ps;
        ps.order = order;
        ps.pdims = pd;
        out.push_back(ps);
      }
    }
  }
}

/// The sides a spatially imperfect scheme may use of a grid side of `n` nodes: all of them
/// first, then each smaller one down to just over half, and below that only a side equal to
/// one of the layer's extents (a 7x7 fmap on 16 nodes one pixel per node). A sub-grid is there
/// to fit a dimension that does not align with the nodes; the bound keeps the space to about
/// (n/2)^2 grids.
std::vector<std::int64_t> used_sides(std::int64_t n, const Target& t, std::int64_t batch) {
  const std::array<std::int64_t, 7> extents{t.sofm.h, t.sofm.w, t.sifm.h, t.sifm.w,
                                            t.nofm,   t.nifm,   batch};
  std::vector<std::int64_t> out{n};
  for (std::int64_t u = n - 1; u >= 2; --u)
    if (2 * u > n || std::find(extents.begin(), extents.end(), u) != extents.end())
      out.push_back(u);
  return out;
}

std::vector<PartitionScheme> generate(const Target& t, std::int64_t batch, PhyDim2 dim_nodes,
                                      const model::SearchOptions& opt, bool guaranteed) {
  const bool fork = opt.cost_model == model::CostModelVariant::Kapla;
  std::vector<PartitionScheme> out;
  // The reference's schemes first, in its order (ties in the search go to them).
  generate_on(t, batch, dim_nodes, opt, false, out);
  const bool wider =
      opt.imperfect == model::Imperfect::Spatial || opt.imperfect == model::Imperfect::Full;
  if (wider && t.kind != Kind::Input) {
    // Then the wider space's others, grid by grid (the whole grid first), each once.
    std::set<std::array<std::int64_t, 12>> seen;
    for (const auto& ps : out) seen.insert(ps.flat_key());
    std::vector<PartitionScheme> more;
    for (const std::int64_t h : used_sides(dim_nodes.h, t, batch))
      for (const std::int64_t w : used_sides(dim_nodes.w, t, batch))
        generate_on(t, batch, PhyDim2{h, w}, opt, true, more);
    for (const auto& ps : more)
      if (seen.insert(ps.flat_key()).second) out.push_back(ps);
  }

  if (guaranteed && out.empty()) {
    PartitionScheme ps;  // order (0,1,2,3), all (1,1)
    if (fc_like(t, fork, true))
      ps.pdims[ParallelDim::Outp] = dim_nodes;
    else
      ps.pdims[ParallelDim::Ofmp] = dim_nodes;
    out.push_back(ps);
  }
  return out;
}

}  // namespace

std::vector<PartitionScheme> gen_partition(const model::Layer& layer, std::int64_t batch,
                                           PhyDim2 dim_nodes, const model::SearchOptions& options,
                                           bool guaranteed) {
  const Target t{kind_of(layer), layer.nifm, layer.nofm, layer.sofm, layer.sifm};
  return generate(t, batch, dim_nodes, options, guaranteed);
}

std::vector<PartitionScheme> gen_input_partition(std::int64_t nofm, PhyDim2 sofm,
                                                 std::int64_t batch, PhyDim2 dim_nodes,
                                                 const model::SearchOptions& options,
                                                 bool guaranteed) {
  const Target t{Kind::Input, 0, nofm, sofm, sofm};
  return generate(t, batch, dim_nodes, options, guaranteed);
}

}  // namespace kapla::mapping
