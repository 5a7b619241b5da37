// Whole-network search (strategy B) against the reference tool's runs:
// tests/data/golden/nn_dataflow/network_runs.jsonl, status ok; total_cost and total_time within
// 1e-9 (goal e everywhere here). Built twice: the small networks (mlp_*, lstm_*) by default,
// the rest with KAPLA_SLOW_SET (label slow). Spec: nn_dataflow-spec.md §9.8, §3.4.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "io/golden_record.hpp"
#include "schedule/run_network.hpp"
#include "search/exhaustive.hpp"
#include "zoo_network.hpp"

namespace kapla {
namespace {

// The slow build registers its tests under other names (ctest needs unique names).
#ifdef KAPLA_SLOW_SET
#define KAPLA_SUITE(name) name##Slow
#else
#define KAPLA_SUITE(name) name
#endif

using nlohmann::json;

bool is_small(const std::string& net) {
  return net.rfind("mlp_", 0) == 0 || net.rfind("lstm_", 0) == 0;
}

std::vector<json> selected_runs() {
  std::vector<json> out;
  for (auto& r : io::golden::read_jsonl(std::string(KAPLA_TEST_DATA_DIR) +
                                        "/golden/nn_dataflow/network_runs.jsonl")) {
    if (r.at("status") != "ok") continue;
#ifdef KAPLA_SLOW_SET
    if (is_small(r.at("net"))) continue;
#else
    if (!is_small(r.at("net"))) continue;
#endif
    out.push_back(std::move(r));
  }
  return out;
}

const std::vector<json>& runs() {
  static const std::vector<json> r = selected_runs();
  return r;
}

std::string run_id(const json& r) {
  return r.at("config").get<std::string>() + "/" + r.at("net").get<std::string>();
}

model::Network network_of(const json& rec) {
  return test::zoo_network("nn_zoo.json", io::golden::parse_network_run(rec).net);
}

/// The schedules keep a reference to the network they schedule: the caller holds `net` for as
/// long as it reads the result (a network local to this function dangled; ASan build).
schedule::NetworkSearchResult search(const json& rec, const model::Network& net, int threads) {
  const auto in = io::golden::parse_network_run(rec);
  search::ExhaustiveStrategy b;
  schedule::RunControls controls;
  controls.num_threads = threads;
  return schedule::run_network(net, in.resource, in.cost, b, in.options, in.batch, controls);
}

class NetworkRun : public ::testing::TestWithParam<std::size_t> {};

TEST_P(NetworkRun, TotalsMatchReference) {
  const json& rec = runs()[GetParam()];
  const auto net = network_of(rec);
  const auto res = search(rec, net, 1);
  ASSERT_FALSE(res.tops.empty()) << run_id(rec) << ": no schedule found";
  const auto& best = res.tops.front();
  const double want_cost = io::golden::to_double(rec.at("result").at("total_cost"));
  const double want_time = io::golden::to_double(rec.at("result").at("total_time"));
  EXPECT_TRUE(io::golden::rel_equal(best.total_cost(), want_cost))
      << run_id(rec) << ": total_cost " << best.total_cost() << " != " << want_cost;
  EXPECT_TRUE(io::golden::rel_equal(best.total_time(), want_time))
      << run_id(rec) << ": total_time " << best.total_time() << " != " << want_time;
  EXPECT_EQ(best.size(), best.network().size());
  // The one energy breakdown sums to the total cost.
  EXPECT_LE(std::fabs(best.energy().total() - best.total_cost()), 1e-12 * best.total_cost())
      << run_id(rec);
  // Invariants: the totals are the sums of the layer figures (no static energy here).
  double ops = 0;
  for (std::size_t l : best.order()) ops += best.get(l)->ops;
  EXPECT_EQ(ops, best.total_ops());
  EXPECT_TRUE(io::golden::rel_equal(best.total_ops(),
                                    io::golden::to_double(rec.at("result").at("total_ops"))))
      << run_id(rec) << ": total_ops";
  EXPECT_TRUE(io::golden::rel_equal(best.total_noc_hops(),
                                    io::golden::to_double(rec.at("result").at("total_noc_hops"))))
      << run_id(rec) << ": total_noc_hops";
}

std::string param_name(const ::testing::TestParamInfo<std::size_t>& param_info) {
  std::string id = run_id(runs()[param_info.param]);
  for (char& c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return id;
}

#ifdef KAPLA_SLOW_SET
INSTANTIATE_TEST_SUITE_P(GoldenSlow, NetworkRun, ::testing::Range<std::size_t>(0, runs().size()),
                         param_name);
#else
INSTANTIATE_TEST_SUITE_P(Golden, NetworkRun, ::testing::Range<std::size_t>(0, runs().size()),
                         param_name);
#endif

#ifndef KAPLA_SLOW_SET
// The same answer with 1 and 2 threads (house-style §3.5), on the multi-node runs.
TEST(NetworkRunThreads, SameResultForOneAndTwoThreads) {
  int checked = 0;
  for (const auto& rec : runs()) {
    if (rec.at("config").get<std::string>().rfind("c_", 0) != 0) continue;
    const auto net = network_of(rec);
    const auto r1 = search(rec, net, 1);
    const auto r2 = search(rec, net, 2);
    ASSERT_EQ(r1.tops.size(), r2.tops.size());
    ASSERT_FALSE(r1.tops.empty());
    EXPECT_EQ(r1.tops[0].total_cost(), r2.tops[0].total_cost()) << run_id(rec);
    EXPECT_EQ(r1.tops[0].total_time(), r2.tops[0].total_time()) << run_id(rec);
    for (std::size_t l : r1.tops[0].order()) {
      EXPECT_EQ(r1.tops[0].get(l)->part, r2.tops[0].get(l)->part) << run_id(rec);
      EXPECT_EQ(r1.tops[0].get(l)->tvals, r2.tops[0].get(l)->tvals) << run_id(rec);
    }
    if (++checked == 2) break;
  }
  EXPECT_GT(checked, 0);
}
#endif

}  // namespace
}  // namespace kapla
