// The refetch bound (see refetch_bound.hpp).
#include "pricing/refetch_bound.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "core/inline_vector.hpp"
#include "core/math.hpp"
#include "mapping/data_layout_ops.hpp"
#include "mapping/data_range.hpp"
#include "mapping/gen_partition.hpp"
#include "mapping/part_layer.hpp"
#include "mapping/partition.hpp"
#include "pricing/cost_bound.hpp"
#include "pricing/fixed_scheme.hpp"

namespace kapla::pricing {

namespace {

// A region as integers but for where it lies, for keys.
void add_shape(std::vector<std::int64_t>& k, const mapping::NodeRegion& r) {
  k.insert(k.end(), {r.dim.h, r.dim.w, r.dist.h, r.dist.w, static_cast<std::int64_t>(r.type),
                     r.effective_wtot(), r.effective_wbeg()});
}

// A region as integers, for keys.
void add_region(std::vector<std::int64_t>& k, const mapping::NodeRegion& r) {
  add_shape(k, r);
  k.insert(k.end(), {r.origin.h, r.origin.w});
}

// REGF words a tile with REGF-level factors t2 takes (§7.2: Σ_d Π_{l in loops(d)} t2_l x
// usize_regf[d]).
double regf_words(const cost::NestedLoopDesc& n, const PerLoopDim<std::int64_t>& t2) {
  double words = 0;
  for (auto d : all_values<DataCategory>()) {
    double w = n.usize_regf[d];
    for (auto l : all_values<LoopDim>())
      if (n.data_loops[d].contains(l)) w *= static_cast<double>(t2[l]);
    words += w;
  }
  return words;
}

}  // namespace

namespace detail {

// Whether a tile may fit the REGF: a hair more room than the cost model's check (which sums
// the same products in another order), so that no tile it accepts is refused here.
bool may_fit_regf(const cost::NestedLoopDesc& n, const PerLoopDim<std::int64_t>& t2,
                  double size_regf) {
  return regf_words(n, t2) <= size_regf * (1 + 1e-9);
}

}  // namespace detail

namespace {

// With the constraint's top factors `top` (1 where free): the REGF tile divides loopcnt / top,
// and fetch[1][d] >= Π over d's unrelated loops of their top factors (its formula counts
// T^{0:start} with start >= 1, the top factor included) unless fetch[1] = fetch[0] escapes
// that: a REGF-reusable category with no GBUF-level factor > 1 on its loops, whose innermost
// top-level loop sits outside the constrained unrelated ones, which only constrained loops of
// its own can be (free top loops come after the constrained ones, is_valid_top_bl), so its
// REGF holds its loops' loopcnt / top: where that does not fit, no scheme escapes.
PerDataCategory<double> forced_fetches(const cost::NestedLoopDesc& n, double size_regf,
                                       const PerLoopDim<std::int64_t>& top) {
  PerDataCategory<double> forced{{1, 1, 1}};
  for (auto d : all_values<DataCategory>()) {
    double unrelated = 1, words = n.usize_regf[d];
    for (auto l : all_values<LoopDim>()) {
      if (n.data_loops[d].contains(l))
        words *= static_cast<double>(n.loopcnt[l] / top[l]);
      else
        unrelated *= static_cast<double>(top[l]);
    }
    const bool escapes = n.regf_reusable[d] && words <= size_regf * (1 + 1e-9);
    if (!escapes) forced[d] = unrelated;
  }
  return forced;
}

}  // namespace

namespace detail {

// ITCN + stored-GBUF energy of one nest at the given fetch[1] counts (f: the count before the
// read-modify-write category's 2f - 1).
double nest_energy_at(const cost::NestedLoopDesc& n, const PerDataCategory<double>& fetch,
                      double nodes, const model::UnitCosts& c,
                      const PerDataCategory<bool>& stored) {
  double e = 0;
  for (auto d : all_values<DataCategory>()) {
    const double f = d == n.rw_data ? 2 * fetch[d] - 1 : fetch[d];
    e += c.mem_hier[MemLevel::Itcn] * n.total_access_at_of(MemLevel::Itcn, d) * f * nodes;
    if (stored[d])
      e += c.mem_hier[MemLevel::Gbuf] * n.total_access_at_of(MemLevel::Gbuf, d) * f * nodes;
  }
  return e;
}

}  // namespace detail

namespace {

// A loop's REGF factors that fit: ascending divisors of its count, inline up to a bound that
// no REGF of a few hundred words reaches (a factor's tile takes at least the factor's words),
// on the heap beyond (least_nest_energy runs ~10^6 times per network search).
using TileFactors = InlineVector<std::int64_t, 64>;

}  // namespace

namespace detail {

// The least ITCN + stored-GBUF energy of one nest on `nodes` nodes. access[ITCN][d] =
// TA(ITCN, d) x fetch[1][d] x nodes and access[GBUF][d] = TA(GBUF, d) x fetch[1][d] x stored
// x nodes (§7.5). fetch[1] (§7.3): let X be the innermost loop with a GBUF-level factor > 1
// (if none, the same at the DRAM level, as fetch[1] = fetch[0] then). A REGF-reusable
// category whose loops hold X has inn = X, so every unrelated loop with a factor > 1 at that
// level is outside it and counts with its factors down to the REGF tile: fetch = Π over the
// unrelated loops u of T_u^{0:2} = loopcnt[u] / t2_u; the category without X may stay
// (fetch >= 1). A category not reusable in REGF counts T^{0:2} of every unrelated loop
// whatever the order. The read-modify-write category fetches 2f - 1 times. The REGF tile t2
// divides the loop counts (the three levels' factors multiply to them) and fits the REGF
// (§7.4 step 2): minimum over X and over those tiles, the loops that do not change the energy
// under X at factor 1 (the least REGF they can take); with a constraint, the tile within
// loopcnt / top and each fetch at least forced_fetches'. The caller has checked that the smallest
// tile fits (else the nest has no valid scheme).
double least_nest_energy(const cost::NestedLoopDesc& n, double size_regf, double nodes,
                         const model::UnitCosts& c, const PerDataCategory<bool>& stored,
                         const PerLoopDim<std::int64_t>& top,
                         const PerDataCategory<double>& forced) {
  // Per loop, the divisors of its count below the top factor whose tile fits with the other
  // factors at 1 (the words grow with the factor, so the fitting ones come first).
  // Not a PerLoopDim: its value-initialised array would clear the lists' inline storage.
  std::array<TileFactors, enum_size<LoopDim>> fits;
  for (auto u : all_values<LoopDim>()) {
    PerLoopDim<std::int64_t> t{{1, 1, 1}};
    for_each_divisor(n.loopcnt[u] / top[u], [&](std::int64_t f) {
      t[u] = f;
      if (!may_fit_regf(n, t, size_regf)) return false;
      fits[index_of(u)].push_back(f);
      return true;
    });
  }
  TileFactors one;
  one.push_back(1);
  double best = std::numeric_limits<double>::infinity();
  for (auto x : all_values<LoopDim>()) {
    PerDataCategory<bool> counts{};  // categories that count T^{0:2} of their unrelated loops
    PerLoopDim<bool> matters{};      // loops whose REGF factor changes the energy
    for (auto d : all_values<DataCategory>()) {
      counts[d] = !n.regf_reusable[d] || n.data_loops[d].contains(x);
      for (auto u : all_values<LoopDim>())
        if (counts[d] && !n.data_loops[d].contains(u)) matters[u] = true;
    }
    const auto& fi = matters[LoopDim::Ifm] ? fits[index_of(LoopDim::Ifm)] : one;
    const auto& fo = matters[LoopDim::Ofm] ? fits[index_of(LoopDim::Ofm)] : one;
    const auto& fb = matters[LoopDim::Bat] ? fits[index_of(LoopDim::Bat)] : one;
    // The energy does not grow with a factor (products of exact integer quotients, then
    // correctly rounded sums of non-negative terms) and the words do not shrink: per (IFM,
    // OFM) factors, the largest BAT factor that fits, which does not grow with the OFM
    // factor; and of two tiles that differ in the OFM factor alone, the larger is no worse,
    // so only the last OFM factor before each drop of the BAT factor (and the last that fits)
    // is priced: the minimum is the one over every tile.
    auto price = [&](const PerLoopDim<std::int64_t>& t2) {
      PerDataCategory<double> fetch{};
      for (auto d : all_values<DataCategory>()) {
        double f = 1;
        if (counts[d])
          for (auto u : all_values<LoopDim>())
            if (!n.data_loops[d].contains(u)) f *= static_cast<double>(n.loopcnt[u] / t2[u]);
        fetch[d] = std::max(f, forced[d]);
      }
      best = std::min(best, nest_energy_at(n, fetch, nodes, c, stored));
    };
    for (auto ti : fi) {
      std::size_t nb = fb.size();       // the BAT factors that fit are fb[0, nb)
      PerLoopDim<std::int64_t> last{};  // the tile with the previous OFM factor (none: 0)
      for (auto to : fo) {
        PerLoopDim<std::int64_t> t2{{ti, to, 1}};
        if (!may_fit_regf(n, t2, size_regf)) break;
        while (nb > 1) {
          t2[LoopDim::Bat] = fb[nb - 1];
          if (may_fit_regf(n, t2, size_regf)) break;
          --nb;
        }
        t2[LoopDim::Bat] = fb[nb - 1];
        if (last[LoopDim::Ifm] != 0 && last[LoopDim::Bat] != t2[LoopDim::Bat]) price(last);
        last = t2;
      }
      if (last[LoopDim::Ifm] != 0) price(last);
    }
  }
  return best;
}

}  // namespace detail

namespace {

// The least unit NoC hops of a partition, per category, that do not depend on the ifmap
// layout or on where the nodes are (§8.6: the hops are unit hops x fetch[0], which
// evaluate_floor applies; mapping::partition_hops), for a plain convolution or FC layer:
// filter copies, ifmap copies (below) and partial sums. Filters: a node whose ifmap and ofmap
// ranges are not empty fetches its filter slice from a memory node (a hop per word at least, unless
// the node is one of them), or is joined to them by a spanning forest (an edge of length >= 1 per
// node); the slices of the nodes that split ofmap rows, columns and samples are copies, so the
// words moved are the filters x the non-empty OFMP and BATP parts, less what may sit on memory
// nodes. Ofmaps: the INPP nodes of one ofmap range send their partial sums at least one hop
// each, at least half of them counted, or join a spanning tree read and accumulated
// (ceil((r + a) / 2) >= |range| x (tree weight) / 2), on top of the range's read from its
// stored pieces by the nearest node (r, or the middle node's read), which layer_cost_bound
// counts apart and adds; so even where the ofmaps are stored in the processing region (their
// stored layout has no INPP split, so it is never the partition's own, §11.22).
PerDataCategory<double> least_partition_hops(const LayerProblem& p,
                                             const mapping::PartitionScheme& part) {
  const model::Layer& L = p.layer;
  using PD = ParallelDim;
  PerDataCategory<double> hops{};
  const auto parts = [](std::int64_t n, std::int64_t len) { return std::min(n, len); };
  const double copies = static_cast<double>(parts(part.pdims[PD::Ofmp].h, L.sofm.h) *
                                            parts(part.pdims[PD::Ofmp].w, L.sofm.w) *
                                            parts(part.size(PD::Batp), p.batch));
  const double fil = static_cast<double>(L.total_filter_size());
  const double slice =
      static_cast<double>(ceil_div(L.nifm, part.size(PD::Inpp)) *
                          ceil_div(L.nofm, part.size(PD::Outp)) * L.sfil.h * L.sfil.w);
  const double on_memory = static_cast<double>(p.resource.dram_region.dim.size()) * slice;
  hops[DataCategory::Fil] = std::max(0.0, fil * copies - on_memory);
  // Ifmaps: the nodes that split the output channels read the same ifmap range (a plain
  // layer's range does not depend on its OUTP index), each ifmap word at least once
  // (min_ifmap_words). A range read by k nodes costs k - 1 hops per word besides its first
  // read: the spanning tree of its readers, or each reader's own fetch from pieces of which
  // at most one reader is the holder.
  const double readers = static_cast<double>(std::min(part.size(PD::Outp), L.nofm));
  hops[DataCategory::Ifm] = min_ifmap_words(L, p.batch) * (readers - 1);
  const double senders = static_cast<double>(std::min(part.size(PD::Inpp), L.nifm));
  hops[DataCategory::Ofm] = static_cast<double>(L.total_ofmap_size(p.batch)) * (senders - 1) / 2;
  return hops;
}

// The distinct data ranges of one category that a partition's nodes work on, as
// mapping::partition_hops groups them (the nodes with non-empty ifmap and ofmap ranges): how
// many, and the fewest words of the fmap in one.
struct RangeGroups {
  double count = 0;
  double least_words = 0;
};

// The ifmap and ofmap range groups of a plain layer's partition. Its ranges are products of
// per-dimension pieces, each set by one kind's index (samples: BATP; ifmap channels: INPP,
// ofmap channels: OUTP; rows and columns: OFMP's), and a node takes part when every piece is
// non-empty: so the count and the fewest words are products over the dimensions, each found
// by moving one kind's index from the last index of every kind (whose pieces are never empty:
// ith_range's last piece of a non-empty range). They depend on the partition's sizes only.
std::pair<RangeGroups, RangeGroups> fmap_groups(const LayerProblem& p,
                                                const mapping::PartitionScheme& part) {
  using PD = ParallelDim;
  const model::Layer& L = p.layer;
  const auto& pd = part.pdims;
  mapping::PartIndex last;
  for (auto k : all_values<PD>()) last[k] = {pd[k].h - 1, pd[k].w - 1};
  std::array<RangeGroups, 2> out{RangeGroups{1, 1}, RangeGroups{1, 1}};  // ifmap, ofmap
  const std::array<std::int64_t, 4> ifm_len{p.batch, L.nifm, L.sifm.h, L.sifm.w};
  // Dimension d of each category's range, moved by `count` indices set by `at`.
  auto sweep = [&](std::size_t cat, std::size_t d, std::int64_t count, auto at) {
    std::vector<std::pair<std::int64_t, std::int64_t>> seen;
    double least = std::numeric_limits<double>::infinity();
    for (std::int64_t i = 0; i < count; ++i) {
      auto pidx = last;
      at(pidx, i);
      const auto r = mapping::proc_data_range(L, p.batch, part, pidx);
      if (r.ifm.size() <= 0 || r.ofm.size() <= 0) continue;
      const auto& f = cat == 0 ? r.ifm : r.ofm;
      const std::pair piece{f.beg[d], f.end[d]};
      if (std::find(seen.begin(), seen.end(), piece) != seen.end()) continue;
      seen.push_back(piece);
      // Clipped to the fmap: the words a read of the range moves (ofmap ranges lie inside).
      const auto hi = cat == 0 ? std::min(piece.second, ifm_len[d]) : piece.second;
      least = std::min(least, static_cast<double>(std::max<std::int64_t>(
                                  0, hi - std::max<std::int64_t>(0, piece.first))));
    }
    out[cat].count *= static_cast<double>(seen.size());
    out[cat].least_words *= seen.empty() ? 0 : least;
  };
  auto flat = [&](PD k) {
    return [&pd, k](mapping::PartIndex& x, std::int64_t i) { x[k] = {i / pd[k].w, i % pd[k].w}; };
  };
  auto rows = [](mapping::PartIndex& x, std::int64_t i) { x[PD::Ofmp].h = i; };
  auto cols = [](mapping::PartIndex& x, std::int64_t i) { x[PD::Ofmp].w = i; };
  for (std::size_t cat = 0; cat < 2; ++cat) {
    sweep(cat, 0, pd[PD::Batp].size(), flat(PD::Batp));
    sweep(cat, 1, pd[cat == 0 ? PD::Inpp : PD::Outp].size(), flat(cat == 0 ? PD::Inpp : PD::Outp));
    sweep(cat, 2, pd[PD::Ofmp].h, rows);
    sweep(cat, 3, pd[PD::Ofmp].w, cols);
    if (out[cat].count <= 0 || out[cat].least_words <= 0) out[cat] = {};
  }
  return {out[0], out[1]};
}

// The most nodes over which GBUF sharing may spread a category with data loops `loops`
// (§8.9.1: its sharing loop is the first loop not among them; BAT shares over at most the
// OFMP x BATP nodes, OFM over the OUTP ones, IFM over the INPP ones); 1 without sharing.
double largest_sharing_group(const mapping::LoopSet& loops, const mapping::PartitionScheme& part,
                             const model::SearchOptions& options) {
  if (!options.hw_gbuf_sharing) return 1;
  using PD = ParallelDim;
  if (!loops.contains(LoopDim::Ifm)) return static_cast<double>(part.size(PD::Inpp));
  if (!loops.contains(LoopDim::Ofm)) return static_cast<double>(part.size(PD::Outp));
  if (!loops.contains(LoopDim::Bat))
    return static_cast<double>(part.size(PD::Ofmp) * part.size(PD::Batp));
  return 1;
}

// Whether the nest may keep a node's filter slice on chip with the top-level factors of the
// filter's loops at 1 (§7.2-7.4): the slice (unit_cnt[0][FIL] x usize_gbuf at those factors)
// fits the GBUF over the largest sharing group, or the slice's REGF words fit the REGF (it
// bypasses GBUF only if GBUF has no reuse, all its loops at the REGF level). A filter whose
// loops hold BAT differs per sample and never stays: true (no claim).
bool filter_may_stay(const cost::NestedLoopDesc& n, const mapping::PartitionScheme& part,
                     const LayerProblem& p) {
  const auto& loops = n.data_loops[DataCategory::Fil];
  if (loops.contains(LoopDim::Bat)) return true;
  const auto count = static_cast<double>(n.data_loopcnt(DataCategory::Fil));
  const double share = largest_sharing_group(loops, part, p.options);
  const double slack = 1 + 1e-9;
  return n.usize_gbuf[DataCategory::Fil] * count / share <=
             static_cast<double>(p.resource.size_gbuf) * slack ||
         n.usize_regf[DataCategory::Fil] * count <=
             static_cast<double>(p.resource.size_regf) * slack;
}

// The GBUF words a node's ifmaps take with every top-level factor at 1 (unit_cnt[0][IFM] x
// usize_gbuf, §7.2), over the largest sharing group, and their REGF words with every factor
// but the REGF level's at 1; {0, 0} (no claim) unless the nest has the convolution's loops.
std::pair<double, double> ifmap_slice_words(const cost::NestedLoopDesc& n,
                                            const mapping::PartitionScheme& part,
                                            const LayerProblem& p) {
  if (!n.has_conv_data_loops()) return {0, 0};
  const auto count = static_cast<double>(n.data_loopcnt(DataCategory::Ifm));
  return {n.usize_gbuf[DataCategory::Ifm] * count /
              largest_sharing_group(n.data_loops[DataCategory::Ifm], part, p.options),
          n.usize_regf[DataCategory::Ifm] * count};
}

}  // namespace

namespace detail {

// The partitions of one size (B's list order: they differ in the kinds' order and the
// split directions, and share the per-node layer, hence the nests), with the least ofmap
// reads of any of them (least_ofmap_reads), found when first asked per placement of the
// processing and destination regions, and remembered.
struct SizeGroup {
  std::vector<mapping::PartitionScheme> parts;
  std::map<std::vector<std::int64_t>, double> least_ofmap_reads;
};

// A nest of one partition size, with the partition's NoC floor.
struct FloorNest {
  cost::NestedLoopDesc nld;
  double nodes = 0;
  PerDataCategory<double> unit_hops{};  // least_partition_hops
  // fmap_groups of the partition (none where the NoC terms do not apply, and no ofmaps where
  // they stay where they are produced): each distinct range is read once from the nearest
  // place its pieces may lie, or its accumulation ends there (evaluate_floor).
  RangeGroups ifmap_ranges;
  RangeGroups ofmap_ranges;
  // Its size's partitions (shared by the nests of that size), where the floor reads their
  // ofmap reads (FloorNests::ofmap_reads), else null.
  std::shared_ptr<SizeGroup> group;
};

// What the floor reads that does not depend on the constraint (refetch_bound_key's inputs).
struct FloorNests {
  bool applies = false;  // not for back-propagation kinds or imperfect factorisation
  std::vector<FloorNest> nests;
  RefetchFloor claims;  // its filters_may_stay, least_ifmap_gbuf and least_ifmap_regf only
  // What a floor under the constraint's top factors (IFM, OFM, BAT) reads whatever the data
  // places, per nest (NaN where the nest has no scheme under them): its energy at the forced
  // fetches and their counts, and its least energy, found when first asked (NaN until then).
  struct UnderTop {
    std::vector<double> at_forced;
    std::vector<PerDataCategory<double>> forced;
    std::vector<double> least;
    double least_time = std::numeric_limits<double>::infinity();
  };
  std::map<std::array<std::int64_t, 3>, UnderTop> under_top;
  // Each nest's least energy without a constraint (NaN until found): no constraint's is below
  // it (its tiles are among the free ones, its fetches no fewer), so it orders and leaves
  // nests under the others too.
  std::vector<double> least_free;
  // The least energies found under constraints so far, while least_free is not known for
  // every nest; once they are as many as the nests, every nest's free one is found
  // (evaluate_floor says why).
  std::size_t leasts_under_top = 0;
  bool all_free_known = false;
  // The floors evaluated so far, by the top factors, the handle of the data places they
  // were given (RefetchBounds::places) and whether they read the partitions' reads.
  std::map<std::array<std::int64_t, 5>, RefetchFloor> floors;
  // Whether the floor reads the partitions' ofmap reads: where the ofmaps go to memory
  // (where they stay on chip, the partial sums are most of their hops and the reads do not
  // pay for themselves, docs/benchmarks.md).
  bool ofmap_reads = false;
};

}  // namespace detail

namespace {

detail::FloorNests collect_floor_nests(const LayerProblem& p) {
  detail::FloorNests out;
  if (p.layer.is_back() || p.options.imperfect != model::Imperfect::None) return out;
  out.applies = true;
  const auto& r = p.resource;
  // NoC terms for plain convolutions and FC layers only (the filter and ofmap ranges of the
  // other kinds differ, mapping/proc_data_range.cpp); ofmaps are moved unless they stay in the
  // processing region itself (whether filters are fetched at all is the constraint's,
  // evaluate_floor).
  const bool plain =
      (p.layer.type == model::LayerType::Conv || p.layer.type == model::LayerType::FC) &&
      !p.layer.is_depthwise();
  const bool ofmaps_moved = !(r.dst_data_region == r.proc_region);
  const bool ofmaps_to_memory = r.dst_data_region.type == mapping::RegionType::Dram;
  bool filters_may_stay = !p.layer.has_filter();
  double least_ifmap_gbuf = std::numeric_limits<double>::infinity();
  double least_ifmap_regf = least_ifmap_gbuf;
  // The per-node layer, hence the nests, depend on the partition's sizes only.
  std::map<std::array<std::int64_t, 5>, std::shared_ptr<detail::SizeGroup>> groups;
  for (const auto& part :
       mapping::gen_partition(p.layer, p.batch, r.proc_region.dim, p.options, true)) {
    using PD = ParallelDim;
    const std::array<std::int64_t, 5> sizes{part.size(PD::Outp), part.pdims[PD::Ofmp].h,
                                            part.pdims[PD::Ofmp].w, part.size(PD::Batp),
                                            part.size(PD::Inpp)};
    auto [g, first] = groups.try_emplace(sizes);
    if (!first) {
      if (g->second) g->second->parts.push_back(part);
      continue;
    }
    if (ofmaps_to_memory)
      g->second = std::make_shared<detail::SizeGroup>(detail::SizeGroup{{part}, {}});
    const auto map = map_partitioned_layer(p, mapping::part_layer(p.layer, p.batch, part));
    // The nodes that compute (LoopBlockingEval::num_nodes: the partition's, all of the
    // region's without imperfect splits).
    const auto nodes = static_cast<double>(part.size());
    const auto unit_hops = plain ? least_partition_hops(p, part) : PerDataCategory<double>{};
    auto [ifm_groups, ofm_groups] =
        plain ? fmap_groups(p, part) : std::pair<RangeGroups, RangeGroups>{};
    if (!ofmaps_moved) ofm_groups = {};
    for (const auto& n : map.nlds) {
      filters_may_stay = filters_may_stay || filter_may_stay(n, part, p);
      const auto [gbuf, regf] = ifmap_slice_words(n, part, p);
      least_ifmap_gbuf = std::min(least_ifmap_gbuf, gbuf);
      least_ifmap_regf = std::min(least_ifmap_regf, regf);
      out.nests.push_back({n, nodes, unit_hops, ifm_groups, ofm_groups, g->second});
    }
  }
  if (out.nests.empty()) return out;
  out.ofmap_reads = ofmaps_to_memory;
  out.claims.filters_may_stay = filters_may_stay;
  out.claims.least_ifmap_gbuf = least_ifmap_gbuf;
  out.claims.least_ifmap_regf = least_ifmap_regf;
  return out;
}

// The hops of a partition's ofmap reads: per ofmap range, the fewest any node computing it
// (the INPP nodes of one range) needs to read the range from where `pieces` store it
// (mapping::nhops_per_dest), summed. Each range's OFM hops are at least that read plus the
// partial sums least_partition_hops counts (a forwarding tree's ceil((r + a) / 2) with
// a >= r + |range| x tree, or the middle node's read and its peers' sums; §8.6 step 4), so
// the reads and those sums add up to at most the unit OFM hops. Idle INPP nodes (an input
// channel split finer than the channels) are read for too: the least over more nodes is no
// larger.
double ofmap_reads(const LayerProblem& p, const mapping::PartitionScheme& part,
                   const mapping::NodeRegion& proc, const mapping::LayoutPieces& pieces,
                   mapping::HopScratch& scratch) {
  const model::Layer& L = p.layer;
  const mapping::FmapRange whole{{0, 0, 0, 0}, {p.batch, L.nofm, L.sofm.h, L.sofm.w}};
  const PhyDim2 inpp = part.pdims[ParallelDim::Inpp];
  std::vector<PhyDim2> nodes;
  std::vector<std::int64_t> per_dest;
  mapping::OverlapMemo memo;  // of pieces
  double reads = 0;
  for (auto pidx : mapping::gen_pidx(part)) {
    if (pidx[ParallelDim::Inpp] != PhyDim2{0, 0}) continue;  // one per range
    const auto frng = mapping::fmap_range(part, whole, pidx);
    if (frng.size() <= 0) continue;
    nodes.clear();
    for (std::int64_t h = 0; h < inpp.h; ++h)
      for (std::int64_t w = 0; w < inpp.w; ++w) {
        pidx[ParallelDim::Inpp] = {h, w};
        nodes.push_back(mapping::coordinate(part, proc, pidx));
      }
    mapping::nhops_per_dest(pieces, frng, nodes, per_dest, scratch, &memo);
    reads += static_cast<double>(*std::min_element(per_dest.begin(), per_dest.end()));
  }
  return reads;
}

// What ofmap reads read of where the regions lie: hops are distances between the two
// regions' nodes, so the regions' shapes and the shift between them.
std::vector<std::int64_t> ofmap_place_key(const mapping::Resource& r) {
  std::vector<std::int64_t> place;
  add_shape(place, r.proc_region);
  add_shape(place, r.dst_data_region);
  place.push_back(r.dst_data_region.origin.h - r.proc_region.origin.h);
  place.push_back(r.dst_data_region.origin.w - r.proc_region.origin.w);
  return place;
}

// The least over `g`'s partitions of their ofmap reads (ofmap_reads, each range from where
// the ofmaps of that partition are stored in the destination region) less the hops to the
// nearest stored node that layer_cost_bound adds for every ofmap word (every read moves each
// word at least that far), remembered by ofmap_place_key (`key`).
double least_ofmap_reads(detail::SizeGroup& g, const LayerProblem& p,
                         const std::vector<std::int64_t>& key) {
  const auto& r = p.resource;
  auto [it, fresh] = g.least_ofmap_reads.try_emplace(key);
  if (!fresh) return it->second;
  const double nearest = static_cast<double>(p.layer.total_ofmap_size(p.batch)) *
                         static_cast<double>(r.dst_data_region.min_hops_to(r.proc_region));
  double least = std::numeric_limits<double>::infinity();
  mapping::HopScratch scratch;
  for (const auto& part : g.parts) {
    const auto layout = mapping::ofmap_layout(p.layer, p.batch, part, r.dst_data_region);
    least = std::min(least,
                     ofmap_reads(p, part, r.proc_region, mapping::layout_pieces(layout), scratch));
  }
  return it->second = std::max(0.0, least - nearest);
}

// The constraint's top factors (is_valid_top_bl: a constrained factor is exactly its value),
// 1 where free.
PerLoopDim<std::int64_t> top_factors(const LayerProblem& p) {
  const auto tb = p.constraint.top_blocking();
  PerLoopDim<std::int64_t> top{{1, 1, 1}};
  top[LoopDim::Ifm] = std::max<std::int64_t>(tb.topifm, 1);
  top[LoopDim::Ofm] = std::max<std::int64_t>(tb.topofm, 1);
  top[LoopDim::Bat] = std::max<std::int64_t>(tb.topbat, 1);
  return top;
}

RefetchFloor evaluate_floor(detail::FloorNests& f, const LayerProblem& p, const DataPlaces& places,
                            bool reads) {
  if (!f.applies) return {};
  // Categories that may not bypass GBUF are stored whatever the blocking (§7.4 step 1).
  PerDataCategory<bool> stored{};
  for (auto d : all_values<DataCategory>()) stored[d] = !p.options.sw_gbuf_bypass[d];
  const auto size_regf = static_cast<double>(p.resource.size_regf);
  const auto top = top_factors(p);
  // The unit hops x the least top-level fetches (the ofmaps' at least 1; the filters' 0 when
  // they may be pinned).
  PerDataCategory<double> fetch0{{1, 1, 1}};
  fetch0[DataCategory::Fil] = min_filter_fetches(p, f.claims);
  fetch0[DataCategory::Ifm] = min_ifmap_fetches(p, f.claims);
  // Each distinct ifmap range is first read by one of its nodes (the forwarding tree's root,
  // or the reader nearest the word's piece), at least as far from the pieces as the nearest
  // place they may lie; those first readers are distinct nodes, so their distances add up to
  // at least the sum of as many of the region's least (nearest_source_hops), each range
  // carrying at least its fewest words. Its other readers' hops are the copies above. The
  // same for each ofmap range's read and accumulation at the nearest of its nodes
  // (ceil((r + a) / 2) >= the read), less the hops to the nearest stored place that
  // layer_cost_bound adds for every ofmap word (its smallest distance, element 1 - element 0:
  // none of the n smallest is below it, so the sum less n of them is never negative).
  auto least_sum = [](const RangeGroups& g, const std::vector<std::int64_t>& hops,
                      bool beyond_nearest) {
    if (hops.size() < 2 || g.count <= 0) return 0.0;
    const auto n = std::min(static_cast<std::size_t>(g.count), hops.size() - 1);
    const std::int64_t counted = beyond_nearest ? static_cast<std::int64_t>(n) * hops[1] : 0;
    return g.least_words * static_cast<double>(hops[n] - counted);
  };
  auto first_reads = [&](const detail::FloorNest& fn) {
    return least_sum(fn.ifmap_ranges, places.ifmap_hops, false) * fetch0[DataCategory::Ifm] +
           least_sum(fn.ofmap_ranges, places.ofmap_hops, true) * fetch0[DataCategory::Ofm];
  };
  auto noc_of = [&](const detail::FloorNest& fn) {
    double hops = first_reads(fn);
    for (auto d : all_values<DataCategory>()) hops += fn.unit_hops[d] * fetch0[d];
    return p.costs.noc_hop * hops;
  };
  // The same with the ofmaps' first reads at least their least over the nest's partitions
  // (least_ofmap_reads): microseconds per partition, so only with `reads` and for the nests
  // that the cheaper floor above leaves in the running.
  const bool ofmaps_placed = reads && f.ofmap_reads;
  const auto place = ofmaps_placed ? ofmap_place_key(p.resource) : std::vector<std::int64_t>{};
  auto placed_noc_of = [&](const detail::FloorNest& fn) {
    if (!ofmaps_placed) return noc_of(fn);
    const auto o = DataCategory::Ofm;
    const double cheap = least_sum(fn.ofmap_ranges, places.ofmap_hops, true) * fetch0[o];
    const double placed = least_ofmap_reads(*fn.group, p, place) * fetch0[o];
    return noc_of(fn) + p.costs.noc_hop * std::max(0.0, placed - cheap);
  };
  // What the nests give under the top factors whatever the places, once per top factors.
  const std::array<std::int64_t, 3> tk{top[LoopDim::Ifm], top[LoopDim::Ofm], top[LoopDim::Bat]};
  auto [ut, fresh] = f.under_top.try_emplace(tk);
  auto& u = ut->second;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (fresh) {
    u.at_forced.assign(f.nests.size(), nan);
    u.forced.resize(f.nests.size());
    u.least.assign(f.nests.size(), nan);
    for (std::size_t i = 0; i < f.nests.size(); ++i) {
      const auto& fn = f.nests[i];
      const auto& n = fn.nld;
      // A top factor that does not divide the loop count leaves the nest no scheme, and so
      // does a REGF that cannot hold the smallest tile.
      bool divides = true;
      for (auto l : all_values<LoopDim>()) divides = divides && n.loopcnt[l] % top[l] == 0;
      if (!divides || !detail::may_fit_regf(n, {{1, 1, 1}}, size_regf)) continue;
      u.least_time = std::min(
          u.least_time, static_cast<double>(n.unit_time) * static_cast<double>(n.total_loopcnt()));
      u.forced[i] = forced_fetches(n, size_regf, top);
      u.at_forced[i] = detail::nest_energy_at(n, u.forced[i], fn.nodes, p.costs, stored);
    }
  }
  // Each nest's energy is at least its NoC plus its ITCN and GBUF at the forced fetches, and
  // its NoC plus its least without a constraint where that is known: the nests go in the
  // order of that, and those whose least cannot go below the best so far are left (the
  // minimum is the same). Ordered by the forced fetches alone, the floors under constraints
  // price many nests' least that the free least would have left: once they have priced as
  // many as there are nests, every nest's free least is found, which holds under every
  // constraint. Finding them all at once, up front, costs the nests that see few
  // constraints more than it saves. Inference at cloud 64, least_nest_energy calls: ResNet-50
  // 572 k -> 439 k, GoogLeNet 299 k -> 216 k, MobileNet 80 k -> 89 k (all up front: 153 k).
  if (f.least_free.empty()) f.least_free.assign(f.nests.size(), nan);
  const bool free = tk == std::array<std::int64_t, 3>{1, 1, 1};
  if (!f.all_free_known && f.leasts_under_top >= f.nests.size()) {
    const PerLoopDim<std::int64_t> one{{1, 1, 1}};
    for (std::size_t i = 0; i < f.nests.size(); ++i) {
      const auto& fn = f.nests[i];
      if (!std::isnan(f.least_free[i]) || !detail::may_fit_regf(fn.nld, one, size_regf))
        continue;  // known, or no scheme (as under_top finds)
      f.least_free[i] = detail::least_nest_energy(fn.nld, size_regf, fn.nodes, p.costs, stored, one,
                                                  forced_fetches(fn.nld, size_regf, one));
    }
    f.all_free_known = true;
  }
  struct Candidate {
    double least = 0;
    std::size_t index = 0;
  };
  std::vector<Candidate> order;
  order.reserve(f.nests.size());
  for (std::size_t i = 0; i < f.nests.size(); ++i) {
    if (std::isnan(u.at_forced[i])) continue;
    const double lower =
        std::isnan(f.least_free[i]) ? u.at_forced[i] : std::max(u.at_forced[i], f.least_free[i]);
    order.push_back({noc_of(f.nests[i]) + lower, i});
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const Candidate& a, const Candidate& b) { return a.least < b.least; });
  double best = std::numeric_limits<double>::infinity();
  for (const auto& c : order) {
    if (c.least >= best) break;
    const auto& fn = f.nests[c.index];
    double& least = u.least[c.index];
    if (std::isnan(least)) {
      least = free && !std::isnan(f.least_free[c.index])
                  ? f.least_free[c.index]
                  : detail::least_nest_energy(fn.nld, size_regf, fn.nodes, p.costs, stored, top,
                                              u.forced[c.index]);
      if (free) f.least_free[c.index] = least;
      if (!free && !f.all_free_known) ++f.leasts_under_top;
    }
    best = std::min(best, placed_noc_of(fn) + least);
  }
  // No valid nest at all: nothing to bound (the search finds no scheme either).
  if (!std::isfinite(best)) return {};
  RefetchFloor out = f.claims;
  out.energy = best;
  out.time = u.least_time;
  return out;
}

// The hops from `x` to the nearest of `count` lines at `first`, `first + step`, ... on one axis.
std::int64_t hops_to_lines(std::int64_t x, std::int64_t first, std::int64_t step,
                           std::int64_t count) {
  const std::int64_t last = first + (count - 1) * step;
  if (x <= first) return first - x;
  if (x >= last) return x - last;
  const std::int64_t below = first + (x - first) / step * step;
  return std::min(x - below, below + step - x);
}

// Whether a region's nodes are its rectangle's (rel2abs without folding): then the nearest of
// its nodes is the nearest on each axis, the hop distance adding over the axes.
bool unfolded(const mapping::NodeRegion& r) {
  return r.effective_wtot() == r.dim.w && r.effective_wbeg() == r.effective_wtot() &&
         r.dist.h >= 0 && r.dist.w >= 0;
}

}  // namespace

