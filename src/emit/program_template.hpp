// The fixed part of an emitted layer program (emit/layer_program.cpp fills in the constants and
// writes the loop nest in the scheme's order). Kept as one raw string so that what a user reads
// in the emitted file is what is written here.
#pragma once

namespace kapla::emit::detail {

// Text before the constants.
inline constexpr const char* kProgramHead = R"(#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using i64 = std::int64_t;
constexpr int FIL = 0, IFM = 1, OFM = 2;  // data categories
const char* const CATEGORY[3] = {"FIL", "IFM", "OFM"};

// A node's piece of the layer: samples [n0, n1), input channels [c0, c1), output channels
// [m0, m1), ofmap rows [h0, h1) and columns [w0, w1) (a channel-wise kind: c = m).
struct Piece {
  i64 n0, n1, c0, c1, m0, m1, h0, h1, w0, w1;
  bool empty() const { return n1 <= n0 || c1 <= c0 || m1 <= m0 || h1 <= h0 || w1 <= w0; }
};
)";

// Text after the constants, before the loop nest.
inline constexpr const char* kProgramCommon = R"(
constexpr i64 HI = (EH - 1) * UH + RH, WI = (EW - 1) * UW + RW;  // the layer's ifmap rows, columns

// The trips of loop l's level-1 loop in its level-0 block b0, and of its level-2 loop in its
// level-1 block b1 (counted over the whole loop): T[1][l] and T[2][l], but fewer in the last
// block when the trip counts cover LOOPCNT[l] with a remainder (imperfect: full).
[[maybe_unused]] i64 trips1(int l, i64 b0) {
  return std::min(T[1][l], (LOOPCNT[l] + T[2][l] - 1) / T[2][l] - b0 * T[1][l]);
}
[[maybe_unused]] i64 trips2(int l, i64 b1) { return std::min(T[2][l], LOOPCNT[l] - b1 * T[2][l]); }

// A balanced split of n into k pieces: piece j's size (the first n % k pieces one longer).
constexpr i64 piece(i64 n, i64 k, i64 j) { return n / k + (j < n % k ? 1 : 0); }
constexpr i64 piece_begin(i64 n, i64 k, i64 j) { return j * (n / k) + (j < n % k ? j : n % k); }

// The node being run. Its loop nest is the ceil piece's (the same units and blocking on every
// node), over its own piece: its channels, samples and rows split into the same unit pieces.
Piece P = NODES[CEIL_NODE];
// Input-channel piece u and output-channel piece u (a channel-wise kind uses the latter only).
[[maybe_unused]] i64 c_begin(i64 u) { return P.c0 + piece_begin(P.c1 - P.c0, CU, u); }
i64 c_size(i64 u) { return piece(P.c1 - P.c0, CU, u); }
i64 m_begin(i64 u) { return P.m0 + piece_begin(P.m1 - P.m0, MU, u); }
i64 m_size(i64 u) { return piece(P.m1 - P.m0, MU, u); }
// The node's ifmap and ofmap row widths (a row-stationary unit holds all its columns; the
// systolic bus formula does not need them).
[[maybe_unused]] i64 node_wi() { return (P.w1 - P.w0 - 1) * UW + RW; }
[[maybe_unused]] i64 node_ew() { return P.w1 - P.w0; }

// A unit of the batch loop (loop 2): sample piece x ofmap-row piece x ofmap-column piece, in
// that order (NB x TH x TW units): samples [n0, n1), rows [r0, r1), columns [q0, q1).
struct BatchUnit {
  i64 n0 = 0, n1 = 0, r0 = 0, r1 = 0, q0 = 0, q1 = 0;
};
BatchUnit batch_unit(i64 u) {
  const i64 s = u / (TH * TW), th = u / TW % TH, tw = u % TW;
  BatchUnit b;
  b.n0 = P.n0 + piece_begin(P.n1 - P.n0, NB, s);
  b.n1 = b.n0 + piece(P.n1 - P.n0, NB, s);
  b.r0 = P.h0 + piece_begin(P.h1 - P.h0, TH, th);
  b.r1 = b.r0 + piece(P.h1 - P.h0, TH, th);
  b.q0 = P.w0 + piece_begin(P.w1 - P.w0, TW, tw);
  b.q1 = b.q0 + piece(P.w1 - P.w0, TW, tw);
  return b;
}

