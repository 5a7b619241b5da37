// Job file parsing (see job_json.hpp and docs/sweep.md).
#include "io/job_json.hpp"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "core/errors.hpp"
#include "io/json_util.hpp"
#include "io/options_json.hpp"
#include "model/limits.hpp"
#include "search/strategy.hpp"
#include "search/strategy_options.hpp"

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

// A strategy's "params" (docs/sweep.md): the knobs of its part of search::StrategyOptions.
// Unknown keys (and any key for strategies without options) are refused with their path.
search::StrategyOptions parse_strategy_params(std::string_view strategy, const json& value,
                                              const std::string& path) {
  search::StrategyOptions o;
  std::string_view name;
  try {
    name = search::canonical_strategy_name(strategy);
  } catch (const InputError& e) {
    rethrow_at(path, e);
  }
  auto non_negative_int = [](const JsonObject& obj, const char* key) {
    const auto v = as_int(obj.at(key), obj.path_of(key));
    model::limits::check_int(obj.path_of(key), v, 0, model::limits::kMaxEvaluations);
    return v;
  };
  auto seconds = [](const JsonObject& obj, const char* key) {
    const double v = obj.number(key);
    model::limits::check_real(obj.path_of(key), v, 0, model::limits::kMaxSeconds);
    return v;
  };
  auto budget = [&](const JsonObject& obj, search::SamplingBudget& b) {
    if (obj.has("max_evaluations")) b.max_evaluations = non_negative_int(obj, "max_evaluations");
    if (obj.has("max_seconds")) b.max_seconds = seconds(obj, "max_seconds");
    if (b.max_evaluations == 0 && b.max_seconds == 0) {
      fail(obj.path_of("max_evaluations"), "max_evaluations and max_seconds are both 0 (no budget)");
    }
  };
  auto positive = [](const JsonObject& obj, const char* key, int& field) {
    if (!obj.has(key)) return;
    const auto v = obj.positive_int(key);
    if (v > 1000000) fail(obj.path_of(key), "must be <= 1000000");
    field = static_cast<int>(v);
  };
  if (name == "random") {
    const JsonObject obj(value, path,
                         {"max_evaluations", "max_seconds", "victory_condition", "batch_size"});
    budget(obj, o.random.budget);
    if (obj.has("victory_condition")) {
      o.random.victory_condition = non_negative_int(obj, "victory_condition");
    }
    positive(obj, "batch_size", o.random.batch_size);
  } else if (name == "guided") {
    const JsonObject obj(value, path,
                         {"max_evaluations", "max_seconds", "surrogate", "batch_size", "num_chains"});
    budget(obj, o.guided.budget);
    if (obj.has("surrogate")) o.guided.surrogate = obj.boolean("surrogate");
    positive(obj, "batch_size", o.guided.batch_size);
    positive(obj, "num_chains", o.guided.num_chains);
  } else if (name == "kapla") {
    const JsonObject obj(value, path,
                         {"inter_layer_pruning", "fallback", "capacity_factor", "segment_selection",
                          "segment_margin", "constraint_frontier", "refinement"});
    if (obj.has("segment_selection")) o.kapla.segment_selection = obj.boolean("segment_selection");
    if (obj.has("constraint_frontier")) {
      o.kapla.constraint_frontier = obj.boolean("constraint_frontier");
    }
    if (obj.has("segment_margin")) {
      o.kapla.segment_margin = obj.number("segment_margin");
      if (!(o.kapla.segment_margin >= 0)) fail(obj.path_of("segment_margin"), "must be >= 0");
    }
    if (obj.has("refinement")) {
      const std::string r = obj.string("refinement");
      if (r == "paper") {
        o.kapla.refinement = search::kapla::Refinement::paper();
      } else if (r != "kapla") {
        fail(obj.path_of("refinement"), "must be \"kapla\" (default) or \"paper\"");
      }
    }
    if (obj.has("inter_layer_pruning")) {
      o.kapla.inter_layer_pruning = obj.boolean("inter_layer_pruning");
    }
    if (obj.has("fallback")) o.kapla.fallback = obj.boolean("fallback");
    if (obj.has("capacity_factor")) {
      o.kapla.capacity_factor = obj.number("capacity_factor");
      if (!(o.kapla.capacity_factor > 0 && o.kapla.capacity_factor <= 1)) {
        fail(obj.path_of("capacity_factor"), "must be in (0, 1]");
      }
    }
  } else {
    const JsonObject obj(value, path, {});  // refuses every key
  }
  try {
    search::validate(o);
  } catch (const InputError& e) {
    rethrow_at(path, e);
  }
  return o;
}

