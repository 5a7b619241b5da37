// kapla-spec.md §4.3 steps 2-3 (fast_explorer.estimate_seg_cost, estimate_layer_cost and
// partition_occp_is_valid), with the decisions listed in segment_estimate.hpp.
#include "search/kapla/segment_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "cost/map_strategy.hpp"
#include "mapping/buffer_sharing_scheme.hpp"
#include "mapping/data_loops.hpp"
#include "mapping/gen_partition.hpp"
#include "mapping/part_layer.hpp"
#include "pricing/fixed_scheme.hpp"
#include "search/kapla/inter_layer.hpp"

namespace kapla::search::kapla {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// What the estimate needs of one partition, independent of the constraint.
struct PartFacts {
  std::vector<cost::NestedLoopDesc> nests;          // the Eyeriss mapping of the partitioned layer
  PerDataCategory<double> data_size{};              // partition-duplicated words of each category
  PerDataCategory<std::int64_t> node_words{};       // one node's words per sample (FIL: in all)
  PerDataCategory<std::int64_t> shared{{1, 1, 1}};  // buffer-sharing group sizes
  PerDataCategory<double> hop_dist{};               // centre-to-centre hops (+ sharing group size)
  std::int64_t p_batch = 1;
  bool has_filter = false;
  double proc_time = 0;  // unit time x mean loop count over the nests
};

// The reference's centre node: relative (h/2, w/2) of the region (integer halves: a node).
PhyDim2 centre(const mapping::NodeRegion& r) { return r.rel2abs({r.dim.h / 2, r.dim.w / 2}); }

PartFacts part_facts(const pricing::LayerProblem& p, const mapping::PartitionScheme& part) {
  const auto& res = p.resource;
  const auto pl = mapping::part_layer(p.layer, p.batch, part);
  PartFacts f;
  f.p_batch = pl.p_batch;
  f.has_filter = p.layer.has_filter();
  f.nests = pricing::map_partitioned_layer(p, pl).nlds;  // the resource's array mapping, as B maps
  const double n = static_cast<double>(part.size());
  f.data_size[DataCategory::Ifm] = static_cast<double>(pl.p_layer.total_ifmap_size(pl.p_batch)) * n;
  f.data_size[DataCategory::Ofm] = static_cast<double>(pl.p_layer.total_ofmap_size(pl.p_batch)) * n;
  if (f.has_filter)
    f.data_size[DataCategory::Fil] = static_cast<double>(pl.p_layer.total_filter_size()) * n;
  f.node_words[DataCategory::Ifm] = pl.p_layer.total_ifmap_size(1);
  f.node_words[DataCategory::Ofm] = pl.p_layer.total_ofmap_size(1);
  f.node_words[DataCategory::Fil] = f.has_filter ? pl.p_layer.total_filter_size() : 0;
  // The reference has no sharing group without GBUF sharing (and a NameError without either
  // feature, §10 item 7): groups of one then.
  const bool sharing = p.options.hw_gbuf_sharing;
  if (sharing) {
    const auto bs =
        mapping::make_bufshr_scheme(res.proc_region, part, mapping::data_loops(p.layer));
    for (auto d : all_values<DataCategory>()) f.shared[d] = bs.size(d);
  }
  const PhyDim2 proc = centre(res.proc_region);
  PhyDim2 nearest_dram = centre(res.dram_region);
  for (const auto& node : res.dram_region.nodes())
    if (node.hop_dist(proc) < nearest_dram.hop_dist(proc)) nearest_dram = node;
  f.hop_dist[DataCategory::Ifm] = static_cast<double>(proc.hop_dist(centre(res.src_data_region)));
  f.hop_dist[DataCategory::Ofm] = static_cast<double>(proc.hop_dist(centre(res.dst_data_region)));
  f.hop_dist[DataCategory::Fil] = static_cast<double>(proc.hop_dist(nearest_dram));
  if (sharing || p.options.hw_access_forwarding)
    for (auto d : all_values<DataCategory>()) f.hop_dist[d] += static_cast<double>(f.shared[d]);
  double lcnt = 0;
  for (const auto& nld : f.nests) lcnt += static_cast<double>(nld.unit_time * nld.total_loopcnt());
  if (!f.nests.empty()) f.proc_time = lcnt / static_cast<double>(f.nests.size());
  return f;
}

// partition_occp_is_valid: some nest whose IFM/OFM counts the top factors divide keeps the
// data of one top-level iteration within the GBUF.
bool gbuf_may_fit(const PartFacts& f, const cost::TopBlockingConstraint& top, std::int64_t gbuf) {
  for (const auto& nld : f.nests) {
    PerLoopDim<std::int64_t> buffered{{1, 1, 1}};
    bool divisible = true;
    for (auto [l, t] : {std::pair{LoopDim::Ifm, top.topifm}, std::pair{LoopDim::Ofm, top.topofm}}) {
      if (t == 0) continue;
      if (nld.loopcnt[l] % t != 0)
        divisible = false;
      else
        buffered[l] = nld.loopcnt[l] / t;
    }
    if (!divisible) continue;
    if (top.topbat != 0) buffered[LoopDim::Bat] = nld.loopcnt[LoopDim::Bat] / top.topbat;
    double occ = 0;
    for (auto d : all_values<DataCategory>()) {
      std::int64_t loops = 1;
      for (auto l : all_values<LoopDim>())
        if (nld.data_loops[d].contains(l)) loops *= buffered[l];
      occ += std::floor(static_cast<double>(loops) * nld.usize_gbuf[d] /
                        static_cast<double>(f.shared[d]));
    }
    if (occ <= static_cast<double>(gbuf)) return true;
  }
  return false;
}

// _filter_is_fully_buffered: filters are fetched once per top batch iteration unless the
// whole per-node working set of one iteration fits (single-layer segments: assumed so).
bool filters_stay(const PartFacts& f, const cost::TopBlockingConstraint& top, std::int64_t gbuf) {
  if (top.topbat == 0 || !f.has_filter) return true;
  if (top.topifm > 1 || top.topofm > 1) return false;
  const std::int64_t batch = f.p_batch / top.topbat;  // one node's samples per iteration
  std::int64_t occ = 0;
  for (auto d : all_values<DataCategory>())
    occ += f.node_words[d] * (d == DataCategory::Fil ? 1 : batch) / f.shared[d];
  return occ <= gbuf;
}

double layer_cost(const pricing::LayerProblem& p, const PartFacts& f) {
  const auto top = p.constraint.top_blocking();
  const auto& res = p.resource;
  if (!gbuf_may_fit(f, top, res.size_gbuf)) return kInf;
  const double fetch = filters_stay(f, top, res.size_gbuf) ? 1.0 : static_cast<double>(top.topbat);
  PerDataCategory<double> dram{}, gbuf{};
  const auto sh = [&](DataCategory d) { return static_cast<double>(f.shared[d]); };
  if (res.src_data_region.type == mapping::RegionType::Dram)
    dram[DataCategory::Ifm] = std::floor(f.data_size[DataCategory::Ifm] / sh(DataCategory::Ifm));
  if (res.dst_data_region.type == mapping::RegionType::Dram)
    dram[DataCategory::Ofm] = std::floor(f.data_size[DataCategory::Ofm] / sh(DataCategory::Ofm));
  dram[DataCategory::Fil] =
      std::floor(f.data_size[DataCategory::Fil] / sh(DataCategory::Fil)) * fetch;
  double hops = 0, dram_sum = 0, gbuf_max = 0;
  for (auto d : all_values<DataCategory>()) {
    gbuf[d] = f.data_size[d];
    hops += f.data_size[d] / sh(d) * f.hop_dist[d] * (d == DataCategory::Fil ? fetch : 1.0);
    dram_sum += dram[d];
    gbuf_max = std::max(gbuf_max, gbuf[d]);
  }
  const auto& c = p.costs;
  const double energy =
      dram_sum * c.mem_hier[MemLevel::Dram] +
      (gbuf[DataCategory::Fil] + gbuf[DataCategory::Ifm] + gbuf[DataCategory::Ofm]) *
          c.mem_hier[MemLevel::Gbuf] +
      hops * c.noc_hop;
  if (p.options.opt_goal == model::Goal::Energy) return energy;
  const double nodes = static_cast<double>(res.proc_region.dim.size());
  const double bus = std::ceil(std::ceil(gbuf_max / nodes) / res.array_bus_width);
  const double dram_time = std::ceil(dram_sum / res.dram_bandwidth);
  const double time = std::max({f.proc_time, bus, dram_time});
  return p.options.opt_goal == model::Goal::Delay ? time : energy * time;
}

bool occupancy_ok(const pricing::LayerProblem& p, double capacity_factor) {
  const auto& c = p.constraint;
  const auto& r = p.resource;
  const OccupancyQuery q{&p.layer,           p.batch,     c.topbat,
                         c.topifm,           c.topofm,    r.proc_region.dim.size(),
                         r.dim_array.size(), r.size_gbuf, capacity_factor};
  return occupancy_may_fit(q);
}

}  // namespace