// What the units [lo[l], hi[l]) of each loop hold: input channels (loop 0), output channels
// (loop 1), batch units with a sample (loop 2; a node with fewer samples than the ceil piece
// has units without one, which hold nothing), and the ifmap words one channel of those units
// reads (each unit's samples x its rows and columns with their halo) and the ofmap words one
// channel of them writes. The halo is the model's linear one, R + (rows - 1) * U per piece,
// also for an empty piece (more pieces than rows; docs/emit.md).
struct Span {
  i64 c = 0, m = 0, units = 0, bin = 0, bout = 0;
};
Span span_of(const i64* lo, const i64* hi) {
  Span s;
  for (i64 u = lo[0]; u < hi[0]; ++u) s.c += c_size(u);
  for (i64 u = lo[1]; u < hi[1]; ++u) s.m += m_size(u);
  for (i64 u = lo[2]; u < hi[2]; ++u) {
    const BatchUnit b = batch_unit(u);
    if (b.n1 == b.n0) continue;
    ++s.units;
    const i64 rows = b.r1 - b.r0, cols = b.q1 - b.q0;
    s.bin += (b.n1 - b.n0) * (RH + (rows - 1) * UH) * (RW + (cols - 1) * UW);
    s.bout += (b.n1 - b.n0) * rows * cols;
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
constexpr bool CONV_KERNEL = true, HAS_FILTER = true;  // the PE array's kind (HLS target)

constexpr i64 ifmap_index(i64 n, i64 c, i64 row, i64 col) { return ((n * CIN + c) * HI + row) * WI + col; }
constexpr i64 filter_index(i64 m, i64 c, i64 fr, i64 fq) { return ((m * C + c) * RH + fr) * RW + fq; }

// Words of category d in the units [lo[l], hi[l]) of each related loop l.
i64 tile_words(int d, const i64* lo, const i64* hi) {
  const Span s = span_of(lo, hi);
  if (d == FIL) return s.c * s.m * RH * RW;
  if (d == IFM) return s.c * s.bin;
  return s.m * s.bout;
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
                acc += static_cast<i64>(ifmap[ifmap_index(n, c, r * UH + fr, q * UW + fq)]) *
                       filter[filter_index(m, c, fr, fq)];
          naive[((n * M + m) * EH + r) * EW + q] = acc;
        }
}
)";

// Conv's array-bus words by the row-stationary formula (loop-nest target).
inline constexpr const char* kConvBusFormula = R"(
// Words of category d that cross the array bus when the units [lo, hi) are fetched into REGF:
// per unit pass and folded filter-row group, every PE of the folded set gets a filter row, an
// ifmap row and its partial-sum row, for every replica of the PE set (REPL_I input channels x
// REPL_O output channels; a piece smaller than the replication leaves replicas idle for the
// category whose channels it lacks, and the model still counts their words).
i64 itcn_words(int d, const i64* lo, const i64* hi) {
  const Span s = span_of(lo, hi);
  if (d == FIL) return s.c * s.m * RW * PES * FOLD_H;
  if (d == IFM) return s.c * REPL_O * s.units * node_wi() * PES * FOLD_H;
  return s.m * REPL_I * s.units * node_ew() * PES * FOLD_H;
}
)";

// Conv's unit pass as a plain loop over its channels and rows (loop-nest target).
inline constexpr const char* kConvUnitPass = R"(
// One unit pass: input-channel piece ci, output-channel piece co, batch unit cb.
void unit_pass(i64 ci, i64 co, i64 cb) {
  const BatchUnit b = batch_unit(cb);
  const i64 c0 = c_begin(ci), c1 = c0 + c_size(ci);
  const i64 m0 = m_begin(co), m1 = m0 + m_size(co);
  for (i64 n = b.n0; n < b.n1; ++n)
    for (i64 m = m0; m < m1; ++m)
      for (i64 c = c0; c < c1; ++c)
        for (i64 r = b.r0; r < b.r1; ++r)
          for (i64 q = b.q0; q < b.q1; ++q) {
            i64 acc = 0;
            for (i64 fr = 0; fr < RH; ++fr)
              for (i64 fq = 0; fq < RW; ++fq)
                acc += static_cast<i64>(ifmap[ifmap_index(n, c, r * UH + fr, q * UW + fq)]) *
                       filter[filter_index(m, c, fr, fq)];
            ofmap[((n * M + m) * EH + r) * EW + q] += acc;
          }
  macs += (b.n1 - b.n0) * (m1 - m0) * (c1 - c0) * (b.r1 - b.r0) * (b.q1 - b.q0) * RH * RW;
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
constexpr bool CONV_KERNEL = false, HAS_FILTER = true;

constexpr i64 ifmap_index(i64 n, i64 c, i64 row, i64 col) { return ((n * CIN + c) * HI + row) * WI + col; }
constexpr i64 filter_index(i64 m, i64, i64 fr, i64 fq) { return (m * RH + fr) * RW + fq; }

i64 tile_words(int d, const i64* lo, const i64* hi) {
  const Span s = span_of(lo, hi);
  if (d == FIL) return s.m * RH * RW;
  if (d == IFM) return s.m * s.bin;
  return s.m * s.bout;
}

constexpr i64 MACS_PER_OUTPUT = RH * RW;
i64 output_at(i64 n, i64 m, i64 r, i64 q) {
  i64 acc = 0;
  for (i64 fr = 0; fr < RH; ++fr)
    for (i64 fq = 0; fq < RW; ++fq)
      acc += static_cast<i64>(ifmap[ifmap_index(n, m, r * UH + fr, q * UW + fq)]) *
             filter[filter_index(m, m, fr, fq)];
  return acc;
}
)";

