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

TEST(simulate_dynamic_queue, requests_queue_at_a_busy_dispatcher) {
  // 100 tasks of 1 s on 10 ranks: 10 s without dispatch costs. Answering a request takes rank
  // 0 0.5 s, one at a time: it can feed 2 tasks a second, so 10 ranks get 2 tasks/s and the
  // last of the 100 starts at 50 s (served at 0.5, 1.0, ..., 50.0) and ends at 51 s.
  const std::vector<double> times(100, 1.0);
  const auto order = longest_first(times);
  EXPECT_DOUBLE_EQ(simulate_dynamic_queue(times, order, 10).makespan, 10.0);
  EXPECT_DOUBLE_EQ(simulate_dynamic_queue(times, order, 10, 0, 0.5).makespan, 51.0);
  // With a latency of 0.25 s per round trip and no queue: 10 rounds of 1.25 s.
  EXPECT_DOUBLE_EQ(simulate_dynamic_queue(times, order, 10, 0.25).makespan, 12.5);
}

TEST(chunk_size, takes_the_target_work_but_leaves_the_tail_to_spread) {
  // 100 tasks of 0.01 s (prefix[k] = 0.01 k) on 2 ranks, 0.05 s per request: 5 tasks while
  // a quarter of a rank's share of what is left (1/8 of it) is at least 0.05 s.
  std::vector<double> prefix{0.0};
  for (int i = 0; i < 100; ++i) prefix.push_back(prefix.back() + 0.01);
  EXPECT_EQ(chunk_size(prefix, 0, 2, 0.05), 5u);
  EXPECT_EQ(chunk_size(prefix, 40, 2, 0.05), 5u);  // 0.6 s left: 0.075 s >= 0.05
  EXPECT_EQ(chunk_size(prefix, 80, 2, 0.05), 3u);  // 0.2 s left: 0.025 s, 3 tasks reach it
  EXPECT_EQ(chunk_size(prefix, 99, 2, 0.05), 1u);
  EXPECT_EQ(chunk_size(prefix, 0, 2, 0), 1u);       // no target: one task per request
  EXPECT_EQ(chunk_size(prefix, 0, 2, 100.0), 13u);  // 1/8 of 1 s: 0.125 s, 13 tasks reach it
  // A long task alone reaches the target.
  const std::vector<double> longs{0.0, 10.0, 10.01, 10.02};
  EXPECT_EQ(chunk_size(longs, 0, 2, 0.05), 1u);
  EXPECT_EQ(chunk_size(longs, 1, 1, 0.05), 1u);  // 0.02 s left, a quarter: 0.005 s; 1 task
}

TEST(simulate_dynamic_queue, chunks_relieve_a_busy_dispatcher) {
  // 1000 tasks of 10 ms on 100 ranks, 1 ms round trip, 0.1 ms per answer at rank 0: one task
  // per request keeps rank 0 busy all the time (100 ranks x 100 requests/s x 0.1 ms = 1);
  // chunks of 50 ms make it 5 times less.
  const std::vector<double> times(1000, 0.01);
  const auto order = longest_first(times);
  const auto single = simulate_dynamic_queue(times, order, 100, 0.001, 1e-4);
  const auto chunked = simulate_dynamic_queue(times, order, 100, 0.001, 1e-4, 0.05);
  EXPECT_LT(single.efficiency, 0.85);
  EXPECT_GT(chunked.efficiency, single.efficiency);
  EXPECT_DOUBLE_EQ(chunked.total_work, single.total_work);
}

TEST(local_communicator, runs_every_task_once_in_order_and_stops) {
  auto comm = make_local_communicator();
  EXPECT_EQ(comm->rank(), 0);
  EXPECT_EQ(comm->size(), 1);
  std::vector<std::size_t> seen;
  comm->for_each_task(
      {2, 0, 1}, [&](std::size_t t) { seen.push_back(t); }, nullptr, nullptr, nullptr);
  EXPECT_EQ(seen, (std::vector<std::size_t>{2, 0, 1}));
  seen.clear();
  comm->for_each_task(
      {2, 0, 1}, [&](std::size_t t) { seen.push_back(t); }, [&] { return seen.size() == 2; },
      nullptr, nullptr);
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_EQ(comm->gather("x"), std::vector<std::string>{"x"});
  EXPECT_EQ(comm->max(3), 3);
}

}  // namespace
}  // namespace kapla::sweep
