// Segment timing. Spec: nn_dataflow-spec.md §9.7; times are integral, and the reference's
// integer floor divisions (time // ngrp, node_time // bat_ngrp) are done with std::floor.
#include "schedule/segment_timing.hpp"

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"

namespace kapla::schedule {

namespace {

double floor_div(double a, std::int64_t b) { return std::floor(a / static_cast<double>(b)); }

}  // namespace

void SegmentTiming::add(const LayerTimingInput& in) {
  if (in.tm == 0) {
    KAPLA_ASSERT(in.sp == static_cast<int>(timing_.size()), "segment timing: bad spatial index");
    timing_.emplace_back();
  } else {
    KAPLA_ASSERT(in.sp + 1 == static_cast<int>(timing_.size()) &&
                     in.tm == static_cast<int>(timing_.back().size()),
                 "segment timing: bad temporal index");
  }

  // Non-trivial level-0 loops from outermost to innermost: a leading BAT loop gives the batch
  // groups, the next one the IFM or OFM groups.
  std::vector<LoopDim> ord;
  for (auto l : all_values<LoopDim>()) {
    if (in.top_t[l] > 1) ord.push_back(l);
  }
  std::stable_sort(ord.begin(), ord.end(),
                   [&](LoopDim a, LoopDim b) { return in.top_ord[a] > in.top_ord[b]; });
  PerLoopDim<std::int64_t> top{{1, 1, 1}};
  std::size_t pos = 0;
  if (pos < ord.size() && ord[pos] == LoopDim::Bat) {
    top[LoopDim::Bat] = in.top_t[LoopDim::Bat];
    ++pos;
  }
  if (pos < ord.size()) {
    KAPLA_ASSERT(ord[pos] != LoopDim::Bat, "segment timing: BAT loop not outermost");
    top[ord[pos]] = in.top_t[ord[pos]];
  }
  if (bat_ngrp_ == 0) {
    bat_ngrp_ = top[LoopDim::Bat];
  } else if (bat_ngrp_ != top[LoopDim::Bat]) {
    bat_ngrp_ = 1;
  }
  const std::int64_t ifm_ngrp = top[LoopDim::Ifm];
  const std::int64_t ofm_ngrp = top[LoopDim::Ofm];

  double ts = 0;
  double td = 0;
  for (const auto& [psp, ptm] : in.onchip_prevs) {
    const LayerTiming& p = timing_[static_cast<std::size_t>(psp)][static_cast<std::size_t>(ptm)];
    double start = 0;
    if (psp == in.sp) {
      // Same spatial vertex: fused with the previous temporal layer when the groups match.
      start = (!in.is_conv && ofm_ngrp == p.ngrp) ? p.ts_xb + floor_div(p.time, p.ngrp) : p.td_xb;
      td = p.td_xb + in.time;
    } else {
      // Previous spatial vertex: fmap-group forwarding when the groups match.
      const std::int64_t mine = in.is_conv ? ifm_ngrp : ofm_ngrp;
      start = mine == p.ngrp ? p.ts_xb + floor_div(p.time, p.ngrp) : p.td_xb;
    }
    ts = std::max(ts, start);
  }
  td = std::max(td, ts + in.time);
  timing_.back().push_back(
      LayerTiming{in.time, in.node_time, in.dram_time, in.num_nodes, ofm_ngrp, ts, td});

  critical_time_ = 0;
  for (const auto& tl : timing_)
    critical_time_ = std::max(critical_time_, tl.back().td_xb - tl.front().ts_xb);
  dram_time_ += in.dram_time;
  node_time_ = 0;
  for (const auto& tl : timing_) {
    node_time_ = std::max(
        node_time_, floor_div(tl.back().td_xb + critical_time_ * static_cast<double>(bat_ngrp_ - 1),
                              bat_ngrp_));
  }
}

double SegmentTiming::time_overhead() const {
  std::int64_t total_nodes = 0;
  for (const auto& tl : timing_) total_nodes += tl.front().num_nodes;
  double indv = 0;
  for (const auto& tl : timing_) {
    for (const auto& t : tl) {
      indv += std::max(
          1. * t.node_time * static_cast<double>(t.num_nodes) / static_cast<double>(total_nodes),
          t.dram_time);
    }
  }
  return (time() - indv) / indv;
}

std::size_t SegmentTiming::num_layers() const {
  std::size_t n = 0;
  for (const auto& tl : timing_) n += tl.size();
  return n;
}

}  // namespace kapla::schedule