std::vector<mapping::PartitionScheme> estimate_partitions(
    const std::vector<mapping::PartitionScheme>& all, const SegmentEstimateOptions& opts) {
  const std::size_t n = all.size();
  std::size_t m =
      static_cast<std::size_t>(std::ceil(opts.partition_fraction * static_cast<double>(n)));
  if (opts.max_partitions > 0) m = std::min(m, opts.max_partitions);
  m = std::clamp<std::size_t>(m, n == 0 ? 0 : 1, n);
  std::vector<mapping::PartitionScheme> out;
  out.reserve(m);
  for (std::size_t i = 0; i < m; ++i) out.push_back(all[i * n / m]);
  return out;
}

double estimate_layer_cost(const pricing::LayerProblem& problem,
                           const mapping::PartitionScheme& part) {
  return layer_cost(problem, part_facts(problem, part));
}

double estimate_segment_cost(const SegmentCandidate& segment, const SegmentEstimateOptions& opts) {
  // Per layer: the facts of its estimated partitions, and a memo of its least cost per
  // (topbat, topifm, topofm) (constraints of one segment repeat per-layer factors).
  std::vector<std::vector<PartFacts>> facts;
  for (const auto& lp : segment.layers) {
    std::vector<PartFacts> fs;
    const auto all =
        mapping::gen_partition(lp.layer, lp.batch, lp.resource.proc_region.dim, lp.options, true);
    for (const auto& part : estimate_partitions(all, opts)) fs.push_back(part_facts(lp, part));
    facts.push_back(std::move(fs));
  }
  using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t>;
  std::vector<std::map<Key, double>> memo(segment.layers.size());
  double best = kInf;
  for (const auto& cstr : segment.constraints) {
    const bool pipelined = !cstr.empty() && cstr[0].topbat != 0;  // the reference's test
    bool fits = true;
    for (std::size_t i = 0; i < cstr.size() && fits && pipelined; ++i) {
      pricing::LayerProblem p = segment.layers[i];
      p.constraint = cstr[i];
      fits = occupancy_ok(p, opts.capacity_factor);
    }
    if (!fits) continue;
    double total = 0;
    for (std::size_t i = 0; i < cstr.size() && total < kInf; ++i) {
      const auto top = cstr[i].top_blocking();
      const Key key{top.topbat, top.topifm, top.topofm};
      auto it = memo[i].find(key);
      if (it == memo[i].end()) {
        pricing::LayerProblem p = segment.layers[i];
        p.constraint = cstr[i];
        double least = kInf;
        for (const auto& f : facts[i]) least = std::min(least, layer_cost(p, f));
        it = memo[i].emplace(key, least).first;
      }
      total += it->second;
    }
    if (total < best) {
      best = total;
      if (!opts.best_constraint) break;  // the reference stops at the first finite one
    }
  }
  return best;
}

std::vector<bool> choose_segments(const std::vector<SegmentCandidate>& segments,
                                  std::size_t num_layers, const SegmentEstimateOptions& opts,
                                  std::size_t k) {
  std::vector<SegmentEstimate> est;
  est.reserve(segments.size());
  for (const auto& s : segments)
    est.push_back({s.first, s.last, s.single_layer(), estimate_segment_cost(s, opts)});
  return select_segments(est, num_layers, k, opts.chain_margin);
}

}  // namespace kapla::search::kapla
