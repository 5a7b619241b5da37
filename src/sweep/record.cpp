// Record comparison and process provenance.
#include "sweep/record.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <sstream>

#include "core/errors.hpp"

#ifndef KAPLA_VERSION
#define KAPLA_VERSION "unknown"
#endif
#ifndef KAPLA_GIT_HASH
#define KAPLA_GIT_HASH "unknown"
#endif

namespace kapla::sweep {

std::string_view status_name(TupleStatus s) {
  switch (s) {
    case TupleStatus::Ok:
      return "ok";
    case TupleStatus::NoSolution:
      return "no_solution";
    case TupleStatus::Timeout:
      return "timeout";
    case TupleStatus::Failed:
      return "failed";
    case TupleStatus::Interrupted:
      return "interrupted";
  }
  return "failed";
}

TupleStatus parse_status(std::string_view s) {
  for (auto st : {TupleStatus::Ok, TupleStatus::NoSolution, TupleStatus::Timeout,
                  TupleStatus::Failed, TupleStatus::Interrupted}) {
    if (status_name(st) == s) return st;
  }
  throw InputError("status: unknown value '" + std::string(s) + "'");
}

namespace {

std::string show(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

template <class T>
std::optional<std::string> differ(const std::string& what, const T& a, const T& b) {
  if (a == b) return std::nullopt;
  std::ostringstream os;
  if constexpr (std::is_same_v<T, double>) {
    os << what << ": " << show(a) << " vs " << show(b);
  } else {
    os << what << ": " << a << " vs " << b;
  }
  return os.str();
}

#define KAPLA_DIFF(what, a, b)                       \
  do {                                               \
    if (auto d = differ((what), (a), (b))) return d; \
  } while (false)

}  // namespace

std::optional<std::string> first_difference(const TupleRecord& a, const TupleRecord& b) {
  const std::string k = a.tuple.key();
  KAPLA_DIFF(k + ": key", k, b.tuple.key());
  KAPLA_DIFF(k + ": search_seed", a.search_seed, b.search_seed);
  if (!(a.tuple.design == b.tuple.design)) return k + ": design parameters differ";
  const auto& ra = a.result;
  const auto& rb = b.result;
  KAPLA_DIFF(k + ": status", std::string(status_name(ra.status)),
             std::string(status_name(rb.status)));
  KAPLA_DIFF(k + ": message", ra.message, rb.message);
  KAPLA_DIFF(k + ": total_cost", ra.total_cost, rb.total_cost);
  KAPLA_DIFF(k + ": energy", ra.energy, rb.energy);
  for (std::size_t i = 0; i < kEnergyPartNames.size(); ++i) {
    KAPLA_DIFF(k + ": energy_" + std::string(kEnergyPartNames[i]), ra.energy_parts[i],
               rb.energy_parts[i]);
  }
  KAPLA_DIFF(k + ": time", ra.time, rb.time);
  KAPLA_DIFF(k + ": edp", ra.edp, rb.edp);
  KAPLA_DIFF(k + ": macs", ra.macs, rb.macs);
  KAPLA_DIFF(k + ": pe_utilisation", ra.pe_utilisation, rb.pe_utilisation);
  KAPLA_DIFF(k + ": evaluated", ra.stats.evaluated, rb.stats.evaluated);
  KAPLA_DIFF(k + ": valid", ra.stats.valid, rb.stats.valid);
  KAPLA_DIFF(k + ": pruned", ra.stats.pruned, rb.stats.pruned);
  KAPLA_DIFF(k + ": layer count", ra.layers.size(), rb.layers.size());
  for (std::size_t i = 0; i < ra.layers.size(); ++i) {
    if (!(ra.layers[i] == rb.layers[i])) {
      return k + ": layer row " + std::to_string(i) + " (" + ra.layers[i].layer + ") differs";
    }
  }
  KAPLA_DIFF(k + ": segment count", ra.segments.size(), rb.segments.size());
  for (std::size_t i = 0; i < ra.segments.size(); ++i) {
    if (!(ra.segments[i] == rb.segments[i])) {
      return k + ": segment row " + std::to_string(i) + " differs";
    }
  }
  KAPLA_DIFF(k + ": curve length", ra.stats.curve.size(), rb.stats.curve.size());
  for (std::size_t i = 0; i < ra.stats.curve.size(); ++i) {
    KAPLA_DIFF(k + ": curve[" + std::to_string(i) + "].evaluated", ra.stats.curve[i].evaluated,
               rb.stats.curve[i].evaluated);
    KAPLA_DIFF(k + ": curve[" + std::to_string(i) + "].best_cost", ra.stats.curve[i].best_cost,
               rb.stats.curve[i].best_cost);
  }
  // A record without a schedule ran without recording it ("record_schedules": false, or
  // before schema 9): the same result. Two schedules must agree (not printed: kilobytes).
  if (!ra.schedule.empty() && !rb.schedule.empty() && ra.schedule != rb.schedule) {
    return k + ": recorded schedule differs: " + std::to_string(ra.schedule.size()) + " vs " +
           std::to_string(rb.schedule.size()) + " bytes";
  }
  KAPLA_DIFF(k + ": resolved count", ra.resolved.size(), rb.resolved.size());
  for (std::size_t i = 0; i < ra.resolved.size(); ++i) {
    KAPLA_DIFF(k + ": resolved " + ra.resolved[i].first,
               ra.resolved[i].first + "=" + ra.resolved[i].second,
               rb.resolved[i].first + "=" + rb.resolved[i].second);
  }
  return std::nullopt;
}

#undef KAPLA_DIFF

std::optional<std::string> first_difference(const std::vector<TupleRecord>& a,
                                            const std::vector<TupleRecord>& b) {
  std::map<std::string, const TupleRecord*> ma, mb;
  for (const auto& r : a) ma[r.tuple.key()] = &r;
  for (const auto& r : b) mb[r.tuple.key()] = &r;
  for (const auto& [key, ra] : ma) {
    auto it = mb.find(key);
    if (it == mb.end()) return key + ": only in the first set";
    if (auto d = first_difference(*ra, *it->second)) return d;
  }
  for (const auto& [key, rb] : mb) {
    if (!ma.count(key)) return key + ": only in the second set";
  }
  if (a.size() != ma.size() || b.size() != mb.size()) return std::string("duplicate keys");
  return std::nullopt;
}

std::string utc_now() { return utc_time(std::chrono::system_clock::now()); }

std::string utc_time(std::chrono::system_clock::time_point now) {
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

namespace {
std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}
}  // namespace

Provenance process_provenance(int rank, const std::string& command_line,
                              const std::string& mpi_version) {
  Provenance p;
  p.kapla_version = KAPLA_VERSION;
  p.git_hash = KAPLA_GIT_HASH;
#if defined(__clang__)
  p.compiler = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  p.compiler = std::string("gcc ") + __VERSION__;
#else
  p.compiler = "unknown";
#endif
  p.mpi_version = mpi_version;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) p.host = host;
  p.rank = rank;
  p.slurm_job_id = env_or_empty("SLURM_JOB_ID");
  p.slurm_array_job_id = env_or_empty("SLURM_ARRAY_JOB_ID");
  p.slurm_array_task_id = env_or_empty("SLURM_ARRAY_TASK_ID");
  p.command_line = command_line;
  return p;
}

}  // namespace kapla::sweep
