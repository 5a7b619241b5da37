// Search option parsing helpers and validation (nn_dataflow Option.__new__ checks).
#include "model/options.hpp"

#include <sstream>
#include <string>

#include "core/errors.hpp"
#include "model/limits.hpp"

namespace kapla::model {

SearchOptions default_options() {
  SearchOptions o;
  o.sw_gbuf_bypass = {{true, true, true}};  // nn_dataflow_search.py: no --disable-bypass
  o.rs_fold_variants.reset();
  return o;
}

std::vector<std::pair<std::string, std::string>> describe(const SearchOptions& o) {
  auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
  auto num = [](double v) {
    std::ostringstream os;
    os.precision(17);
    os << v;
    return os.str();
  };
  const auto& bp = o.sw_gbuf_bypass;
  return {
      {"options.sw_gbuf_bypass", "[" + flag(bp[DataCategory::Fil]) + "," +
                                     flag(bp[DataCategory::Ifm]) + "," +
                                     flag(bp[DataCategory::Ofm]) + "]"},
      {"options.sw_solve_loopblocking", flag(o.sw_solve_loopblocking)},
      {"options.hw_access_forwarding", flag(o.hw_access_forwarding)},
      {"options.hw_gbuf_sharing", flag(o.hw_gbuf_sharing)},
      {"options.hw_gbuf_save_writeback", flag(o.hw_gbuf_save_writeback)},
      {"options.partition_hybrid", flag(o.partition_hybrid)},
      {"options.partition_batch", flag(o.partition_batch)},
      {"options.partition_ifmaps", flag(o.partition_ifmaps)},
      {"options.partition_interlayer", flag(o.partition_interlayer)},
      {"options.layer_pipeline_time_ovhd", num(o.layer_pipeline_time_ovhd)},
      {"options.layer_pipeline_max_degree", num(o.layer_pipeline_max_degree)},
      {"options.layer_pipeline_opt", flag(o.layer_pipeline_opt)},
      {"options.opt_goal", std::string(goal_name(o.opt_goal))},
      {"options.ntops", std::to_string(o.ntops)},
      {"options.cost_model", std::string(variant_name(o.cost_model))},
      {"options.rs_fold_variants",
       o.rs_fold_variants ? flag(*o.rs_fold_variants) : std::string("strategy")},
      {"options.imperfect", std::string(imperfect_name(o.imperfect))},
  };
}

bool fold_variants_on(const SearchOptions& o) { return o.rs_fold_variants.value_or(false); }

std::string_view goal_name(Goal g) {
  switch (g) {
    case Goal::Energy:
      return "e";
    case Goal::Delay:
      return "d";
    case Goal::EnergyDelay:
      return "ed";
  }
  return "?";
}

double goal_scalar(double energy, double time, Goal g) {
  switch (g) {
    case Goal::Energy:
      return energy;
    case Goal::Delay:
      return time;
    case Goal::EnergyDelay:
      return energy * time;
  }
  return energy;
}

bool goal_less(double energy_a, double time_a, double energy_b, double time_b, Goal g) {
  switch (g) {
    case Goal::Energy:
      return energy_a < energy_b || (energy_a == energy_b && time_a < time_b);
    case Goal::Delay:
      return time_a < time_b || (time_a == time_b && energy_a < energy_b);
    case Goal::EnergyDelay:
      return energy_a * time_a < energy_b * time_b;
  }
  return false;
}

Goal parse_goal(std::string_view s) {
  if (s == "e" || s == "E") return Goal::Energy;
  if (s == "d" || s == "D") return Goal::Delay;
  if (s == "ed" || s == "ED") return Goal::EnergyDelay;
  throw InputError("opt_goal: must be one of e, d, ed; got '" + std::string(s) + "'");
}

std::string_view variant_name(CostModelVariant v) {
  return v == CostModelVariant::Kapla ? "kapla" : "tangram";
}

CostModelVariant parse_variant(std::string_view s) {
  if (s == "kapla") return CostModelVariant::Kapla;
  if (s == "tangram") return CostModelVariant::Tangram;
  throw InputError("cost_model: must be kapla or tangram; got '" + std::string(s) + "'");
}

std::string_view imperfect_name(Imperfect m) {
  switch (m) {
    case Imperfect::None:
      return "none";
    case Imperfect::Spatial:
      return "spatial";
    case Imperfect::Full:
      return "full";
    case Imperfect::Perfect:
      return "perfect";
  }
  return "?";
}

Imperfect parse_imperfect(std::string_view s) {
  if (s == "none") return Imperfect::None;
  if (s == "spatial") return Imperfect::Spatial;
  if (s == "full") return Imperfect::Full;
  if (s == "perfect") return Imperfect::Perfect;
  throw InputError("imperfect: must be one of none, spatial, full, perfect; got '" +
                   std::string(s) + "'");
}

SearchOptions kapla_option_preset(std::string_view name) {
  SearchOptions o;
  o.sw_gbuf_bypass = {{false, false, false}};
  o.hw_gbuf_sharing = true;
  o.partition_hybrid = o.partition_batch = o.partition_ifmaps = true;
  o.layer_pipeline_time_ovhd = 1e10;
  o.layer_pipeline_opt = true;
  o.opt_goal = Goal::Energy;
  o.ntops = 1;
  o.rs_fold_variants.reset();
  if (name == "inference") {
    o.hw_gbuf_save_writeback = true;
    o.partition_interlayer = true;
    o.layer_pipeline_max_degree = 5;
  } else if (name == "training") {
    o.layer_pipeline_max_degree = 1e10;
  } else {
    throw InputError("options: unknown preset '" + std::string(name) +
                     "'; known: training, inference");
  }
  return o;
}

void validate(const SearchOptions& o) {
  if (o.sw_solve_loopblocking && o.hw_gbuf_sharing) {
    throw InputError(
        "sw_solve_loopblocking: the analytical loop-blocking solver cannot be "
        "combined with hw_gbuf_sharing");
  }
  if (o.sw_solve_loopblocking && o.hw_gbuf_save_writeback) {
    throw InputError(
        "sw_solve_loopblocking: the analytical loop-blocking solver cannot be "
        "combined with hw_gbuf_save_writeback");
  }
  if (o.hw_access_forwarding && o.hw_gbuf_sharing) {
    throw InputError("hw_access_forwarding: implied by hw_gbuf_sharing; enable only one");
  }
  if (o.partition_ifmaps && !o.partition_hybrid) {
    throw InputError("partition_ifmaps: requires partition_hybrid");
  }
  limits::check_int("ntops", o.ntops, 1, limits::kMaxTops);
  limits::check_real("layer_pipeline_time_ovhd", o.layer_pipeline_time_ovhd, 0,
                     limits::kMaxPipelineKnob, true);
  limits::check_real("layer_pipeline_max_degree", o.layer_pipeline_max_degree, 0,
                     limits::kMaxPipelineKnob, true);
}

}  // namespace kapla::model
