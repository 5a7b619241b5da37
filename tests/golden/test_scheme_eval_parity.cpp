// Every fixed-scheme golden record (nn_dataflow, KAPLA fork Eyeriss, KAPLA fork systolic):
// validity, invalid reason, every result field, the mapping geometry and the chosen NLD.
// Two pipelines: "derived" feeds the record's per-node layer, sharing scheme and unit hops into
// the cost code (isolates src/cost); "inputs" computes them with src/mapping from the record's
// inputs (the full per-scheme path of the search).
// Spec: nn_dataflow-spec.md §6-§7, §8.8-8.9, §9.2, §12. Format: tests/data/golden/README.md §1.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>

#include "cost/layer_cost.hpp"
#include "cost/loop_blocking.hpp"
#include "cost/map_strategy.hpp"
#include "io/golden_record.hpp"
#include "mapping/buffer_sharing_scheme.hpp"
#include "mapping/data_layout_ops.hpp"
#include "mapping/data_loops.hpp"
#include "mapping/noc_hops.hpp"
#include "mapping/part_layer.hpp"
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

/// Evaluates one record; "" if everything matches, else the first mismatch.
std::string check_record(const json& rec, Source src) {
  const json& in = rec.at("inputs");
  const json& der = rec.at("derived");
  const std::string model_field = rec.at("model").get<std::string>();
  const bool fork = golden::variant_of(model_field) == model::CostModelVariant::Kapla;
  const auto options = golden::parse_options(in.at("options"), model_field);
  const auto resource = golden::parse_resource(in.at("resource"));
  const auto costs = golden::parse_cost(in.at("cost"));
  const auto scheme = golden::parse_fixed_scheme(in.at("scheme"));
  const std::int64_t batch = in.at("batch_size").get<std::int64_t>();
  const model::Layer layer = golden::parse_layer(in.at("layer"));
  const cost::ArrayMapping am = rec.contains("array_mapping") &&
                                        rec.at("array_mapping").get<std::string>() == "systolic"
                                    ? cost::ArrayMapping::Systolic
                                    : cost::ArrayMapping::Eyeriss;

  model::Layer p_layer;
  std::int64_t p_batch = 0;
  double p_occ = 0;
  if (src == Source::Derived) {
    p_layer = golden::parse_layer(der.at("p_layer"));
    if (der.at("p_layer").contains("rw_data"))
      p_layer.rw_data = static_cast<DataCategory>(der.at("p_layer").at("rw_data").get<int>());
    p_batch = der.at("p_batch_size").get<std::int64_t>();
    p_occ = golden::to_double(der.at("p_occupancy"));
  } else {
    const auto pl = mapping::part_layer(layer, batch, scheme.part);
    p_layer = pl.p_layer;
    p_batch = pl.p_batch;
    p_occ = pl.p_occupancy;
  }
  const cost::MapResult mr =
      cost::map_layer(am, p_layer, p_batch, p_occ, resource.dim_array, options.cost_model);
  if (der.contains("map_strategy")) {
    auto m = testing::first_mismatch(testing::geometry_json(mr.geometry), der.at("map_strategy"),
                                     "derived/map_strategy");
    if (!m.empty()) return m;
  }
  if (der.contains("num_nlds") &&
      static_cast<std::int64_t>(mr.nlds.size()) != der.at("num_nlds").get<std::int64_t>())
    return "derived/num_nlds: got " + std::to_string(mr.nlds.size()) + ", want " +
           der.at("num_nlds").dump();
  if (scheme.nld_index >= static_cast<int>(mr.nlds.size())) return "nld_index out of range";
  const cost::NestedLoopDesc& nld = mr.nlds[static_cast<std::size_t>(scheme.nld_index)];
  if (der.contains("nld")) {
    auto m = testing::first_mismatch(testing::nld_json(nld, fork), der.at("nld"), "derived/nld");
    if (!m.empty()) return m;
  }

  mapping::BufShrScheme bufshr;
  if (src == Source::Derived) {
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
    bufshr = mapping::BufShrScheme(dims, dists);
  } else {
    bufshr = mapping::make_bufshr_scheme(resource.proc_region, scheme.part, nld.data_loops);
  }

  cost::LoopBlocking blocking{scheme.bl_ts, scheme.bl_ords};
  const cost::LoopBlockingEval ev =
      cost::evaluate_loop_blocking(nld, blocking, resource, bufshr, options, costs);
  const bool want_valid = rec.at("valid").get<bool>();
  if (ev.valid() != want_valid)
    return std::string("valid: got ") + (ev.valid() ? "true" : "false") + " (" +
           std::string(cost::invalid_reason_name(ev.invalid)) + ")";
  if (!want_valid) {
    const std::string want_reason = rec.at("invalid_reason").get<std::string>();
    if (std::string(cost::invalid_reason_name(ev.invalid)) != want_reason)
      return "invalid_reason: got " + std::string(cost::invalid_reason_name(ev.invalid)) +
             ", want " + want_reason;
    json rej;
    rej["data_size_at_rejection"] = json::array();
    for (const auto& lv : ev.size) {
      json r = json::array();
      for (double v : lv) r.push_back(v);
      rej["data_size_at_rejection"].push_back(r);
    }
    rej["stored_in_gbuf_at_rejection"] = json::array();
    for (bool s : ev.stored_in_gbuf) rej["stored_in_gbuf_at_rejection"].push_back(s);
    if (der.contains("fetch_at_rejection") && ev.fetch_computed) {
      rej["fetch_at_rejection"] = json::array();
      for (const auto& lv : ev.fetch) {
        json r = json::array();
        for (auto v : lv) r.push_back(v);
        rej["fetch_at_rejection"].push_back(r);
      }
    }
    return testing::first_mismatch(rej, der, "derived");
  }

  PerDataCategory<double> unit_nhops{};
  const json& res = rec.at("result");
  if (src == Source::Derived) {
    for (auto d : all_values<DataCategory>())
      unit_nhops[d] = golden::to_double(res.at("unit_nhops").at(index_of(d)));
  } else {
    const auto ofl = mapping::ofmap_layout(layer, batch, scheme.part, resource.dst_data_region);
    unit_nhops = mapping::unit_nhops_to_proc_region(
        layer, batch, resource.proc_region, scheme.part, mapping::filter_nodes(resource.dram_region),
        golden::parse_layout(in.at("ifmap_layout")), ofl, options);
  }
  const cost::LayerCost lc = cost::layer_cost(ev, unit_nhops, costs);
  json got = testing::result_json(ev, lc, nld, scheme.part, fork);
  got["sched_seq"] = in.at("sched_seq");
  return testing::first_mismatch(got, res, "result");
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

TEST(SchemeEvalParity, NnDataflowFromDerived) { run_file("nn_dataflow/scheme_evals.jsonl", Source::Derived); }
TEST(SchemeEvalParity, KaplaFromDerived) { run_file("kapla/scheme_evals.jsonl", Source::Derived); }
TEST(SchemeEvalParity, KaplaSystolicFromDerived) {
  run_file("kapla/scheme_evals_systolic.jsonl", Source::Derived);
}
TEST(SchemeEvalParity, NnDataflowFromInputs) { run_file("nn_dataflow/scheme_evals.jsonl", Source::Inputs); }
TEST(SchemeEvalParity, KaplaFromInputs) { run_file("kapla/scheme_evals.jsonl", Source::Inputs); }
TEST(SchemeEvalParity, KaplaSystolicFromInputs) {
  run_file("kapla/scheme_evals_systolic.jsonl", Source::Inputs);
}

}  // namespace
}  // namespace kapla