// Depthwise array-bus words by formula (loop-nest target).
inline constexpr const char* kDepthwiseBusFormula = R"(
// Array-bus words, as Conv's with one channel per replica (the replicas are channels).
i64 itcn_words(int d, const i64* lo, const i64* hi) {
  const Span s = span_of(lo, hi);
  if (d == FIL) return s.m * RW * PES * FOLD_H;
  return s.m * s.units * (d == IFM ? node_wi() : node_ew()) * PES * FOLD_H;
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
constexpr bool CONV_KERNEL = false, HAS_FILTER = false;

constexpr i64 ifmap_index(i64 n, i64 c, i64 row, i64 col) { return ((n * CIN + c) * HI + row) * WI + col; }
constexpr i64 filter_index(i64, i64, i64, i64) { return 0; }

i64 tile_words(int d, const i64* lo, const i64* hi) {
  const Span s = span_of(lo, hi);
  if (d == FIL) return 0;
  if (d == IFM) return s.m * s.bin * IFM_INPUTS;
  return s.m * s.bout;
}

constexpr i64 MACS_PER_OUTPUT = RH * RW * IFM_INPUTS;
i64 output_at(i64 n, i64 m, i64 r, i64 q) {
  i64 acc = 0;
  for (i64 j = 0; j < IFM_INPUTS; ++j)
    for (i64 fr = 0; fr < RH; ++fr)
      for (i64 fq = 0; fq < RW; ++fq) acc += ifmap[ifmap_index(n, j * M + m, r * UH + fr, q * UW + fq)];
  return acc;
}
)";

// Local-region array-bus words by formula (loop-nest target).
inline constexpr const char* kLocalRegionBusFormula = R"(
// Array-bus words: per unit pass an ifmap row to every PE of the folded set once (the model's
// local-region unit pass; all IFM_INPUTS inputs of an element-wise layer, divided back like its
// other ifmap words), and a partial-sum row per PE and folded row group.
i64 itcn_words(int d, const i64* lo, const i64* hi) {
  const Span s = span_of(lo, hi);
  if (d == FIL) return 0;
  if (d == IFM) return s.m * s.units * node_wi() * PES * IFM_INPUTS;
  return s.m * s.units * node_ew() * PES * FOLD_H;
}
)";

// The systolic array's bus words (loop-nest target): a fill's words cross it once, as the
// model counts (its array-bus accesses are its GBUF accesses).
inline constexpr const char* kSystolicBusFormula = R"(
i64 itcn_words(int d, const i64* lo, const i64* hi) { return tile_words(d, lo, hi); }
)";

// The naive layer of the channel-wise kinds (depthwise, local regions): each output channel m
// reads only its own inputs (output_at, MACS_PER_OUTPUT of the kind).
inline constexpr const char* kChannelwiseNaive = R"(
void naive_layer() {
  for (i64 n = 0; n < N; ++n)
    for (i64 m = 0; m < M; ++m)
      for (i64 r = 0; r < EH; ++r)
        for (i64 q = 0; q < EW; ++q) naive[((n * M + m) * EH + r) * EW + q] = output_at(n, m, r, q);
}
)";

// The channel-wise kinds' unit pass as a plain loop (loop-nest target).
inline constexpr const char* kChannelwisePass = R"(
void unit_pass(i64 ci, i64 co, i64 cb) {
  (void)ci;
  const BatchUnit b = batch_unit(cb);
  const i64 m0 = m_begin(co), m1 = m0 + m_size(co);
  for (i64 n = b.n0; n < b.n1; ++n)
    for (i64 m = m0; m < m1; ++m)
      for (i64 r = b.r0; r < b.r1; ++r)
        for (i64 q = b.q0; q < b.q1; ++q)
          ofmap[((n * M + m) * EH + r) * EW + q] += output_at(n, m, r, q);
  macs += (b.n1 - b.n0) * (m1 - m0) * (b.r1 - b.r0) * (b.q1 - b.q0) * MACS_PER_OUTPUT;
}
)";

