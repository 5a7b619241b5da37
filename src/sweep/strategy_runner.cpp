// The TupleRunner of the real search: a tuple = one network search (schedule/network_search)
// with the registry's per-layer strategy (search/strategy.hpp) on the tuple's hardware. New
// strategies appear here through the registry alone.
#include "sweep/strategy_runner.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <sstream>

#include "core/errors.hpp"
#include "core/number_text.hpp"
#include "schedule/layer_text.hpp"
#include "schedule/run_network.hpp"
#include "search/strategy.hpp"

namespace kapla::sweep {
namespace {

std::string text(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

// MACs of one layer for pJ/MAC: total_ops counts MACs only for the kinds that multiply (a
// filter or, for MatMul, a second operand); the other kinds' ops are comparisons or adds.
std::int64_t layer_macs(const model::Layer& l, std::int64_t batch) {
  return l.has_filter() || l.is_matmul() ? l.total_ops(batch) : 0;
}

template <class T>
std::string dim_text(const T& d) {
  std::ostringstream os;
  os << d;
  return os.str();
}

class StrategyRunner final : public TupleRunner {
 public:
  StrategyRunner(const SweepSpec& spec, ModelLoaders loaders, search::StrategyRegistry registry)
      : options_(spec.options),
        record_schedules_(spec.record_schedules),
        loaders_(std::move(loaders)),
        registry_(std::move(registry)) {
    // Design points are not in the catalog: the job expanded them.
    for (const auto& hw : spec.hardware) {
      if (hw.design) hardware_.emplace(hw.name, *hw.design);
    }
    // A local search may run any design of its grid in a later round.
    for (const auto& search : spec.searches) {
      for (const auto& point : search.grid) hardware_.emplace(point.hardware.name, point.hardware);
    }
  }

  void check(const Tuple& t) const override {
    // A systolic array refuses back-propagation networks and the upstream cost model.
    model::check_array_mapping(hardware(t.hardware), network(t.network), options_.cost_model);
    // InputError if the strategy is unknown or its params are invalid.
    (void)make(t, 1);
  }

  // Estimated CPU seconds on one thread (dispatch: longest first; --dry-run; the ETA). Search
  // time grows with the layers to schedule, with the node array (partition choices), with
  // inter-layer pipelining on a node array (segments), and with the strategy's thoroughness
  // (its entry's cost_weight). The constants are fitted by scripts/fit_tuple_estimate.py to 103
  // measured tuple times (docs/data/tuple_times.csv): median 2.5x off, 90 % within 11x
  // (docs/sweep.md "Dry run").
  double estimate_cost(const Tuple& t) const override {
    const auto& net = network(t.network);
    const auto& hw = hardware(t.hardware);
    const double strategy_factor = registry_.find(t.strategy).cost_weight;
    const double nodes = static_cast<double>(hw.nodes.size());
    const double pipelining = options_.partition_interlayer && nodes > 1 ? 5.91 : 1;
    constexpr double kSecondsPerLayerNode = 2.35e-4;
    return kSecondsPerLayerNode * static_cast<double>(net.size()) * nodes * strategy_factor *
           pipelining * static_cast<double>(t.batch > 1 ? 2 : 1);
  }

  TupleResult run(const Tuple& t, const RunContext& ctx) const override {
    const model::Network& net = network(t.network);
    const model::Hardware& hw = hardware(t.hardware);
    // The tuple's search seed (tuple_seed: job seed mixed with the key) seeds R and M.
    const auto strategy = make(t, ctx.seed);
    schedule::RunControls controls;
    controls.num_threads = ctx.num_threads;
    // Polled between and inside the layer searches (a relaxed load and a clock read).
    controls.stop = [&ctx] { return ctx.stop_due() || ctx.past_deadline(); };
    const auto& entry = registry_.find(t.strategy);
    // The job's options with the strategy's own defaults filled in; /resolved records them.
    const model::SearchOptions options = search::options_for(entry, options_);
    const auto found = schedule::run_network(net, hw, *strategy, options, t.batch, controls);
    TupleResult r;
    r.resolved = resolved(hw, options);
    // The space's floor, with the hardware it constrains (the area constraints act before the
    // sweep: a design that fails them is never a tuple).
    if (t.design.min_pe_utilisation > 0) {
      r.resolved.emplace_back("constraints.min_pe_utilisation",
                              shortest_text(t.design.min_pe_utilisation));
    }
    const auto described = entry.describe(params_of(t), ctx.seed);
    r.resolved.insert(r.resolved.end(), described.begin(), described.end());
    const auto& st = found.stats;
    auto stat = [&](const char* key, auto v) {
      r.resolved.emplace_back(std::string("stats.") + key, std::to_string(v));
    };
    stat("segments", st.segments);
    stat("constraints_searched", st.constraints_searched);
    stat("layer_searches", st.layer_searches);
    stat("cache_hits", st.cache_hits);
    stat("segments_before_pruning", st.segments_before_pruning);
    stat("segments_after_pruning", st.segments_after_pruning);
    stat("constraints_before_pruning", st.constraints_before_pruning);
    stat("constraints_after_pruning", st.constraints_after_pruning);
    stat("pairs_bounded_out", st.pairs_bounded_out);
    stat("pairs_cut_short", st.pairs_cut_short);
    stat("pairs_known_infeasible", st.pairs_known_infeasible);
    stat("schemes_evaluated", st.schemes_evaluated);
    stat("schemes_valid", st.schemes_valid);
    r.stats.evaluated = st.schemes_evaluated;
    r.stats.valid = static_cast<std::int64_t>(found.tops.size());
    r.stats.pruned =
        static_cast<std::int64_t>(st.constraints_before_pruning - st.constraints_after_pruning);
    for (const auto& p : st.curve.points) {
      r.stats.curve.push_back({p.evaluations, p.seconds, p.best_cost});
    }
    if (found.stopped) {
      // No network schedule exists before the last layer is searched. A signal's tuple is not
      // recorded (rerun on resume); a time limit's keeps the counters and curve so far.
      r.status = ctx.stop_due() ? TupleStatus::Interrupted : TupleStatus::Timeout;
      r.message = "stopped at the tuple time limit after " + std::to_string(st.layer_searches) +
                  " layer searches, before a complete schedule";
      return r;
    }
    if (found.tops.empty()) {
      r.status = TupleStatus::NoSolution;
      r.message = "no valid schedule (nothing fits)";
      return r;
    }
    const auto& best = found.tops.front();
    r.energy = best.total_cost();
    r.total_cost = r.energy;
    r.time = best.total_time();
    r.edp = r.energy * r.time;
    r.energy_parts = best.energy().parts();
    std::map<std::int64_t, SegmentRow> segments;
    for (const std::size_t l : best.order()) {
      const auto* s = best.get(l);
      LayerRow row;
      row.layer = net.layer_name(l);
      row.segment = s->sched_seq[0];
      row.energy = s->cost;
      row.energy_parts = s->energy.parts();
      row.time = s->time;
      row.macs = layer_macs(net.layer(l), t.batch);
      r.macs += row.macs;
      row.partition = schedule::partition_text(s->part);
      row.blocking = schedule::blocking_text(*s);
      row.orders = schedule::orders_text(*s);
      auto& seg = segments[row.segment];
      seg.segment = row.segment;
      seg.layers += (seg.layers.empty() ? "" : " ") + row.layer;
      seg.energy += row.energy;
      r.layers.push_back(std::move(row));
    }
    r.pe_utilisation = model::pe_utilisation(hw, r.macs, r.time);
    if (record_schedules_ && loaders_.schedule_document) {
      r.schedule = loaders_.schedule_document(
          {net, t.batch, options, hw.costs, entry.name, described, best});
    }
    const auto& timings = best.segment_timings();
    for (auto& [index, seg] : segments) {
      if (index >= 0 && static_cast<std::size_t>(index) < timings.size()) {
        seg.time = timings[static_cast<std::size_t>(index)].time();
      }
      r.segments.push_back(seg);
    }
    if (ctx.past_deadline()) {
      // The limit passed after the search's last check: the schedule is complete.
      r.status = TupleStatus::Timeout;
      r.message = "search finished after the tuple time limit";
    }
    return r;
  }

 private:
  std::vector<std::pair<std::string, std::string>> resolved(
      const model::Hardware& hw, const model::SearchOptions& options) const {
    std::vector<std::pair<std::string, std::string>> out = {
        {"hardware.name", hw.name},
        {"hardware.nodes", dim_text(hw.nodes)},
        {"hardware.pe_array", dim_text(hw.pe_array)},
        {"hardware.gbuf_bytes", std::to_string(hw.gbuf_bytes)},
        {"hardware.regf_bytes", std::to_string(hw.regf_bytes)},
        {"hardware.word_bits", std::to_string(hw.word_bits)},
        {"hardware.array_bus_width_bits", std::to_string(hw.array_bus_width_bits)},
        {"hardware.dram_bandwidth_bytes_per_cycle", text(hw.dram_bandwidth_bytes_per_cycle)},
        {"hardware.mem_type", hw.mem_type == model::MemoryType::TwoD ? "2D" : "3D"},
        {"hardware.array_mapping", std::string(model::array_mapping_name(hw.array_mapping))},
        {"hardware.costs.mac_op", text(hw.costs.mac_op)},
        {"hardware.costs.noc_hop", text(hw.costs.noc_hop)},
        {"hardware.costs.idl_unit", text(hw.costs.idl_unit)},
    };
    for (auto m : all_values<MemLevel>()) {
      out.emplace_back("hardware.costs." + std::string(name_of(m)), text(hw.costs.mem_hier[m]));
    }
    // Every option that can change a result (model::describe lists them all).
    for (auto& kv : model::describe(options)) out.push_back(std::move(kv));
    return out;
  }

  // Networks and hardware are loaded once per name (check() runs on every tuple).
  const model::Network& network(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = networks_.find(name);
    if (it == networks_.end()) it = networks_.emplace(name, loaders_.network(name)).first;
    return it->second;
  }
  const model::Hardware& hardware(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = hardware_.find(name);
    if (it == hardware_.end()) it = hardware_.emplace(name, loaders_.hardware(name)).first;
    return it->second;
  }

  // The tuple's params, or its entry's defaults when the job gave none.
  search::StrategyParams params_of(const Tuple& t) const {
    if (!t.strategy_options.empty()) return t.strategy_options;
    return registry_.find(t.strategy).parse(search::NoParams{});
  }

  std::unique_ptr<search::LayerStrategy> make(const Tuple& t, std::uint64_t seed) const {
    return registry_.find(t.strategy).make(params_of(t), seed);
  }

  model::SearchOptions options_;
  bool record_schedules_ = true;
  ModelLoaders loaders_;
  search::StrategyRegistry registry_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, model::Network> networks_;  // std::map: references stay valid
  mutable std::map<std::string, model::Hardware> hardware_;
};

}  // namespace

std::unique_ptr<TupleRunner> make_strategy_runner(const SweepSpec& spec, ModelLoaders loaders,
                                                  search::StrategyRegistry registry) {
  return std::make_unique<StrategyRunner>(spec, std::move(loaders), std::move(registry));
}

}  // namespace kapla::sweep
