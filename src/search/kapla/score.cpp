// Goal comparison of scores (nn_dataflow-spec.md §3.5 keys).
#include "search/kapla/layer_oracle.hpp"

namespace kapla::search::directive {

bool better(const Score& a, const Score& b, model::Goal goal) {
  switch (goal) {
    case model::Goal::Energy:
      return a.energy < b.energy || (a.energy == b.energy && a.time < b.time);
    case model::Goal::Delay:
      return a.time < b.time || (a.time == b.time && a.energy < b.energy);
    case model::Goal::EnergyDelay: {
      const double pa = a.energy * a.time, pb = b.energy * b.time;
      return pa < pb || (pa == pb && a.energy < b.energy);
    }
  }
  return false;
}

double goal_value(const Score& s, model::Goal goal) {
  return model::goal_scalar(s.energy, s.time, goal);
}

}  // namespace kapla::search::directive
