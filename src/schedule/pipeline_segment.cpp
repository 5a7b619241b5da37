// Pipeline segments: dependencies, node allocation, per-layer resources, generation order.
// Spec: nn_dataflow-spec.md §9.5.
#include "schedule/pipeline_segment.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>

#include "core/errors.hpp"
#include "core/math.hpp"
#include "schedule/pipeline_constraints.hpp"

namespace kapla::schedule {

using detail::SegmentDeps;
using model::LayerSource;

std::size_t PipelineSegment::num_layers() const {
  std::size_t n = 0;
  for (const auto& v : layers_) n += v.size();
  return n;
}

std::optional<mapping::NodeRegion> PipelineSegment::forward_region(SegIndex idx) const {
  for (const auto& [i, r] : fwd_regions_) {
    if (i == idx) return r;
  }
  return std::nullopt;
}

std::vector<SegmentConstraint> PipelineSegment::constraints(double max_time_overhead) const {
  return detail::enumerate_constraints(*cstrs_, max_time_overhead);
}

namespace {

// The sources a layer reads as its ifmap (a MatMul's B is fetched as its filter, from DRAM).
std::vector<LayerSource> ifmap_sources(const model::Network& net, std::size_t l) {
  const auto& prevs = net.prevs(l);
  return {prevs.begin(), prevs.begin() + static_cast<std::ptrdiff_t>(net.num_ifmap_sources(l))};
}

// nn_dataflow _init_deps: memory / local / neighbour sources and destinations; false when the
// segment cannot be scheduled.
std::optional<SegmentDeps> init_deps(const std::vector<std::vector<std::size_t>>& seg,
                                     const model::Network& net, bool with_opt) {
  std::vector<std::optional<SegIndex>> idx_of(net.size());
  for (std::size_t sp = 0; sp < seg.size(); ++sp) {
    for (std::size_t tm = 0; tm < seg[sp].size(); ++tm) {
      idx_of[seg[sp][tm]] = SegIndex{static_cast<int>(sp), static_cast<int>(tm)};
    }
  }
  SegmentDeps deps;
  deps.src.resize(seg.size());
  deps.dst.resize(seg.size());
  // Exact prevs lists of memory-only layers seen so far -> the first such layer.
  std::vector<std::pair<std::vector<LayerSource>, SegIndex>> prevs2layer;
  for (std::size_t sp = 0; sp < seg.size(); ++sp) {
    std::optional<SegIndex> single_nbr_src;
    const int isp = static_cast<int>(sp);
    for (std::size_t tm = 0; tm < seg[sp].size(); ++tm) {
      const std::size_t l = seg[sp][tm];
      const SegIndex me{isp, static_cast<int>(tm)};
      const auto prevs = ifmap_sources(net, l);
      int num_mem = 0;
      int num_lcl = 0;
      std::vector<SegIndex> nbr;
      for (const auto& p : prevs) {
        if (p.kind != LayerSource::Kind::Layer || !idx_of[p.index]) {
          ++num_mem;
        } else if (idx_of[p.index]->sp == isp) {
          KAPLA_ASSERT(idx_of[p.index]->tm == me.tm - 1, "segment: non-adjacent local source");
          ++num_lcl;
        } else {
          nbr.push_back(*idx_of[p.index]);
        }
      }
      if (num_mem > 0 && !nbr.empty()) return std::nullopt;
      SegmentDeps::Src src;
      src.memory = num_mem > 0;
      if (!nbr.empty()) {
        KAPLA_ASSERT(nbr.size() == 1, "segment: several neighbour sources");
        if (single_nbr_src) return std::nullopt;
        single_nbr_src = nbr[0];
        src.neighbour = nbr[0];
      }
      if (num_mem > 0 && num_lcl == 0) {
        auto it = std::find_if(prevs2layer.begin(), prevs2layer.end(),
                               [&](const auto& e) { return e.first == prevs; });
        if (it != prevs2layer.end()) {
          auto lst = std::find_if(deps.ifm_fwd.begin(), deps.ifm_fwd.end(),
                                  [&](const auto& v) { return v.front() == it->second; });
          if (lst == deps.ifm_fwd.end()) {
            deps.ifm_fwd.push_back({it->second, me});
          } else {
            lst->push_back(me);
          }
        } else {
          prevs2layer.emplace_back(prevs, me);
        }
      }

      // Destinations; a network output (no consumer) writes to memory.
      const auto& nexts = net.nexts(l);
      bool mem_dst = nexts.empty();
      std::vector<SegIndex> lcl_dst;
      std::vector<SegIndex> nbr_dst;
      for (std::size_t n : nexts) {
        if (!idx_of[n]) {
          mem_dst = true;
        } else if (idx_of[n]->sp == isp) {
          lcl_dst.push_back(*idx_of[n]);
        } else {
          nbr_dst.push_back(*idx_of[n]);
        }
      }
      const bool last_tm = tm + 1 == seg[sp].size();
      if (lcl_dst.empty()) {
        if (!last_tm) return std::nullopt;
      } else if (lcl_dst.size() != 1 || lcl_dst[0].tm != me.tm + 1) {
        return std::nullopt;
      }
      if (mem_dst && !nbr_dst.empty()) deps.ofm_fwd.emplace_back(me, nbr_dst);
      if (mem_dst && !lcl_dst.empty()) deps.ofm_fwd.emplace_back(me, std::vector{lcl_dst[0]});
      SegmentDeps::Dst dst;
      dst.memory = mem_dst;
      dst.neighbours = nbr_dst;
      if (!with_opt) {
        const bool has_nbr_src = src.neighbour.has_value();
        if ((has_nbr_src ? 1 : 0) + num_lcl > 1 || nbr_dst.size() + lcl_dst.size() > 1 ||
            ((sp != 0 || tm != 0) && !has_nbr_src && num_lcl == 0)) {
          return std::nullopt;
        }
      }
      deps.src[sp].push_back(src);
      deps.dst[sp].push_back(dst);
    }
  }
  return deps;
}

// nn_dataflow _alloc_proc: nodes proportional to ops (batch 1), multiples of a common factor
// of the region height (largest first), within 5% utilisation loss.
std::vector<mapping::NodeRegion> alloc_proc(const std::vector<std::vector<std::size_t>>& seg,
                                            const model::Network& net,
                                            const mapping::NodeRegion& proc_region) {
  constexpr double kMaxUtilDrop = 0.05;
  const std::int64_t total_nodes = proc_region.dim.size();
  std::vector<std::int64_t> ops;
  for (const auto& v : seg) {
    std::int64_t o = 0;
    for (std::size_t l : v) o += net.layer(l).total_ops();
    ops.push_back(o);
  }
  const std::int64_t sum_ops = std::accumulate(ops.begin(), ops.end(), std::int64_t{0});
  auto cfs = divisors(proc_region.dim.h);
  std::reverse(cfs.begin(), cfs.end());
  std::vector<std::int64_t> nodes;
  bool found = false;
  for (const std::int64_t cf : cfs) {
    std::vector<double> raw;
    for (auto o : ops) {
      raw.push_back(static_cast<double>(o) * 1. / static_cast<double>(sum_ops) *
                    static_cast<double>(total_nodes));
    }
    nodes.clear();
    for (double r : raw) {
      // Python round(): half to even, which nearbyint gives in the default rounding mode.
      const auto q = static_cast<std::int64_t>(std::nearbyint(r / static_cast<double>(cf)));
      nodes.push_back(std::max<std::int64_t>(1, q) * cf);
    }
    while (true) {
      const std::int64_t s = std::accumulate(nodes.begin(), nodes.end(), std::int64_t{0});
      if (s == total_nodes) break;
      std::size_t idx = 0;
      for (std::size_t i = 1; i < nodes.size(); ++i) {
        const double di = static_cast<double>(nodes[i]) - raw[i];
        const double dx = static_cast<double>(nodes[idx]) - raw[idx];
        if (s > total_nodes ? di > dx : di < dx) idx = i;
      }
      nodes[idx] += s > total_nodes ? -cf : cf;
    }
    if (std::find(nodes.begin(), nodes.end(), 0) != nodes.end()) continue;
    double time = 0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      time = std::max(time, static_cast<double>(ops[i]) * 1. / static_cast<double>(nodes[i]));
    }
    const double util =
        static_cast<double>(sum_ops) / time /
        static_cast<double>(std::accumulate(nodes.begin(), nodes.end(), std::int64_t{0}));
    if (util >= 1 - kMaxUtilDrop) {
      found = true;
      break;
    }
  }
  if (!found) return {};
  auto regions = proc_region.allocate(nodes);
  KAPLA_ASSERT(regions.size() == seg.size(), "segment: node allocation failed");
  return regions;
}

}  // namespace

