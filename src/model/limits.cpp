// Checks and the printed table of the input limits (limits.hpp says why they are what they are).
#include "model/limits.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "core/errors.hpp"

namespace kapla::model::limits {
namespace {

std::string real_text(double v) {
  std::ostringstream os;
  os.precision(6);  // short: a limit message stays one readable line
  os << v;
  return os.str();
}

[[noreturn]] void out_of_range(std::string_view field, const std::string& bounds,
                               const std::string& got) {
  throw InputError(std::string(field) + ": " + bounds + ", got " + got);
}

std::string int_bounds(std::int64_t lo, std::int64_t hi) {
  if (lo == 1) return "must be positive and at most " + std::to_string(hi);
  if (lo == 0) return "must be >= 0 and at most " + std::to_string(hi);
  return "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

}  // namespace

void check_int(std::string_view field, std::int64_t v, std::int64_t lo, std::int64_t hi) {
  if (v < lo || v > hi) out_of_range(field, int_bounds(lo, hi), std::to_string(v));
}

void check_dim(std::string_view field, PhyDim2 v, std::int64_t lo, std::int64_t hi) {
  if (v.h < lo || v.h > hi || v.w < lo || v.w > hi) {
    out_of_range(field, int_bounds(lo, hi),
                 "[" + std::to_string(v.h) + ", " + std::to_string(v.w) + "]");
  }
}

void check_real(std::string_view field, double v, double lo, double hi, bool inf_ok) {
  if (inf_ok && v == std::numeric_limits<double>::infinity()) return;
  if (!(v >= lo && v <= hi)) {
    const std::string bounds =
        lo == 0 ? "must be a non-negative number at most " + real_text(hi)
                : "must be a number in [" + real_text(lo) + ", " + real_text(hi) + "]";
    out_of_range(field, bounds + (inf_ok ? " (or inf)" : ""), real_text(v));
  }
}

void check_name(std::string_view field, std::string_view name) {
  if (name.empty()) throw InputError(std::string(field) + ": must not be empty");
  if (name.size() > static_cast<std::size_t>(kMaxNameLength)) {
    throw InputError(std::string(field) + ": must be at most " + std::to_string(kMaxNameLength) +
                     " bytes, got " + std::to_string(name.size()));
  }
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      throw InputError(std::string(field) + ": must not contain control characters");
    }
  }
}

std::string describe() {
  std::ostringstream os;
  auto row = [&os](std::string_view what, const std::string& range) {
    // A label wider than the column still gets two spaces before its range.
    constexpr std::size_t kColumn = 58;
    os << "  " << what << std::string(what.size() < kColumn ? kColumn - what.size() : 2, ' ')
       << range << '\n';
  };
  auto ints = [](std::int64_t lo, std::int64_t hi) {
    return std::to_string(lo) + " .. " + std::to_string(hi);
  };
  os << "limits (the same for files and flags; docs/formats.md#limits):\n";
  row("layer nifm, nofm, nreg, ntrd", ints(1, kMaxChannels));
  row("layer sofm and derived sifm (h, w)", ints(1, kMaxFmapSide));
  row("layer sfil, sreg, strd (h, w)", ints(1, kMaxWindowSide));
  row("layer MACs, ifmap, ofmap, filter words per sample", ints(1, kMaxPerSampleSize));
  row("batch (job files, --batch)", ints(1, kMaxBatch));
  row("names (network, layer, hardware; no control chars)", ints(1, kMaxNameLength) + " bytes");
  row("hardware nodes (h, w)", ints(1, kMaxNodeSide));
  row("hardware pe_array (h, w)", ints(1, kMaxPeSide));
  row("hardware gbuf_bytes, regf_bytes", "1 word .. " + std::to_string(kMaxBufferBytes));
  row("hardware word_bits", ints(1, kMaxWordBits));
  row("hardware array_bus_width_bits (0 = unlimited)", ints(0, kMaxBusWidthBits));
  row("hardware dram_bandwidth_bytes_per_cycle", "> 0 .. " + real_text(kMaxBandwidth) + " or inf");
  row("unit costs (mac_op, mem_hier, noc_hop, idl_unit)", "0 .. " + real_text(kMaxUnitCost));
  row("layer_pipeline_time_ovhd, layer_pipeline_max_degree",
      "0 .. " + real_text(kMaxPipelineKnob) + " or inf");
  row("ntops (--top)", ints(1, kMaxTops));
  row("tuple_time_limit_seconds, max_seconds, --budget-seconds, --stop-grace",
      "0 .. " + real_text(kMaxSeconds) + " s");
  row("max_evaluations, victory_condition (--budget, --victory)", ints(0, kMaxEvaluations));
  row("threads (--threads)", ints(1, kMaxThreads));
  row("job: values of one design-space axis", ints(1, kMaxAxisValues));
  row("job: design points of its spaces (grid, before constraints)", ints(1, kMaxDesigns));
  row("job: tuples", ints(1, kMaxTuples));
  return os.str();
}

}  // namespace kapla::model::limits
