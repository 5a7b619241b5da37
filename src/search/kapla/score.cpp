// Goal comparison of scores (nn_dataflow-spec.md §3.5 keys).
#include "search/kapla/layer_oracle.hpp"

namespace kapla::search::kapla {

bool better(const Score& a, const Score& b, model::Goal goal) {
  // Two rules on purpose, for goal ed only: model::goal_less is nn_dataflow's key (the product
  // alone, the first found wins a tie), which B and the network level must keep to match the
  // reference's choices; K's descent breaks a product tie by the lower energy, the rule its
  // recorded results (docs/kapla.md) were made with. For e and d the two rules are one.
  if (goal == model::Goal::EnergyDelay) {
    const double pa = a.energy * a.time, pb = b.energy * b.time;
    return pa < pb || (pa == pb && a.energy < b.energy);
  }
  return model::goal_less(a.energy, a.time, b.energy, b.time, goal);
}

double goal_value(const Score& s, model::Goal goal) {
  return model::goal_scalar(s.energy, s.time, goal);
}

}  // namespace kapla::search::kapla
