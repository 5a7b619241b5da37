// The fixed part of an emitted layer program (emit/layer_program.cpp fills in the constants and
// writes the loop nest in the scheme's order). Kept as one raw string so that what a user reads
// in the emitted file is what is written here.
#pragma once

namespace kapla::emit::detail {

// Text before the constants.
inline constexpr const char* kProgramHead = R"(#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using i64 = std::int64_t;
constexpr int FIL = 0, IFM = 1, OFM = 2;  // data categories
const char* const CATEGORY[3] = {"FIL", "IFM", "OFM"};
)";

// Text after the constants, before the loop nest.
inline constexpr const char* kProgramCommon = R"(
constexpr i64 HI = (EH - 1) * UH + RH, WI = (EW - 1) * UW + RW;  // ifmap rows and columns

// A balanced split of n into k pieces: piece j's size (the first n % k pieces one longer).
constexpr i64 piece(i64 n, i64 k, i64 j) { return n / k + (j < n % k ? 1 : 0); }
constexpr i64 piece_begin(i64 n, i64 k, i64 j) { return j * (n / k) + (j < n % k ? j : n % k); }

// What the units [lo[l], hi[l]) of each loop hold: input channels (loop 0), output channels
// (loop 1), (sample, row fold) units (loop 2), and the ifmap words one channel of those units
// reads (a fold's rows with their halo) and the ofmap words one channel of them writes.
struct Span {
  i64 c = 0, m = 0, units = 0, bin = 0, bout = 0;
};
Span span_of(const i64* lo, const i64* hi) {
  Span s;
  for (i64 u = lo[0]; u < hi[0]; ++u) s.c += piece(C, CU, u);
  for (i64 u = lo[1]; u < hi[1]; ++u) s.m += piece(M, MU, u);
  s.units = hi[2] - lo[2];
  for (i64 u = lo[2]; u < hi[2]; ++u) {
    const i64 rows = piece(EH, FOLD_W, u % FOLD_W);
    s.bin += (RH + (rows - 1) * UH) * WI;
    s.bout += rows * EW;
  }
  return s;
}

std::vector<int> ifmap, filter;
std::vector<i64> ofmap, naive;
i64 macs = 0;
)";

// Conv and FC kernels: the loops of the nested-loop description are 0 = input-channel pieces,
// 1 = output-channel pieces, 2 = (sample, ofmap-row fold) pairs; RELATED[d][l]: whether category
// d's data depend on loop l. PASSES[d]: reads of d per unit pass (FOLD_H filter-row groups).
inline constexpr const char* kConvKernels = R"(
constexpr bool RELATED[3][3] = {{true, true, false}, {true, false, true}, {false, true, true}};
constexpr i64 PASSES[3] = {1, FOLD_H, FOLD_H};
constexpr i64 REGF_PER_MAC[3] = {1, 1, 2};  // a PE reads a weight and an input, updates a sum
constexpr i64 IFM_INPUTS = 1;  // ifmap words per word the model counts
constexpr i64 CIN = C;          // ifmap channels
constexpr i64 FILTER_WORDS = M * C * RH * RW;

// Words of category d in the units [lo[l], hi[l]) of each related loop l.
i64 tile_words(int d, const i64* lo, const i64* hi) {
  const Span s = span_of(lo, hi);
  if (d == FIL) return s.c * s.m * RH * RW;
  if (d == IFM) return s.c * s.bin;
  return s.m * s.bout;
}

// Words of category d that cross the array bus when the units [lo, hi) are fetched into REGF:
// per unit pass and folded filter-row group, every PE of the folded set gets a filter row, an
// ifmap row and its partial-sum row, for every replica of the PE set (REPL_I input channels x
// REPL_O output channels; a piece smaller than the replication leaves replicas idle for the
// category whose channels it lacks, and the model still counts their words).
i64 itcn_words(int d, const i64* lo, const i64* hi) {
  const Span s = span_of(lo, hi);
  if (d == FIL) return s.c * s.m * RW * PES * FOLD_H;
  if (d == IFM) return s.c * REPL_O * s.units * WI * PES * FOLD_H;
  return s.m * REPL_I * s.units * EW * PES * FOLD_H;
}