// After the kernels: the buffers and their counters.
inline constexpr const char* kBuffers = R"(
// One category's buffer at one level: refilled whenever the tile it must hold changes. The
// read-modify-write category (OFM) reads a tile back only if it was filled before, and writes
// every tile it drains.
struct Buffer {
  int d = 0;
  bool rw = false;
  bool reading = false;  // the current tile was read in (not a first fill of OFM)
  i64 key = -1;
  i64 words = 0;
  i64 max_words = 0;
  double distinct_words = 0;  // words of the distinct tiles, and their count
  i64 distinct = 0;
  i64 fills = 0;
  double reads = 0, writes = 0;
  // The same moves in array-bus words (level 1 only: what crosses the bus into the PEs).
  i64 bus_words = 0;
  double bus = 0;
  std::vector<char> seen;
  // Whether the tile changed (and was refilled).
  bool touch(i64 new_key, i64 tile, i64 new_words) {
    if (new_key == key) return false;
    drain();
    const bool first = !seen[static_cast<std::size_t>(tile)];
    reading = !rw || !first;
    if (reading) reads += static_cast<double>(new_words);
    if (first) {
      seen[static_cast<std::size_t>(tile)] = 1;
      distinct_words += static_cast<double>(new_words);
      ++distinct;
    }
    key = new_key;
    words = new_words;
    bus_words = 0;
    ++fills;
    if (new_words > max_words) max_words = new_words;
    return true;
  }
  // The array-bus words of the current tile: moved in now if it was read, out when drained.
  void add_bus(i64 new_bus_words) {
    if (reading) bus += static_cast<double>(new_bus_words);
    bus_words = new_bus_words;
  }
  void drain() {
    if (key >= 0 && rw) {
      writes += static_cast<double>(words);
      bus += static_cast<double>(bus_words);
    }
  }
};

Buffer buffers[2][3];  // [level: 0 = DRAM -> GBUF, 1 = GBUF -> REGF][category]
)";

// Loop-nest target: the array bus and the register files by the row-stationary formula.
inline constexpr const char* kBusByFormula = R"(
// A level-1 fill moves its tile's words over the array bus into the PE set (itcn_words).
void on_regf_fill(int d, const i64* lo, const i64* hi) { buffers[1][d].add_bus(itcn_words(d, lo, hi)); }

// REGF: the accesses every MAC makes in its PE.
double regf_counted(int d) { return static_cast<double>(macs * REGF_PER_MAC[d]); }
void reset_array() {}
)";

// HLS target: the unit pass as the row-stationary PE array, which counts the array-bus words
// and the register-file accesses itself.
inline constexpr const char* kPeArray = R"(
// The row-stationary PE array. A unit pass runs FOLD_H folded filter-row groups one after the
// other; in each, REPL_O x REPL_I replicas of the folded PE set (FLPE_H filter rows x FLPE_W
// ofmap rows) work at once (the unrolled loops). PE (ph, pw) keeps a filter row in its register
// file, streams an ifmap row through a window of RW registers and sends one partial sum per
// ofmap column, which the PEs of its column and the input replicas add up. The PEs count the
// array-bus words as they receive them (filter and ifmap rows) or send them (partial sums), and
// their register-file accesses as they make them. As the model counts (docs/emit.md): a PE past
// its group's filter rows or its fold's ofmap rows still receives and sends its rows and
// computes nothing; a Conv ifmap row goes to every output replica and a partial sum passes every
// input replica, whether or not that replica has a channel in this unit; a local region's ifmap
// row is counted once per unit pass.
constexpr i64 REGF_FIL = HAS_FILTER ? 1 : 0;
i64 bus_count[3] = {0, 0, 0};   // array-bus words of the units counted in this level-1 iteration
i64 regf_count[3] = {0, 0, 0};  // register-file accesses of the PEs' MACs
bool fresh[3] = {false, false, false};  // refilled into REGF in this level-1 iteration

void on_regf_fill(int d, const i64*, const i64*) { fresh[d] = true; }

// After a level-1 iteration: the bus words of the tiles it refilled.
void commit_bus() {
  for (int d = 0; d < 3; ++d) {
    if (fresh[d]) buffers[1][d].add_bus(bus_count[d]);
    fresh[d] = false;
    bus_count[d] = 0;
  }
}

