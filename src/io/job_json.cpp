// Job file parsing (see job_json.hpp and docs/sweep.md).
#include "io/job_json.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <type_traits>

#include "core/checked_math.hpp"
#include "core/errors.hpp"
#include "io/catalog.hpp"
#include "io/data_paths.hpp"
#include "io/json_util.hpp"
#include "io/options_json.hpp"
#include "io/strategy_params_json.hpp"
#include "model/limits.hpp"

namespace kapla::io {
namespace {

using nlohmann::json;

std::vector<std::string> string_list(const json& value, const std::string& path) {
  const auto& arr = as_array(value, path);
  if (arr.empty()) fail(path, "must not be empty");
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    std::string s = as_string(arr[i], index_path(path, i));
    if (s.empty()) fail(index_path(path, i), "must not be empty");
    if (!seen.insert(s).second) fail(index_path(path, i), "'" + s + "' is listed twice");
    out.push_back(std::move(s));
  }
  return out;
}

std::int64_t as_batch(const json& value, const std::string& path) {
  const std::int64_t b = as_positive_int(value, path);
  model::limits::check_batch(path, b);
  return b;
}

// One positive integer or a non-empty list of them.
std::vector<std::int64_t> batches(const json& value, const std::string& path) {
  if (!value.is_array()) return {as_batch(value, path)};
  const auto& arr = as_array(value, path);
  if (arr.empty()) fail(path, "must not be empty");
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < arr.size(); ++i) out.push_back(as_batch(arr[i], index_path(path, i)));
  return out;
}

// --- Design spaces (docs/codesign.md) -------------------------------------------------------

// The sizes of an axis and of the grids (model/limits.hpp): a space is a job of its own,
// meant for thousands of designs, not for an accidental 10^9.
constexpr auto kMaxAxisValues = static_cast<std::size_t>(model::limits::kMaxAxisValues);
using model::limits::kMaxDesigns;

// A range {from, to, step} or {from, to, ratio}: from, then +step or *ratio while <= to. T is
// std::int64_t (integer bounds, step and ratio, computed in integers: through a double, 2^63 - 1
// became 2^63 and its cast back was undefined) or double (a value past the largest double ends
// the range rather than becoming inf).
template <class T>
std::vector<T> range_values(const json& value, const std::string& path) {
  constexpr bool kIntegral = std::is_integral_v<T>;
  const JsonObject o(value, path, {"from", "to", "step", "ratio"});
  auto read = [&](std::string_view key) -> T {
    if constexpr (kIntegral) {
      return as_int(o.at(key), o.path_of(key));
    } else {
      return o.number(key);
    }
  };
  const T from = read("from");
  const T to = read("to");
  if (!(from > 0)) fail(o.path_of("from"), "must be positive, got " + brief(o.at("from")));
  if (!(to >= from)) fail(o.path_of("to"), "must be >= from, got " + brief(o.at("to")));
  if (o.has("step") == o.has("ratio")) fail(path, "needs exactly one of \"step\" and \"ratio\"");
  // Real bounds are met within a relative 1e-12, so that 0.1 steps reach their `to`.
  auto within = [to](T v) {
    if constexpr (kIntegral) {
      return v <= to;
    } else {
      return std::isfinite(v) && v <= to * (1 + 1e-12);
    }
  };
  std::vector<T> out;
  auto push = [&](T v) {
    if (out.size() == kMaxAxisValues) {
      fail(path, "gives more than " + std::to_string(kMaxAxisValues) + " values");
    }
    out.push_back(v);
  };
  const bool by_step = o.has("step");
  const T factor = read(by_step ? "step" : "ratio");
  if (by_step && !(factor > 0)) {
    fail(o.path_of("step"), "must be positive, got " + brief(o.at("step")));
  }
  if (!by_step && !(factor > 1)) {
    fail(o.path_of("ratio"), "must be > 1, got " + brief(o.at("ratio")));
  }
  // The k-th value from `from` (by index, not by accumulation: no drift for real steps), or
  // false when an integer one overflows (it is past `to` then).
  auto next = [&](T v, std::int64_t k, T& out_v) {
    if constexpr (kIntegral) {
      std::int64_t offset = 0;
      return by_step
                 ? checked_mul(k, factor, offset) && !__builtin_add_overflow(from, offset, &out_v)
                 : checked_mul(v, factor, out_v);
    } else {
      out_v = by_step ? from + static_cast<double>(k) * factor : v * factor;
      return true;
    }
  };
  for (T v = from;;) {
    push(v);
    if (!next(v, static_cast<std::int64_t>(out.size()), v) || !within(v)) break;
  }
  return out;
}

