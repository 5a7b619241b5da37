// Dispatch order and the queue simulator.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "sweep/assign.hpp"
#include "sweep/communicator.hpp"

namespace kapla::sweep {
namespace {

TEST(longest_first, orders_by_estimate_with_stable_ties) {
  const std::vector<double> est = {1, 100, 10, 100, 1};
  EXPECT_EQ(longest_first(est), (std::vector<std::size_t>{1, 3, 2, 0, 4}));
}

TEST(simulate_dynamic_queue, is_a_cover_and_balances) {
  // Costs over three orders of magnitude: LPT + dynamic queue is near-optimal, a round robin
  // in key order is not.
  std::vector<double> times;
  for (int i = 0; i < 60; ++i) times.push_back(i % 7 == 0 ? 100 : (i % 3 == 0 ? 10 : 1));
  const auto order = longest_first(times);
  for (int ranks = 1; ranks <= 7; ++ranks) {
    const auto dyn = simulate_dynamic_queue(times, order, ranks);
    EXPECT_DOUBLE_EQ(dyn.total_work, std::accumulate(times.begin(), times.end(), 0.0));
    const double lower = std::max(dyn.total_work / ranks, 100.0);
    EXPECT_LE(dyn.makespan, lower * 4.0 / 3.0 + 1e-9) << ranks;  // Graham's LPT bound
  }
  std::vector<std::size_t> key_order(times.size());
  std::iota(key_order.begin(), key_order.end(), std::size_t{0});
  EXPECT_GT(simulate_dynamic_queue(times, order, 4).efficiency,
            simulate_round_robin(times, key_order, 4).efficiency);
}

TEST(local_communicator, runs_every_task_once_in_order_and_stops) {
  auto comm = make_local_communicator();
  EXPECT_EQ(comm->rank(), 0);
  EXPECT_EQ(comm->size(), 1);
  std::vector<std::size_t> seen;
  comm->for_each_task(
      {2, 0, 1}, [&](std::size_t t) { seen.push_back(t); }, nullptr, nullptr);
  EXPECT_EQ(seen, (std::vector<std::size_t>{2, 0, 1}));
  seen.clear();
  comm->for_each_task(
      {2, 0, 1}, [&](std::size_t t) { seen.push_back(t); }, [&] { return seen.size() == 2; },
      nullptr);
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_EQ(comm->gather("x"), std::vector<std::string>{"x"});
  EXPECT_EQ(comm->max(3), 3);
}

}  // namespace
}  // namespace kapla::sweep