double regf_counted(int d) { return static_cast<double>(regf_count[d]); }
void reset_array() {  // before each node
  for (int d = 0; d < 3; ++d) {
    bus_count[d] = regf_count[d] = 0;
    fresh[d] = false;
  }
}

// One PE for one filter-row group: filter row fr of (output m, input c), ifmap row(s) of channel
// c (and an element-wise layer's other inputs), partial sums of ofmap row r added to psum_row.
void pe(bool active, bool fil_in, bool ifm_in, bool ofm_out, const bool* count, i64 n, i64 c,
        i64 m, i64 fr, i64 r, i64* psum_row) {
  int w_rf[RW];              // register file: the filter row
  int i_rf[IFM_INPUTS][RW];  // register file: the window of the streaming ifmap row(s)
#pragma HLS ARRAY_PARTITION variable=w_rf complete
#pragma HLS ARRAY_PARTITION variable=i_rf complete dim=0
  for (i64 k = 0; k < RW; ++k) {
#pragma HLS UNROLL
    w_rf[k] = HAS_FILTER && active ? filter[filter_index(m, c, fr, k)] : 0;
    if (fil_in && count[FIL]) ++bus_count[FIL];
    for (i64 j = 0; j < IFM_INPUTS; ++j) i_rf[j][k] = 0;
  }
  const i64 wi = node_wi(), col0 = P.w0 * UW;  // the node's ifmap row
  for (i64 x = 0; x < wi; ++x) {  // the ifmap row streams in, one word per cycle
#pragma HLS PIPELINE II=1
    for (i64 j = 0; j < IFM_INPUTS; ++j) {
#pragma HLS UNROLL
      for (i64 k = 0; k + 1 < RW; ++k) i_rf[j][k] = i_rf[j][k + 1];
      i_rf[j][RW - 1] = active ? ifmap[ifmap_index(n, c + j * M, r * UH + fr, col0 + x)] : 0;
      if (ifm_in && count[IFM]) ++bus_count[IFM];
    }
    const i64 start = x - (RW - 1);  // the window now holds ifmap columns start .. x
    if (start < 0 || start % UW != 0) continue;
    i64 sum = 0;
    if (active) {
      for (i64 j = 0; j < IFM_INPUTS; ++j) {
#pragma HLS UNROLL
        for (i64 k = 0; k < RW; ++k) {
#pragma HLS UNROLL
          sum += HAS_FILTER ? static_cast<i64>(w_rf[k]) * i_rf[j][k] : i_rf[j][k];
          regf_count[FIL] += REGF_FIL;  // a weight read,
          regf_count[IFM] += 1;         // an input read,
          regf_count[OFM] += 2;         // the partial sum read and written
          ++macs;
        }
      }
    }
    psum_row[start / UW] += sum;  // one partial sum out per ofmap column
    if (ofm_out && count[OFM]) ++bus_count[OFM];
  }
}