// An axis of positive integers: a list, or a range. `unlimited_as_zero`: the string
// "unlimited" may stand in a list for the model's 0 (array bus width).
std::vector<std::int64_t> int_axis(const json& value, const std::string& path,
                                   bool unlimited_as_zero = false) {
  std::vector<std::int64_t> out;
  if (value.is_object()) return range_values<std::int64_t>(value, path);
  const auto& arr = as_array(value, path);
  if (arr.empty()) fail(path, "must not be empty");
  if (arr.size() > kMaxAxisValues)
    fail(path, "has more than " + std::to_string(kMaxAxisValues) + " values");
  std::set<std::int64_t> seen;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string p = index_path(path, i);
    const std::int64_t v =
        unlimited_as_zero && arr[i] == "unlimited" ? 0 : as_positive_int(arr[i], p);
    if (!seen.insert(v).second) fail(p, brief(arr[i]) + " is listed twice");
    out.push_back(v);
  }
  return out;
}

std::vector<double> real_axis(const json& value, const std::string& path) {
  if (value.is_object()) return range_values<double>(value, path);
  const auto& arr = as_array(value, path);
  if (arr.empty()) fail(path, "must not be empty");
  if (arr.size() > kMaxAxisValues)
    fail(path, "has more than " + std::to_string(kMaxAxisValues) + " values");
  std::vector<double> out;
  std::set<double> seen;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string p = index_path(path, i);
    const double v = as_number(arr[i], p);
    if (!(v > 0)) fail(p, "must be positive, got " + brief(arr[i]));
    if (!seen.insert(v).second) fail(p, brief(arr[i]) + " is listed twice");
    out.push_back(v);
  }
  return out;
}

// Shapes: a list of [h, w] (or n for n x n), or {"h": AXIS, "w": AXIS} for their product,
// h-major; `columns` is set to the number of w values of a product (0 for a list).
std::vector<PhyDim2> dim_axis(const json& value, const std::string& path, std::size_t& columns) {
  std::vector<PhyDim2> out;
  columns = 0;
  if (value.is_object()) {
    const JsonObject o(value, path, {"h", "w"});
    const auto hs = int_axis(o.at("h"), o.path_of("h"));
    const auto ws = int_axis(o.at("w"), o.path_of("w"));
    // One axis of shapes: bounded like any axis, before 2^24 of them are built.
    if (hs.size() * ws.size() > kMaxAxisValues) {
      fail(path, "gives " + std::to_string(hs.size() * ws.size()) + " shapes, more than " +
                     std::to_string(kMaxAxisValues));
    }
    for (const auto h : hs) {
      for (const auto w : ws) out.push_back({h, w});
    }
    columns = ws.size();
    return out;
  }
  const auto& arr = as_array(value, path);
  if (arr.empty()) fail(path, "must not be empty");
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const PhyDim2 d = as_positive_dim(arr[i], index_path(path, i));
    if (!seen.insert({d.h, d.w}).second)
      fail(index_path(path, i), brief(arr[i]) + " is listed twice");
    out.push_back(d);
  }
  return out;
}

void parse_axes(const json& value, const std::string& path, sweep::DesignSpace& s) {
  const JsonObject o(value, path,
                     {"nodes", "pe_array", "gbuf_bytes", "regf_bytes", "array_bus_width_bits",
                      "dram_bandwidth_bytes_per_cycle"});
  if (o.has("nodes")) s.nodes = dim_axis(o.at("nodes"), o.path_of("nodes"), s.nodes_columns);
  if (o.has("pe_array")) {
    s.pe_array = dim_axis(o.at("pe_array"), o.path_of("pe_array"), s.pe_array_columns);
  }
  if (o.has("gbuf_bytes")) s.gbuf_bytes = int_axis(o.at("gbuf_bytes"), o.path_of("gbuf_bytes"));
  if (o.has("regf_bytes")) s.regf_bytes = int_axis(o.at("regf_bytes"), o.path_of("regf_bytes"));
  if (o.has("array_bus_width_bits")) {
    s.array_bus_width_bits =
        int_axis(o.at("array_bus_width_bits"), o.path_of("array_bus_width_bits"), true);
  }
  if (o.has("dram_bandwidth_bytes_per_cycle")) {
    s.dram_bandwidth_bytes_per_cycle = real_axis(o.at("dram_bandwidth_bytes_per_cycle"),
                                                 o.path_of("dram_bandwidth_bytes_per_cycle"));
  }
  const std::int64_t grid = sweep::grid_size(s);  // -1: past int64 (six axes of 4096: 2^72)
  if (grid < 0 || grid > kMaxDesigns) {
    fail(path,
         "the grid has " + count_text(grid) + " designs, more than " + std::to_string(kMaxDesigns));
  }
}

