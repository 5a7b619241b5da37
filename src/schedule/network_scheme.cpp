// Network scheme totals. Spec: nn_dataflow-spec.md §3.4, §9.7-9.8.
#include "schedule/network_scheme.hpp"

#include <algorithm>

#include "core/errors.hpp"
#include "mapping/data_layout_ops.hpp"

namespace kapla::schedule {

using model::LayerSource;

NetworkScheme::NetworkScheme(const model::Network& net, mapping::DataLayout input_layout,
                             std::vector<mapping::DataLayout> ext_layouts)
    : net_(&net),
      inputs_(
          std::make_shared<const Inputs>(Inputs{std::move(input_layout), std::move(ext_layouts)})),
      by_layer_(net.size()) {
  KAPLA_ASSERT(inputs_->ext_layouts.size() == net.externals().size(),
               "network scheme: one layout per external input");
}

void NetworkScheme::add(std::size_t layer, std::shared_ptr<const pricing::LayerSchedule> sched) {
  KAPLA_ASSERT(!by_layer_[layer], "network scheme: layer scheduled twice");
  for (const auto& p : net_->prevs(layer)) {
    KAPLA_ASSERT(p.kind != LayerSource::Kind::Layer || by_layer_[p.index],
                 "network scheme: predecessor not scheduled yet");
  }
  const auto& s = *sched;
  sum_cost_ += s.cost;
  sum_static_cost_ += s.cost_static;
  sum_time_ += s.time;
  const int seg_idx = s.sched_seq[0];
  if (seg_idx == last_seg_idx_ + 1) {
    timings_.emplace_back();
    cur_seg_layers_.clear();
    ++last_seg_idx_;
  } else {
    KAPLA_ASSERT(seg_idx == last_seg_idx_, "network scheme: bad segment index");
  }
  LayerTimingInput in;
  in.sp = s.sched_seq[1];
  in.tm = s.sched_seq[2];
  // The timing model fuses after Conv-like layers; the KAPLA fork counts depthwise and back
  // filter layers as Conv (§12.8), which for upstream networks is the same set.
  in.is_conv = net_->layer(layer).has_filter();
  in.time = s.time;
  in.node_time = s.node_time();
  in.dram_time = s.dram_time;
  in.num_nodes = s.num_nodes;
  in.top_t = s.tvals[0];
  in.top_ord = s.orders[0];
  for (const auto& p : net_->prevs(layer)) {
    if (p.kind != LayerSource::Kind::Layer) continue;
    for (const auto& [l, idx] : cur_seg_layers_) {
      if (l == p.index) in.onchip_prevs.push_back({idx.sp, idx.tm});
    }
  }
  timings_.back().add(in);
  cur_seg_layers_.emplace_back(layer, SegIndex{in.sp, in.tm});
  by_layer_[layer] = std::move(sched);
  order_.push_back(layer);
}

const mapping::DataLayout& NetworkScheme::source_layout(const LayerSource& s) const {
  switch (s.kind) {
    case LayerSource::Kind::NetworkInput:
      return inputs_->input_layout;
    case LayerSource::Kind::External:
      return inputs_->ext_layouts[s.index];
    case LayerSource::Kind::Layer:
      break;
  }
  KAPLA_ASSERT(by_layer_[s.index], "network scheme: layout of an unscheduled layer");
  return by_layer_[s.index]->ofmap_layout;
}

std::int64_t NetworkScheme::source_heads(const LayerSource& s) const {
  return s.kind == LayerSource::Kind::Layer ? net_->layer(s.index).nhead : 1;
}

mapping::DataLayout NetworkScheme::fmap_layout(std::size_t layer) const {
  const auto& prevs = net_->prevs(layer);
  const model::Layer& l = net_->layer(layer);
  const std::size_t nsrc = net_->num_ifmap_sources(layer);  // a MatMul's A only
  mapping::DataLayout out;
  if (nsrc == 1) {
    out = source_layout(prevs[0]);
  } else {
    std::vector<mapping::DataLayout> parts;
    for (std::size_t i = 0; i < nsrc; ++i) parts.push_back(source_layout(prevs[i]));
    out = mapping::concat(parts);
  }
  const bool reshape = std::any_of(
      prevs.begin(), prevs.end(), [&](const LayerSource& p) { return net_->reads_reshaped(l, p); });
  if (!reshape) return out;
  // The operand as the layer indexes it: heads in the batch, its own channels and positions.
  const std::int64_t batch = mapping::complete_fmap_range(out).end[0] / source_heads(prevs[0]);
  mapping::FmapRange full;
  full.end = {batch * l.nhead, l.nifm, l.sifm.h, l.sifm.w};
  return mapping::reshaped(out, full);
}

double NetworkScheme::total_time() const {
  // The whole network in one segment: no pipeline filling/draining delay.
  if (timings_.size() == 1 && order_.size() == net_->size()) return timings_[0].critical_time();
  double t = 0;
  for (const auto& st : timings_) t += st.time();
  return t;
}

double NetworkScheme::static_overcount() const {
  if (sum_time_ == 0) return 0;
  return sum_static_cost_ * (1 - 1. * total_time() / sum_time_);
}

double NetworkScheme::total_cost() const {
  if (sum_time_ == 0) return sum_cost_;
  return sum_cost_ - static_overcount();
}

cost::EnergyBreakdown NetworkScheme::energy() const {
  cost::EnergyBreakdown e;
  for (std::size_t l : order_) e += by_layer_[l]->energy;
  e.idle = sum_static_cost_ - static_overcount();
  return e;
}

double NetworkScheme::total_ops() const {
  double s = 0;
  for (std::size_t l : order_) s += by_layer_[l]->ops;
  return s;
}

PerMemLevel<double> NetworkScheme::total_accesses() const {
  PerMemLevel<double> out{};
  for (std::size_t l : order_) {
    const auto a = by_layer_[l]->total_accesses();
    for (auto m : all_values<MemLevel>()) out[m] += a[m];
  }
  return out;
}

double NetworkScheme::total_noc_hops() const {
  double s = 0;
  for (std::size_t l : order_) s += by_layer_[l]->total_noc_hops();
  return s;
}

bool network_goal_less(const NetworkScheme& a, const NetworkScheme& b, model::Goal goal) {
  return model::goal_less(a.total_cost(), a.total_time(), b.total_cost(), b.total_time(), goal);
}

}  // namespace kapla::schedule
