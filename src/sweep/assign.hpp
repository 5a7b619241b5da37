// Which tuple goes first: the dispatch order (longest first by a cost estimate, the LPT rule),
// and a simulator of the dynamic queue used to predict parallel efficiency at many ranks.
#pragma once

#include <cstddef>
#include <vector>

namespace kapla::sweep {

/// Indices 0..n-1 ordered by decreasing estimate; ties keep index order (deterministic).
std::vector<std::size_t> longest_first(const std::vector<double>& estimates);

/// Result of simulating the dynamic queue.
struct ScheduleSimulation {
  double makespan = 0;            // time until the last rank finishes
  double total_work = 0;          // sum of task times
  double efficiency = 0;          // total_work / (ranks * makespan)
  std::vector<double> rank_busy;  // per rank
};

/// Simulates the Communicator's dynamic queue: tasks are taken in `order` by whichever rank
/// becomes free first (lowest rank on ties); `times` are the tasks' real durations and
/// `dispatch_latency` is added per task (the request round trip). `service_time` is what
/// answering one request costs rank 0, which answers one at a time: with many ranks and short
/// tasks the requests queue there.
/// With `chunk_seconds` > 0 a request takes chunk_size(.., chunk_seconds) tasks, sized by the
/// true times (a perfect estimate), which run back to back on the rank.
ScheduleSimulation simulate_dynamic_queue(const std::vector<double>& times,
                                          const std::vector<std::size_t>& order, int ranks,
                                          double dispatch_latency = 0, double service_time = 0,
                                          double chunk_seconds = 0);

/// How many tasks one request takes from position `next` of a dispatch order, where
/// prefix[k] is the estimated work of the first k tasks: enough for `target_seconds` of
/// estimated work, but at most a quarter of one rank's share of the work left, so that the
/// last tasks still spread over the ranks; at least 1.
std::size_t chunk_size(const std::vector<double>& prefix, std::size_t next, int ranks,
                       double target_seconds);

/// The same for a static round robin split (task order[i] to rank i % ranks), for comparison.
ScheduleSimulation simulate_round_robin(const std::vector<double>& times,
                                        const std::vector<std::size_t>& order, int ranks);

}  // namespace kapla::sweep