// {"area_budget_mm2": X, "same_area_as": {"design": NAME|FILE, "tolerance": T},
//  "min_pe_utilisation": U} (docs/codesign.md).
void parse_constraints(const json& value, const std::string& path, const Catalog& catalog,
                       sweep::DesignSpace& s) {
  const JsonObject o(value, path, {"area_budget_mm2", "same_area_as", "min_pe_utilisation"});
  if (o.has("area_budget_mm2")) {
    const double budget = o.number("area_budget_mm2");
    if (!(budget > 0))
      fail(o.path_of("area_budget_mm2"), "must be positive, got " + brief(o.at("area_budget_mm2")));
    s.area_budget_mm2 = budget;
  }
  if (o.has("same_area_as")) {
    const JsonObject same(o.at("same_area_as"), o.path_of("same_area_as"), {"design", "tolerance"});
    sweep::SameArea sa;
    sa.design = same.string("design");
    try {
      sa.reference = catalog.load_hardware(sa.design);
    } catch (const InputError& e) {
      rethrow_at(same.path_of("design"), e);
    }
    sa.tolerance = same.number("tolerance");
    if (!(sa.tolerance >= 0 && sa.tolerance <= 1)) {
      fail(same.path_of("tolerance"), "must be in [0, 1] (a fraction of the reference area), got " +
                                          brief(same.at("tolerance")));
    }
    s.same_area = std::move(sa);
  }
  if (o.has("min_pe_utilisation")) {
    const double floor = o.number("min_pe_utilisation");
    if (!(floor > 0 && floor <= 1)) {
      fail(o.path_of("min_pe_utilisation"),
           "must be in (0, 1] (a fraction of the PE-cycles), got " +
               brief(o.at("min_pe_utilisation")));
    }
    s.min_pe_utilisation = floor;
  }
  if (!s.area_budget_mm2 && !s.same_area && !s.min_pe_utilisation) {
    fail(path, "must give area_budget_mm2, same_area_as or min_pe_utilisation");
  }
}

// A seed of the job file: an integer >= 0.
std::uint64_t as_seed(const JsonObject& o, std::string_view key) {
  const std::int64_t seed = as_int(o.at(key), o.path_of(key));
  if (seed < 0) fail(o.path_of(key), "must be >= 0, got " + std::to_string(seed));
  return static_cast<std::uint64_t>(seed);
}

// {"objective": "energy"|"time"|"edp", "initial": N, "seed": S, "radius": D, "max_rounds": R,
//  "max_designs": D}; the limits are optional (none: until a round adds no design).
sweep::LocalSearchSettings parse_local_search(const json& value, const std::string& path) {
  const JsonObject o(value, path,
                     {"objective", "initial", "seed", "radius", "max_rounds", "max_designs"});
  sweep::LocalSearchSettings ls;
  const std::string objective = o.string("objective");
  if (objective == "energy") {
    ls.objective = sweep::SearchObjective::Energy;
  } else if (objective == "time") {
    ls.objective = sweep::SearchObjective::Time;
  } else if (objective == "edp") {
    ls.objective = sweep::SearchObjective::Edp;
  } else {
    fail(o.path_of("objective"),
         "must be \"energy\", \"time\" or \"edp\", got " + brief(o.at("objective")));
  }
  ls.initial = o.positive_int("initial");
  ls.seed = as_seed(o, "seed");
  if (o.has("radius")) {
    ls.radius = o.positive_int("radius");
    if (ls.radius > model::limits::kMaxAxisValues) {
      fail(o.path_of("radius"), "must be at most " + std::to_string(model::limits::kMaxAxisValues) +
                                    ", got " + std::to_string(ls.radius));
    }
  }
  if (o.has("max_rounds")) ls.max_rounds = o.positive_int("max_rounds");
  if (o.has("max_designs")) {
    ls.max_designs = o.positive_int("max_designs");
    if (*ls.max_designs < ls.initial) {
      fail(o.path_of("max_designs"), "must be >= initial (" + std::to_string(ls.initial) +
                                         "), got " + std::to_string(*ls.max_designs));
    }
  }
  return ls;
}