std::vector<std::int64_t> nearest_source_hops(const mapping::NodeRegion& proc,
                                              const std::vector<mapping::NodeRegion>& places) {
  std::vector<mapping::NodeRegion> grids;
  std::vector<PhyDim2> nodes;  // of the folded places
  for (const auto& r : places) {
    if (r.dim.h <= 0 || r.dim.w <= 0) continue;
    if (unfolded(r)) {
      grids.push_back(r);
    } else {
      for (const auto& n : r.nodes()) nodes.push_back(n);
    }
  }
  if (grids.empty() && nodes.empty()) return {};
  std::vector<std::int64_t> hops;
  for (const auto& n : proc.nodes()) {
    std::int64_t d = std::numeric_limits<std::int64_t>::max();
    for (const auto& g : grids)
      d = std::min(d, hops_to_lines(n.h, g.origin.h, g.dist.h, g.dim.h) +
                          hops_to_lines(n.w, g.origin.w, g.dist.w, g.dim.w));
    for (const auto& s : nodes) d = std::min(d, n.hop_dist(s));
    hops.push_back(d);
  }
  std::sort(hops.begin(), hops.end());
  std::vector<std::int64_t> out{0};
  for (auto h : hops) out.push_back(out.back() + h);
  return out;
}

DataPlaces data_places(const mapping::NodeRegion& proc,
                       const std::vector<mapping::NodeRegion>& ifmap_regions,
                       const mapping::NodeRegion& dst) {
  DataPlaces out;
  if (!ifmap_regions.empty()) out.ifmap_hops = nearest_source_hops(proc, ifmap_regions);
  out.ofmap_hops = nearest_source_hops(proc, {dst});
  return out;
}

