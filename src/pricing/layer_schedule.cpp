// LayerSchedule totals and the goal key. Spec: nn_dataflow-spec.md §3.5, §9.2.
#include "pricing/layer_schedule.hpp"

namespace kapla::pricing {

PerMemLevel<double> LayerSchedule::total_accesses() const {
  PerMemLevel<double> out{};
  for (auto m : all_values<MemLevel>()) {
    double s = 0;
    for (auto d : all_values<DataCategory>()) s += access[m][d];
    out[m] = s;
  }
  double remote = 0;
  for (auto d : all_values<DataCategory>()) remote += remote_gbuf_access[d];
  out[MemLevel::Gbuf] += remote;
  return out;
}

double LayerSchedule::total_noc_hops() const {
  double s = 0;
  for (auto d : all_values<DataCategory>()) s += total_nhops[d];
  return s;
}

bool goal_less(const LayerSchedule& a, const LayerSchedule& b, model::Goal goal) {
  return model::goal_less(a.cost, a.time, b.cost, b.time, goal);
}

}  // namespace kapla::pricing