// "grid", {"random": {"count": N, "seed": S}} or {"local_search": {...}}.
void parse_sampling(const json& value, const std::string& path, sweep::DesignSpace& s) {
  if (value.is_string()) {
    if (value != "grid")
      fail(path, "must be \"grid\", {\"random\": {...}} or {\"local_search\": {...}}, got " +
                     brief(value));
    return;
  }
  const JsonObject o(value, path, {"random", "local_search"});
  if (o.has("random") == o.has("local_search")) {
    fail(path, "needs exactly one of \"random\" and \"local_search\"");
  }
  if (o.has("local_search")) {
    s.local_search = parse_local_search(o.at("local_search"), o.path_of("local_search"));
    return;
  }
  const JsonObject r(o.at("random"), o.path_of("random"), {"count", "seed"});
  s.random_count = r.positive_int("count");
  s.random_seed = as_seed(r, "seed");
}

// A hardware entry with a "base": its design points, each a hardware entry of its own (for a
// local search, its round 0; the search itself is appended to `searches`).
// `designs`: the grid points of the job's spaces so far, this one's added (bounded in all,
// before this space is expanded: a job may list thousands of spaces).
std::vector<sweep::HardwareAxis> parse_space(const JsonObject& entry, const Catalog& catalog,
                                             const std::vector<std::int64_t>& batches,
                                             std::int64_t& designs,
                                             std::vector<sweep::DesignSearch>& searches) {
  sweep::DesignSpace s;
  const std::string base = entry.string("base");
  try {
    s.base = catalog.load_hardware(base);
  } catch (const InputError& e) {
    rethrow_at(entry.path_of("base"), e);
  }
  parse_axes(entry.at("axes"), entry.path_of("axes"), s);
  designs += sweep::grid_size(s);  // each at most kMaxDesigns: no overflow
  if (designs > kMaxDesigns) {
    fail(entry.path_of("axes"), "the job's spaces have " + std::to_string(designs) +
                                    " designs in all, more than " + std::to_string(kMaxDesigns));
  }
  if (entry.has("constraints"))
    parse_constraints(entry.at("constraints"), entry.path_of("constraints"), catalog, s);
  if (entry.has("sampling")) parse_sampling(entry.at("sampling"), entry.path_of("sampling"), s);
  std::vector<sweep::HardwareAxis> out;
  try {
    std::vector<sweep::DesignPoint> points;
    if (s.local_search) {
      searches.push_back(sweep::make_design_search(s, batches));
      for (const auto i : searches.back().initial) points.push_back(searches.back().grid[i]);
    } else {
      points = sweep::expand_space(s);
    }
    for (auto& point : points) out.push_back(sweep::design_axis(std::move(point), batches));
  } catch (const InputError& e) {
    rethrow_at(entry.path(), e);
  }
  return out;
}

std::vector<sweep::HardwareAxis> parse_hardware(const JsonObject& job, const Catalog& catalog,
                                                std::vector<sweep::DesignSearch>& searches) {
  const std::string path = job.path_of("hardware");
  const auto& arr = as_array(job.at("hardware"), path);
  if (arr.empty()) fail(path, "must not be empty");
  std::vector<sweep::HardwareAxis> out;
  std::set<std::string> seen;
  std::int64_t designs = 0;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string p = index_path(path, i);
    sweep::HardwareAxis hw;
    if (arr[i].is_string()) {
      hw.name = as_string(arr[i], p);
      if (!job.has("batch")) {
        fail(p, "a bare hardware name needs a top-level \"batch\" (or write {\"name\": \"" +
                    hw.name + "\", \"batch\": N})");
      }
      hw.batches = batches(job.at("batch"), job.path_of("batch"));
    } else {
      const bool space = arr[i].is_object() && arr[i].contains("base");
      const JsonObject entry(
          arr[i], p,
          space ? std::vector<std::string_view>{"base", "axes", "constraints", "sampling", "batch"}
                : std::vector<std::string_view>{"name", "batch"});
      hw.batches = entry.has("batch") ? batches(entry.at("batch"), entry.path_of("batch"))
                   : job.has("batch") ? batches(job.at("batch"), job.path_of("batch"))
                                      : (fail(entry.path_of("batch"), "missing required key"),
                                         std::vector<std::int64_t>{});
      if (space) {
        const std::size_t searched = searches.size();
        auto points = parse_space(entry, catalog, hw.batches, designs, searches);
        // A search may price any design of its grid: each name must be its own.
        std::vector<std::string> names;
        if (searches.size() > searched) {
          for (const auto& d : searches.back().grid) names.push_back(d.hardware.name);
        } else {
          for (const auto& d : points) names.push_back(d.name);
        }
        for (const auto& name : names) {
          if (!seen.insert(name).second) fail(p, "design '" + name + "' is listed twice");
        }
        for (auto& design : points) out.push_back(std::move(design));
        continue;
      }
      hw.name = entry.string("name");
    }
    if (hw.name.empty()) fail(p, "name must not be empty");
    if (!seen.insert(hw.name).second) fail(p, "hardware '" + hw.name + "' is listed twice");
    out.push_back(std::move(hw));
  }
  return out;
}

