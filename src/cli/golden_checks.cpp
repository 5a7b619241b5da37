// Golden record comparisons. Rules: tests/data/golden/README.md "How to compare".
#include "cli/golden_checks.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "io/golden_record.hpp"
#include "pricing/fixed_scheme.hpp"
#include "schedule/run_network.hpp"
#include "search/exhaustive.hpp"
#include "search/strategy.hpp"

namespace kapla::cli {

namespace {

using nlohmann::json;
namespace golden = io::golden;

double rel_err(double a, double b) {
  if (a == b) return 0;
  if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) return 1;
  return std::fabs(a - b) / std::max(std::fabs(a), std::fabs(b));
}

class Comparer {
 public:
  explicit Comparer(std::string id) : id_(std::move(id)) { os_.precision(17); }
  // Records the first mismatch; returns whether the values agree.
  bool equal(const std::string& field, double mine, double ref) {
    result_.max_rel_err = std::max(result_.max_rel_err, rel_err(mine, ref));
    if (golden::rel_equal(mine, ref)) return true;
    fail(field, mine, ref);
    return false;
  }
  void fail(const std::string& field, double mine, double ref) {
    if (!result_.mismatch.empty()) return;
    os_ << id_ << ": " << field << ": " << mine << " vs reference " << ref;
    result_.mismatch = os_.str();
  }
  void fail(const std::string& what) {
    if (result_.mismatch.empty()) result_.mismatch = id_ + ": " + what;
  }
  bool ok() const { return result_.mismatch.empty(); }
  /// The priced figures the check is about (printed by `check-golden --breakdown`).
  void priced(double total, const cost::EnergyBreakdown& energy) {
    result_.cost = total;
    result_.energy = energy;
  }
  GoldenCheck result() const { return result_; }

 private:
  std::string id_;
  std::ostringstream os_;
  GoldenCheck result_;
};

}  // namespace

namespace {

GoldenCheck check_layer_schedule(const json& rec, int threads) {
  Comparer cmp(rec.at("id").get<std::string>());
  const std::string status = rec.at("status");
  if (status != "ok" && status != "no_valid_schedule") {
    GoldenCheck g;
    g.skipped = true;
    return g;
  }
  const auto problem = golden::parse_layer_problem(rec);
  search::ExhaustiveStrategy b;
  search::SearchContext ctx;
  ctx.num_threads = threads;
  const auto tops = b.search(problem, ctx);
  if (status == "no_valid_schedule") {
    // Under goals d and ed the reference's loop-blocking quirk (spec §7.7.3) can keep only
    // invalid candidates; finding a valid schedule there is "never worse".
    if (!tops.empty() && problem.options.opt_goal == model::Goal::Energy) {
      cmp.fail("found a schedule where the reference found none");
    }
    return cmp.result();
  }
  if (tops.empty()) {
    cmp.fail("no valid schedule found");
    return cmp.result();
  }
  cmp.priced(tops[0].cost, tops[0].energy);
  const json& keys = rec.at("cmp_keys");
  switch (problem.options.opt_goal) {
    case model::Goal::Energy:
      if (tops.size() != keys.size()) {
        cmp.fail("num_tops", static_cast<double>(tops.size()), static_cast<double>(keys.size()));
        break;
      }
      for (std::size_t i = 0; i < keys.size() && cmp.ok(); ++i) {
        cmp.equal("tops[" + std::to_string(i) + "].cost", tops[i].cost,
                  golden::to_double(keys[i][0]));
        cmp.equal("tops[" + std::to_string(i) + "].time", tops[i].time,
                  golden::to_double(keys[i][1]));
      }
      break;
    case model::Goal::Delay: {
      // Never worse (the reference's goal-d loop-blocking quirk, spec §7.7.3).
      const double t = golden::to_double(keys[0][0]);
      const double c = golden::to_double(keys[0][1]);
      const bool same_t = golden::rel_equal(tops[0].time, t);
      if (!((tops[0].time < t && !same_t) || (same_t && tops[0].cost <= c * (1 + 1e-9)))) {
        cmp.fail("goal d key [time, cost] worse: time", tops[0].time, t);
      }
      break;
    }
    case model::Goal::EnergyDelay: {
      const double k = golden::to_double(keys[0]);
      const double mine = tops[0].cost * tops[0].time;
      if (!(mine <= k * (1 + 1e-9))) cmp.fail("goal ed key cost*time worse", mine, k);
      break;
    }
  }
  return cmp.result();
}

}  // namespace