// One unit pass: input-channel piece ci, output-channel piece co, (sample, row fold) cb.
void unit_pass(i64 ci, i64 co, i64 cb) {
  const i64 n = cb / FOLD_W, f = cb % FOLD_W;
  const i64 c0 = piece_begin(C, CU, ci), c1 = c0 + piece(C, CU, ci);
  const i64 m0 = piece_begin(M, MU, co), m1 = m0 + piece(M, MU, co);
  const i64 r0 = piece_begin(EH, FOLD_W, f), r1 = r0 + piece(EH, FOLD_W, f);
  for (i64 m = m0; m < m1; ++m)
    for (i64 c = c0; c < c1; ++c)
      for (i64 r = r0; r < r1; ++r)
        for (i64 q = 0; q < EW; ++q) {
          i64 acc = 0;
          for (i64 fr = 0; fr < RH; ++fr)
            for (i64 fq = 0; fq < RW; ++fq)
              acc += static_cast<i64>(ifmap[((n * C + c) * HI + r * UH + fr) * WI + q * UW + fq]) *
                     filter[((m * C + c) * RH + fr) * RW + fq];
          ofmap[((n * M + m) * EH + r) * EW + q] += acc;
        }
  macs += (m1 - m0) * (c1 - c0) * (r1 - r0) * EW * RH * RW;
}

void naive_layer() {
  for (i64 n = 0; n < N; ++n)
    for (i64 m = 0; m < M; ++m)
      for (i64 r = 0; r < EH; ++r)
        for (i64 q = 0; q < EW; ++q) {
          i64 acc = 0;
          for (i64 c = 0; c < C; ++c)
            for (i64 fr = 0; fr < RH; ++fr)
              for (i64 fq = 0; fq < RW; ++fq)
                acc += static_cast<i64>(ifmap[((n * C + c) * HI + r * UH + fr) * WI + q * UW + fq]) *
                       filter[((m * C + c) * RH + fr) * RW + fq];
          naive[((n * M + m) * EH + r) * EW + q] = acc;
        }
}

)";

// Depthwise kernels: one filter per channel; loops 0 = one input piece (the NLD's IFM loop count
// is 1: the channels are the OFM loop's), 1 = channel pieces, 2 = (sample, ofmap-row fold) pairs.
// The unit pass reads like Conv's (a filter once, ifmap and ofmap FOLD_H times).
inline constexpr const char* kDepthwiseKernels = R"(
constexpr bool RELATED[3][3] = {{false, true, false}, {false, true, true}, {false, true, true}};
constexpr i64 PASSES[3] = {1, FOLD_H, FOLD_H};
constexpr i64 REGF_PER_MAC[3] = {1, 1, 2};  // a PE reads a weight and an input, updates a sum
constexpr i64 IFM_INPUTS = 1;
constexpr i64 CIN = M;  // input channel m feeds output channel m only
constexpr i64 FILTER_WORDS = M * RH * RW;

i64 tile_words(int d, const i64* lo, const i64* hi) {
  const Span s = span_of(lo, hi);
  if (d == FIL) return s.m * RH * RW;
  if (d == IFM) return s.m * s.bin;
  return s.m * s.bout;
}

// Array-bus words, as Conv's with one channel per replica (the replicas are channels).
i64 itcn_words(int d, const i64* lo, const i64* hi) {
  const Span s = span_of(lo, hi);
  if (d == FIL) return s.m * RW * PES * FOLD_H;
  return s.m * s.units * (d == IFM ? WI : EW) * PES * FOLD_H;
}

constexpr i64 MACS_PER_OUTPUT = RH * RW;
i64 output_at(i64 n, i64 m, i64 r, i64 q) {
  i64 acc = 0;
  for (i64 fr = 0; fr < RH; ++fr)
    for (i64 fq = 0; fq < RW; ++fq)
      acc += static_cast<i64>(ifmap[((n * M + m) * HI + r * UH + fr) * WI + q * UW + fq]) *
             filter[(m * RH + fr) * RW + fq];
  return acc;
}
)";