std::vector<sweep::StrategyAxis> parse_strategies(const JsonObject& job,
                                                  const search::StrategyRegistry& registry) {
  const std::string path = job.path_of("strategies");
  const auto& arr = as_array(job.at("strategies"), path);
  if (arr.empty()) fail(path, "must not be empty");
  std::vector<sweep::StrategyAxis> out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string p = index_path(path, i);
    sweep::StrategyAxis s;
    std::string name_path = p;
    const json no_params = json::object();
    const json* params = &no_params;
    std::string params_path;
    if (arr[i].is_string()) {
      s.name = as_string(arr[i], p);
    } else {
      const JsonObject entry(arr[i], p, {"name", "params"});
      s.name = entry.string("name");
      name_path = entry.path_of("name");
      if (entry.has("params")) {
        params = &entry.at("params");
        params_path = entry.path_of("params");
        if (!params->is_object()) fail(params_path, "must be an object");
        if (!params->empty()) s.params = params->dump();  // keys sorted: canonical
      }
    }
    if (s.name.empty()) fail(p, "name must not be empty");
    const search::StrategyEntry* strategy = nullptr;
    try {
      strategy = &registry.find(s.name);
    } catch (const InputError& e) {
      rethrow_at(name_path, e);
    }
    if (!params_path.empty()) s.options = parse_strategy_params(*strategy, *params, params_path);
    s.letter = std::string(1, strategy->letter);
    s.label = strategy_label(strategy->letter, *params);
    if (!seen.insert(s.name + "\n" + s.params).second) {
      fail(p, "strategy '" + s.name + "' is listed twice with the same params");
    }
    out.push_back(std::move(s));
  }
  return out;
}

sweep::SweepSpec parse_job(const json& root, const search::StrategyRegistry& registry,
                           const Catalog& catalog) {
  const JsonObject job(
      root, "",
      {"name", "description", "networks", "hardware", "batch", "strategies", "seeds", "options",
       "tuple_time_limit_seconds", "threads", "output", "record_schedules"});
  sweep::SweepSpec spec;
  spec.name = job.string("name");
  if (spec.name.empty()) fail("name", "must not be empty");
  if (job.has("description")) spec.description = job.string("description");
  spec.networks = string_list(job.at("networks"), job.path_of("networks"));
  spec.hardware = parse_hardware(job, catalog, spec.searches);
  spec.strategies = parse_strategies(job, registry);
  if (job.has("seeds")) {
    const std::string p = job.path_of("seeds");
    const auto& arr = as_array(job.at("seeds"), p);
    if (arr.empty()) fail(p, "must not be empty");
    spec.seeds.clear();
    std::set<std::uint64_t> seen;
    for (std::size_t i = 0; i < arr.size(); ++i) {
      const auto v = as_int(arr[i], index_path(p, i));
      if (v < 0) fail(index_path(p, i), "must be >= 0, got " + std::to_string(v));
      if (!seen.insert(static_cast<std::uint64_t>(v)).second) {
        fail(index_path(p, i), "seed " + std::to_string(v) + " is listed twice");
      }
      spec.seeds.push_back(static_cast<std::uint64_t>(v));
    }
  }
  spec.options = job.has("options")
                     ? parse_search_options(job.at("options"), "options", OptionsFormat::Job)
                     : model::default_options();
  if (job.has("tuple_time_limit_seconds")) {
    // Bounded: a deadline far in the future overflowed steady_clock and timed out at once.
    spec.tuple_time_limit_seconds = job.number("tuple_time_limit_seconds");
    model::limits::check_real("tuple_time_limit_seconds (0 = no limit)",
                              spec.tuple_time_limit_seconds, 0, model::limits::kMaxSeconds);
  }
  if (job.has("threads")) {
    const auto t = as_int(job.at("threads"), "threads");
    if (t < 0 || t > 4096) fail("threads", "must be in [0, 4096] (0 = $OMP_NUM_THREADS)");
    spec.threads = static_cast<int>(t);
  }
  spec.output = job.string("output");
  if (spec.output.empty()) fail("output", "must not be empty");
  if (job.has("record_schedules")) {
    spec.record_schedules = job.boolean("record_schedules");
  }
  spec.fingerprint = job_fingerprint(spec, registry);
  return spec;
}

}  // namespace