DataPlaces data_places(const LayerProblem& p) {
  return data_places(p.resource.proc_region, p.ifmap_layout.regions, p.resource.dst_data_region);
}

RefetchFloor refetch_bound(const LayerProblem& p) {
  auto nests = collect_floor_nests(p);
  return evaluate_floor(nests, p, data_places(p), true);
}

std::string refetch_bound_key(const LayerProblem& p) {
  LayerProblem k;
  k.layer = p.layer;
  k.batch = p.batch;
  k.resource.proc_region.dim = p.resource.proc_region.dim;
  k.resource.dim_array = p.resource.dim_array;
  k.resource.array_mapping = p.resource.array_mapping;
  k.resource.size_regf = p.resource.size_regf;
  k.resource.size_gbuf = p.resource.size_gbuf;  // filters_may_stay
  // What the NoC terms read: the memory nodes' count, pinning, and whether the ofmaps stay in
  // the processing region or go to memory (where the nests keep their partitions).
  k.resource.dram_region.dim = p.resource.dram_region.dim;
  k.resource.no_time_mux = p.resource.no_time_mux;
  if (p.resource.dst_data_region == p.resource.proc_region)
    k.resource.dst_data_region = k.resource.proc_region;
  else
    k.resource.dst_data_region.type = p.resource.dst_data_region.type;
  k.costs = p.costs;
  k.options = p.options;
  return problem_key(k, false);
}

