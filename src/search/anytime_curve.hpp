// Anytime curve of a sampling search (R, M): the best cost found so far versus the number of
// cost-model evaluations and the elapsed seconds, one point per improvement (plus the final
// point). A plain value, so the sweep's HDF5 writer can store it as a table
// (evaluations, seconds, best_goal, best_cost, best_time).
#pragma once

#include <cstdint>
#include <vector>

namespace kapla::search {

struct AnytimePoint {
  std::int64_t evaluations = 0;  // cost-model evaluations so far (valid and invalid)
  double seconds = 0;            // wall time since the search started (not reproducible)
  double best_goal = 0;          // goal scalar of the best schedule (e: cost, d: time, ed: both)
  double best_cost = 0;          // its energy cost
  double best_time = 0;          // its time (cycles)
  friend bool operator==(const AnytimePoint&, const AnytimePoint&) = default;
};

struct AnytimeCurve {
  std::vector<AnytimePoint> points;  // evaluations strictly increasing, best_goal non-increasing

  /// Records an improvement (or the final state) after `evaluations` evaluations.
  void record(std::int64_t evaluations, double seconds, double goal, double cost, double time) {
    if (!points.empty() && points.back().evaluations == evaluations) {
      points.back() = {evaluations, seconds, goal, cost, time};
      return;
    }
    points.push_back({evaluations, seconds, goal, cost, time});
  }
  bool empty() const { return points.empty(); }
};

}  // namespace kapla::search
