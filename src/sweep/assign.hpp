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
/// `dispatch_latency` is added per task (the request round trip).
ScheduleSimulation simulate_dynamic_queue(const std::vector<double>& times,
                                          const std::vector<std::size_t>& order, int ranks,
                                          double dispatch_latency = 0);

/// The same for a static round robin split (task order[i] to rank i % ranks), for comparison.
ScheduleSimulation simulate_round_robin(const std::vector<double>& times,
                                        const std::vector<std::size_t>& order, int ranks);

}  // namespace kapla::sweep