// The unit pass and the naive layer of the channel-wise kinds (depthwise, local regions): each
// output channel m reads only its own inputs (output_at, MACS_PER_OUTPUT of the kind).
inline constexpr const char* kChannelwisePass = R"(
void unit_pass(i64 ci, i64 co, i64 cb) {
  (void)ci;
  const i64 n = cb / FOLD_W, f = cb % FOLD_W;
  const i64 m0 = piece_begin(M, MU, co), m1 = m0 + piece(M, MU, co);
  const i64 r0 = piece_begin(EH, FOLD_W, f), r1 = r0 + piece(EH, FOLD_W, f);
  for (i64 m = m0; m < m1; ++m)
    for (i64 r = r0; r < r1; ++r)
      for (i64 q = 0; q < EW; ++q) ofmap[((n * M + m) * EH + r) * EW + q] += output_at(n, m, r, q);
  macs += (m1 - m0) * (r1 - r0) * EW * MACS_PER_OUTPUT;
}

void naive_layer() {
  for (i64 n = 0; n < N; ++n)
    for (i64 m = 0; m < M; ++m)
      for (i64 r = 0; r < EH; ++r)
        for (i64 q = 0; q < EW; ++q) naive[((n * M + m) * EH + r) * EW + q] = output_at(n, m, r, q);
}
)";

// Local-region kernels (pooling, element-wise): no filter; loops 0 = one input piece (the NLD's
// IFM loop count is 1), 1 = channel pieces, 2 = (sample, ofmap-row fold) pairs. Sums (integers,
// so exact): a pooling window's sum, or the sum of an element-wise layer's NREG inputs, which
// are its ifmap channels k, k + M, k + 2M, ... The model counts one input per output channel
// of an element-wise layer (nn_dataflow-spec.md §8.3: the partitioned layer drops ntrd), so
// the program divides its ifmap words by IFM_INPUTS = NREG before comparing.
inline constexpr const char* kLocalRegionKernels = R"(
constexpr bool RELATED[3][3] = {{false, false, false}, {false, true, true}, {false, true, true}};
constexpr i64 PASSES[3] = {1, 1, FOLD_H};
constexpr i64 REGF_PER_MAC[3] = {0, 1, 2};  // a PE reads an input and updates a sum
constexpr i64 IFM_INPUTS = ELTWISE ? NREG : 1;
constexpr i64 CIN = M * IFM_INPUTS;
constexpr i64 FILTER_WORDS = 0;

i64 tile_words(int d, const i64* lo, const i64* hi) {
  const Span s = span_of(lo, hi);
  if (d == FIL) return 0;
  if (d == IFM) return s.m * s.bin * IFM_INPUTS;
  return s.m * s.bout;
}

// Array-bus words: per unit pass an ifmap row to every PE of the folded set once (the model's
// local-region unit pass; one of an element-wise layer's inputs, as the model counts), and a
// partial-sum row per PE and folded row group.
i64 itcn_words(int d, const i64* lo, const i64* hi) {
  const Span s = span_of(lo, hi);
  if (d == FIL) return 0;
  if (d == IFM) return s.m * s.units * WI * PES;
  return s.m * s.units * EW * PES * FOLD_H;
}

constexpr i64 MACS_PER_OUTPUT = RH * RW * IFM_INPUTS;
i64 output_at(i64 n, i64 m, i64 r, i64 q) {
  i64 acc = 0;
  for (i64 j = 0; j < IFM_INPUTS; ++j)
    for (i64 fr = 0; fr < RH; ++fr)
      for (i64 fq = 0; fq < RW; ++fq)
        acc += ifmap[((n * CIN + j * M + m) * HI + r * UH + fr) * WI + q * UW + fq];
  return acc;
}
)";