RefetchBounds::RefetchBounds() = default;
RefetchBounds::~RefetchBounds() = default;

detail::FloorNests* RefetchBounds::nests(const LayerProblem& p) {
  auto [it, inserted] = known_.try_emplace(refetch_bound_key(p));
  if (inserted) {
    it->second = std::make_unique<detail::FloorNests>(collect_floor_nests(p));
    scoped_.add(layer_scope(p), it->first);
  }
  return it->second.get();
}

void RefetchBounds::release(const std::string& scope) { scoped_.erase_scope(scope, known_); }

RefetchBounds::Places RefetchBounds::places(const DataPlaces& d) {
  const auto [it, inserted] = places_.try_emplace(d, places_.size());
  return {it->second, &it->first};
}

RefetchBounds::Places RefetchBounds::places(const mapping::NodeRegion& proc,
                                            const std::vector<mapping::NodeRegion>& ifmap_regions,
                                            const mapping::NodeRegion& dst) {
  std::vector<std::int64_t> key;
  add_region(key, proc);
  add_region(key, dst);
  for (const auto& r : ifmap_regions) add_region(key, r);
  const auto it = by_regions_.find(key);
  if (it != by_regions_.end()) return it->second;
  return by_regions_[key] = places(data_places(proc, ifmap_regions, dst));
}

RefetchFloor RefetchBounds::floor(detail::FloorNests* nests, const LayerProblem& p, Places places,
                                  bool reads) {
  const auto top = top_factors(p);
  const std::array<std::int64_t, 5> k{top[LoopDim::Ifm], top[LoopDim::Ofm], top[LoopDim::Bat],
                                      static_cast<std::int64_t>(places.id), reads ? 1 : 0};
  auto [it, inserted] = nests->floors.try_emplace(k);
  if (inserted) it->second = evaluate_floor(*nests, p, *places.places, reads);
  return it->second;
}

RefetchFloor RefetchBounds::operator()(const LayerProblem& p) {
  return floor(nests(p), p, places(data_places(p)));
}

}  // namespace kapla::pricing
