// Buffer sharing inside a loop-blocking scheme (nn_dataflow LoopBlockingScheme._set_bufshr):
// choose the sharing subgroups, the extra blocking level between DRAM and GBUF and the GBUF-level
// order that minimise the rotation + wide-fetch NoC traffic, without changing any fetch count.
// Allocation-free: every list is a small fixed array. Spec: nn_dataflow-spec.md §8.9.2-8.9.3.
#include <array>
#include <cstdint>
#include <limits>

#include "core/errors.hpp"
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

struct Candidate {
  PerDataCategory<std::int64_t> subgrp{};
  PerLoopDim<std::int64_t> t_bs{};
  LoopList loops_bs;
  LoopList loops_bot;
  /// Per category, the rotation geometry of subgrp (computed once per subgroup candidate).
  PerDataCategory<mapping::BufShrScheme::RotationPath> paths{};
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
};

/// _calc_bufshr_fetch.
FetchStats calc_fetch(const Context& c, const Candidate& cand) {
  std::array<LoopT, 9> lp{};
  int nlp = 0;
  for (int i = 0; i < cand.loops_bs.n; ++i) {
    const int l = cand.loops_bs.v[static_cast<std::size_t>(i)];
    const auto t = cand.t_bs[static_cast<LoopDim>(l)];
    if (t > 1) lp[static_cast<std::size_t>(nlp++)] = {l, t};
  }
  for (int i = 0; i < cand.loops_bot.n; ++i) {
    const int l = cand.loops_bot.v[static_cast<std::size_t>(i)];
    const auto tx = c.t_x[static_cast<LoopDim>(l)];
    const auto tb = cand.t_bs[static_cast<LoopDim>(l)];
    if (tx > tb) lp[static_cast<std::size_t>(nlp++)] = {l, (tx + tb - 1) / tb};
  }
  for (int i = 0; i < c.fixed.n; ++i) {
    const int l = c.fixed.v[static_cast<std::size_t>(i)];
    lp[static_cast<std::size_t>(nlp++)] = {l, c.t_x[static_cast<LoopDim>(l)]};
  }
  FetchStats s;
  for (auto d : all_values<DataCategory>()) {
    const std::int64_t buf_fetch = c.ev.fetch[1][d];
    const std::int64_t mem_fetch = c.ev.fetch[0][d];
    const bool rw = d == c.nld.rw_data;
    const auto& dl = c.nld.data_loops[d];
    int idx = -1;
    for (int i = 0; i < nlp; ++i)
      if (dl.contains(static_cast<LoopDim>(lp[static_cast<std::size_t>(i)].loop))) {
        idx = i;
        break;
      }
    const std::int64_t sg = cand.subgrp[d];
    // Rotation rounds: unrelated factors above the outermost dimension loop.
    std::int64_t rot = 1;
    if (idx < 0 || sg == 1) {
      rot = 0;
    } else {
      for (auto l : all_values<LoopDim>())
        if (!dl.contains(l)) rot *= c.ev.blocking.bl_ts[0][l];
      for (int i = 0; i < idx; ++i) rot *= lp[static_cast<std::size_t>(i)].t;
    }
    // A single rotation per GBUF fill is streamed instead.
    if (rot == (rw ? (mem_fetch + 1) / 2 : mem_fetch)) rot = 0;
    s.rot_rnd[d] = rot;
    std::int64_t units = 1;
    if (idx >= 0)
      for (int i = idx;
           i < nlp && dl.contains(static_cast<LoopDim>(lp[static_cast<std::size_t>(i)].loop)); ++i)
        units *= lp[static_cast<std::size_t>(i)].t;
    s.rot_unit[d] = units;
    const double width = 1. * static_cast<double>(sg) / static_cast<double>(units);
    s.width[d] = width;
    const auto& path = cand.paths[d];
    const double wf_once = c.bufshr.nhops_wide_fetch_once(path, width);
    double comb;
    if (rw) {
      comb = static_cast<double>(buf_fetch > 2 * rot - 1 ? 2 * rot : 2 * rot - 1);
    } else {
      comb = static_cast<double>(rot);
    }
    comb *= 1. * static_cast<double>(units - 1) / static_cast<double>(units);
    s.wide_fetch[d] = wf_once * (static_cast<double>(buf_fetch) - comb);
    s.rot_fetch[d] =
        c.bufshr.nhops_rotate_all(path, static_cast<double>(units)) * static_cast<double>(rot);
  }
  return s;
}