// After the kernels: the buffers, the counters and main, before the loop nest.
inline constexpr const char* kProgramBody = R"(
// One category's buffer at one level: refilled whenever the tile it must hold changes. The
// read-modify-write category (OFM) reads a tile back only if it was filled before, and writes
// every tile it drains.
struct Buffer {
  int d = 0;
  bool rw = false;
  i64 key = -1;
  i64 words = 0;
  i64 max_words = 0;
  i64 fills = 0;
  double reads = 0, writes = 0;
  // The same moves in array-bus words (level 1 only: what crosses the bus into the PEs).
  i64 bus_words = 0;
  double bus = 0;
  std::vector<char> seen;
  void touch(i64 new_key, i64 tile, i64 new_words, i64 new_bus_words) {
    if (new_key == key) return;
    drain();
    if (!rw || seen[static_cast<std::size_t>(tile)]) {
      reads += static_cast<double>(new_words);
      bus += static_cast<double>(new_bus_words);
    }
    if (rw) seen[static_cast<std::size_t>(tile)] = 1;
    key = new_key;
    words = new_words;
    bus_words = new_bus_words;
    ++fills;
    if (new_words > max_words) max_words = new_words;
  }
  void drain() {
    if (key >= 0 && rw) {
      writes += static_cast<double>(words);
      bus += static_cast<double>(bus_words);
    }
  }
};

Buffer buffers[2][3];  // [level: 0 = DRAM -> GBUF, 1 = GBUF -> REGF][category]

// Called once per level-1 iteration (the level-2 loops run inside REGF): every buffer checks
// whether its tile changed.
void visit(const i64* x0, const i64* x1) {
  for (int d = 0; d < 3; ++d) {
    for (int bl = 0; bl < 2; ++bl) {
      i64 lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, key = 0, tile = 0;
      for (int l = 0; l < 3; ++l) {
        const i64 span = bl == 0 ? T[1][l] * T[2][l] : T[2][l];
        const i64 idx = bl == 0 ? x0[l] : x0[l] * T[1][l] + x1[l];
        const i64 cnt = bl == 0 ? T[0][l] : T[0][l] * T[1][l];
        if (RELATED[d][l]) {
          lo[l] = idx * span;
          hi[l] = lo[l] + span;
          tile = tile * cnt + idx;
          key = key * cnt + idx;
        } else if (bl == 1 && !REGF_REUSABLE[d]) {
          key = key * cnt + idx;  // the KAPLA fork: this REGF copy does not survive other loops
        }
      }
      buffers[bl][d].touch(key, tile, tile_words(d, lo, hi), bl == 1 ? itcn_words(d, lo, hi) : 0);
    }
  }
}

bool close(double counted, double model) {
  return std::fabs(counted - model) <= 1e-9 * std::fmax(std::fabs(counted), std::fabs(model));
}

}  // namespace

int main(int argc, char** argv) {
  const bool compute = !(argc > 1 && std::strcmp(argv[1], "--count-only") == 0);
  if (compute) {
    std::uint64_t s = 1;  // a fixed LCG: the same data on every run
    auto next = [&s] {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      return static_cast<int>((s >> 33) % 16) - 8;
    };
    ifmap.resize(static_cast<std::size_t>(N * CIN * HI * WI));
    filter.resize(static_cast<std::size_t>(FILTER_WORDS));
    for (auto& v : ifmap) v = next();
    for (auto& v : filter) v = next();
    ofmap.assign(static_cast<std::size_t>(N * M * EH * EW), 0);
    naive.assign(ofmap.size(), 0);
  }
  for (int bl = 0; bl < 2; ++bl)
    for (int d = 0; d < 3; ++d) {
      Buffer& b = buffers[bl][d];
      b.d = d;
      b.rw = d == OFM;
      i64 tiles = 1;
      for (int l = 0; l < 3; ++l)
        if (RELATED[d][l]) tiles *= bl == 0 ? T[0][l] : T[0][l] * T[1][l];
      b.seen.assign(static_cast<std::size_t>(tiles), 0);
    }
  i64 x0[3], x1[3], x2[3];
)";

