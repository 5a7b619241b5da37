// Buffer sharing inside a loop-blocking scheme (nn_dataflow LoopBlockingScheme._set_bufshr):
// choose the sharing subgroups, the extra blocking level between DRAM and GBUF and the GBUF-level
// order that minimise the rotation + wide-fetch NoC traffic, without changing any fetch count.
// Allocation-free: every list is a small fixed array. Spec: nn_dataflow-spec.md §8.9.2-8.9.3.
#include <array>
#include <cstdint>
#include <limits>

#include "core/errors.hpp"
#include "core/math.hpp"
#include "cost/loop_blocking_detail.hpp"

namespace kapla::cost::detail {
namespace {

/// All permutations of n <= 3 positions, lexicographic (itertools.permutations).
struct Perms {
  int count;
  std::array<std::array<int, 3>, 6> p;
};
constexpr std::array<Perms, 4> kPerms{{
    {1, {{{0, 0, 0}}}},
    {1, {{{0, 0, 0}}}},
    {2, {{{0, 1, 0}, {1, 0, 0}}}},
    {6, {{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}}},
}};

/// For n flex loops and a subset R of them (bit i = flex position i), the bottom-level orders
/// (indices into kPerms[n]) whose restriction to R no earlier order has. The loops outside R
/// have no bottom-level trips left (the BS level took them whole) and drop out of the effective
/// loop list, so an order that repeats an earlier restriction repeats that candidate's key; the
/// sweep keeps the first of equal keys, so it never wins and is not priced.
struct PermList {
  int count = 0;
  std::array<int, 6> idx{};
};
constexpr std::array<std::array<PermList, 8>, 4> make_first_perms() {
  std::array<std::array<PermList, 8>, 4> out{};
  for (int n = 0; n <= 3; ++n) {
    const Perms& ps = kPerms[static_cast<std::size_t>(n)];
    for (int mask = 0; mask < (1 << n); ++mask) {
      PermList& pl = out[static_cast<std::size_t>(n)][static_cast<std::size_t>(mask)];
      std::array<std::array<int, 3>, 6> seen{};
      for (int p = 0; p < ps.count; ++p) {
        std::array<int, 3> r{-1, -1, -1};
        int k = 0;
        for (int i = 0; i < n; ++i) {
          const int e = ps.p[static_cast<std::size_t>(p)][static_cast<std::size_t>(i)];
          if ((mask >> e) & 1) r[static_cast<std::size_t>(k++)] = e;
        }
        bool repeat = false;
        for (int q = 0; q < pl.count; ++q)
          repeat = repeat || seen[static_cast<std::size_t>(q)] == r;
        if (repeat) continue;
        seen[static_cast<std::size_t>(pl.count)] = r;
        pl.idx[static_cast<std::size_t>(pl.count++)] = p;
      }
    }
  }
  return out;
}
constexpr auto kFirstBotPerms = make_first_perms();

struct LoopT {
  int loop;
  std::int64_t t;
};

/// A small ordered list of loops.
struct LoopList {
  std::array<int, 3> v{};
  int n = 0;
  void push(int l) { v[static_cast<std::size_t>(n++)] = l; }
};

/// One point of the sweep: subgroups, BS-level factors and order, GBUF-level order.
struct Candidate {
  PerDataCategory<std::int64_t> subgrp{};
  PerLoopDim<std::int64_t> t_bs{};
  LoopList loops_bs;
  LoopList loops_bot;
};

/// The effective loop list of a candidate, outer -> inner: the non-trivial BS-level loops, the
/// GBUF-level loops with trips left, the fixed loops (lp of _calc_bufshr_fetch).
struct EffLoops {
  std::array<LoopT, 9> v{};
  int n = 0;
};

/// Per category, what the effective loop list decides: the rotation rounds before the subgroup
/// rules (0 when no loop of the list is a data loop) and the rotation units.
struct LoopCounts {
  PerDataCategory<std::int64_t> rot_raw{};
  PerDataCategory<std::int64_t> units{};
};

/// The hop factors of one category's rotation path for a rotation unit count U: what the
/// fetch formulas take from (path, U) alone. Cached by U for the sweep's keys.
struct HopFactors {
  double rotate_all;  // nhops_rotate_all(path, U)
  double wide_once;   // nhops_wide_fetch_once(path, M / U)
  double comb_frac;   // (U - 1) / U
};

struct FetchStats {
  PerDataCategory<double> rot_fetch{};
  PerDataCategory<double> wide_fetch{};
  PerDataCategory<std::int64_t> rot_rnd{};
  PerDataCategory<std::int64_t> rot_unit{};
  PerDataCategory<double> width{};
};

struct Context {
  const LoopBlockingEval& ev;
  const NestedLoopDesc& nld;
  const mapping::BufShrScheme& bufshr;
  PerLoopDim<std::int64_t> t_x{};
  LoopList fixed;                     // outer -> inner
  PerDataCategory<double> tag{};      // total GBUF accesses per category
  PerDataCategory<double> ngroups{};  // num_nodes // grp_size
  // Fixed by the scheme, the same for every candidate:
  PerDataCategory<std::int64_t> unrelated{};   // Π bl_ts[0] over the loops d does not use
  PerDataCategory<std::int64_t> single_rot{};  // the rounds of one rotation per GBUF fill
};

EffLoops effective_loops(const Context& c, const PerLoopDim<std::int64_t>& t_bs,
                         const LoopList& loops_bs, const LoopList& loops_bot) {
  EffLoops lp;
  for (int i = 0; i < loops_bs.n; ++i) {
    const int l = loops_bs.v[static_cast<std::size_t>(i)];
    const auto t = t_bs[static_cast<LoopDim>(l)];
    if (t > 1) lp.v[static_cast<std::size_t>(lp.n++)] = {l, t};
  }
  for (int i = 0; i < loops_bot.n; ++i) {
    const int l = loops_bot.v[static_cast<std::size_t>(i)];
    const auto tx = c.t_x[static_cast<LoopDim>(l)];
    const auto tb = t_bs[static_cast<LoopDim>(l)];
    if (tx > tb) lp.v[static_cast<std::size_t>(lp.n++)] = {l, (tx + tb - 1) / tb};
  }
  for (int i = 0; i < c.fixed.n; ++i) {
    const int l = c.fixed.v[static_cast<std::size_t>(i)];
    lp.v[static_cast<std::size_t>(lp.n++)] = {l, c.t_x[static_cast<LoopDim>(l)]};
  }
  return lp;
}

LoopCounts loop_counts(const Context& c, const EffLoops& lp) {
  LoopCounts out;
  for (auto d : all_values<DataCategory>()) {
    const auto& dl = c.nld.data_loops[d];
    int idx = -1;
    for (int i = 0; i < lp.n; ++i)
      if (dl.contains(static_cast<LoopDim>(lp.v[static_cast<std::size_t>(i)].loop))) {
        idx = i;
        break;
      }
    // Rotation rounds: unrelated factors above the outermost dimension loop.
    std::int64_t rot = 0;
    std::int64_t units = 1;
    if (idx >= 0) {
      rot = c.unrelated[d];
      for (int i = 0; i < idx; ++i) rot *= lp.v[static_cast<std::size_t>(i)].t;
      for (int i = idx;
           i < lp.n && dl.contains(static_cast<LoopDim>(lp.v[static_cast<std::size_t>(i)].loop));
           ++i)
        units *= lp.v[static_cast<std::size_t>(i)].t;
    }
    out.rot_raw[d] = rot;
    out.units[d] = units;
  }
  return out;
}

/// The rotation rounds of d with subgroup sg: none unshared, and a single rotation per GBUF
/// fill is streamed instead.
std::int64_t rot_rounds(const Context& c, DataCategory d, const LoopCounts& lc, std::int64_t sg) {
  std::int64_t rot = sg == 1 ? 0 : lc.rot_raw[d];
  if (rot == c.single_rot[d]) rot = 0;
  return rot;
}

HopFactors hop_factors(const mapping::BufShrScheme& bufshr,
                       const mapping::BufShrScheme::RotationPath& path, std::int64_t units) {
  const double width = 1. * static_cast<double>(path.subgrp_size) / static_cast<double>(units);
  return {bufshr.nhops_rotate_all(path, static_cast<double>(units)),
          bufshr.nhops_wide_fetch_once(path, width),
          1. * static_cast<double>(units - 1) / static_cast<double>(units)};
}

/// One category's rotation and wide-fetch hops.
struct Hops {
  double rot_fetch;
  double wide_fetch;
};

/// Rotation and wide-fetch hops of d for `rot` rounds of `f`'s rotation units.
Hops fetch_hops(const Context& c, DataCategory d, std::int64_t rot, const HopFactors& f) {
  const std::int64_t buf_fetch = c.ev.fetch[1][d];
  double comb;
  if (d == c.nld.rw_data) {
    comb = static_cast<double>(buf_fetch > 2 * rot - 1 ? 2 * rot : 2 * rot - 1);
  } else {
    comb = static_cast<double>(rot);
  }
  comb *= f.comb_frac;
  return {f.rotate_all * static_cast<double>(rot),
          f.wide_once * (static_cast<double>(buf_fetch) - comb)};
}

/// One category's part of the sweep's key: its hops over all groups' GBUF accesses.
Hops key_terms(const Context& c, DataCategory d, const Hops& h) {
  return {(c.tag[d] * h.rot_fetch) * c.ngroups[d], (c.tag[d] * h.wide_fetch) * c.ngroups[d]};
}

/// The key: all rotation terms, then all wide-fetch terms, in category order.
double key_sum(const PerDataCategory<Hops>& terms) {
  double rot = 0, wide = 0;
  for (auto d : all_values<DataCategory>()) rot += terms[d].rot_fetch;
  for (auto d : all_values<DataCategory>()) wide += terms[d].wide_fetch;
  return rot + wide;
}

/// _calc_bufshr_fetch, every factor computed afresh.
FetchStats calc_fetch(const Context& c, const Candidate& cand,
                      const PerDataCategory<mapping::BufShrScheme::RotationPath>& paths) {
  const LoopCounts lc =
      loop_counts(c, effective_loops(c, cand.t_bs, cand.loops_bs, cand.loops_bot));
  FetchStats s;
  for (auto d : all_values<DataCategory>()) {
    const std::int64_t sg = cand.subgrp[d];
    const std::int64_t rot = rot_rounds(c, d, lc, sg);
    const std::int64_t units = lc.units[d];
    s.rot_rnd[d] = rot;
    s.rot_unit[d] = units;
    s.width[d] = 1. * static_cast<double>(sg) / static_cast<double>(units);
    const Hops h = fetch_hops(c, d, rot, hop_factors(c.bufshr, paths[d], units));
    s.rot_fetch[d] = h.rot_fetch;
    s.wide_fetch[d] = h.wide_fetch;
  }
  return s;
}

double key_of(const Context& c, const FetchStats& s) {
  PerDataCategory<Hops> terms;
  for (auto d : all_values<DataCategory>())
    terms[d] = key_terms(c, d, {s.rot_fetch[d], s.wide_fetch[d]});
  return key_sum(terms);
}

/// hop_factors of one rotation path, cached by the rotation unit count (a sweep sees a handful
/// of counts per path; past the capacity the factors are computed afresh). Set up by reset();
/// the entries are left uninitialised (the sweep sets up to 21 caches per scheme).
class HopFactorCache {
 public:
  void reset(const mapping::BufShrScheme& bufshr, const mapping::BufShrScheme::RotationPath& path) {
    bufshr_ = &bufshr;
    path_ = path;
    n_ = 0;
  }
  const mapping::BufShrScheme::RotationPath& path() const { return path_; }
  HopFactors get(std::int64_t units) {
    for (int i = 0; i < n_; ++i)
      if (units_[static_cast<std::size_t>(i)] == units) return f_[static_cast<std::size_t>(i)];
    const HopFactors f = hop_factors(*bufshr_, path_, units);
    if (n_ < kCapacity) {
      units_[static_cast<std::size_t>(n_)] = units;
      f_[static_cast<std::size_t>(n_++)] = f;
    }
    return f;
  }

