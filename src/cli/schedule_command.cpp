// `kapla schedule`: the whole-network search (nn_dataflow's search, calling any registered
// per-layer strategy: B, S, R, M or K) on a network and a hardware preset/file or the
// reference CLI's hardware flags; prints totals and a per-layer table, optionally each
// layer's scheme as KAPLA directives (--show-directives) and the reference's JSON keys.
// Exit 2 when nothing fits.
// Spec: nn_dataflow-spec.md §10 (options, defaults, JSON output); kapla-spec.md §7.2 (presets).
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/emit_files.hpp"
#include "cli/int_option.hpp"
#include "cli/progress_flags.hpp"
#include "cli/schedule_text.hpp"
#include "core/errors.hpp"
#include "io/catalog.hpp"
#include "io/json_util.hpp"
#include "io/options_json.hpp"
#include "io/schedule_json.hpp"
#include "io/strategy_params_json.hpp"
#include "model/limits.hpp"
#include "model/options.hpp"
#include "schedule/run_network.hpp"
#include "schedule/scheduled_network.hpp"
#include "search/kapla/directives.hpp"
#include "search/kapla_solver.hpp"
#include "search/strategy.hpp"

namespace kapla::cli {

namespace {

using json = nlohmann::ordered_json;

struct ScheduleArgs {
  std::string network;
  std::string hardware;
  std::int64_t batch = 0;
  std::string strategy = "exhaustive";
  std::string json_out;
  std::string options_preset;
  std::string cost_model = "kapla";
  int threads = 1;
  // Sampling strategies (random R, guided M): per-layer budget and seed.
  std::uint64_t seed = 1;
  std::int64_t budget = 1000;
  double budget_seconds = 0;
  std::int64_t victory = 0;
  bool surrogate = false;
  // K's inter-layer options (docs/kapla_inter_layer.md) and variant (docs/kapla.md §4).
  bool segment_selection = false;
  double segment_margin = 0.05;
  bool constraint_frontier = false;
  std::string refinement = "kapla";
  // Any strategy's params: a JSON object, then KEY=VALUE pairs (each overrides what it names).
  std::string params_json;
  std::vector<std::string> params;
  bool show_directives = false;
  std::string emit_dir;                  // --emit: write each layer's loop-nest program here
  std::vector<std::string> emit_layers;  // --emit-layer: only these (default: every layer)
  std::string emit_target = "loops";     // --emit-target: loops or hls
  ProgressFlags progress;
  std::string array_mapping;  // empty: the hardware's
  // The reference CLI's hardware flags (used without --hardware).
  std::vector<std::int64_t> nodes;
  std::vector<std::int64_t> array;
  std::optional<std::int64_t> regf;
  std::optional<std::int64_t> gbuf;
  std::int64_t word = 16;
  std::int64_t bus_width = 0;
  double dram_bw = std::numeric_limits<double>::infinity();
  std::optional<double> op_cost;
  std::vector<double> hier_cost;
  std::optional<double> hop_cost;
  std::optional<double> unit_idle_cost;
  std::string mem_type = "2D";
  // Option flags.
  std::vector<std::string> disable_bypass;
  bool disable_bypass_given = false;
  bool solve_loopblocking = false;
  bool access_forwarding = false;
  bool gbuf_sharing = false;
  bool save_writeback = false;
  bool disable_interlayer_opt = false;
  bool hybrid = false;
  bool batch_part = false;
  // --rs-fold-variants / --no-rs-fold-variants; unset = the options file's, else the
  // strategy's default (search::options_for).
  bool rs_fold_flag = false;
  std::optional<bool> rs_fold_variants;
  bool ifmaps_part = false;
  bool interlayer = false;
  std::optional<double> time_overhead;
  std::optional<double> max_degree;
  std::string goal;
  std::optional<int> top;
  std::string imperfect;  // --imperfect: none, spatial or full; empty = the options'
};

// The model's field names and the reference CLI's flags that set them, so that a flag's error
// names the flag: the flags build the same model values and go through the same validation.
constexpr std::pair<std::string_view, std::string_view> kFlagOfField[] = {
    {"nodes", "--nodes"},
    {"pe_array", "--array"},
    {"gbuf_bytes", "--gbuf"},
    {"regf_bytes", "--regf"},
    {"word_bits", "--word"},
    {"array_bus_width_bits", "--bus-width"},
    {"dram_bandwidth_bytes_per_cycle", "--dram-bw"},
    {"costs.mac_op", "--op-cost"},
    {"costs.mem_hier.DRAM", "--hier-cost DRAM"},
    {"costs.mem_hier.GBUF", "--hier-cost GBUF"},
    {"costs.mem_hier.ITCN", "--hier-cost ITCN"},
    {"costs.mem_hier.REGF", "--hier-cost REGF"},
    {"costs.noc_hop", "--hop-cost"},
    {"costs.idl_unit", "--unit-idle-cost"},
    {"layer_pipeline_time_ovhd", "--layer-pipeline-time-overhead"},
    {"layer_pipeline_max_degree", "--layer-pipeline-max-degree"},
    {"ntops", "-t/--top"},
    {"imperfect", "--imperfect"},
};

// Runs a model validation and renames its "FIELD: reason" to "FLAG: reason".
template <class F>
void validate_as_flags(F&& validate) {
  try {
    validate();
  } catch (const InputError& e) {
    const std::string what = e.what();
    for (const auto& [field, flag] : kFlagOfField) {
      if (what.rfind(std::string(field) + ": ", 0) == 0) {
        throw InputError(std::string(flag) + what.substr(field.size()));
      }
    }
    throw;
  }
}

model::Hardware hardware_from_flags(const ScheduleArgs& a) {
  const std::string usage =
      "give --hardware NAME|FILE, or --nodes H W --array H W --regf BYTES "
      "--gbuf BYTES";
  if (a.nodes.empty() && a.array.empty() && !a.regf && !a.gbuf)
    throw InputError("hardware: " + usage);
  for (auto [given, flag] :
       {std::pair{!a.nodes.empty(), "--nodes"}, std::pair{!a.array.empty(), "--array"},
        std::pair{a.regf.has_value(), "--regf"}, std::pair{a.gbuf.has_value(), "--gbuf"}}) {
    if (!given) throw InputError(std::string(flag) + ": missing (" + usage + ")");
  }
  model::Hardware hw;
  hw.name = "cli";
  hw.source = "command line";
  hw.nodes = {a.nodes[0], a.nodes[1]};
  hw.pe_array = {a.array[0], a.array[1]};
  hw.regf_bytes = *a.regf;
  hw.gbuf_bytes = *a.gbuf;
  hw.word_bits = a.word;
  hw.array_bus_width_bits = a.bus_width;
  hw.dram_bandwidth_bytes_per_cycle = a.dram_bw;
  if (a.mem_type == "2D") {
    hw.mem_type = model::MemoryType::TwoD;
  } else if (a.mem_type == "3D") {
    hw.mem_type = model::MemoryType::ThreeD;
  } else {
    throw InputError("--mem-type: must be 2D or 3D, got '" + a.mem_type + "'");
  }
  validate_as_flags([&] { model::validate(hw); });
  return hw;
}

void apply_cost_flags(const ScheduleArgs& a, model::UnitCosts& c) {
  if (a.op_cost) c.mac_op = *a.op_cost;
  if (!a.hier_cost.empty()) {
    if (a.hier_cost.size() != 4)
      throw InputError("--hier-cost: needs 4 values (DRAM GBUF ITCN REGF)");
    for (std::size_t i = 0; i < 4; ++i) c.mem_hier.values[i] = a.hier_cost[i];
  }
  if (a.hop_cost) c.noc_hop = *a.hop_cost;
  if (a.unit_idle_cost) c.idl_unit = *a.unit_idle_cost;
  validate_as_flags([&] { model::validate(c); });
}

model::SearchOptions build_options(const ScheduleArgs& a) {
  // kapla's defaults (the reference CLI's), the same as job files'.
  model::SearchOptions o = model::default_options();
  if (a.options_preset == "training" || a.options_preset == "inference") {
    o = model::kapla_option_preset(a.options_preset);
  } else if (!a.options_preset.empty()) {
    o = io::load_options_file(a.options_preset);
  }
  if (a.disable_bypass_given) {
    for (const auto& d : a.disable_bypass) {
      if (d == "f") {
        o.sw_gbuf_bypass[DataCategory::Fil] = false;
      } else if (d == "i") {
        o.sw_gbuf_bypass[DataCategory::Ifm] = false;
      } else if (d == "o") {
        o.sw_gbuf_bypass[DataCategory::Ofm] = false;
      } else {
        throw InputError("--disable-bypass: expected i, o or f, got '" + d + "'");
      }
    }
  }
  o.sw_solve_loopblocking |= a.solve_loopblocking;
  o.hw_access_forwarding |= a.access_forwarding;
  o.hw_gbuf_sharing |= a.gbuf_sharing;
  o.hw_gbuf_save_writeback |= a.save_writeback;
  if (a.disable_interlayer_opt) o.layer_pipeline_opt = false;
  o.partition_hybrid |= a.hybrid;
  o.partition_batch |= a.batch_part;
  o.partition_ifmaps |= a.ifmaps_part;
  o.partition_interlayer |= a.interlayer;
  if (a.rs_fold_variants) o.rs_fold_variants = a.rs_fold_variants;
  if (a.time_overhead) o.layer_pipeline_time_ovhd = *a.time_overhead;
  if (a.max_degree) o.layer_pipeline_max_degree = *a.max_degree;
  if (!a.goal.empty()) o.opt_goal = model::parse_goal(a.goal);
  if (a.top) o.ntops = *a.top;
  o.cost_model = model::parse_variant(a.cost_model);
  validate_as_flags([&] {
    if (!a.imperfect.empty()) o.imperfect = model::parse_imperfect(a.imperfect);
    model::validate(o);
  });
  return o;
}

// Refuses an output path that cannot be written before a long search starts (without
// leaving a file behind).
void check_writable(const std::string& path) {
  const bool existed = std::ifstream(path).good();
  if (!std::ofstream(path, std::ios::app)) throw InputError("--json: cannot write " + path);
  if (!existed) std::remove(path.c_str());
}

// The strategy's params: the convenience flags it has a param for (their defaults are the
// params' defaults), then --params, then --param; the entry parses them strictly.
search::StrategyParams strategy_params(const ScheduleArgs& a, const search::StrategyEntry& entry) {
  const std::vector<std::pair<std::string, std::string>> flags = {
      {"max_evaluations", std::to_string(a.budget)},
      {"max_seconds", search::number_text(a.budget_seconds)},
      {"victory_condition", std::to_string(a.victory)},
      {"surrogate", search::flag_text(a.surrogate)},
      {"segment_selection", search::flag_text(a.segment_selection)},
      {"segment_margin", search::number_text(a.segment_margin)},
      {"constraint_frontier", search::flag_text(a.constraint_frontier)},
      {"refinement", a.refinement}};
  std::vector<std::string> texts;
  for (const auto& [key, default_text] : entry.describe(entry.parse(search::NoParams{}), 1)) {
    for (const auto& [param, text] : flags) {
      if (key == "strategy." + param) texts.push_back(param + "=" + text);
    }
  }
  nlohmann::json merged = io::params_from_texts(texts, "--param");
  if (!a.params_json.empty()) {
    nlohmann::json given;
    try {
      given = io::parse_json_text(a.params_json);  // depth and number range bounded
    } catch (const InputError& e) {
      throw InputError(std::string("--params: ") + e.what());
    }
    if (!given.is_object()) throw InputError("--params: must be a JSON object");
    merged.update(given);
  }
  merged.update(io::params_from_texts(a.params, "--param"));
  return io::parse_strategy_params(entry, merged, "--param");
}

void run_schedule(const ScheduleArgs& a, Context& ctx) {
  model::limits::check_batch("--batch", a.batch);
  model::limits::check_int("--threads", a.threads, 1, model::limits::kMaxThreads);
  model::limits::check_int("--budget", a.budget, 0, model::limits::kMaxEvaluations);
  model::limits::check_int("--victory", a.victory, 0, model::limits::kMaxEvaluations);
  model::limits::check_real("--budget-seconds", a.budget_seconds, 0, model::limits::kMaxSeconds);
  a.progress.check();
  const io::Catalog catalog(ctx.resolved_data_dir());
  const model::Network net = catalog.load_network(a.network);
  model::Hardware hw =
      a.hardware.empty() ? hardware_from_flags(a) : catalog.load_hardware(a.hardware);
  const auto registry = search::builtin_strategies();
  const search::StrategyEntry& entry = registry.find(a.strategy);
  const model::SearchOptions options = search::options_for(entry, build_options(a));
  if (!a.array_mapping.empty()) {
    if (a.array_mapping != "eyeriss" && a.array_mapping != "systolic")
      throw InputError("--array-mapping: must be eyeriss or systolic, got '" + a.array_mapping +
                       "'");
    hw.array_mapping = model::parse_array_mapping(a.array_mapping);
  }
  model::check_array_mapping(hw, net, options.cost_model);
  model::UnitCosts costs = hw.costs;
  apply_cost_flags(a, costs);
  if (!a.json_out.empty() && a.json_out != "-") check_writable(a.json_out);
  if (!a.emit_dir.empty()) {
    std::vector<std::string> names;
    for (std::size_t l = 0; l < net.size(); ++l) names.push_back(net.layer_name(l));
    parse_emit_target(a.emit_target, "--emit-target");
    prepare_emit_dir(a.emit_dir, a.emit_layers, names);
  }

  // Every registered strategy runs: the network search calls it per layer.
  const std::string_view strategy_name = entry.name;
  const search::StrategyParams params = strategy_params(a, entry);
  const auto described = entry.describe(params, a.seed);
  const auto strategy = entry.make(params, a.seed);
  hw.costs = costs;  // with the cost flags

  ScheduleProgress progress(a.progress.mode(::isatty(2) != 0), std::cerr, net,
                            a.progress.log_interval());
  schedule::RunControls controls;
  controls.num_threads = a.threads;
  controls.progress = std::ref(progress);
  const auto t0 = std::chrono::steady_clock::now();
  const auto result = schedule::run_network(net, hw, *strategy, options, a.batch, controls);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  progress.finish();

  if (result.tops.empty()) {
    std::cerr << "error: no valid schedule for " << net.name() << " on " << hw.name
              << " (nothing fits)\n";
    if (a.json_out == "-") {
      std::cout << "null\n";
    } else if (!a.json_out.empty()) {
      std::ofstream(a.json_out) << "null\n";
    }
    ctx.exit_code = 2;
    return;
  }
  const auto& best = result.tops.front();
  const auto acc = best.total_accesses();
  const bool text = a.json_out != "-";  // `--json -`: stdout holds the JSON alone
  if (text) {
    std::cout << std::setprecision(12);
    std::cout << "network " << net.name() << ", batch " << a.batch << ", hardware " << hw.name
              << ", strategy " << strategy_name << ", goal " << model::goal_name(options.opt_goal)
              << ", cost model " << model::variant_name(options.cost_model)
              << (hw.array_mapping == model::ArrayMapping::Systolic ? ", systolic array" : "")
              << (options.imperfect != model::Imperfect::None
                      ? ", imperfect " + std::string(model::imperfect_name(options.imperfect))
                      : std::string())
              << "\n";
    std::cout << "total_cost " << best.total_cost() << "\ntotal_time " << best.total_time()
              << "\ntotal_ops " << best.total_ops() << "\ntotal_accesses";
    for (auto m : all_values<MemLevel>()) std::cout << ' ' << name_of(m) << ' ' << acc[m];
    std::cout << "\ntotal_noc_hops " << best.total_noc_hops() << "\nsearch_seconds " << seconds
              << "\nlayer_searches " << result.stats.layer_searches << " (cache hits "
              << result.stats.cache_hits << ")\npairs_solved " << result.stats.constraints_searched
              << " (cut short " << result.stats.pairs_cut_short << ", bounded out "
              << result.stats.pairs_bounded_out << ", known infeasible "
              << result.stats.pairs_known_infeasible << ")\n";
    print_schedule(std::cout, {net, a.batch, hw, costs, options}, best);
  }

  const schedule::ScheduledNetwork scheduled{net,           a.batch,   options, costs,
                                             strategy_name, described, best};
  auto layer_problem = [&](std::size_t l) {
    return schedule::scheduled_layer_problem(scheduled, l);
  };
  if (text && a.show_directives) {
    // Each layer's chosen scheme (partition, nested loop, blocking) as KAPLA directives; the
    // lowering is the same for every strategy (it reads only the scheme).
    std::cout << "\ndirectives\n";
    for (std::size_t l : best.order()) {
      std::cout << search::kapla::format_directives(
          search::directives_of(layer_problem(l), *best.get(l), net.layer_name(l)));
    }
  }
  if (!a.emit_dir.empty()) {
    std::vector<emit::LayerScheme> layers;
    for (std::size_t l : best.order()) {
      const auto* s = best.get(l);
      layers.push_back({net.layer_name(l), layer_problem(l), s->part, s->nld_index, *s->detail});
    }
    write_emitted_layers(a.emit_dir, a.emit_layers, layers,
                         parse_emit_target(a.emit_target, "--emit-target"), std::cerr);
  }

  if (!a.json_out.empty()) {
    json out = io::schedule_json(scheduled);
    out["search_seconds"] = seconds;
    if (a.json_out == "-") {
      std::cout << out.dump(2) << "\n";
    } else {
      std::ofstream f(a.json_out);
      if (!f) throw InputError("--json: cannot write " + a.json_out);
      f << out.dump(2) << "\n";
    }
  }
}

}  // namespace

void register_schedule(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<ScheduleArgs>();
  CLI::App* sub = app.add_subcommand(
      "schedule", "Search the best whole-network schedule (nn_dataflow's search, any strategy)");
  sub->add_option("--network", a->network, "Network name or file")->required();
  sub->add_option("--hardware", a->hardware, "Hardware preset name or file (else the flags below)");
  sub->add_option("--batch", a->batch, "Batch size")->required()->check(fits_int64());
  sub->add_option("--strategy", a->strategy,
                  "Strategy name or letter: exhaustive B, directive-exhaustive S, random R, "
                  "guided M, kapla K")
      ->capture_default_str();
  sub->add_option("--json", a->json_out,
                  "Write the result as JSON to this file ('-': stdout, without the text; "
                  "docs/schedule_json.md)");
  add_progress_flags(*sub, a->progress, "segment searched");
  sub->footer(defaults_help());
  sub->add_option("--options", a->options_preset, "Option preset: training, inference, or a file");
  sub->add_option("--cost-model", a->cost_model, "kapla or tangram")->capture_default_str();
  sub->add_option("--threads", a->threads, "OpenMP threads per layer search")
      ->capture_default_str();
  sub->add_option("--seed", a->seed,
                  "Seed of random (R) and guided (M); per layer mixed with the layer")
      ->check(fits_integer<std::uint64_t>());
  sub->add_option("--budget", a->budget,
                  "R/M: cost-model evaluations per layer search (0 = none; default 1000)")
      ->check(fits_int64());
  sub->add_option("--budget-seconds", a->budget_seconds,
                  "R/M: seconds per layer search (0 = none; not reproducible when hit)");
  sub->add_option("--victory", a->victory,
                  "R: stop after this many consecutive non-improving valid samples (0 = off)")
      ->check(fits_int64());
  sub->add_flag("--surrogate", a->surrogate, "M: screen proposals with the ridge surrogate");
  sub->add_flag("--segment-selection", a->segment_selection,
                "K: solve only the segments on the cheapest chains by KAPLA's segment estimate");
  sub->add_option("--segment-margin", a->segment_margin,
                  "K: with --segment-selection, also chains within this fraction of the cheapest")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->add_flag(
      "--constraint-frontier", a->constraint_frontier,
      "K: skip constraints dominated by one that already succeeded (KAPLA's hint frontier)");
  sub->add_option("--refinement", a->refinement,
                  "K: kapla (default; steps beyond the paper) or paper (the paper's greedy)")
      ->check(CLI::IsMember({"kapla", "paper"}))
      ->capture_default_str();
  sub->add_option("--params", a->params_json,
                  "The strategy's params as a JSON object (as a job file's \"params\")");
  sub->add_option("--param", a->params,
                  "One strategy param KEY=VALUE (repeatable; overrides --params and the flags)");
  sub->add_option("--emit", a->emit_dir,
                  "Write each layer's schedule as a C++ loop-nest program into DIR "
                  "(docs/emit.md)");
  sub->add_option("--emit-layer", a->emit_layers, "With --emit: only this layer (repeatable)");
  sub->add_option("--emit-target", a->emit_target,
                  "With --emit: loops (the loop nest) or hls (the unit pass as the "
                  "row-stationary PE array with HLS pragmas)")
      ->capture_default_str();
  sub->add_flag("--show-directives", a->show_directives,
                "Print each layer's chosen scheme as KAPLA directives (tensor/stack/update)");
  sub->add_option("--array-mapping", a->array_mapping,
                  "PE-array dataflow: eyeriss (row stationary) or systolic (default: the "
                  "hardware's)");
  sub->add_option("--nodes", a->nodes, "Node array H W")->expected(2);
  sub->add_option("--array", a->array, "PE array H W per node")->expected(2);
  sub->add_option("--regf", a->regf, "REGF bytes per PE");
  sub->add_option("--gbuf", a->gbuf, "GBUF bytes per node");
  sub->add_option("--word", a->word, "Word size in bits (default 16)");
  sub->add_option("--bus-width", a->bus_width, "Array bus width in bits (0 = unlimited)");
  sub->add_option("--dram-bw", a->dram_bw, "DRAM bandwidth in bytes/cycle (default inf)");
  sub->add_option("--op-cost", a->op_cost, "Energy per MAC");
  sub->add_option("--hier-cost", a->hier_cost, "Energy per access: DRAM GBUF ITCN REGF")
      ->expected(4);
  sub->add_option("--hop-cost", a->hop_cost, "Energy per word per NoC hop");
  sub->add_option("--unit-idle-cost", a->unit_idle_cost, "Static energy of all nodes per cycle");
  sub->add_option("--mem-type", a->mem_type, "2D (corner DRAM) or 3D (stacked)");
  CLI::Option* bypass_opt = sub->add_option("--disable-bypass", a->disable_bypass,
                                            "Categories never bypassing GBUF: i o f")
                                ->expected(0, 3);
  sub->add_flag("--solve-loopblocking", a->solve_loopblocking, "Analytical loop-blocking solver");
  sub->add_flag("--enable-access-forwarding", a->access_forwarding, "Access forwarding");
  sub->add_flag("--enable-gbuf-sharing", a->gbuf_sharing, "GBUF sharing");
  sub->add_flag("--enable-save-writeback", a->save_writeback,
                "Temporal pipelining (save writeback)");
  sub->add_flag("--disable-interlayer-opt,--basic-interlayer-partition", a->disable_interlayer_opt,
                "Basic inter-layer pipelining");
  sub->add_flag("--hybrid-partition,--hybrid-partition2d", a->hybrid, "Hybrid partitioning");
  sub->add_flag("--batch-partition", a->batch_part, "Batch partitioning");
  CLI::Option* fold_opt = sub->add_flag(
      "--rs-fold-variants,!--no-rs-fold-variants", a->rs_fold_flag,
      "Row stationary: also map with more ofmap-row folds (kapla extension; not in nn_dataflow). "
      "Default: on for K and S, off for B, R and M");
  sub->add_flag("--ifmaps-partition,--ifmap-partition", a->ifmaps_part,
                "Input-channel partitioning");
  sub->add_flag("--interlayer-partition,--inter-layer-partition", a->interlayer,
                "Spatial inter-layer pipelining");
  sub->add_option("--layer-pipeline-time-overhead", a->time_overhead, "Max segment time overhead");
  sub->add_option("--layer-pipeline-max-degree", a->max_degree, "Max vertices per segment");
  sub->add_option("-g,--goal", a->goal, "e, d or ed");
  sub->add_option("-t,--top", a->top, "Beam width (ntops)");
  sub->add_option("--imperfect", a->imperfect,
                  "Imperfect factorization: none, spatial, full, or perfect (the PE array with "
                  "exact folds only; docs/imperfect.md)");
  sub->callback([a, bypass_opt, fold_opt, &ctx] {
    a->disable_bypass_given = bypass_opt->count() > 0;
    if (fold_opt->count() > 0) a->rs_fold_variants = a->rs_fold_flag;
    run_schedule(*a, ctx);
  });
}

}  // namespace kapla::cli