// Text after the loop nest.
inline constexpr const char* kProgramTail = R"(
  for (auto& level : buffers)
    for (auto& b : level) b.drain();

  bool ok = true;
  // DRAM: a GBUF-stored category crosses at level 0; a bypassed one goes DRAM -> REGF at level
  // 1, PASSES times like a GBUF read. GBUF: reads toward the array (level 1) of stored
  // categories, PASSES times per unit pass (the folded filter-row groups).
  for (int d = 0; d < 3; ++d) {
    const double passes = static_cast<double>(PASSES[d]);
    // Words the model counts: an element-wise layer's ifmap words over its inputs (see kernels).
    const double share = d == IFM ? 1.0 / static_cast<double>(IFM_INPUTS) : 1.0;
    const Buffer& b0 = buffers[0][d];
    const Buffer& b1 = buffers[1][d];
    double dram = (STORED[d] ? b0.reads + b0.writes : (b1.reads + b1.writes) * passes) * share;
    // A pinned filter is loaded once before the layer and stays (no_time_mux): not this layer's.
    if (d == FIL && FILTER_PINNED) dram = 0;
    const double gbuf = STORED[d] ? (b1.reads + b1.writes) * passes * share : 0.0;
    const double itcn = b1.bus;
    const bool dram_ok = close(dram, MODEL_DRAM[d]), gbuf_ok = close(gbuf, MODEL_GBUF[d]);
    const bool itcn_ok = close(itcn, MODEL_ITCN[d]);
    std::printf("DRAM %s counted=%.17g model=%.17g%s\n", CATEGORY[d], dram, MODEL_DRAM[d],
                dram_ok ? "" : "  MISMATCH");
    std::printf("GBUF %s counted=%.17g model=%.17g%s\n", CATEGORY[d], gbuf, MODEL_GBUF[d],
                gbuf_ok ? "" : "  MISMATCH");
    std::printf("ITCN %s counted=%.17g model=%.17g%s\n", CATEGORY[d], itcn, MODEL_ITCN[d],
                itcn_ok ? "" : "  MISMATCH");
    ok = ok && dram_ok && gbuf_ok && itcn_ok;
    // Buffers as the model sizes them: the largest tile must fit (GBUF: this node's share of
    // a sharing group holds 1/SUBGROUP of it).
    const double cap = MODEL_GBUF_WORDS[d] * static_cast<double>(SUBGROUP[d]);
    const bool fits = !STORED[d] || static_cast<double>(b0.max_words) * share <= cap;
    std::printf("FIT GBUF %s largest_tile=%lld model_size=%.17g%s\n", CATEGORY[d],
                static_cast<long long>(STORED[d] ? b0.max_words : 0), STORED[d] ? cap : 0.0,
                fits ? "" : "  OVERFLOW");
    ok = ok && fits;
  }
  if (IFM_INPUTS > 1)
    std::printf("NOTE IFM counted / %lld: the model counts one of the %lld inputs per channel\n",
                static_cast<long long>(IFM_INPUTS), static_cast<long long>(IFM_INPUTS));
  if (compute) {
    naive_layer();
    i64 sum = 0;
    for (auto v : ofmap) sum += v;
    const bool same = ofmap == naive;
    const bool macs_ok = close(static_cast<double>(macs) * OCCUPANCY, MODEL_OPS);
    std::printf("MACS counted=%lld model=%.17g (x occupancy %.17g)%s\n",
                static_cast<long long>(macs), MODEL_OPS, OCCUPANCY, macs_ok ? "" : "  MISMATCH");
    std::printf("OUTPUT checksum=%lld %s\n", static_cast<long long>(sum),
                same ? "equals the naive loop nest" : "DIFFERS from the naive loop nest");
    ok = ok && same && macs_ok;
    // REGF: the accesses every MAC makes in its PE, for the ceil piece scaled by occupancy.
    for (int d = 0; d < 3; ++d) {
      const double regf = static_cast<double>(macs * REGF_PER_MAC[d]) * OCCUPANCY;
      const bool regf_ok = close(regf, MODEL_REGF[d]);
      std::printf("REGF %s counted=%.17g model=%.17g%s\n", CATEGORY[d], regf, MODEL_REGF[d],
                  regf_ok ? "" : "  MISMATCH");
      ok = ok && regf_ok;
    }
  }
  std::printf("%s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
)";

}  // namespace kapla::emit::detail