// One unit pass: input-channel piece ci, output-channel piece co, (sample, row fold) cb. A
// category's words are counted when its tile was refilled in this level-1 iteration, once per
// unit of the tile (its first pass in the level-2 loops).
void pe_array(const i64* x2, i64 ci, i64 co, i64 cb, bool compute) {
  bool count[3];
  for (int d = 0; d < 3; ++d) {
    count[d] = fresh[d];
    for (int l = 0; l < 3; ++l)
      if (!RELATED[d][l] && x2[l] != 0) count[d] = false;
  }
  if (!compute && !count[FIL] && !count[IFM] && !count[OFM]) return;
  const BatchUnit b = batch_unit(cb);  // row stationary: one sample, a fold's rows, every column
  // A unit without a sample (a node with fewer samples than the ceil piece) moves no ifmap or
  // partial sums; its filter rows still go in with the tile's, as the loop nest's fill moved them.
  const bool sample = b.n1 > b.n0;
  const i64 n = b.n0;
  // Conv replicas are (input, output) channel pairs; the channel-wise kinds' are channels.
  const i64 c0 = CONV_KERNEL ? c_begin(ci) : 0, cp = CONV_KERNEL ? c_size(ci) : 1;
  const i64 m0 = m_begin(co), mp = m_size(co);
  const i64 r0 = b.r0, rows = b.r1 - b.r0, ew = node_ew();
  static i64 psum[REPL_O][FLPE_W][EW];  // per output replica and PE column: an ofmap row's sums
#pragma HLS ARRAY_PARTITION variable=psum complete dim=1
  for (i64 ro = 0; ro < REPL_O; ++ro)
    for (i64 pw = 0; pw < FLPE_W; ++pw)
      for (i64 q = 0; q < ew; ++q) psum[ro][pw][q] = 0;
  for (i64 g = 0; g < FOLD_H; ++g) {  // the folded filter-row groups, one after the other
    const i64 h0 = piece_begin(RH, FOLD_H, g), hrows = piece(RH, FOLD_H, g);
    for (i64 ro = 0; ro < REPL_O; ++ro) {
#pragma HLS UNROLL
      for (i64 ri = 0; ri < REPL_I; ++ri) {
#pragma HLS UNROLL
        const bool real = ri < cp && ro < mp;  // the replica has a channel (pair) in this unit
        const bool ifm_in = (CONV_KERNEL ? ri < cp : ro < mp) && (HAS_FILTER || g == 0) && sample;
        const i64 c = CONV_KERNEL ? c0 + ri : m0 + ro;
        for (i64 ph = 0; ph < FLPE_H; ++ph) {
#pragma HLS UNROLL
          for (i64 pw = 0; pw < FLPE_W; ++pw) {
#pragma HLS UNROLL
            const bool active = compute && real && sample && ph < hrows && pw < rows;
            pe(active, HAS_FILTER && real, ifm_in, ro < mp && sample, count, n, c, m0 + ro, h0 + ph,
               r0 + pw, psum[ro][pw]);
          }
        }
      }
    }
  }
  if (!compute || !sample) return;
  for (i64 ro = 0; ro < mp; ++ro)
    for (i64 pw = 0; pw < rows; ++pw)
      for (i64 q = 0; q < ew; ++q)
        ofmap[((n * M + m0 + ro) * EH + r0 + pw) * EW + P.w0 + q] += psum[ro][pw][q];
}
)";

// The rest of the program before the loop nest: the visit of each level-1 iteration, and the
// head of the node's loop nest.
inline constexpr const char* kVisitAndNode = R"(
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
          hi[l] = std::min(lo[l] + span, LOOPCNT[l]);  // the last block may be partial
          tile = tile * cnt + idx;
          key = key * cnt + idx;
        } else if (bl == 1 && !REGF_REUSABLE[d]) {
          key = key * cnt + idx;  // the KAPLA fork: this REGF copy does not survive other loops
        }
      }
      if (buffers[bl][d].touch(key, tile, tile_words(d, lo, hi)) && bl == 1) on_regf_fill(d, lo, hi);
    }
  }
}
bool close(double counted, double model) {
  return std::fabs(counted - model) <= 1e-9 * std::fmax(std::fabs(counted), std::fabs(model));
}

// Every buffer empty, every counter 0: before each node.
void reset_node() {
  for (int bl = 0; bl < 2; ++bl)
    for (int d = 0; d < 3; ++d) {
      Buffer& b = buffers[bl][d];
      b = Buffer();
      b.d = d;
      b.rw = d == OFM;
      i64 tiles = 1;
      for (int l = 0; l < 3; ++l)
        if (RELATED[d][l]) tiles *= bl == 0 ? T[0][l] : T[0][l] * T[1][l];
      b.seen.assign(static_cast<std::size_t>(tiles), 0);
    }
  macs = 0;
  reset_array();
}

// The loop nest of node P, in the scheme's order.
void run_node(bool compute) {
  i64 x0[3], x1[3], x2[3];
)";

// Text after the loop nest: each node's counts, the checks and main.
inline constexpr const char* kProgramTail = R"(}

// What one node moved and computed, in the words the model counts (an element-wise layer's
// ifmap words over its inputs, IFM_INPUTS), and the words of its whole piece by formula: of
// each category (WORDS: the loop nest moves every word of the piece a fixed number of times at
// each level, the same on every node) and over the array bus (BUS, itcn_words).
struct Counts {
  double dram[3] = {0, 0, 0}, gbuf[3] = {0, 0, 0}, itcn[3] = {0, 0, 0}, regf[3] = {0, 0, 0};
  double macs = 0;
  i64 largest[3] = {0, 0, 0};  // the largest GBUF tile (its words), and the mean distinct tile
  double mean[3] = {0, 0, 0};
  double words[3] = {0, 0, 0}, bus[3] = {0, 0, 0};
  void add(const Counts& c) {
    for (int d = 0; d < 3; ++d) {
      dram[d] += c.dram[d], gbuf[d] += c.gbuf[d], itcn[d] += c.itcn[d], regf[d] += c.regf[d];
      words[d] += c.words[d], bus[d] += c.bus[d];
      if (c.largest[d] > largest[d]) largest[d] = c.largest[d];
    }
    macs += c.macs;
  }
};

