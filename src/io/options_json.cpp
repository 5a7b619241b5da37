// Search options from JSON (see options_json.hpp).
#include "io/options_json.hpp"

#include <limits>
#include <vector>

#include "core/errors.hpp"
#include "io/json_util.hpp"

namespace kapla::io {
namespace {

using nlohmann::json;

// The KAPLA code writes unbounded knobs as a string.
double number_or_inf(const json& value, const std::string& path, OptionsFormat format) {
  if (format == OptionsFormat::KaplaFile && value.is_string()) {
    const auto s = value.get<std::string>();
    if (s == "inf" || s == "Infinity") return std::numeric_limits<double>::infinity();
  }
  return as_number(value, path);
}

}  // namespace

model::SearchOptions parse_search_options(const json& value, const std::string& path,
                                          OptionsFormat format) {
  std::vector<std::string_view> keys = {"sw_gbuf_bypass",
                                        "sw_solve_loopblocking",
                                        "hw_access_forwarding",
                                        "hw_gbuf_sharing",
                                        "hw_gbuf_save_writeback",
                                        "partition_hybrid",
                                        "partition_batch",
                                        "partition_ifmaps",
                                        "partition_interlayer",
                                        "layer_pipeline_time_ovhd",
                                        "layer_pipeline_max_degree",
                                        "layer_pipeline_opt",
                                        "opt_goal",
                                        "ntops",
                                        "rs_fold_variants",
                                        "imperfect"};
  if (format == OptionsFormat::Job) {
    keys.push_back("cost_model");
  } else {
    keys.push_back("nprocesses");  // the reference's process count: no effect on results
    keys.push_back("verbose");
  }
  const JsonObject obj(value, path, keys);
  // Keys not given keep kapla's defaults (the same for `kapla schedule` and job files).
  model::SearchOptions o = model::default_options();
  if (obj.has("sw_gbuf_bypass")) {
    const std::string p = obj.path_of("sw_gbuf_bypass");
    const auto& arr = as_array(obj.at("sw_gbuf_bypass"), p);
    if (arr.size() != 3)
      fail(p, "must be [fil, ifm, ofm] (3 booleans), got " + brief(obj.at("sw_gbuf_bypass")));
    o.sw_gbuf_bypass[DataCategory::Fil] = as_bool(arr[0], index_path(p, 0));
    o.sw_gbuf_bypass[DataCategory::Ifm] = as_bool(arr[1], index_path(p, 1));
    o.sw_gbuf_bypass[DataCategory::Ofm] = as_bool(arr[2], index_path(p, 2));
  }
  auto flag = [&](const char* key, bool& field) {
    if (obj.has(key)) field = obj.boolean(key);
  };
  flag("sw_solve_loopblocking", o.sw_solve_loopblocking);
  flag("hw_access_forwarding", o.hw_access_forwarding);
  flag("hw_gbuf_sharing", o.hw_gbuf_sharing);
  flag("hw_gbuf_save_writeback", o.hw_gbuf_save_writeback);
  flag("partition_hybrid", o.partition_hybrid);
  flag("partition_batch", o.partition_batch);
  flag("partition_ifmaps", o.partition_ifmaps);
  flag("partition_interlayer", o.partition_interlayer);
  flag("layer_pipeline_opt", o.layer_pipeline_opt);
  // Unset stays unset: each strategy's default (search::options_for).
  if (obj.has("rs_fold_variants")) o.rs_fold_variants = obj.boolean("rs_fold_variants");
  if (format == OptionsFormat::KaplaFile) {
    bool ignored = false;
    flag("verbose", ignored);
    if (obj.has("nprocesses")) (void)obj.positive_int("nprocesses");
  }
  // Their limits (and ntops') are model::validate's, checked below.
  auto number = [&](const char* key, double& field) {
    if (obj.has(key)) field = number_or_inf(obj.at(key), obj.path_of(key), format);
  };
  number("layer_pipeline_time_ovhd", o.layer_pipeline_time_ovhd);
  number("layer_pipeline_max_degree", o.layer_pipeline_max_degree);
  // The strings are read before the try: their type errors already carry the path.
  const std::string goal = obj.has("opt_goal") ? obj.string("opt_goal") : "";
  const std::string variant = obj.has("cost_model") ? obj.string("cost_model") : "";
  const std::string imperfect = obj.has("imperfect") ? obj.string("imperfect") : "";
  try {
    if (obj.has("ntops")) {
      // Checked before the narrowing to int.
      const std::int64_t n = obj.positive_int("ntops");
      if (n > std::numeric_limits<int>::max())
        fail("ntops", "is too large, got " + std::to_string(n));
      o.ntops = static_cast<int>(n);
    }
    if (obj.has("opt_goal")) o.opt_goal = model::parse_goal(goal);
    if (obj.has("cost_model")) o.cost_model = model::parse_variant(variant);
    if (obj.has("imperfect")) o.imperfect = model::parse_imperfect(imperfect);
    model::validate(o);
  } catch (const InputError& e) {
    rethrow_at(path, e);  // the model names the field
  }
  return o;
}

model::SearchOptions load_options_file(const std::filesystem::path& file) {
  try {
    return parse_search_options(read_json_file(file), "", OptionsFormat::KaplaFile);
  } catch (const InputError& e) {
    const std::string what = e.what();
    // read_json_file's errors already name the file.
    if (what.rfind(file.string() + ": ", 0) == 0) throw;
    throw InputError(file.string() + ": " + what);
  }
}

}  // namespace kapla::io
