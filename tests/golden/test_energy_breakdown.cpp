// The one EnergyBreakdown (cost/energy_breakdown.hpp) on every golden record kapla prices:
// its parts sum to the total cost within 1e-12 relative, each part is the cost model's own
// figure, and they match the reference's split (cost_op, cost_noc, cost_static, cost_access
// and, in the KAPLA fork's records, cost_dram/sram/itcn/regf with the remote GBUF accesses
// added to GBUF) within the parity tolerance. Also what `kapla check-golden --breakdown`
// reports is that same value. Format: tests/data/golden/README.md §1.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cli/golden_checks.hpp"
#include "io/golden_record.hpp"
#include "pricing/fixed_scheme.hpp"

namespace kapla {
namespace {

using nlohmann::json;
namespace golden = io::golden;

bool sums_to(const cost::EnergyBreakdown& e, double total) {
  return std::fabs(e.total() - total) <= 1e-12 * std::fabs(total);
}

// The breakdown of one valid record; "" if every check passes, else the first failure.
std::string check_record(const json& rec) {
  const auto problem = golden::parse_layer_problem(rec);
  const auto scheme = golden::parse_fixed_scheme(rec.at("inputs").at("scheme"));
  const auto priced = pricing::price_fixed_scheme(
      problem, scheme.part, {scheme.nld_index, {scheme.bl_ts, scheme.bl_ords}});
  if (!priced.schedule) return "not priced";
  const auto& s = *priced.schedule;
  const auto& e = s.energy;
  if (!(e == priced.cost->energy)) return "the schedule's breakdown is not the cost model's";
  if (!sums_to(e, s.cost))
    return "parts sum to " + std::to_string(e.total()) + ", cost " + std::to_string(s.cost);
  if (e.op != s.cost_op || e.noc != s.cost_noc || e.idle != s.cost_static)
    return "op/noc/static differ from cost_op/cost_noc/cost_static";
  if (!golden::rel_equal(e.access(), s.cost_access, 1e-12)) return "access parts != cost_access";
  const json& r = rec.at("result");
  auto ref = [&](const char* k) { return golden::to_double(r.at(k)); };
  if (!golden::rel_equal(e.op, ref("cost_op"))) return "op vs reference cost_op";
  if (!golden::rel_equal(e.noc, ref("cost_noc"))) return "noc vs reference cost_noc";
  if (!golden::rel_equal(e.idle, ref("cost_static"))) return "static vs reference cost_static";
  if (!golden::rel_equal(e.access(), ref("cost_access"))) return "access vs reference";
  if (r.contains("cost_dram")) {
    double remote = 0;
    for (const auto& v : r.at("remote_gbuf_access")) remote += golden::to_double(v);
    const double gbuf = ref("cost_sram") + problem.costs.mem_hier[MemLevel::Gbuf] * remote;
    if (!golden::rel_equal(e.dram, ref("cost_dram"))) return "dram vs reference cost_dram";
    if (!golden::rel_equal(e.gbuf, gbuf)) return "gbuf vs reference cost_sram + remote";
    if (!golden::rel_equal(e.itcn, ref("cost_itcn"))) return "itcn vs reference cost_itcn";
    if (!golden::rel_equal(e.regf, ref("cost_regf"))) return "regf vs reference cost_regf";
  }
  // `kapla check-golden` reports the same value.
  const auto c = cli::check_golden_record(rec, 1, {});
  if (!c.energy || !(*c.energy == e) || c.cost != s.cost) return "check-golden reports another";
  return "";
}

void check_file(const std::string& rel, bool fork_fields) {
  const auto recs = golden::read_jsonl(std::string(KAPLA_TEST_DATA_DIR) + "/golden/" + rel);
  int checked = 0;
  int failed = 0;
  for (const auto& rec : recs) {
    if (!rec.at("valid").get<bool>()) continue;
    EXPECT_EQ(rec.at("result").contains("cost_dram"), fork_fields) << rec.at("id");
    const auto m = check_record(rec);
    ++checked;
    if (!m.empty() && failed++ < 10) ADD_FAILURE() << rec.at("id").get<std::string>() << ": " << m;
  }
  EXPECT_GT(checked, 100);
  EXPECT_EQ(failed, 0);
}

TEST(EnergyBreakdown, NnDataflowSchemeEvals) {
  check_file("nn_dataflow/scheme_evals.jsonl", false);
}
TEST(EnergyBreakdown, KaplaSchemeEvals) { check_file("kapla/scheme_evals.jsonl", true); }
TEST(EnergyBreakdown, KaplaSystolicSchemeEvals) {
  check_file("kapla/scheme_evals_systolic.jsonl", true);
}

// The layer_schedule records: the best schedule's breakdown sums to its cost.
TEST(EnergyBreakdown, LayerScheduleRecordsSum) {
  int checked = 0;
  for (const char* family : {"nn_dataflow", "kapla"}) {
    for (const auto& rec : golden::read_jsonl(std::string(KAPLA_TEST_DATA_DIR) + "/golden/" +
                                              family + "/layer_schedules.jsonl")) {
      if (rec.at("status") != "ok" || rec.at("runtime_cpu_s").get<double>() > 0.2) continue;
      const auto c = cli::check_golden_record(rec, 1, {});
      ASSERT_TRUE(c.energy) << rec.at("id");
      EXPECT_TRUE(sums_to(*c.energy, c.cost)) << rec.at("id");
      ++checked;
    }
  }
  EXPECT_GT(checked, 10);
}

}  // namespace
}  // namespace kapla