// Runs node k's piece and counts it; a node with an empty piece idles (counts 0). DRAM: a
// GBUF-stored category crosses at level 0; a bypassed one goes DRAM -> REGF at level 1, PASSES
// times like a GBUF read. GBUF: reads toward the array (level 1) of stored categories, PASSES
// times per unit pass (the folded filter-row groups).
Counts run(i64 k, bool compute) {
  Counts c;
  P = NODES[k];
  if (P.empty()) return c;
  reset_node();
  run_node(compute);
  for (auto& level : buffers)
    for (auto& b : level) b.drain();
  const i64 lo[3] = {0, 0, 0}, hi[3] = {LOOPCNT[0], LOOPCNT[1], LOOPCNT[2]};
  for (int d = 0; d < 3; ++d) {
    const double passes = static_cast<double>(PASSES[d]);
    const double share = d == IFM ? 1.0 / static_cast<double>(IFM_INPUTS) : 1.0;
    const Buffer& b0 = buffers[0][d];
    const Buffer& b1 = buffers[1][d];
    c.dram[d] = (STORED[d] ? b0.reads + b0.writes : (b1.reads + b1.writes) * passes) * share;
    // A pinned filter is loaded once before the layer and stays (no_time_mux): not this layer's.
    if (d == FIL && FILTER_PINNED) c.dram[d] = 0;
    c.gbuf[d] = STORED[d] ? (b1.reads + b1.writes) * passes * share : 0.0;
    c.itcn[d] = b1.bus * share;
    c.regf[d] = regf_counted(d);
    c.largest[d] = b0.max_words;
    c.mean[d] = b0.distinct ? b0.distinct_words / static_cast<double>(b0.distinct) * share : 0;
    c.words[d] = static_cast<double>(tile_words(d, lo, hi)) * share;
    c.bus[d] = static_cast<double>(itcn_words(d, lo, hi)) * share;
  }
  c.macs = static_cast<double>(macs);
  return c;
}

