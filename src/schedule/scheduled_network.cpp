#include "schedule/scheduled_network.hpp"

namespace kapla::schedule {

pricing::LayerProblem scheduled_layer_problem(const ScheduledNetwork& s, std::size_t layer) {
  pricing::LayerProblem p;
  pricing::set_layer(p, s.net.layer(layer), s.batch);
  p.resource = s.best.get(layer)->resource;
  p.options = s.options;
  p.costs = s.costs;
  return p;
}

}  // namespace kapla::schedule