double key_of(const Context& c, const FetchStats& s) {
  double rot = 0, wide = 0;
  for (auto d : all_values<DataCategory>()) rot += (c.tag[d] * s.rot_fetch[d]) * c.ngroups[d];
  for (auto d : all_values<DataCategory>()) wide += (c.tag[d] * s.wide_fetch[d]) * c.ngroups[d];
  return rot + wide;
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
                  const mapping::Resource& resource, const mapping::BufShrScheme& bufshr) {
  BufShrState& bs = ev.bufshr;
  // A bypassed category (nothing in GBUF) is not shared.
  for (auto d : all_values<DataCategory>())
    if (data_size(ev, nld, 0, d) == 0) bs.subgrp_size[d] = 1;
  bool any = false;
  for (auto d : all_values<DataCategory>()) any = any || bs.subgrp_size[d] != 1;
  if (!any) return;

  Context c{ev, nld, bufshr, {}, {}, {}, {}};
  c.t_x = ev.blocking.bl_ts[1];
  const auto& ord_x = ev.blocking.bl_ords[1];
  for (auto d : all_values<DataCategory>()) {
    c.tag[d] = nld.total_access_at_of(MemLevel::Gbuf, d);
    c.ngroups[d] = static_cast<double>(ev.num_nodes / bs.grp_size[d]);
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

  // Subgroup candidates: the current one, then the distinct shrunk ones in CPython set order.
  std::array<PerDataCategory<std::int64_t>, 7> cands{};
  int ncand = 0;
  cands[static_cast<std::size_t>(ncand++)] = bs.subgrp_size;
  {
    const double cur_total = data_size(ev, nld, 0);
    std::int64_t shrunk[6][3];
    int nshrunk = 0;
    for (int p = 0; p < 6; ++p) {
      double free_cap = static_cast<double>(resource.size_gbuf) - cur_total;
      PerDataCategory<std::int64_t> sgs = bs.subgrp_size;
      for (int k = 0; k < 3; ++k) {
        const auto d = static_cast<DataCategory>(
            kPerms[3].p[static_cast<std::size_t>(p)][static_cast<std::size_t>(k)]);
        if (sgs[d] <= 1) continue;
        const double cur = data_size(ev, nld, 0, d);
        const double tot = cur * static_cast<double>(bs.subgrp_size[d]);
        for (std::int64_t g = sgs[d]; g > 0; --g) {
          if (bs.grp_size[d] % g != 0) continue;
          if (py_idivc(tot, g) <= free_cap + cur)
            sgs[d] = g;
          else
            break;
        }
        free_cap -= py_idivc(tot, sgs[d]) - cur;
      }
      bool dup = false;
      for (int q = 0; q < nshrunk; ++q)
        dup = dup ||
              (shrunk[q][0] == sgs[DataCategory::Fil] && shrunk[q][1] == sgs[DataCategory::Ifm] &&
               shrunk[q][2] == sgs[DataCategory::Ofm]);
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
  }

  // Sweep: subgroups x BS-level factors (IFM outer) x BS-level orders x GBUF-level orders.
  PerLoopDim<std::int64_t> t_tot{{1, 1, 1}};
  for (int i = 0; i < flex.n; ++i) {
    const auto l = static_cast<LoopDim>(flex.v[static_cast<std::size_t>(i)]);
    t_tot[l] = c.t_x[l];
  }
  Candidate best;
  double best_key = std::numeric_limits<double>::infinity();
  bool have_best = false;
  std::int64_t num = 0;
  const Perms& bot_perms = kPerms[static_cast<std::size_t>(flex.n)];
  for (int ci = 0; ci < ncand; ++ci) {
    Candidate cand;
    cand.subgrp = cands[static_cast<std::size_t>(ci)];
    for (auto d : all_values<DataCategory>())
      cand.paths[d] = bufshr.rotation_path(d, cand.subgrp[d]);
    const auto TI = t_tot[LoopDim::Ifm], TO = t_tot[LoopDim::Ofm], TB = t_tot[LoopDim::Bat];
    for (std::int64_t ai = 1; ai <= TI; ++ai) {
      if (TI % ai) continue;
      for (std::int64_t ao = 1; ao <= TO; ++ao) {
        if (TO % ao) continue;
        for (std::int64_t ab = 1; ab <= TB; ++ab) {
          if (TB % ab) continue;
          cand.t_bs = {{ai, ao, ab}};
          LoopList triv, nontriv;
          for (int i = 0; i < flex.n; ++i) {
            const int l = flex.v[static_cast<std::size_t>(i)];
            if (cand.t_bs[static_cast<LoopDim>(l)] == 1)
              triv.push(l);
            else
              nontriv.push(l);
          }
          const Perms& nt_perms = kPerms[static_cast<std::size_t>(nontriv.n)];
          for (int pn = 0; pn < nt_perms.count; ++pn) {
            cand.loops_bs = triv;
            for (int i = 0; i < nontriv.n; ++i)
              cand.loops_bs.push(nontriv.v[static_cast<std::size_t>(
                  nt_perms.p[static_cast<std::size_t>(pn)][static_cast<std::size_t>(i)])]);
            for (int pb = 0; pb < bot_perms.count; ++pb) {
              cand.loops_bot = LoopList{};
              for (int i = 0; i < flex.n; ++i)
                cand.loops_bot.push(flex.v[static_cast<std::size_t>(
                    bot_perms.p[static_cast<std::size_t>(pb)][static_cast<std::size_t>(i)])]);
              ++num;
              const double key = key_of(c, calc_fetch(c, cand));
              if (!have_best || key < best_key) {
                best = cand;
                best_key = key;
                have_best = true;
              }
            }
          }
        }
      }
    }
  }
  KAPLA_ASSERT(have_best, "buffer sharing: empty sweep");

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
  const FetchStats s = calc_fetch(c, best);
  bs.rot_fetch = s.rot_fetch;
  bs.wide_fetch = s.wide_fetch;
  bs.rot_round_cnt = s.rot_rnd;
  bs.rot_unit_cnt = s.rot_unit;
  bs.wide_fetch_width = s.width;
}

}  // namespace kapla::cost::detail
