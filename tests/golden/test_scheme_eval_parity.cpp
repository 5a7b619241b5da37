// Every fixed-scheme golden record (nn_dataflow, KAPLA fork Eyeriss, KAPLA fork systolic):
// validity, invalid reason, every result field, the mapping geometry and the chosen NLD.
// Two pipelines: "derived" feeds the record's per-node layer, sharing scheme and unit hops into
// the cost code (isolates src/cost); "inputs" prices the record's inputs with the search's own
// pipeline (pricing::price_fixed_scheme).
// Spec: nn_dataflow-spec.md §6-§7, §8.8-8.9, §9.2, §12. Format: tests/data/golden/README.md §1.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <optional>
#include <string>

#include "cost/layer_cost.hpp"
#include "cost/loop_blocking.hpp"
#include "cost/map_strategy.hpp"
#include "io/golden_record.hpp"
#include "mapping/buffer_sharing_scheme.hpp"
#include "pricing/fixed_scheme.hpp"
#include "scheme_eval_json.hpp"

namespace kapla {
namespace {

using nlohmann::json;
namespace golden = io::golden;

enum class Source { Derived, Inputs };

struct FileTally {
  int pass = 0;
  int fail = 0;
  std::map<std::string, int> fail_by_field;
};

/// Compares each priced step with the record: the mapping geometry, the number of NLDs and
/// the chosen one, validity and invalid reason (with the sizes at rejection), then every result
/// field. `ev` is nullopt when nld_index is out of range; `lc` is set for valid schemes.
std::string compare_steps(const json& rec, const cost::MapResult& mr, int nld_index,
                          const std::optional<cost::LoopBlockingEval>& ev,
                          const std::optional<cost::LayerCost>& lc) {
  const json& der = rec.at("derived");
  const bool fork =
      golden::variant_of(rec.at("model").get<std::string>()) == model::CostModelVariant::Kapla;
  if (der.contains("map_strategy")) {
    auto m = testing::first_mismatch(testing::geometry_json(mr.geometry), der.at("map_strategy"),
                                     "derived/map_strategy");
    if (!m.empty()) return m;
  }
  if (der.contains("num_nlds") &&
      static_cast<std::int64_t>(mr.nlds.size()) != der.at("num_nlds").get<std::int64_t>())
    return "derived/num_nlds: got " + std::to_string(mr.nlds.size()) + ", want " +
           der.at("num_nlds").dump();
  if (!ev || nld_index >= static_cast<int>(mr.nlds.size())) return "nld_index out of range";
  const cost::NestedLoopDesc& nld = mr.nlds[static_cast<std::size_t>(nld_index)];
  if (der.contains("nld")) {
    auto m = testing::first_mismatch(testing::nld_json(nld, fork), der.at("nld"), "derived/nld");
    if (!m.empty()) return m;
  }
  const bool want_valid = rec.at("valid").get<bool>();
  if (ev->valid() != want_valid)
    return std::string("valid: got ") + (ev->valid() ? "true" : "false") + " (" +
           std::string(cost::invalid_reason_name(ev->invalid)) + ")";
  if (!want_valid) {
    const std::string want_reason = rec.at("invalid_reason").get<std::string>();
    if (std::string(cost::invalid_reason_name(ev->invalid)) != want_reason)
      return "invalid_reason: got " + std::string(cost::invalid_reason_name(ev->invalid)) +
             ", want " + want_reason;
    json rej;
    rej["data_size_at_rejection"] = json::array();
    for (const auto& lv : ev->size) {
      json r = json::array();
      for (double v : lv) r.push_back(v);
      rej["data_size_at_rejection"].push_back(r);
    }
    rej["stored_in_gbuf_at_rejection"] = json::array();
    for (bool st : ev->stored_in_gbuf) rej["stored_in_gbuf_at_rejection"].push_back(st);
    if (der.contains("fetch_at_rejection") && ev->fetch_computed) {
      rej["fetch_at_rejection"] = json::array();
      for (const auto& lv : ev->fetch) {
        json r = json::array();
        for (auto v : lv) r.push_back(v);
        rej["fetch_at_rejection"].push_back(r);
      }
    }
    return testing::first_mismatch(rej, der, "derived");
  }
  if (!lc) return "valid scheme without a layer cost (constraint)";
  const auto scheme = golden::parse_fixed_scheme(rec.at("inputs").at("scheme"));
  json got = testing::result_json(*ev, *lc, nld, scheme.part, fork);
  got["sched_seq"] = rec.at("inputs").at("sched_seq");
  return testing::first_mismatch(got, rec.at("result"), "result");
}

/// "derived": the record's per-node layer, sharing scheme and unit hops fed into src/cost by
/// hand, isolating the cost code from src/mapping.
std::string check_derived(const json& rec) {
  const json& in = rec.at("inputs");
  const json& der = rec.at("derived");
  const auto problem = golden::parse_layer_problem(rec);
  const auto scheme = golden::parse_fixed_scheme(in.at("scheme"));
  model::Layer p_layer = golden::parse_layer(der.at("p_layer"));
  if (der.at("p_layer").contains("rw_data"))
    p_layer.rw_data = static_cast<DataCategory>(der.at("p_layer").at("rw_data").get<int>());
  const cost::MapResult mr = cost::map_layer(
      problem.resource.array_mapping, p_layer, der.at("p_batch_size").get<std::int64_t>(),
      golden::to_double(der.at("p_occupancy")), problem.resource.dim_array,
      problem.options.cost_model);
  if (scheme.nld_index >= static_cast<int>(mr.nlds.size())) return "nld_index out of range";
  const cost::NestedLoopDesc& nld = mr.nlds[static_cast<std::size_t>(scheme.nld_index)];
  const json& b = der.at("bufshr_scheme");
  PerDataCategory<PhyDim2> dims;
  PerDataCategory<mapping::Dist2> dists;
  for (auto d : all_values<DataCategory>()) {
    const auto i = index_of(d);
    dims[d] = {b.at("dims").at(i).at(0).get<std::int64_t>(),
               b.at("dims").at(i).at(1).get<std::int64_t>()};
    dists[d] = {golden::to_double(b.at("nbr_dists").at(i).at(0)),
                golden::to_double(b.at("nbr_dists").at(i).at(1))};
  }
  const cost::LoopBlocking blocking{scheme.bl_ts, scheme.bl_ords};
  const cost::LoopBlockingEval ev = cost::evaluate_loop_blocking(nld, blocking, problem.resource,
                                                                 mapping::BufShrScheme(dims, dists),
                                                                 problem.options, problem.costs);
  std::optional<cost::LayerCost> lc;
  if (ev.valid()) {
    PerDataCategory<double> unit_nhops{};
    for (auto d : all_values<DataCategory>())
      unit_nhops[d] = golden::to_double(rec.at("result").at("unit_nhops").at(index_of(d)));
    lc = cost::layer_cost(ev, unit_nhops, problem.costs);
  }
  return compare_steps(rec, mr, scheme.nld_index, ev, lc);
}

/// "inputs": the search's own pipeline (pricing::price_fixed_scheme) from the record's inputs.
std::string check_inputs(const json& rec) {
  const auto problem = golden::parse_layer_problem(rec);
  const auto scheme = golden::parse_fixed_scheme(rec.at("inputs").at("scheme"));
  const auto priced = pricing::price_fixed_scheme(
      problem, scheme.part, {scheme.nld_index, {scheme.bl_ts, scheme.bl_ords}});
  return compare_steps(rec, priced.setup.map, scheme.nld_index, priced.blocking, priced.cost);
}

std::string check_record(const json& rec, Source src) {
  return src == Source::Derived ? check_derived(rec) : check_inputs(rec);
}

void run_file(const std::string& rel, Source src) {
  const auto recs = golden::read_jsonl(std::string(KAPLA_TEST_DATA_DIR) + "/golden/" + rel);
  ASSERT_FALSE(recs.empty());
  FileTally t;
  int reported = 0;
  for (const auto& rec : recs) {
    std::string m;
    try {
      m = check_record(rec, src);
    } catch (const std::exception& e) {
      m = std::string("exception: ") + e.what();
    }
    if (m.empty()) {
      ++t.pass;
      continue;
    }
    ++t.fail;
    const auto slash = m.find(':');
    ++t.fail_by_field[m.substr(0, slash)];
    if (reported++ < 15) ADD_FAILURE() << "record " << rec.at("id").get<std::string>() << ": " << m;
  }
  std::cout << "[ parity ] " << rel << " (" << (src == Source::Derived ? "derived" : "inputs")
            << "): " << t.pass << " pass, " << t.fail << " fail\n";
  for (const auto& [f, n] : t.fail_by_field) std::cout << "    " << f << ": " << n << "\n";
  EXPECT_EQ(t.fail, 0);
}

TEST(SchemeEvalParity, NnDataflowFromDerived) {
  run_file("nn_dataflow/scheme_evals.jsonl", Source::Derived);
}
TEST(SchemeEvalParity, KaplaFromDerived) { run_file("kapla/scheme_evals.jsonl", Source::Derived); }
TEST(SchemeEvalParity, KaplaSystolicFromDerived) {
  run_file("kapla/scheme_evals_systolic.jsonl", Source::Derived);
}
TEST(SchemeEvalParity, NnDataflowFromInputs) {
  run_file("nn_dataflow/scheme_evals.jsonl", Source::Inputs);
}
TEST(SchemeEvalParity, KaplaFromInputs) { run_file("kapla/scheme_evals.jsonl", Source::Inputs); }
TEST(SchemeEvalParity, KaplaSystolicFromInputs) {
  run_file("kapla/scheme_evals_systolic.jsonl", Source::Inputs);
}

}  // namespace
}  // namespace kapla
