// Unit NoC hops between memory and the processing region. Spec: nn_dataflow-spec.md §8.6.
#include "mapping/noc_hops.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "core/math.hpp"
#include "mapping/data_layout_ops.hpp"
#include "mapping/data_range.hpp"
#include "mapping/partition.hpp"

namespace kapla::mapping {
namespace {

using FilKey = std::pair<FilterRange, std::pair<std::int64_t, std::int64_t>>;

std::uint64_t mix(std::uint64_t h, std::int64_t v) {
  return (h ^ static_cast<std::uint64_t>(v)) * 0x100000001b3ULL;  // FNV-1a over words
}
std::uint64_t key_hash(const FmapRange& r) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (int i = 0; i < 4; ++i) h = mix(mix(h, r.beg[i]), r.end[i]);
  return h ^ (h >> 29);
}
std::uint64_t key_hash(const FilKey& k) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::int64_t v : {k.first.ifm.beg, k.first.ifm.end, k.first.ofm.beg, k.first.ofm.end,
                         k.second.first, k.second.second})
    h = mix(h, v);
  return h ^ (h >> 29);
}

/// for_each_group's buffers, reused by the three categories.
struct GroupScratch {
  std::vector<std::uint32_t> table;  // open addressing: group + 1, 0 = empty
  std::vector<std::uint32_t> group_of;
  std::vector<std::uint32_t> first_member;  // per group
  std::vector<std::uint32_t> offsets;       // per group, then the members by group
  std::vector<std::uint32_t> order;
};

/// Calls visit(key) once per distinct key of `members` (in order of first appearance), with
/// `coords` holding that key's nodes in their order in `members`. Groups by hashing, in time
/// linear in the members (K places thousands of partitions of up to 256 nodes).
template <class Key, class Visit>
void for_each_group(const std::vector<std::pair<Key, PhyDim2>>& members, GroupScratch& g,
                    std::vector<PhyDim2>& coords, Visit visit) {
  const std::size_t n = members.size();
  std::size_t cap = 16;
  while (cap < 2 * n) cap *= 2;
  g.table.assign(cap, 0);
  g.group_of.resize(n);
  g.first_member.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const Key& key = members[i].first;
    std::size_t slot = key_hash(key) & (cap - 1);
    while (g.table[slot] != 0 && !(members[g.first_member[g.table[slot] - 1]].first == key))
      slot = (slot + 1) & (cap - 1);
    if (g.table[slot] == 0) {
      g.first_member.push_back(static_cast<std::uint32_t>(i));
      g.table[slot] = static_cast<std::uint32_t>(g.first_member.size());
    }
    g.group_of[i] = g.table[slot] - 1;
  }
  // Counting sort by group, stable: each group's members keep their order.
  const std::size_t groups = g.first_member.size();
  g.offsets.assign(groups + 1, 0);
  for (std::size_t i = 0; i < n; ++i) ++g.offsets[g.group_of[i] + 1];
  for (std::size_t k = 0; k < groups; ++k) g.offsets[k + 1] += g.offsets[k];
  g.order.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    g.order[g.offsets[g.group_of[i]]++] = static_cast<std::uint32_t>(i);
  for (std::size_t k = 0, at = 0; k < groups; ++k) {
    coords.clear();
    for (; at < n && g.group_of[g.order[at]] == k; ++at)
      coords.push_back(members[g.order[at]].second);
    visit(members[g.first_member[k]].first);
  }
}

}  // namespace