 private:
  static constexpr int kCapacity = 8;
  const mapping::BufShrScheme* bufshr_;
  mapping::BufShrScheme::RotationPath path_;
  std::array<std::int64_t, kCapacity> units_;
  std::array<HopFactors, kCapacity> f_;
  int n_;
};

constexpr int kMaxCands = 7;  // the current subgroups + at most 6 shrunk ones

/// The best candidate of one subgroup candidate's part of the sweep.
struct SweepBest {
  bool have = false;
  double key = std::numeric_limits<double>::infinity();
  Candidate cand;
};

/// The sweep's winner and the rotation paths of its subgroups.
struct SweepResult {
  Candidate cand;
  PerDataCategory<mapping::BufShrScheme::RotationPath> paths;
};

/// Calls visit(t_bs, loops_bs) for the BS-level factors (IFM outer) and the BS-level orders of
/// the sweep, in the reference's order.
template <class Visit>
void for_each_bs_level(const LoopList& flex, const PerLoopDim<std::int64_t>& t_tot, Visit visit) {
  const auto TI = t_tot[LoopDim::Ifm], TO = t_tot[LoopDim::Ofm], TB = t_tot[LoopDim::Bat];
  for (std::int64_t ai = 1; ai <= TI; ++ai) {
    if (TI % ai) continue;
    for (std::int64_t ao = 1; ao <= TO; ++ao) {
      if (TO % ao) continue;
      for (std::int64_t ab = 1; ab <= TB; ++ab) {
        if (TB % ab) continue;
        const PerLoopDim<std::int64_t> t_bs{{ai, ao, ab}};
        LoopList triv, nontriv;
        for (int i = 0; i < flex.n; ++i) {
          const int l = flex.v[static_cast<std::size_t>(i)];
          if (t_bs[static_cast<LoopDim>(l)] == 1)
            triv.push(l);
          else
            nontriv.push(l);
        }
        const Perms& nt_perms = kPerms[static_cast<std::size_t>(nontriv.n)];
        for (int pn = 0; pn < nt_perms.count; ++pn) {
          LoopList loops_bs = triv;
          for (int i = 0; i < nontriv.n; ++i)
            loops_bs.push(nontriv.v[static_cast<std::size_t>(
                nt_perms.p[static_cast<std::size_t>(pn)][static_cast<std::size_t>(i)])]);
          visit(t_bs, loops_bs);
        }
      }
    }
  }
}

LoopList permuted(const LoopList& flex, int perm) {
  LoopList out;
  const Perms& ps = kPerms[static_cast<std::size_t>(flex.n)];
  for (int i = 0; i < flex.n; ++i)
    out.push(flex.v[static_cast<std::size_t>(
        ps.p[static_cast<std::size_t>(perm)][static_cast<std::size_t>(i)])]);
  return out;
}

/// The reference's sweep as written: subgroups x BS-level factors x BS-level orders x GBUF-level
/// orders, every candidate priced from scratch, the first of equal keys kept.
SweepResult sweep_plain(const Context& c, const LoopList& flex,
                        const PerLoopDim<std::int64_t>& t_tot,
                        const std::array<PerDataCategory<std::int64_t>, kMaxCands>& cands,
                        int ncand, std::int64_t& num) {
  SweepBest best;
  SweepResult out;
  const Perms& bot_perms = kPerms[static_cast<std::size_t>(flex.n)];
  for (int ci = 0; ci < ncand; ++ci) {
    Candidate cand;
    cand.subgrp = cands[static_cast<std::size_t>(ci)];
    PerDataCategory<mapping::BufShrScheme::RotationPath> paths;
    for (auto d : all_values<DataCategory>()) paths[d] = c.bufshr.rotation_path(d, cand.subgrp[d]);
    for_each_bs_level(flex, t_tot, [&](const PerLoopDim<std::int64_t>& t_bs, const LoopList& bs) {
      cand.t_bs = t_bs;
      cand.loops_bs = bs;
      for (int pb = 0; pb < bot_perms.count; ++pb) {
        cand.loops_bot = permuted(flex, pb);
        ++num;
        const double key = key_of(c, calc_fetch(c, cand, paths));
        if (!best.have || key < best.key) {
          best.cand = cand;
          best.key = key;
          best.have = true;
          out.paths = paths;
        }
      }
    });
  }
  KAPLA_ASSERT(best.have, "buffer sharing: empty sweep");
  out.cand = best.cand;
  return out;
}

/// The same sweep, the same winner, for less: each distinct effective loop list is built and
/// counted once for all subgroup candidates (the loop over them innermost, a best kept per
/// subgroup candidate, merged in their order below), GBUF-level orders that repeat an earlier
/// candidate's loop list are skipped (kFirstBotPerms), and the key terms are computed once per
/// distinct (category, subgroup) with hop factors from a cache. Equivalent to sweep_plain: the
/// plain scan keeps the first candidate of the smallest key, which is the first subgroup
/// candidate's best unless a later one's best is strictly smaller (a NaN or +inf key never replaces
/// one, in either scan).
SweepResult sweep_fast(const Context& c, const LoopList& flex,
                       const PerLoopDim<std::int64_t>& t_tot,
                       const std::array<PerDataCategory<std::int64_t>, kMaxCands>& cands, int ncand,
                       std::int64_t& num) {
  // One hop-factor cache per distinct (category, subgroup size).
  std::array<HopFactorCache, kMaxCands * 3> caches;
  int ncache = 0;
  std::array<PerDataCategory<int>, kMaxCands> slot{};
  for (int ci = 0; ci < ncand; ++ci) {
    for (auto d : all_values<DataCategory>()) {
      const std::int64_t sg = cands[static_cast<std::size_t>(ci)][d];
      int found = -1;
      for (int k = 0; k < ncache && found < 0; ++k) {
        const auto& p = caches[static_cast<std::size_t>(k)].path();
        if (p.d == d && p.subgrp_size == sg) found = k;
      }
      if (found < 0) {
        found = ncache++;
        caches[static_cast<std::size_t>(found)].reset(c.bufshr, c.bufshr.rotation_path(d, sg));
      }
      slot[static_cast<std::size_t>(ci)][d] = found;
    }
  }
  std::array<SweepBest, kMaxCands> best;
  const Perms& bot_perms = kPerms[static_cast<std::size_t>(flex.n)];
  for_each_bs_level(flex, t_tot, [&](const PerLoopDim<std::int64_t>& t_bs, const LoopList& bs) {
    num += static_cast<std::int64_t>(ncand) * bot_perms.count;
    // Flex loops with GBUF-level trips left after the BS level.
    int mask = 0;
    for (int i = 0; i < flex.n; ++i) {
      const auto l = static_cast<LoopDim>(flex.v[static_cast<std::size_t>(i)]);
      if (c.t_x[l] > t_bs[l]) mask |= 1 << i;
    }
    const PermList& pbs =
        kFirstBotPerms[static_cast<std::size_t>(flex.n)][static_cast<std::size_t>(mask)];
    for (int k = 0; k < pbs.count; ++k) {
      const LoopList bot = permuted(flex, pbs.idx[static_cast<std::size_t>(k)]);
      const LoopCounts lc = loop_counts(c, effective_loops(c, t_bs, bs, bot));
      // Each (category, subgroup)'s key terms once, then each subgroup candidate's sum.
      std::array<Hops, kMaxCands * 3> slot_terms;
      for (int j = 0; j < ncache; ++j) {
        auto& cache = caches[static_cast<std::size_t>(j)];
        const DataCategory d = cache.path().d;
        const std::int64_t rot = rot_rounds(c, d, lc, cache.path().subgrp_size);
        slot_terms[static_cast<std::size_t>(j)] =
            key_terms(c, d, fetch_hops(c, d, rot, cache.get(lc.units[d])));
      }
      for (int ci = 0; ci < ncand; ++ci) {
        const auto& sgs = cands[static_cast<std::size_t>(ci)];
        PerDataCategory<Hops> terms;
        for (auto d : all_values<DataCategory>())
          terms[d] = slot_terms[static_cast<std::size_t>(slot[static_cast<std::size_t>(ci)][d])];
        const double key = key_sum(terms);
        SweepBest& b = best[static_cast<std::size_t>(ci)];
        // The plain scan's first candidate is taken whatever its key.
        if ((ci == 0 && !b.have) || key < b.key) {
          b.cand = {sgs, t_bs, bs, bot};
          b.key = key;
          b.have = true;
        }
      }
    }
  });
  KAPLA_ASSERT(best[0].have, "buffer sharing: empty sweep");
  std::size_t win = 0;
  for (std::size_t ci = 1; ci < static_cast<std::size_t>(ncand); ++ci)
    if (best[ci].have && best[ci].key < best[win].key) win = ci;
  SweepResult out{best[win].cand, {}};
  for (auto d : all_values<DataCategory>())
    out.paths[d] = caches[static_cast<std::size_t>(slot[win][d])].path();
  return out;
}

/// The subgroup candidates of the sweep: the current subgroups, then the distinct ones that
/// shrinking them in each of the six category orders gives, in CPython set order. Shrinking a
/// category takes the smallest subgroup (a divisor of its group, scanned down from the current
/// one) down to which every one fits the GBUF space left. Returns the count. `memoize`: reuse
/// the shrinks the six orders repeat (off for the plain sweep).
int subgroup_candidates(const LoopBlockingEval& ev, const NestedLoopDesc& nld,
                        const mapping::Resource& resource, bool memoize,
                        std::array<PerDataCategory<std::int64_t>, kMaxCands>& cands) {
  const BufShrState& bs = ev.bufshr;
  int ncand = 0;
  cands[static_cast<std::size_t>(ncand++)] = bs.subgrp_size;
  // Each category's GBUF data now (per node) and over its subgroup; their sum as data_size sums.
  PerDataCategory<double> cur{}, tot{};
  double cur_total = 0;
  for (auto d : all_values<DataCategory>()) {
    cur[d] = data_size(ev, nld, 0, d);
    tot[d] = cur[d] * static_cast<double>(bs.subgrp_size[d]);
    cur_total += cur[d];
  }
  // A shrink depends only on (category, space left): the six orders repeat some (the first
  // category of two orders starts from the same space), so each result is kept.
  struct Shrink {
    DataCategory d;
    double free_cap;
    std::int64_t g;
    double grown;  // the extra space the shrunk subgroup takes
  };
  std::array<Shrink, 18> memo;
  int nmemo = 0;
  auto shrink = [&](DataCategory d, double free_cap) -> const Shrink& {
    for (int i = 0; memoize && i < nmemo; ++i) {
      const Shrink& m = memo[static_cast<std::size_t>(i)];
      if (m.d == d && m.free_cap == free_cap) return m;
    }
    std::int64_t g_fit = bs.subgrp_size[d];
    for_each_divisor_desc(bs.grp_size[d], [&](std::int64_t g) {
      if (g > bs.subgrp_size[d]) return true;
      if (!(py_idivc(tot[d], g) <= free_cap + cur[d])) return false;
      g_fit = g;
      return true;
    });
    Shrink& m = memo[static_cast<std::size_t>(nmemo++)];
    m = {d, free_cap, g_fit, py_idivc(tot[d], g_fit) - cur[d]};
    return m;
  };
  std::int64_t shrunk[6][3];
  int nshrunk = 0;
  for (int p = 0; p < 6; ++p) {
    double free_cap = static_cast<double>(resource.size_gbuf) - cur_total;
    PerDataCategory<std::int64_t> sgs = bs.subgrp_size;
    for (int k = 0; k < 3; ++k) {
      const auto d = static_cast<DataCategory>(
          kPerms[3].p[static_cast<std::size_t>(p)][static_cast<std::size_t>(k)]);
      if (sgs[d] <= 1) continue;
      const Shrink& m = shrink(d, free_cap);
      sgs[d] = m.g;
      free_cap -= m.grown;
    }
    bool dup = false;
    for (int q = 0; q < nshrunk; ++q)
      dup =
          dup || (shrunk[q][0] == sgs[DataCategory::Fil] &&
                  shrunk[q][1] == sgs[DataCategory::Ifm] && shrunk[q][2] == sgs[DataCategory::Ofm]);
    if (!dup) {
      shrunk[nshrunk][0] = sgs[DataCategory::Fil];
      shrunk[nshrunk][1] = sgs[DataCategory::Ifm];
      shrunk[nshrunk][2] = sgs[DataCategory::Ofm];
      ++nshrunk;
    }
  }
  int order[6];
  py_set_order(shrunk, nshrunk, order);
  for (int q = 0; q < nshrunk; ++q) {
    const auto* t = shrunk[order[q]];
    cands[static_cast<std::size_t>(ncand++)] = {{t[0], t[1], t[2]}};
  }
  return ncand;
}

}  // namespace

void py_set_order(const std::int64_t (*tuples)[3], int n, int* order) {
  // CPython 3.11: tuple hash (xxHash-based), set table of 8 slots (32 after the 5th insert),
  // linear probing of up to 9 slots when they fit, then perturbed probing.
  constexpr std::uint64_t P1 = 11400714785074694791ULL, P2 = 14029467366897019727ULL,
                          P5 = 2870177450012600261ULL;
  auto hash = [&](const std::int64_t* t) {
    std::uint64_t acc = P5;
    for (int i = 0; i < 3; ++i) {
      acc += static_cast<std::uint64_t>(t[i]) * P2;
      acc = (acc << 31) | (acc >> 33);
      acc *= P1;
    }
    acc += 3ULL ^ (P5 ^ 3527539ULL);
    if (acc == ~0ULL) acc = 1546275796ULL;
    return acc;
  };
  std::array<int, 32> table;
  auto insert = [&](std::size_t mask, int item) {
    const std::uint64_t h = hash(tuples[item]);
    std::uint64_t perturb = h;
    std::size_t i = static_cast<std::size_t>(h) & mask;
    while (true) {
      if (table[i] < 0) {
        table[i] = item;
        return;
      }
      if (i + 9 <= mask) {
        for (std::size_t j = 1; j <= 9; ++j)
          if (table[i + j] < 0) {
            table[i + j] = item;
            return;
          }
      }
      perturb >>= 5;
      i = (i * 5 + 1 + static_cast<std::size_t>(perturb)) & mask;
    }
  };
  table.fill(-1);
  std::size_t mask = 7;
  int used = 0;
  for (int k = 0; k < n; ++k) {
    insert(mask, k);
    ++used;
    if (mask == 7 && used * 5 >= static_cast<int>(mask) * 3) {
      // Resize to the smallest power of two > used * 4, re-inserting in table order.
      std::array<int, 8> old{};
      for (std::size_t s = 0; s < 8; ++s) old[s] = table[s];
      std::size_t newsize = 8;
      while (newsize <= static_cast<std::size_t>(used * 4)) newsize <<= 1;
      KAPLA_ASSERT(newsize <= table.size(), "py_set_order: too many entries");
      table.fill(-1);
      mask = newsize - 1;
      for (std::size_t s = 0; s < 8; ++s)
        if (old[s] >= 0) insert(mask, old[s]);
    }
  }
  int k = 0;
  for (std::size_t s = 0; s <= mask; ++s)
    if (table[s] >= 0) order[k++] = table[s];
}

void apply_bufshr(LoopBlockingEval& ev, const NestedLoopDesc& nld,
                  const mapping::Resource& resource, const mapping::BufShrScheme& bufshr,
                  SweepMode mode) {
  BufShrState& bs = ev.bufshr;
  // A bypassed category (nothing in GBUF) is not shared.
  for (auto d : all_values<DataCategory>())
    if (data_size(ev, nld, 0, d) == 0) bs.subgrp_size[d] = 1;
  bool any = false;
  for (auto d : all_values<DataCategory>()) any = any || bs.subgrp_size[d] != 1;
  if (!any) return;

  Context c{ev, nld, bufshr, {}, {}, {}, {}, {}, {}};
  c.t_x = ev.blocking.bl_ts[1];
  const auto& ord_x = ev.blocking.bl_ords[1];
  for (auto d : all_values<DataCategory>()) {
    c.tag[d] = nld.total_access_at_of(MemLevel::Gbuf, d);
    c.ngroups[d] = static_cast<double>(ev.num_nodes / bs.grp_size[d]);
    c.unrelated[d] = 1;
    for (auto l : all_values<LoopDim>())
      if (!nld.data_loops[d].contains(l)) c.unrelated[d] *= ev.blocking.bl_ts[0][l];
    const std::int64_t mem_fetch = ev.fetch[0][d];
    c.single_rot[d] = d == nld.rw_data ? (mem_fetch + 1) / 2 : mem_fetch;
  }
  // The outermost of the categories' innermost non-trivial dimension loops: loops inside it
  // are fixed so that no fetch count changes.
  int oinn = kNoLoop;
  int oinn_key = -1;
  for (auto d : all_values<DataCategory>()) {
    const int inn = innt_dim_loop(nld.data_loops[d], c.t_x, ord_x);
    const int key = inn == kNoLoop ? -1 : ord_x[static_cast<LoopDim>(inn)];
    if (d == DataCategory::Fil || key > oinn_key) {
      oinn = inn;
      oinn_key = key;
    }
  }
  // fixed: non-trivial loops inside oinn, outer -> inner; flex: the other non-trivial loops.
  LoopList flex;
  for (int pos = 2; pos >= 0; --pos)
    for (auto l : all_values<LoopDim>())
      if (c.t_x[l] > 1 && ord_x[l] == pos && oinn != kNoLoop && pos < oinn_key)
        c.fixed.push(static_cast<int>(l));
  for (auto l : all_values<LoopDim>()) {
    if (c.t_x[l] <= 1) continue;
    bool is_fixed = false;
    for (int i = 0; i < c.fixed.n; ++i)
      is_fixed = is_fixed || c.fixed.v[static_cast<std::size_t>(i)] == static_cast<int>(l);
    if (!is_fixed) flex.push(static_cast<int>(l));
  }

  std::array<PerDataCategory<std::int64_t>, kMaxCands> cands{};
  const int ncand = subgroup_candidates(ev, nld, resource, mode == SweepMode::Fast, cands);

  // Sweep: subgroups x BS-level factors (IFM outer) x BS-level orders x GBUF-level orders.
  PerLoopDim<std::int64_t> t_tot{{1, 1, 1}};
  for (int i = 0; i < flex.n; ++i) {
    const auto l = static_cast<LoopDim>(flex.v[static_cast<std::size_t>(i)]);
    t_tot[l] = c.t_x[l];
  }
  std::int64_t num = 0;
  const SweepResult won = mode == SweepMode::Plain ? sweep_plain(c, flex, t_tot, cands, ncand, num)
                                                   : sweep_fast(c, flex, t_tot, cands, ncand, num);
  const Candidate& best = won.cand;

  bs.swept = true;
  bs.num_candidates = num;
  bs.subgrp_size = best.subgrp;
  // GBUF-level order: positions from the innermost of (bot + fixed), then the rest.
  PerLoopDim<int> new_ord{{-1, -1, -1}};
  int next = 0;
  for (int i = c.fixed.n - 1; i >= 0; --i)
    new_ord[static_cast<LoopDim>(c.fixed.v[static_cast<std::size_t>(i)])] = next++;
  for (int i = best.loops_bot.n - 1; i >= 0; --i)
    new_ord[static_cast<LoopDim>(best.loops_bot.v[static_cast<std::size_t>(i)])] = next++;
  for (auto l : all_values<LoopDim>())
    if (new_ord[l] < 0) new_ord[l] = next++;
  ev.ords_changed_by_bufshr = !(new_ord == ev.blocking.bl_ords[1]);
  ev.blocking.bl_ords[1] = new_ord;
  PerLoopDim<int> bs_ord{{-1, -1, -1}};
  next = 0;
  for (int i = best.loops_bs.n - 1; i >= 0; --i) {
    const auto l = static_cast<LoopDim>(best.loops_bs.v[static_cast<std::size_t>(i)]);
    if (best.t_bs[l] > 1) bs_ord[l] = next++;
  }
  for (auto l : all_values<LoopDim>())
    if (bs_ord[l] < 0) bs_ord[l] = next++;
  bs.bs_t = best.t_bs;
  bs.bs_ord = bs_ord;
  const FetchStats s = calc_fetch(c, best, won.paths);
  bs.rot_fetch = s.rot_fetch;
  bs.wide_fetch = s.wide_fetch;
  bs.rot_round_cnt = s.rot_rnd;
  bs.rot_unit_cnt = s.rot_unit;
  bs.wide_fetch_width = s.width;
}

}  // namespace kapla::cost::detail
