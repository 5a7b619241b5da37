// Longest-first ordering and queue simulation.
#include "sweep/assign.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <utility>

#include "core/errors.hpp"

namespace kapla::sweep {

std::vector<std::size_t> longest_first(const std::vector<double>& estimates) {
  std::vector<std::size_t> order(estimates.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return estimates[a] > estimates[b]; });
  return order;
}

namespace {
ScheduleSimulation finish(std::vector<double> busy, double total) {
  ScheduleSimulation s;
  s.makespan = busy.empty() ? 0 : *std::max_element(busy.begin(), busy.end());
  s.total_work = total;
  s.efficiency = s.makespan > 0 ? total / (static_cast<double>(busy.size()) * s.makespan) : 1;
  s.rank_busy = std::move(busy);
  return s;
}
}  // namespace

ScheduleSimulation simulate_dynamic_queue(const std::vector<double>& times,
                                          const std::vector<std::size_t>& order, int ranks,
                                          double dispatch_latency) {
  KAPLA_ASSERT(ranks >= 1, "simulate_dynamic_queue: ranks must be >= 1");
  using Slot = std::pair<double, int>;  // (time free, rank)
  std::priority_queue<Slot, std::vector<Slot>, std::greater<>> free_at;
  for (int r = 0; r < ranks; ++r) free_at.emplace(0.0, r);
  std::vector<double> busy(static_cast<std::size_t>(ranks), 0.0);
  double total = 0;
  for (const std::size_t task : order) {
    auto [t, r] = free_at.top();
    free_at.pop();
    const double d = times.at(task) + dispatch_latency;
    total += times.at(task);
    busy[static_cast<std::size_t>(r)] = t + d;
    free_at.emplace(t + d, r);
  }
  return finish(std::move(busy), total);
}

ScheduleSimulation simulate_round_robin(const std::vector<double>& times,
                                        const std::vector<std::size_t>& order, int ranks) {
  KAPLA_ASSERT(ranks >= 1, "simulate_round_robin: ranks must be >= 1");
  std::vector<double> busy(static_cast<std::size_t>(ranks), 0.0);
  double total = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    busy[i % static_cast<std::size_t>(ranks)] += times.at(order[i]);
    total += times.at(order[i]);
  }
  return finish(std::move(busy), total);
}

}  // namespace kapla::sweep