std::string job_fingerprint(const sweep::SweepSpec& spec,
                            const search::StrategyRegistry& registry) {
  // The options each strategy searches with (its registry default filled in), each distinct
  // text once, in axis order. A job whose strategies all search alike keeps the fingerprint it
  // had before strategies had defaults of their own; a job whose K or S now search the fold
  // variants by default gets another, so resuming a file written with nn_dataflow's mapper is
  // refused instead of mixing the two spaces (set "rs_fold_variants": false to resume it).
  std::vector<std::string> searched;
  for (const auto& s : spec.strategies) {
    const auto text = canonical_options(search::options_for(registry.find(s.name), spec.options));
    if (std::find(searched.begin(), searched.end(), text) == searched.end()) {
      searched.push_back(text);
    }
  }
  std::ostringstream fp;
  fp.precision(17);
  for (std::size_t i = 0; i < searched.size(); ++i) fp << (i ? "|" : "") << searched[i];
  fp << ";tuple_time_limit_seconds=" << spec.tuple_time_limit_seconds;
  return sweep::hex64(sweep::fnv1a(fp.str()));
}

std::string canonical_options(const model::SearchOptions& o) {
  std::ostringstream os;
  os.precision(17);
  os << "sw_gbuf_bypass=" << o.sw_gbuf_bypass[DataCategory::Fil]
     << o.sw_gbuf_bypass[DataCategory::Ifm] << o.sw_gbuf_bypass[DataCategory::Ofm]
     << ";sw_solve_loopblocking=" << o.sw_solve_loopblocking
     << ";hw_access_forwarding=" << o.hw_access_forwarding
     << ";hw_gbuf_sharing=" << o.hw_gbuf_sharing
     << ";hw_gbuf_save_writeback=" << o.hw_gbuf_save_writeback
     << ";partition_hybrid=" << o.partition_hybrid << ";partition_batch=" << o.partition_batch
     << ";partition_ifmaps=" << o.partition_ifmaps
     << ";partition_interlayer=" << o.partition_interlayer
     << ";layer_pipeline_time_ovhd=" << o.layer_pipeline_time_ovhd
     << ";layer_pipeline_max_degree=" << o.layer_pipeline_max_degree
     << ";layer_pipeline_opt=" << o.layer_pipeline_opt
     << ";opt_goal=" << model::goal_name(o.opt_goal) << ";ntops=" << o.ntops
     << ";cost_model=" << model::variant_name(o.cost_model);
  // Only when set, so the keys of results written before the option existed still match.
  if (model::fold_variants_on(o)) os << ";rs_fold_variants=1";
  if (o.imperfect != model::Imperfect::None)
    os << ";imperfect=" << model::imperfect_name(o.imperfect);
  return os.str();
}

sweep::SweepSpec parse_job_text(std::string_view text, const std::string& origin,
                                const search::StrategyRegistry& registry,
                                const std::optional<std::filesystem::path>& data_dir_override) {
  try {
    sweep::SweepSpec spec =
        parse_job(parse_json_text(text), registry, Catalog(data_dir(data_dir_override)));
    spec.source_file = origin;
    spec.source_text = std::string(text);
    // Duplicate tuples are caught here so the error names the file.
    (void)sweep::expand_tuples(spec);
    return spec;
  } catch (const InputError& e) {
    throw InputError(origin + ": " + e.what());
  }
}

sweep::SweepSpec load_job_file(const std::filesystem::path& file,
                               const search::StrategyRegistry& registry,
                               const std::optional<std::filesystem::path>& data_dir_override) {
  return parse_job_text(read_text_file(file), file.string(), registry, data_dir_override);
}

}  // namespace kapla::io
