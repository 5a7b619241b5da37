// Shared scenarios of the sampling-strategy tests (R, M, scheme space): toy spaces with a
// cheap synthetic cost, and per-layer problems read from the golden nn_dataflow records.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/golden_record.hpp"
#include "search/scheme_space.hpp"
#include "search/strategy.hpp"

namespace kapla::search::testing {

/// Two partitions, three NLDs with loop counts rich in factors.
inline SchemeSpace toy_space() {
  SpaceShape shape{{{{12, 16, 4}}, {{6, 16, 4}}}, {{{24, 8, 2}}}};
  return SchemeSpace(shape);
}

/// A synthetic, rugged cost: invalid when the "REGF" factors exceed a capacity; otherwise a
/// product of per-level terms with order effects, so annealing has structure to exploit.
inline std::optional<pricing::LayerSchedule> toy_cost(const SchemePoint& p) {
  double regf = 1, gbuf = 1;
  for (auto l : all_values<LoopDim>()) {
    regf *= static_cast<double>(p.bl_ts[2][l]);
    gbuf *= static_cast<double>(p.bl_ts[1][l] * p.bl_ts[2][l]);
  }
  if (regf > 32 || gbuf > 512) return std::nullopt;
  double c = 1000.0 / regf + 4000.0 / gbuf + 3.0 * (p.part_index + 1) + 0.5 * p.nld_index;
  c += 2.0 * p.bl_ords[0][LoopDim::Ifm] + 1.0 * p.bl_ords[1][LoopDim::Bat];
  pricing::LayerSchedule s;
  s.cost = c;
  s.time = 100.0 + static_cast<double>(p.bl_ts[0][LoopDim::Bat]);
  s.nld_index = p.nld_index;
  s.tvals = p.bl_ts;
  s.orders = p.bl_ords;
  return s;
}

/// The per-layer problem of a golden layer_schedule record (same reading as check-golden).
inline pricing::LayerProblem problem_of(const nlohmann::json& rec) {
  namespace golden = io::golden;
  const auto& in = rec.at("inputs");
  pricing::LayerProblem p;
  p.layer = golden::parse_layer(in.at("layer"));
  p.batch = in.at("batch_size").get<std::int64_t>();
  p.resource = golden::parse_resource(in.at("resource"));
  p.costs = golden::parse_cost(in.at("cost"));
  p.options = golden::parse_options(in.at("options"), rec.at("model").get<std::string>());
  const auto& c = in.at("constraint");
  p.constraint.topbat = c.value("topbat", std::int64_t{0});
  p.constraint.topifm = c.value("topifm", std::int64_t{0});
  p.constraint.topofm = c.value("topofm", std::int64_t{0});
  p.ifmap_layout = golden::parse_layout(in.at("ifmap_layout"));
  for (std::size_t i = 0; i < 3; ++i) p.sched_seq[i] = in.at("sched_seq").at(i).get<int>();
  return p;
}

struct GoldenLayer {
  std::string id;
  pricing::LayerProblem problem;
  double b_cost = 0;   // B's optimum (cmp_keys[0][0], goal e)
  nlohmann::json top;  // the reference's best schedule
};

/// The golden single-node, goal-e, unconstrained records with the given ids, in that order.
inline std::vector<GoldenLayer> golden_layers(const std::vector<std::string>& ids) {
  const auto recs = io::golden::read_jsonl(std::string(KAPLA_TEST_DATA_DIR) +
                                           "/golden/nn_dataflow/layer_schedules.jsonl");
  std::vector<GoldenLayer> out;
  for (const auto& id : ids) {
    for (const auto& r : recs) {
      if (r.at("id") != id) continue;
      GoldenLayer g;
      g.id = id;
      g.problem = problem_of(r);
      g.b_cost = io::golden::to_double(r.at("cmp_keys").at(0).at(0));
      g.top = r.at("tops").at(0);
      out.push_back(std::move(g));
    }
  }
  return out;
}

/// Single-node goal-e records (no analytical solver, no constraint), spread over layer kinds.
inline const std::vector<std::string>& golden_ids() {
  static const std::vector<std::string> ids{
      "ls-case-0001", "ls-case-0011", "ls-case-0014", "ls-case-0020", "ls-case-0024",
      "ls-case-0033", "ls-case-0037", "ls-case-0045", "ls-case-0065", "ls-case-0069"};
  return ids;
}

/// Multi-node goal-e records (no analytical solver, no constraint): larger spaces.
inline const std::vector<std::string>& golden_multi_node_ids() {
  static const std::vector<std::string> ids{
      "ls-case-0078", "ls-case-0084", "ls-case-0086", "ls-case-0091", "ls-case-0096",
      "ls-case-0098", "ls-case-0111", "ls-case-0117", "ls-case-0120", "ls-case-0133"};
  return ids;
}

}  // namespace kapla::search::testing