std::vector<sweep::HardwareAxis> parse_hardware(const JsonObject& job) {
  const std::string path = job.path_of("hardware");
  const auto& arr = as_array(job.at("hardware"), path);
  if (arr.empty()) fail(path, "must not be empty");
  std::vector<sweep::HardwareAxis> out;
  std::set<std::string> seen;
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
      const JsonObject entry(arr[i], p, {"name", "batch"});
      hw.name = entry.string("name");
      hw.batches = entry.has("batch") ? batches(entry.at("batch"), entry.path_of("batch"))
                   : job.has("batch")
                       ? batches(job.at("batch"), job.path_of("batch"))
                       : (fail(entry.path_of("batch"), "missing required key"),
                          std::vector<std::int64_t>{});
    }
    if (hw.name.empty()) fail(p, "name must not be empty");
    if (!seen.insert(hw.name).second) fail(p, "hardware '" + hw.name + "' is listed twice");
    out.push_back(std::move(hw));
  }
  return out;
}

std::vector<sweep::StrategyAxis> parse_strategies(const JsonObject& job) {
  const std::string path = job.path_of("strategies");
  const auto& arr = as_array(job.at("strategies"), path);
  if (arr.empty()) fail(path, "must not be empty");
  std::vector<sweep::StrategyAxis> out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string p = index_path(path, i);
    sweep::StrategyAxis s;
    if (arr[i].is_string()) {
      s.name = as_string(arr[i], p);
    } else {
      const JsonObject entry(arr[i], p, {"name", "params"});
      s.name = entry.string("name");
      if (entry.has("params")) {
        const auto& params = entry.at("params");
        if (!params.is_object()) fail(entry.path_of("params"), "must be an object");
        if (!params.empty()) s.params = params.dump();  // keys sorted: canonical
        if (s.name.empty()) fail(p, "name must not be empty");
        s.options = parse_strategy_params(s.name, params, entry.path_of("params"));
      }
    }
    if (s.name.empty()) fail(p, "name must not be empty");
    if (!seen.insert(s.name + "\n" + s.params).second) {
      fail(p, "strategy '" + s.name + "' is listed twice with the same params");
    }
    out.push_back(std::move(s));
  }
  return out;
}

sweep::SweepSpec parse_job(const json& root) {
  const JsonObject job(root, "",
                       {"name", "description", "networks", "hardware", "batch", "strategies",
                        "seeds", "options", "tuple_time_limit_seconds", "threads", "output"});
  sweep::SweepSpec spec;
  spec.name = job.string("name");
  if (spec.name.empty()) fail("name", "must not be empty");
  if (job.has("description")) spec.description = job.string("description");
  spec.networks = string_list(job.at("networks"), job.path_of("networks"));
  spec.hardware = parse_hardware(job);
  spec.strategies = parse_strategies(job);
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
  std::ostringstream fp;
  fp.precision(17);
  fp << canonical_options(spec.options) << ";tuple_time_limit_seconds="
     << spec.tuple_time_limit_seconds;
  spec.fingerprint = sweep::hex64(sweep::fnv1a(fp.str()));
  return spec;
}

}  // namespace

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
  if (o.rs_fold_variants) os << ";rs_fold_variants=1";
  return os.str();
}

sweep::SweepSpec parse_job_text(std::string_view text, const std::string& origin) {
  try {
    sweep::SweepSpec spec = parse_job(parse_json_text(text));
    spec.source_file = origin;
    spec.source_text = std::string(text);
    // Duplicate tuples are caught here so the error names the file.
    (void)sweep::expand_tuples(spec);
    return spec;
  } catch (const InputError& e) {
    throw InputError(origin + ": " + e.what());
  }
}

sweep::SweepSpec load_job_file(const std::filesystem::path& file) {
  return parse_job_text(read_text_file(file), file.string());
}

}  // namespace kapla::io
