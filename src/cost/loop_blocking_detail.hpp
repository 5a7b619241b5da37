// Internals of the loop-blocking evaluation shared by loop_blocking.cpp and
// loop_blocking_bufshr.cpp: Python-exact arithmetic helpers and loop-structure queries.
// Spec: nn_dataflow-spec.md §1.3, §7.2-7.3, §8.9.3.
#pragma once

#include <cmath>
#include <cstdint>

#include "cost/loop_blocking.hpp"

namespace kapla::cost::detail {

/// Python's float floor division x // y (CPython _float_div_mod), exact for integral values.
inline double py_floordiv(double vx, double wx) {
  // Positive whole numbers below 2^53 (nearly every call): the integer quotient is the same
  // value, without fmod's cost (~3 % of K's time).
  constexpr double kExact = 9007199254740992.0;  // 2^53
  if (vx >= 1 && vx < kExact && wx >= 1 && wx < kExact && vx == std::floor(vx) &&
      wx == std::floor(wx))
    return static_cast<double>(static_cast<std::int64_t>(vx) / static_cast<std::int64_t>(wx));
  double mod = std::fmod(vx, wx);
  double div = (vx - mod) / wx;
  if (mod != 0) {
    if ((wx < 0) != (mod < 0)) div -= 1.0;
  }
  if (div != 0) {
    double fl = std::floor(div);
    if (div - fl > 0.5) fl += 1.0;
    return fl;
  }
  return std::copysign(0.0, vx / wx);
}

/// nn_dataflow util.idivc(x, y) for a (possibly fractional) x and a positive integer y.
inline double py_idivc(double x, std::int64_t y) {
  if (y == 1) return py_floordiv((x + 1) - 1, 1.0);
  const double yd = static_cast<double>(y);
  return py_floordiv((x + yd) - 1, yd);
}

/// Π_{from <= k < to} bl_ts[k][l] (the reference's _bl_tp(slice(from, to))[l]).
inline std::int64_t bl_tp(const LoopBlocking& b, LoopDim l, int from, int to) {
  std::int64_t p = 1;
  for (int k = from; k < to; ++k) p *= b.bl_ts[static_cast<std::size_t>(k)][l];
  return p;
}

constexpr int kNoLoop = -1;

/// The innermost non-trivial loop among `loops` at one level (smallest order with factor > 1),
/// or kNoLoop (§7.3 inn(d, bl)).
inline int innt_dim_loop(mapping::LoopSet loops, const PerLoopDim<std::int64_t>& t,
                         const PerLoopDim<int>& ord) {
  int best = kNoLoop;
  for (auto l : all_values<LoopDim>()) {
    if (!loops.contains(l) || t[l] <= 1) continue;
    if (best == kNoLoop || ord[l] < ord[static_cast<LoopDim>(best)]) best = static_cast<int>(l);
  }
  return best;
}

/// data_size(bl, d) (§7.2) with the current storage flags and sharing subgroups.
inline double data_size(const LoopBlockingEval& ev, const NestedLoopDesc& nld, int bl,
                        DataCategory d) {
  if (bl == 1) return static_cast<double>(ev.unit_cnt[1][d]) * nld.usize_regf[d];
  double s = static_cast<double>(ev.unit_cnt[0][d]) * nld.usize_gbuf[d];
  s = s * (ev.stored_in_gbuf[d] ? 1.0 : 0.0);
  return py_idivc(s, ev.bufshr.subgrp_size[d]);
}
inline double data_size(const LoopBlockingEval& ev, const NestedLoopDesc& nld, int bl) {
  double s = 0;
  for (auto d : all_values<DataCategory>()) s += data_size(ev, nld, bl, d);
  return s;
}

/// How apply_bufshr walks its sweep. Both choose the same scheme; Plain prices every candidate
/// from scratch in the reference's order and is kept as the tests' oracle for Fast.
enum class SweepMode { Fast, Plain };

/// Buffer sharing (§8.9.3): sweeps the sharing schemes of a valid scheme whose fetch counts and
/// storage flags are final, and sets ev.bufshr, ev.blocking.bl_ords[1] and the NoC accesses'
/// per-category factors. Requires options.hw_gbuf_sharing.
void apply_bufshr(LoopBlockingEval& ev, const NestedLoopDesc& nld,
                  const mapping::Resource& resource, const mapping::BufShrScheme& bufshr,
                  SweepMode mode = SweepMode::Fast);

/// The order CPython 3.11 iterates a set built by inserting `n` distinct 3-tuples of small
/// non-negative ints in the given order: writes the permutation of indices into `order`.
/// (The reference builds its sharing-subgroup candidates with set(); the order decides ties.)
void py_set_order(const std::int64_t (*tuples)[3], int n, int* order);

}  // namespace kapla::cost::detail
