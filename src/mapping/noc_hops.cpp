// Unit NoC hops between memory and the processing region. Spec: nn_dataflow-spec.md §8.6.
#include "mapping/noc_hops.hpp"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "core/math.hpp"
#include "mapping/data_layout_ops.hpp"
#include "mapping/data_range.hpp"
#include "mapping/partition.hpp"

namespace kapla::mapping {
namespace {

/// Calls visit(key) once per distinct key of `members` in ascending key order, with `coords`
/// holding that key's nodes in their order in `members` (a stable sort keeps it).
template <class Key, class Visit>
void for_each_group(std::vector<std::pair<Key, PhyDim2>>& members, std::vector<PhyDim2>& coords,
                    Visit visit) {
  std::stable_sort(members.begin(), members.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < members.size();) {
    coords.clear();
    std::size_t j = i;
    for (; j < members.size() && members[j].first == members[i].first; ++j)
      coords.push_back(members[j].second);
    visit(members[i].first);
    i = j;
  }
}

}  // namespace

std::vector<PhyDim2> filter_nodes(const NodeRegion& dram_region) {
  std::vector<PhyDim2> out = dram_region.nodes();
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

PerDataCategory<double> unit_nhops_to_proc_region(const model::Layer& layer, std::int64_t batch,
                                                  const NodeRegion& proc_region,
                                                  const PartitionScheme& part,
                                                  const std::vector<PhyDim2>& filter_nodes,
                                                  const DataLayout& ifmap_layout,
                                                  const DataLayout& ofmap_layout,
                                                  const model::SearchOptions& options) {
  // Data range -> the nodes processing it, each group in gen_pidx order. The group order does
  // not matter (integer sums); the order within a group does (the OFM middle node). Flat
  // vectors stably sorted by range, not maps of vectors: K prices thousands of placements.
  // A MatMul's filter (its B operand) differs per sample: its groups are per batch range too.
  using FilKey = std::pair<FilterRange, std::pair<std::int64_t, std::int64_t>>;
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
  const bool fwd = options.hw_access_forwarding || options.hw_gbuf_sharing;
  std::int64_t nh_fil = 0;
  std::int64_t nh_ifm = 0;
  std::int64_t nh_ofm = 0;

  std::vector<PhyDim2> coords;  // one group's nodes, reused
  for_each_group(fil_members, coords, [&](const FilKey& key) {
    const auto& [frng, bat] = key;
    const std::int64_t fil_size =
        frng.ifm.size() * frng.ofm.size() * layer.filter_size() * (bat.second - bat.first);
    if (fwd) {
      nh_fil += fil_size * mst_weight(filter_nodes, coords);
    } else {
      std::int64_t s = 0;
      for (const PhyDim2& c : coords) {
        std::int64_t m = std::numeric_limits<std::int64_t>::max();
        for (const PhyDim2& f : filter_nodes) m = std::min(m, c.hop_dist(f));
        s += m;
      }
      nh_fil += fil_size * s;
    }
  });

  const LayoutPieces ifm_pieces = layout_pieces(ifmap_layout);
  for_each_group(ifm_members, coords,
                 [&](const FmapRange& frng) { nh_ifm += nhops_to(ifm_pieces, frng, coords, fwd); });

  // Stored locally exactly as produced: no transfer (§11.22).
  const bool local = ofmap_layout.parts.size() == 1 && ofmap_layout.parts[0] == part &&
                     ofmap_layout.regions.size() == 1 && ofmap_layout.regions[0] == proc_region;
  if (!local) {
    const LayoutPieces ofm_pieces = layout_pieces(ofmap_layout);
    for_each_group(ofm_members, coords, [&](const FmapRange& frng) {
      if (fwd) {
        // Read by the closest node; accumulation follows the reversed forwarding tree; the
        // memory path is in both, and accumulation is one way.
        const std::vector<std::int64_t> per_dest = nhops_per_dest(ofm_pieces, frng, coords);
        const std::int64_t read = *std::min_element(per_dest.begin(), per_dest.end());
        const std::int64_t accum = nhops_forwarded(ofm_pieces, frng, coords, per_dest);
        nh_ofm += ceil_div(read + accum, 2);
      } else {
        // The middle node fetches; INPP peers send partial sums to it one way (§11.8).
        const std::size_t mid = coords.size() / 2;
        for (std::size_t i = 0; i < coords.size(); ++i) {
          if (i == mid)
            nh_ofm += nhops_to(ofm_pieces, frng, {coords[mid]});
          else
            nh_ofm += ceil_div(frng.size() * coords[i].hop_dist(coords[mid]), 2);
        }
      }
    });
  }

  PerDataCategory<double> out;
  out[DataCategory::Fil] = static_cast<double>(nh_fil);
  out[DataCategory::Ifm] = static_cast<double>(nh_ifm);
  out[DataCategory::Ofm] = static_cast<double>(nh_ofm);
  return out;
}

}  // namespace kapla::mapping
