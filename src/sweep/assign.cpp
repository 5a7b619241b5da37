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
                                          double dispatch_latency, double service_time,
                                          double chunk_seconds) {
  KAPLA_ASSERT(ranks >= 1, "simulate_dynamic_queue: ranks must be >= 1");
  using Slot = std::pair<double, int>;  // (time free, rank)
  std::priority_queue<Slot, std::vector<Slot>, std::greater<>> free_at;
  for (int r = 0; r < ranks; ++r) free_at.emplace(0.0, r);
  std::vector<double> busy(static_cast<std::size_t>(ranks), 0.0);
  std::vector<double> prefix{0.0};
  for (const std::size_t task : order) prefix.push_back(prefix.back() + times.at(task));
  double dispatcher_free = 0;  // requests are answered in the order they arrive
  for (std::size_t next = 0; next < order.size();) {
    auto [t, r] = free_at.top();
    free_at.pop();
    const std::size_t n = chunk_seconds > 0 ? chunk_size(prefix, next, ranks, chunk_seconds) : 1;
    dispatcher_free = std::max(dispatcher_free, t) + service_time;
    const double end = dispatcher_free + dispatch_latency + (prefix[next + n] - prefix[next]);
    next += n;
    busy[static_cast<std::size_t>(r)] = end;
    free_at.emplace(end, r);
  }
  return finish(std::move(busy), prefix.back());
}

std::size_t chunk_size(const std::vector<double>& prefix, std::size_t next, int ranks,
                       double target_seconds) {
  const std::size_t n = prefix.size() - 1;  // tasks
  KAPLA_ASSERT(next < n && ranks >= 1, "chunk_size: no task left or no rank");
  const double left = prefix.back() - prefix[next];
  const double goal = std::min(target_seconds, left / (4.0 * ranks));
  // First position whose work from `next` on reaches the goal (prefix is non-decreasing).
  const auto reach = std::lower_bound(prefix.begin() + static_cast<std::ptrdiff_t>(next) + 1,
                                      prefix.end(), prefix[next] + goal);
  const auto end = static_cast<std::size_t>(reach - prefix.begin());
  return std::max<std::size_t>(1, std::min(end, n) - next);
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