bool check(const char* what, const char* category, double counted, double model) {
  const bool ok = close(counted, model);
  std::printf("%s %s counted=%.17g model=%.17g%s\n", what, category, counted, model,
              ok ? "" : "  MISMATCH");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const bool compute = !(argc > 1 && std::strcmp(argv[1], "--count-only") == 0);
  if (compute) {  // the whole layer's data
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
  // Every node runs its piece; their outputs add up in the layer's ofmap (the partial sums of
  // input-channel pieces too: the reduction, see docs/emit.md).
  Counts ceil, total;
  i64 idle = 0;
  for (i64 k = 0; k < NODE_COUNT; ++k) {
    const Counts c = run(k, compute);
    if (k == CEIL_NODE) ceil = c;
    idle += NODES[k].empty() ? 1 : 0;
    total.add(c);
  }
  P = NODES[CEIL_NODE];

  // One node: the ceil piece's counts against the model's figures for one node.
  bool ok = true;
  for (int d = 0; d < 3; ++d) {
    ok = check("DRAM", CATEGORY[d], ceil.dram[d], MODEL_DRAM[d]) && ok;
    ok = check("GBUF", CATEGORY[d], ceil.gbuf[d], MODEL_GBUF[d]) && ok;
    ok = check("ITCN", CATEGORY[d], ceil.itcn[d], MODEL_ITCN[d]) && ok;
    // Buffers as the model sizes them: the largest tile of any node must fit (GBUF: a node's
    // share of a sharing group holds 1/SUBGROUP of it). The systolic mapping sizes a buffer for
    // the mean piece of an uneven split (floats), and the reference's idivc, (x + 1 - 1) // 1,
    // floors a fractional size: there the ceil piece's mean tile's whole words must fit, and a
    // larger tile is a note (docs/emit.md).
    const double share = d == IFM ? 1.0 / static_cast<double>(IFM_INPUTS) : 1.0;
    const double cap = MODEL_GBUF_WORDS[d] * static_cast<double>(SUBGROUP[d]);
    const double largest = static_cast<double>(total.largest[d]) * share;
    const bool fits = !STORED[d] || (SIZED_BY_MEAN ? std::floor(ceil.mean[d]) : largest) <= cap;
    std::printf("FIT GBUF %s largest_tile=%lld", CATEGORY[d],
                static_cast<long long>(STORED[d] ? total.largest[d] : 0));
    if (SIZED_BY_MEAN) std::printf(" mean_tile=%.17g", STORED[d] ? ceil.mean[d] : 0.0);
    std::printf(" model_size=%.17g%s\n", STORED[d] ? cap : 0.0, fits ? "" : "  OVERFLOW");
    if (SIZED_BY_MEAN && STORED[d] && largest > cap)
      std::printf("NOTE GBUF %s: the largest tile exceeds the model's size, which is the mean's\n",
                  CATEGORY[d]);
    ok = ok && fits;
  }
  // More position pieces than ofmap rows or columns (the systolic mapping's folds): the model
  // charges an empty piece the linear halo RH - UH rows (RW - UW columns), which the program's
  // ifmap words follow (span_of); a loop nest that skipped it would read none.
  const i64 rows = P.h1 - P.h0, cols = P.w1 - P.w0;
  if (TH > rows || TW > cols)
    std::printf("NOTE IFM: %lld of %lld row pieces and %lld of %lld column pieces are empty; "
                "counted with the model's halo of RH - UH rows (RW - UW columns) each\n",
                static_cast<long long>(TH > rows ? TH - rows : 0), static_cast<long long>(TH),
                static_cast<long long>(TW > cols ? TW - cols : 0), static_cast<long long>(TW));
  if (IFM_INPUTS > 1)
    std::printf("NOTE IFM counted / %lld: the model counts one of the %lld inputs per channel\n",
                static_cast<long long>(IFM_INPUTS), static_cast<long long>(IFM_INPUTS));

  // The whole layer: every node's counts against the model's totals. The model prices every
  // node as the ceil piece; a node moves each word of its own piece as many times as the ceil
  // node moves each of its words, so the counted totals are the model's scaled by PIECES, the
  // words of all pieces over NODE_COUNT ceil pieces (docs/emit.md). A group of ACCFWD[d] nodes
  // that forward d to each other fetches it from DRAM once.
  std::printf("NODES %lld (%s), %lld idle; node %lld holds the ceil piece\n",
              static_cast<long long>(NODE_COUNT), PARTITION, static_cast<long long>(idle),
              static_cast<long long>(CEIL_NODE));
  for (int d = 0; d < 3; ++d) {
    const double counted[3] = {total.dram[d] / static_cast<double>(ACCFWD[d]), total.gbuf[d],
                               total.itcn[d]};
    const double model[3] = {MODEL_TOTAL_DRAM[d], MODEL_TOTAL_GBUF[d], MODEL_TOTAL_ITCN[d]};
    const char* level[3] = {"DRAM", "GBUF", "ITCN"};
    for (int m = 0; m < 3; ++m) {
      const double all = m == 2 ? total.bus[d] : total.words[d];
      const double one = static_cast<double>(NODE_COUNT) * (m == 2 ? ceil.bus[d] : ceil.words[d]);
      const double expected = one > 0 ? model[m] * (all / one) : model[m];
      const bool same = close(counted[m], expected);
      std::printf("TOTAL %s %s counted=%.17g model=%.17g pieces=%.17g/%.17g expected=%.17g%s\n",
                  level[m], CATEGORY[d], counted[m], model[m], all, one, expected,
                  same ? "" : "  MISMATCH");
      ok = ok && same;
    }
  }
  if (compute) {
    naive_layer();
    i64 sum = 0;
    for (auto v : ofmap) sum += v;
    const bool same = ofmap == naive;
    const bool macs_ok = close(ceil.macs * OCCUPANCY, MODEL_OPS);
    std::printf("MACS counted=%.17g model=%.17g (x occupancy %.17g)%s\n", ceil.macs, MODEL_OPS,
                OCCUPANCY, macs_ok ? "" : "  MISMATCH");
    ok = check("TOTAL", "MACS", total.macs, MODEL_TOTAL_OPS) && ok && macs_ok;
    std::printf("OUTPUT checksum=%lld %s\n", static_cast<long long>(sum),
                same ? "equals the naive loop nest" : "DIFFERS from the naive loop nest");
    ok = ok && same;
    // REGF: the accesses the MACs make in their PEs; one node's for the ceil piece scaled by
    // the occupancy as the model scales it, and the whole layer's exactly.
    for (int d = 0; d < 3; ++d) {
      ok = check("REGF", CATEGORY[d], ceil.regf[d] * OCCUPANCY, MODEL_REGF[d]) && ok;
      ok = check("TOTAL REGF", CATEGORY[d], total.regf[d], MODEL_TOTAL_REGF[d]) && ok;
    }
  }
  std::printf("%s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
)";

}  // namespace kapla::emit::detail