std::optional<PipelineSegment> make_pipeline_segment(std::vector<std::vector<std::size_t>> layers,
                                                     const model::Network& net, std::int64_t batch,
                                                     const mapping::Resource& resource,
                                                     const model::SearchOptions& options) {
  std::size_t total = 0;
  for (const auto& v : layers) total += v.size();
  if (total > 1) {
    // A MatMul's B and a reshaped operand (other heads, other token layout) go through DRAM:
    // their producer and consumer are never in one segment (docs/transformers.md §5.4).
    std::vector<bool> in_seg(net.size(), false);
    for (const auto& v : layers)
      for (std::size_t l : v) in_seg[l] = true;
    for (const auto& v : layers) {
      for (std::size_t l : v) {
        for (const auto& p : net.prevs(l)) {
          if (p.kind == LayerSource::Kind::Layer && in_seg[p.index] &&
              !net.forwards_on_chip(p.index, l)) {
            return std::nullopt;
          }
        }
      }
    }
  }
  const auto deps = init_deps(layers, net, options.layer_pipeline_opt);
  if (!deps) return std::nullopt;
  const auto subregions = alloc_proc(layers, net, resource.proc_region);
  if (subregions.empty()) return std::nullopt;

  PipelineSegment seg;
  std::size_t nlayers = 0;
  for (const auto& v : layers) nlayers += v.size();
  bool no_time_mux = nlayers == net.size();
  for (const auto& v : layers) {
    if (std::count_if(v.begin(), v.end(),
                      [&](std::size_t l) { return detail::pipelines_as_conv(net.layer(l)); }) > 1) {
      no_time_mux = false;
    }
  }
  seg.alloc_.resize(layers.size());
  for (std::size_t sp = 0; sp < layers.size(); ++sp) {
    for (std::size_t tm = 0; tm < layers[sp].size(); ++tm) {
      mapping::Resource r = resource;
      r.proc_region = subregions[sp];
      const auto& src = deps->src[sp][tm];
      if (src.memory) {
        r.src_data_region = resource.src_data_region;
        for (const auto& list : deps->ifm_fwd) {
          const SegIndex me{static_cast<int>(sp), static_cast<int>(tm)};
          if (std::find(list.begin() + 1, list.end(), me) != list.end()) {
            r.src_data_region = subregions[static_cast<std::size_t>(list.front().sp)];
            break;
          }
        }
      } else if (src.neighbour) {
        r.src_data_region = subregions[static_cast<std::size_t>(src.neighbour->sp)];
      } else {
        r.src_data_region = r.proc_region;
      }
      r.dst_data_region = deps->dst[sp][tm].memory ? resource.dst_data_region : r.proc_region;
      r.no_time_mux = no_time_mux;
      seg.alloc_[sp].push_back(r);
    }
  }
  auto cstrs = detail::build_symbolic_constraints(layers, *deps, net, batch, seg.alloc_,
                                                  options.layer_pipeline_opt);
  if (!cstrs) return std::nullopt;
  seg.num_sp_fbs_ = cstrs->num_sp_fbs;
  seg.cstrs_ = std::make_shared<const detail::SymbolicConstraints>(std::move(*cstrs));

  // Forwarding regions (nn_dataflow _segment_schedule_search fwd_data_region_dict).
  auto region_of = [&](SegIndex i) {
    return seg.alloc_[static_cast<std::size_t>(i.sp)][static_cast<std::size_t>(i.tm)].proc_region;
  };
  auto set_fwd = [&](SegIndex i, const mapping::NodeRegion& r) {
    for (auto& [k, v] : seg.fwd_regions_) {
      if (k == i) {
        v = r;
        return;
      }
    }
    seg.fwd_regions_.emplace_back(i, r);
  };
  for (const auto& list : deps->ifm_fwd) {
    for (std::size_t i = 1; i < list.size(); ++i) set_fwd(list[i], region_of(list.front()));
  }
  for (const auto& [src, dsts] : deps->ofm_fwd) {
    for (const auto& d : dsts) set_fwd(d, region_of(src));
  }
  seg.layers_ = std::move(layers);
  return seg;
}

