// Job file parsing (see job_json.hpp and docs/sweep.md).
#include "io/job_json.hpp"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "core/errors.hpp"
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
                   : job.has("batch") ? batches(job.at("batch"), job.path_of("batch"))
                                      : (fail(entry.path_of("batch"), "missing required key"),
                                         std::vector<std::int64_t>{});
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

sweep::SweepSpec parse_job(const json& root, const search::StrategyRegistry& registry) {
  const JsonObject job(root, "",
                       {"name", "description", "networks", "hardware", "batch", "strategies",
                        "seeds", "options", "tuple_time_limit_seconds", "threads", "output"});
  sweep::SweepSpec spec;
  spec.name = job.string("name");
  if (spec.name.empty()) fail("name", "must not be empty");
  if (job.has("description")) spec.description = job.string("description");
  spec.networks = string_list(job.at("networks"), job.path_of("networks"));
  spec.hardware = parse_hardware(job);
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
  std::ostringstream fp;
  fp.precision(17);
  fp << canonical_options(spec.options)
     << ";tuple_time_limit_seconds=" << spec.tuple_time_limit_seconds;
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

sweep::SweepSpec parse_job_text(std::string_view text, const std::string& origin,
                                const search::StrategyRegistry& registry) {
  try {
    sweep::SweepSpec spec = parse_job(parse_json_text(text), registry);
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
                               const search::StrategyRegistry& registry) {
  return parse_job_text(read_text_file(file), file.string(), registry);
}

}  // namespace kapla::io
