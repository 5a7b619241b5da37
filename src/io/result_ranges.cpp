// Value checks of results read back (see result_ranges.hpp).
#include "io/result_ranges.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.hpp"
#include "model/limits.hpp"

namespace kapla::io {
namespace {

class Checker {
 public:
  Checker(const sweep::TupleRecord& r, const std::string& where)
      : prefix_(where + ": tuple '" + r.tuple.key() + "': ") {}

  void count(const char* field, std::int64_t v, std::int64_t lo, std::int64_t hi) const {
    if (v < lo || v > hi) {
      bad(field, "out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                     std::to_string(v));
    }
  }
  void amount(const std::string& field, double v) const {
    if (!(std::isfinite(v) && v >= 0)) bad(field, "not a finite non-negative number");
  }
  [[noreturn]] void bad(const std::string& field, const std::string& reason) const {
    throw InputError(prefix_ + field + ": " + reason + " (damaged results file?)");
  }

 private:
  std::string prefix_;
};

}  // namespace

void check_result_ranges(const sweep::TupleRecord& r, const std::string& where) {
  using namespace model::limits;
  const Checker c(r, where);
  c.count("batch", r.tuple.batch, 1, kMaxBatch);
  const auto& res = r.result;
  c.count("threads", res.stats.threads, 1, kMaxThreads);
  c.count("evaluated", res.stats.evaluated, 0, std::numeric_limits<std::int64_t>::max());
  c.count("valid", res.stats.valid, 0, std::numeric_limits<std::int64_t>::max());
  c.count("pruned", res.stats.pruned, 0, std::numeric_limits<std::int64_t>::max());
  c.count("macs", res.macs, 0, std::numeric_limits<std::int64_t>::max());
  c.amount("total_cost", res.total_cost);
  c.amount("energy", res.energy);
  c.amount("time", res.time);
  c.amount("edp", res.edp);
  c.amount("pe_utilisation", res.pe_utilisation);
  c.amount("search_seconds", res.stats.wall_seconds);
  c.amount("cpu_seconds", res.stats.cpu_seconds);
  for (std::size_t i = 0; i < res.energy_parts.size(); ++i) {
    c.amount("energy_" + std::string(sweep::kEnergyPartNames[i]), res.energy_parts[i]);
  }
  if (res.status == sweep::TupleStatus::Ok) {
    const double product = res.energy * res.time;
    if (std::fabs(res.edp - product) > 1e-9 * std::max(std::fabs(res.edp), std::fabs(product))) {
      c.bad("edp", "is not energy x time");
    }
  }
  for (const auto& l : res.layers) {
    c.amount("layers '" + l.layer + "'.energy", l.energy);
    c.amount("layers '" + l.layer + "'.time", l.time);
    c.count("layers.segment", l.segment, 0, std::numeric_limits<std::int64_t>::max());
    c.count("layers.macs", l.macs, 0, std::numeric_limits<std::int64_t>::max());
  }
  for (const auto& s : res.segments) {
    c.amount("segments.energy", s.energy);
    c.amount("segments.time", s.time);
  }
}

}  // namespace kapla::io