std::vector<std::vector<int>> gen_vertex_segments(const SchedDag& dag) {
  std::vector<std::vector<int>> out;
  std::set<int> done;
  const int nv = static_cast<int>(dag.size());
  auto contains = [](const std::vector<int>& v, int x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  std::function<void(int)> gen = [&](int start) {
    std::vector<int> vseg;
    for (int f = start; f < nv; ++f) {
      const auto& fprevs = dag.prevs[static_cast<std::size_t>(f)];
      bool share = vseg.empty();
      int in_seg = 0;
      for (int p : fprevs) {
        if (contains(vseg, p)) {
          share = true;
          ++in_seg;
        }
        for (int i : vseg) {
          if (contains(dag.prevs[static_cast<std::size_t>(i)], p)) share = true;
        }
      }
      if (!share || in_seg > 1) break;
      vseg.push_back(f);
      bool valid = true;
      for (int i : vseg) {
        const auto& nexts = dag.nexts[static_cast<std::size_t>(i)];
        int inside = 0;
        int outside = 0;
        for (int n : nexts) (contains(vseg, n) ? inside : outside)++;
        if (inside > 0 && outside > 1) {
          valid = false;
          break;
        }
      }
      if (!valid) continue;
      out.push_back(vseg);
      if (done.count(f + 1)) continue;
      gen(f + 1);
    }
    done.insert(start);
  };
  if (nv > 0) gen(0);
  return out;
}

std::vector<PipelineSegment> gen_segments(const SchedDag& dag, const model::Network& net,
                                          std::int64_t batch, const mapping::Resource& resource,
                                          const model::SearchOptions& options) {
  std::vector<PipelineSegment> out;
  for (std::size_t l = 0; l < net.size(); ++l) {
    auto seg = make_pipeline_segment({{l}}, net, batch, resource, options);
    KAPLA_ASSERT(seg.has_value(), "a single-layer segment must be valid");
    out.push_back(std::move(*seg));
  }
  if (!options.partition_interlayer && !options.hw_gbuf_save_writeback) return out;
  for (const auto& vseg : gen_vertex_segments(dag)) {
    if (static_cast<double>(vseg.size()) > options.layer_pipeline_max_degree) continue;
    if (vseg.size() == 1 && dag.vertices[static_cast<std::size_t>(vseg[0])].size() == 1) continue;
    std::vector<std::vector<std::vector<std::size_t>>> cands;
    if (options.partition_interlayer) {
      std::vector<std::vector<std::size_t>> spatial;
      for (int v : vseg) spatial.push_back(dag.vertices[static_cast<std::size_t>(v)]);
      cands.push_back(std::move(spatial));
    }
    if (options.hw_gbuf_save_writeback) {
      std::vector<std::size_t> all;
      for (int v : vseg) {
        const auto& vl = dag.vertices[static_cast<std::size_t>(v)];
        all.insert(all.end(), vl.begin(), vl.end());
      }
      std::vector<std::vector<std::size_t>> temporal{all};
      // The reference collects the candidates in a set: equal forms count once.
      if (cands.empty() || cands.front() != temporal) cands.push_back(std::move(temporal));
    }
    for (auto& c : cands) {
      if (auto seg = make_pipeline_segment(std::move(c), net, batch, resource, options)) {
        out.push_back(std::move(*seg));
      }
    }
  }
  return out;
}

}  // namespace kapla::schedule
