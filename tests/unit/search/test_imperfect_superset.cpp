// B with imperfect: spatial searches a superset of B's space (issue 18 part 4): on golden
// multi-node layers it is never worse under the record's goal, and with none it is B itself.
// B with full (temporal blocks with a remainder) searches a superset of spatial's: never worse
// on golden single-node layers; K and S with full are never worse than with spatial.
#include <gtest/gtest.h>

#include <iostream>

#include "cost/loop_blocking.hpp"
#include "pricing/fixed_scheme.hpp"
#include "sampling_fixtures.hpp"
#include "search/strategy_registry.hpp"

namespace kapla::search {
namespace {

TEST(ImperfectSuperset, BSpatialNeverWorseOnGoldenMultiNodeLayers) {
  const auto recs = io::golden::read_jsonl(std::string(KAPLA_TEST_DATA_DIR) +
                                           "/golden/nn_dataflow/layer_schedules.jsonl");
  const auto b = make_layer_strategy("exhaustive");
  int checked = 0, better = 0;
  for (const std::string id :
       {"ls-case-0120", "ls-case-0111", "ls-case-0115", "ls-case-0116", "ls-case-0122"}) {
    for (const auto& rec : recs) {
      if (rec.at("id") != id) continue;
      SCOPED_TRACE(id);
      auto none = testing::problem_of(rec);
      auto spatial = none;
      spatial.options.imperfect = model::Imperfect::Spatial;
      const auto rn = b->search(none, {});
      const auto rs = b->search(spatial, {});
      ASSERT_FALSE(rn.empty());
      ASSERT_FALSE(rs.empty());
      const auto g = none.options.opt_goal;
      EXPECT_FALSE(model::goal_less(rn[0].cost, rn[0].time, rs[0].cost, rs[0].time, g))
          << "none " << rn[0].cost << " " << rn[0].time << ", spatial " << rs[0].cost << " "
          << rs[0].time;
      better += model::goal_less(rs[0].cost, rs[0].time, rn[0].cost, rn[0].time, g) ? 1 : 0;
      // With none, B is the reference's search: under goal e its optimum is the record's.
      if (g == model::Goal::Energy) {
        EXPECT_TRUE(io::golden::rel_equal(rn[0].cost,
                                          io::golden::to_double(rec.at("cmp_keys").at(0).at(0))));
      }
      ++checked;
      std::cout << "[imperfect_superset] " << id << " none " << rn[0].cost << " / " << rn[0].time
                << ", spatial " << rs[0].cost << " / " << rs[0].time << "\n";
    }
  }
  EXPECT_EQ(checked, 5);
  std::cout << "[imperfect_superset] spatial strictly better on " << better << " of " << checked
            << "\n";
}

/// A strategy's results for `p` with imperfect: spatial, then with full.
template <class S>
auto spatial_and_full(S& strategy, pricing::LayerProblem p) {
  p.options.imperfect = model::Imperfect::Spatial;
  auto rs = strategy.search(p, {});
  p.options.imperfect = model::Imperfect::Full;
  return std::pair{std::move(rs), strategy.search(p, {})};
}

TEST(ImperfectSuperset, BFullNeverWorseThanSpatialOnGoldenLayers) {
  int checked = 0, better = 0;
  const auto b = make_layer_strategy("exhaustive");
  for (const auto& g : testing::golden_layers(testing::golden_ids())) {
    SCOPED_TRACE(g.id);
    const auto [rs, rf] = spatial_and_full(*b, g.problem);
    ASSERT_FALSE(rs.empty());
    ASSERT_FALSE(rf.empty());
    const auto goal = g.problem.options.opt_goal;
    EXPECT_FALSE(model::goal_less(rs[0].cost, rs[0].time, rf[0].cost, rf[0].time, goal))
        << "spatial " << rs[0].cost << " " << rs[0].time << ", full " << rf[0].cost << " "
        << rf[0].time;
    // One node: spatial is B itself, the record's optimum.
    EXPECT_TRUE(io::golden::rel_equal(rs[0].cost, g.b_cost));
    better += model::goal_less(rf[0].cost, rf[0].time, rs[0].cost, rs[0].time, goal) ? 1 : 0;
    ++checked;
    std::cout << "[imperfect_superset] " << g.id << " spatial " << rs[0].cost << " / " << rs[0].time
              << ", full " << rf[0].cost << " / " << rf[0].time << "\n";
  }
  EXPECT_EQ(checked, 10);
  EXPECT_GT(better, 0);
  std::cout << "[imperfect_superset] full strictly better on " << better << " of " << checked
            << "\n";
}

// K and S express remainders under full (docs/imperfect.md): S's factor lists take B's covers,
// K's last refinement step changes one tile to another of them. S's space holds K's, and K
// refines its spatial result, so: S full <= K full <= K spatial, and S full <= S spatial.
TEST(ImperfectSuperset, KAndSFullNeverWorseThanSpatialAndSNeverWorseThanK) {
  const auto k = make_layer_strategy("kapla");
  const auto s = make_layer_strategy("directive-exhaustive");
  int k_better = 0, k_covers = 0, checked = 0;
  for (const auto& g : testing::golden_layers(testing::golden_ids())) {
    SCOPED_TRACE(g.id);
    const auto [ks, kf] = spatial_and_full(*k, g.problem);
    const auto [ss, sf] = spatial_and_full(*s, g.problem);
    ASSERT_FALSE(ks.empty());
    ASSERT_FALSE(kf.empty());
    ASSERT_FALSE(ss.empty());
    ASSERT_FALSE(sf.empty());
    const auto goal = g.problem.options.opt_goal;
    auto no_better = [&](const auto& a, const auto& b) {  // b is not better than a
      return !model::goal_less(b.cost, b.time, a.cost, a.time, goal);
    };
    EXPECT_TRUE(no_better(kf[0], ks[0])) << "K spatial " << ks[0].cost << ", full " << kf[0].cost;
    EXPECT_TRUE(no_better(sf[0], ss[0])) << "S spatial " << ss[0].cost << ", full " << sf[0].cost;
    EXPECT_TRUE(no_better(sf[0], kf[0])) << "K full " << kf[0].cost << ", S full " << sf[0].cost;
    k_better += model::goal_less(kf[0].cost, kf[0].time, ks[0].cost, ks[0].time, goal) ? 1 : 0;
    // A remainder in K's answer: a loop's trip counts do not multiply to its loop count.
    auto full = g.problem;
    full.options.imperfect = model::Imperfect::Full;
    const auto setup = pricing::setup_partition(full, kf[0].part);
    const auto& loopcnt = setup.map.nlds.at(static_cast<std::size_t>(kf[0].nld_index)).loopcnt;
    const auto& t = kf[0].tvals;
    for (auto l : all_values<LoopDim>())
      if (t[0][l] * t[1][l] * t[2][l] != loopcnt[l]) {
        EXPECT_TRUE(cost::blocks_cover(t[0][l], t[1][l], t[2][l], loopcnt[l]));
        ++k_covers;
        break;
      }
    ++checked;
    std::cout << "[imperfect_superset] " << g.id << " K spatial " << ks[0].cost << ", full "
              << kf[0].cost << "; S spatial " << ss[0].cost << ", full " << sf[0].cost << "\n";
  }
  EXPECT_EQ(checked, 10);
  EXPECT_GT(k_better, 0);
  EXPECT_GT(k_covers, 0);
  std::cout << "[imperfect_superset] K full strictly better on " << k_better << " of " << checked
            << "\n";
}

}  // namespace
}  // namespace kapla::search
