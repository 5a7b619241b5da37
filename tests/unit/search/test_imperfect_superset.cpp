// B with imperfect: spatial searches a superset of B's space (issue 18 part 4): on golden
// multi-node layers it is never worse under the record's goal, and with none it is B itself.
#include <gtest/gtest.h>

#include <iostream>

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

}  // namespace
}  // namespace kapla::search