namespace {

GoldenCheck check_network_run(const json& rec, int threads, const NetworkLoader& load_network) {
  const std::string id =
      rec.at("config").get<std::string>() + "/" + rec.at("net").get<std::string>();
  Comparer cmp(id);
  if (rec.at("status") != "ok") {
    GoldenCheck g;
    g.skipped = true;
    return g;
  }
  const auto in = golden::parse_network_run(rec);
  const auto net = load_network(in.net);
  search::ExhaustiveStrategy b;
  schedule::RunControls controls;
  controls.num_threads = threads;
  const auto res =
      schedule::run_network(net, in.resource, in.cost, b, in.options, in.batch, controls);
  if (res.tops.empty()) {
    cmp.fail("no valid schedule found");
    return cmp.result();
  }
  const auto& best = res.tops.front();
  cmp.priced(best.total_cost(), best.energy());
  const json& r = rec.at("result");
  const double c = golden::to_double(r.at("total_cost"));
  const double t = golden::to_double(r.at("total_time"));
  switch (in.options.opt_goal) {
    case model::Goal::Energy:
      cmp.equal("total_cost", best.total_cost(), c);
      cmp.equal("total_time", best.total_time(), t);
      cmp.equal("total_ops", best.total_ops(), golden::to_double(r.at("total_ops")));
      cmp.equal("total_noc_hops", best.total_noc_hops(), golden::to_double(r.at("total_noc_hops")));
      break;
    case model::Goal::Delay: {
      const bool same_t = golden::rel_equal(best.total_time(), t);
      if (!((best.total_time() < t && !same_t) ||
            (same_t && best.total_cost() <= c * (1 + 1e-9)))) {
        cmp.fail("goal d key worse: total_time", best.total_time(), t);
      }
      break;
    }
    case model::Goal::EnergyDelay:
      if (!(best.total_cost() * best.total_time() <= c * t * (1 + 1e-9))) {
        cmp.fail("goal ed key worse", best.total_cost() * best.total_time(), c * t);
      }
      break;
  }
  return cmp.result();
}

// A fixed scheme priced by the search's own pipeline (pricing::price_fixed_scheme, README §1).
GoldenCheck check_scheme_eval(const json& rec) {
  Comparer cmp(rec.at("id").get<std::string>());
  const auto problem = golden::parse_layer_problem(rec);
  const auto fs = golden::parse_fixed_scheme(rec.at("inputs").at("scheme"));
  const auto priced =
      pricing::price_fixed_scheme(problem, fs.part, {fs.nld_index, {fs.bl_ts, fs.bl_ords}});
  if (!priced.blocking) {
    cmp.fail("nld_index out of range (" + std::to_string(priced.setup.map.nlds.size()) + " NLDs)");
    return cmp.result();
  }
  const auto& lbs = *priced.blocking;
  const bool want_valid = rec.at("valid").get<bool>();
  if (lbs.valid() != want_valid) {
    cmp.fail(std::string("valid: ") + (lbs.valid() ? "true" : "false") + " vs reference " +
             (want_valid ? "true" : "false") + " (" +
             std::string(cost::invalid_reason_name(lbs.invalid)) + ")");
    return cmp.result();
  }
  if (!want_valid) {
    const std::string reason = rec.at("invalid_reason").get<std::string>();
    if (std::string(cost::invalid_reason_name(lbs.invalid)) != reason) {
      cmp.fail("invalid_reason: " + std::string(cost::invalid_reason_name(lbs.invalid)) +
               " vs reference " + reason);
    }
    return cmp.result();
  }
  if (!priced.cost) {
    cmp.fail("the scheduling constraint rejects the scheme");
    return cmp.result();
  }
  const auto& lc = *priced.cost;
  cmp.priced(lc.cost, lc.energy);
  const json& r = rec.at("result");
  auto num = [&](const char* k) { return golden::to_double(r.at(k)); };
  cmp.equal("cost", lc.cost, num("cost"));
  cmp.equal("time", lc.time, num("time"));
  cmp.equal("ops", lbs.ops, num("ops"));
  cmp.equal("cost_op", lc.cost_op, num("cost_op"));
  cmp.equal("cost_access", lc.cost_access, num("cost_access"));
  cmp.equal("cost_noc", lc.cost_noc, num("cost_noc"));
  cmp.equal("cost_static", lc.cost_static, num("cost_static"));
  cmp.equal("proc_time", static_cast<double>(lbs.proc_time), num("proc_time"));
  cmp.equal("bus_time", static_cast<double>(lbs.bus_time), num("bus_time"));
  cmp.equal("dram_time", static_cast<double>(lbs.dram_time), num("dram_time"));
  cmp.equal("num_nodes", static_cast<double>(lbs.num_nodes), num("num_nodes"));
  for (auto m : all_values<MemLevel>()) {
    for (auto d : all_values<DataCategory>()) {
      cmp.equal("access[" + std::to_string(index_of(m)) + "][" + std::to_string(index_of(d)) + "]",
                lbs.access[m][d],
                golden::to_double(r.at("access").at(index_of(m)).at(index_of(d))));
    }
  }
  for (auto d : all_values<DataCategory>()) {
    const std::string di = "[" + std::to_string(index_of(d)) + "]";
    cmp.equal("remote_gbuf_access" + di, lbs.remote_gbuf_access[d],
              golden::to_double(r.at("remote_gbuf_access").at(index_of(d))));
    cmp.equal("unit_nhops" + di, lc.unit_nhops[d],
              golden::to_double(r.at("unit_nhops").at(index_of(d))));
    cmp.equal("mem_nhops" + di, lc.mem_nhops[d],
              golden::to_double(r.at("mem_nhops").at(index_of(d))));
    cmp.equal("node_nhops" + di, lc.node_nhops[d],
              golden::to_double(r.at("node_nhops").at(index_of(d))));
    cmp.equal("total_nhops" + di, lc.total_nhops[d],
              golden::to_double(r.at("total_nhops").at(index_of(d))));
    for (std::size_t b = 0; b < 2; ++b) {
      const std::string bi = "[" + std::to_string(b) + "]" + di;
      cmp.equal("fetch" + bi, static_cast<double>(lbs.fetch[b][d]),
                golden::to_double(r.at("fetch").at(b).at(index_of(d))));
      cmp.equal("size" + bi, lbs.size[b][d], golden::to_double(r.at("size").at(b).at(index_of(d))));
    }
  }
  return cmp.result();
}

}  // namespace

GoldenCheck check_golden_record(const json& rec, int threads, const NetworkLoader& load_network) {
  const std::string kind = rec.value("kind", std::string());
  if (kind == "scheme_eval") return check_scheme_eval(rec);
  if (kind == "layer_schedule") return check_layer_schedule(rec, threads);
  if (kind == "network_run") return check_network_run(rec, threads, load_network);
  GoldenCheck g;
  g.mismatch = rec.value("id", std::string("?")) + ": unknown record kind '" + kind + "'";
  return g;
}

}  // namespace kapla::cli