std::vector<PhyDim2> filter_nodes(const NodeRegion& dram_region) {
  std::vector<PhyDim2> out = dram_region.nodes();
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

PlacementSources placement_sources(const NodeRegion& dram_region, const DataLayout& ifmap_layout) {
  return PlacementSources{filter_nodes(dram_region), layout_pieces(ifmap_layout)};
}

PerDataCategory<double> unit_nhops_to_proc_region(const model::Layer& layer, std::int64_t batch,
                                                  const NodeRegion& proc_region,
                                                  const PartitionScheme& part,
                                                  const std::vector<PhyDim2>& filter_nodes,
                                                  const DataLayout& ifmap_layout,
                                                  const DataLayout& ofmap_layout,
                                                  const model::SearchOptions& options) {
  return unit_nhops_to_proc_region(layer, batch, proc_region, part,
                                   PlacementSources{filter_nodes, layout_pieces(ifmap_layout)},
                                   ofmap_layout, options);
}

PartitionHops partition_hops(const model::Layer& layer, std::int64_t batch,
                             const NodeRegion& proc_region, const PartitionScheme& part,
                             const std::vector<PhyDim2>& filter_nodes,
                             const DataLayout& ofmap_layout, const model::SearchOptions& options) {
  // Data range -> the nodes processing it, each group in gen_pidx order. The group order does
  // not matter (integer sums); the order within a group does (the OFM middle node). Flat
  // vectors grouped by hashing, not maps of vectors: K prices thousands of placements.
  // A MatMul's filter (its B operand) differs per sample: its groups are per batch range too.
  std::vector<std::pair<FilKey, PhyDim2>> fil_members;
  std::vector<std::pair<FmapRange, PhyDim2>> ifm_members;
  std::vector<std::pair<FmapRange, PhyDim2>> ofm_members;
  const std::vector<PartIndex> pidxs = gen_pidx(part);
  fil_members.reserve(pidxs.size());
  ifm_members.reserve(pidxs.size());
  ofm_members.reserve(pidxs.size());
  for (const PartIndex& pidx : pidxs) {
    const PhyDim2 coord = coordinate(part, proc_region, pidx);
    const ProcDataRange r = proc_data_range(layer, batch, part, pidx);
    if (r.ifm.size() > 0 && r.ofm.size() > 0) {
      ifm_members.emplace_back(r.ifm, coord);
      ofm_members.emplace_back(r.ofm, coord);
      const auto bat = layer.is_matmul() ? std::pair{r.ifm.beg[0], r.ifm.end[0]}
                                         : std::pair<std::int64_t, std::int64_t>{0, 1};
      if (!r.fil.ifm.empty() && !r.fil.ofm.empty())
        fil_members.emplace_back(FilKey{r.fil, bat}, coord);
    }
  }

  // Forwarding: each datum fetched once by the closest node, then forwarded (§8.8).
  PartitionHops out;
  const bool fwd = options.hw_access_forwarding || options.hw_gbuf_sharing;
  out.forwarding = fwd;

  GroupScratch groups;
  std::vector<PhyDim2> coords;  // one group's nodes
  HopScratch scratch;
  for_each_group(fil_members, groups, coords, [&](const FilKey& key) {
    const auto& [frng, bat] = key;
    const std::int64_t fil_size =
        frng.ifm.size() * frng.ofm.size() * layer.filter_size() * (bat.second - bat.first);
    if (fwd) {
      out.fil += fil_size * mst_weight(filter_nodes, coords, scratch);
    } else {
      std::int64_t s = 0;
      for (const PhyDim2& c : coords) {
        std::int64_t m = std::numeric_limits<std::int64_t>::max();
        for (const PhyDim2& f : filter_nodes) m = std::min(m, c.hop_dist(f));
        s += m;
      }
      out.fil += fil_size * s;
    }
  });

  out.ifm_nodes.reserve(ifm_members.size());
  for_each_group(ifm_members, groups, coords, [&](const FmapRange& frng) {
    out.ifm_groups.push_back(
        {frng, out.ifm_nodes.size(), coords.size(), fwd ? tree_weight(coords, scratch) : 0});
    out.ifm_nodes.insert(out.ifm_nodes.end(), coords.begin(), coords.end());
  });

  // Stored locally exactly as produced: no transfer (§11.22).
  const bool local = ofmap_layout.parts.size() == 1 && ofmap_layout.parts[0] == part &&
                     ofmap_layout.regions.size() == 1 && ofmap_layout.regions[0] == proc_region;
  if (!local) {
    const LayoutPieces ofm_pieces = layout_pieces(ofmap_layout);
    OverlapMemo memo;  // of ofm_pieces
    std::vector<std::int64_t> per_dest;
    std::vector<PhyDim2> mid;
    for_each_group(ofm_members, groups, coords, [&](const FmapRange& frng) {
      if (fwd) {
        // Read by the closest node; accumulation follows the reversed forwarding tree; the
        // memory path is in both, and accumulation is one way.
        nhops_per_dest(ofm_pieces, frng, coords, per_dest, scratch, &memo);
        const std::int64_t read = *std::min_element(per_dest.begin(), per_dest.end());
        const std::int64_t accum =
            nhops_forwarded(ofm_pieces, frng, coords, per_dest, tree_weight(coords, scratch));
        out.ofm += ceil_div(read + accum, 2);
      } else {
        // The middle node fetches; INPP peers send partial sums to it one way (§11.8).
        const std::size_t middle = coords.size() / 2;
        for (std::size_t i = 0; i < coords.size(); ++i) {
          if (i == middle) {
            mid.assign(1, coords[middle]);
            out.ofm += nhops_to(ofm_pieces, frng, mid, false, scratch);
          } else {
            out.ofm += ceil_div(frng.size() * coords[i].hop_dist(coords[middle]), 2);
          }
        }
      }
    });
  }
  return out;
}

std::int64_t ifmap_nhops(const PartitionHops& hops, const LayoutPieces& ifmap_pieces,
                         HopScratch& scratch) {
  std::int64_t nh = 0;
  std::vector<std::int64_t>& per_dest = scratch.per_dest;
  OverlapMemo memo;  // of ifmap_pieces
  for (const auto& g : hops.ifm_groups) {
    const auto nodes = std::span<const PhyDim2>(hops.ifm_nodes).subspan(g.first, g.count);
    nhops_per_dest(ifmap_pieces, g.range, nodes, per_dest, scratch, &memo);
    if (hops.forwarding) {
      nh += nhops_forwarded(ifmap_pieces, g.range, nodes, per_dest, g.tree);
    } else {
      for (auto v : per_dest) nh += v;
    }
  }
  return nh;
}

PerDataCategory<double> unit_nhops(const PartitionHops& hops, const LayoutPieces& ifmap_pieces) {
  HopScratch scratch;
  PerDataCategory<double> out;
  out[DataCategory::Fil] = static_cast<double>(hops.fil);
  out[DataCategory::Ifm] = static_cast<double>(ifmap_nhops(hops, ifmap_pieces, scratch));
  out[DataCategory::Ofm] = static_cast<double>(hops.ofm);
  return out;
}

PerDataCategory<double> unit_nhops_to_proc_region(const model::Layer& layer, std::int64_t batch,
                                                  const NodeRegion& proc_region,
                                                  const PartitionScheme& part,
                                                  const PlacementSources& sources,
                                                  const DataLayout& ofmap_layout,
                                                  const model::SearchOptions& options) {
  return unit_nhops(
      partition_hops(layer, batch, proc_region, part, sources.filter_nodes, ofmap_layout, options),
      sources.ifmap_pieces);
}

}  // namespace kapla::mapping
