// The limits of every numeric input, in one place: network, hardware, job and option files and
// the command-line flags all go through these checks, `kapla validate --limits` prints them and
// docs/formats.md lists them.
//
// Why these numbers. The cost model works in int64 on element counts and multiplies them by
// batch, by partition and blocking factors (each at most the dimension it splits, padded up to
// twice it) and by hop distances; energies and times are doubles. The largest integer product it
// forms is a whole-batch data or MAC count times a loop-count or padding factor, e.g.
// map_strategy's C x M x batch x fold or a layer's total_ops(batch). So:
//   * every per-sample size of a layer (MACs, ifmap, ofmap and filter words) is at most 2^36
//     (6.9e10; the largest shipped layer has 3.7e9 MACs per sample),
//   * batch is at most 2^20,
// which bounds every whole-batch count by 2^56 and leaves a factor 2^7 for the padding and
// loop-count factors before int64 (2^63) overflows. The single dimensions are bounded too (each
// at most 2^20, fmap sides 2^16) so that the products of two of them cannot overflow before the
// per-sample check sees them. The machine: node array at most 64x64 (the partition enumeration
// is exponential in its factors), PE array sides at most 1024, buffers at most 2^40 bytes, words
// at most 1024 bits. Energies are finite, non-negative doubles at most 1e30 (a product with a
// 2^63 count stays far below DBL_MAX). Times (tuple time limit, search budgets, stop grace) are
// at most 1e8 s (3 years), which a steady_clock deadline in nanoseconds holds (2^63 ns = 292 y).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/phy_dim2.hpp"

namespace kapla::model::limits {

inline constexpr std::int64_t kMaxChannels = std::int64_t{1} << 20;       // nifm, nofm, nreg, ntrd
inline constexpr std::int64_t kMaxFmapSide = std::int64_t{1} << 16;       // sofm, sifm h and w
inline constexpr std::int64_t kMaxWindowSide = std::int64_t{1} << 12;     // sfil, sreg, strd
inline constexpr std::int64_t kMaxPerSampleSize = std::int64_t{1} << 36;  // MACs, words per sample
inline constexpr std::int64_t kMaxBatch = std::int64_t{1} << 20;
inline constexpr std::int64_t kMaxNodeSide = 64;
inline constexpr std::int64_t kMaxPeSide = 1024;
inline constexpr std::int64_t kMaxBufferBytes = std::int64_t{1} << 40;  // gbuf, regf
inline constexpr std::int64_t kMaxWordBits = 1024;
inline constexpr std::int64_t kMaxBusWidthBits = std::int64_t{1} << 20;
inline constexpr double kMaxUnitCost = 1e30;      // energy per MAC, access, hop, idle cycle
inline constexpr double kMaxBandwidth = 1e18;     // bytes per cycle (or inf = unlimited)
inline constexpr double kMaxSeconds = 1e8;        // time limits, budgets, stop grace
inline constexpr double kMaxPipelineKnob = 1e10;  // layer_pipeline_{time_ovhd,max_degree}
inline constexpr std::int64_t kMaxTops = 1024;    // ntops / --top
inline constexpr std::int64_t kMaxEvaluations = std::int64_t{1} << 40;  // R/M budgets, victory
inline constexpr std::int64_t kMaxThreads = 4096;
inline constexpr std::int64_t kMaxNameLength = 256;  // network, layer and hardware names
// Sizes of a job, not overflow bounds: a job is expanded in memory before it runs (every design
// point built and validated, every tuple keyed), and the axes of a 20 KB file multiply to 10^11
// tuples. 10^6 tuples of a second each are already 12 days of a 2-core machine.
inline constexpr std::int64_t kMaxAxisValues = 4096;  // values (or shapes) of one design axis
inline constexpr std::int64_t kMaxDesigns = 100000;   // grid points of a job's design spaces
inline constexpr std::int64_t kMaxTuples = 1000000;   // tuples of a job

/// "FIELD: must be in [lo, hi], got v" unless lo <= v <= hi. `field` is the caller's name for it
/// (a file key such as "nofm" or a flag such as "--batch").
void check_int(std::string_view field, std::int64_t v, std::int64_t lo, std::int64_t hi);
/// Both sides of a PhyDim2 in [lo, hi].
void check_dim(std::string_view field, PhyDim2 v, std::int64_t lo, std::int64_t hi);
/// A finite double in [lo, hi] (NaN refused); with inf_ok, +inf is accepted as well.
void check_real(std::string_view field, double v, double lo, double hi, bool inf_ok = false);
/// Shorthand for the batch, used by the CLI and job files alike.
inline void check_batch(std::string_view field, std::int64_t batch) {
  check_int(field, batch, 1, kMaxBatch);
}
/// A name: non-empty, at most kMaxNameLength bytes, no control characters (they would reach a
/// terminal raw).
void check_name(std::string_view field, std::string_view name);

/// The table printed by `kapla validate --limits` (one limit per line).
std::string describe();

}  // namespace kapla::model::limits
