// Lower bounds of the array-bus (ITCN), stored-GBUF and NoC energy and of the processing time
// that the one cost model charges every valid schedule of a layer problem, refetches included:
// the part of a layer's price that layer_cost_bound (cost_bound.hpp) counts only once per
// word. Per partition of B's list and per nest of the map strategy, the fetch counts into
// REGF are at least the loop trips above a REGF tile that fits the REGF; the energy floor is
// the least over the partitions, nests and tiles, with the partition's least NoC hops: those
// that no layout changes (filter and ifmap copies, partial sums) and the first reads of its
// ifmap and ofmap ranges from the nearest place the data may lie (DataPlaces); the time floor
// is the least processing time over the same nests. It also says whether any of them can keep
// a node's filter slice on chip across the top-level BAT loop (filters_may_stay), and the least
// room a node's ifmaps take in GBUF and REGF (least_ifmap_gbuf, least_ifmap_regf).
// The nests depend on the layer, the batch, the processing region's shape, the PE array, the
// REGF and GBUF sizes, the unit costs and the options (the cache key, refetch_bound_key); the
// floor on those, the constraint's top factors and the data places. Spec: nn_dataflow-spec.md
// §6.4, §7.2-7.5, §8.6-8.8 and docs/kapla_inter_layer.md §6.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/scoped_keys.hpp"
#include "cost/nested_loop_desc.hpp"
#include "pricing/layer_problem.hpp"

namespace kapla::pricing {

struct RefetchFloor {
  /// <= ITCN energy + the GBUF energy of the categories that may not bypass GBUF + NoC energy.
  double energy = 0;
  /// <= processing time (unit_time x Π loopcnt, whatever the blocking, §7.5), so <= time.
  double time = 0;
  /// False when no partition and nest can keep a node's whole filter slice on chip across
  /// the top-level BAT loop (in GBUF, shared at best over its sharing group, or in REGF): a
  /// constraint with topbat > 1 then fetches the filters topbat times (cost_bound.cpp).
  bool filters_may_stay = true;
  /// <= the GBUF words a node's ifmaps take with every top-level factor at 1, over the
  /// largest sharing group, and their REGF words with every factor but the REGF level's at 1
  /// (0: no claim): a constraint with topofm > 1 refetches the ifmaps topofm times unless a
  /// BAT block of them stays in GBUF or REGF (cost_bound.cpp).
  double least_ifmap_gbuf = 0;
  double least_ifmap_regf = 0;
};

/// Where a layer's data may lie, as the NoC floor reads it: the hops from each node of `proc`
/// to the nearest node of `places`, ascending, summed: element G is the least total over any
/// G distinct nodes of the region (element 0 is 0). Empty if `places` has no node.
std::vector<std::int64_t> nearest_source_hops(const mapping::NodeRegion& proc,
                                              const std::vector<mapping::NodeRegion>& places);

/// The NoC floor's first reads: nearest_source_hops to where the ifmap pieces may lie (empty:
/// not known, no such term) and to the region the ofmaps are stored to.
struct DataPlaces {
  std::vector<std::int64_t> ifmap_hops;
  std::vector<std::int64_t> ofmap_hops;
  friend auto operator<=>(const DataPlaces&, const DataPlaces&) = default;
};

/// The data places of a layer on `proc` whose ifmap pieces lie in `ifmap_regions` (empty: not
/// known) and whose ofmaps go to `dst`.
DataPlaces data_places(const mapping::NodeRegion& proc,
                       const std::vector<mapping::NodeRegion>& ifmap_regions,
                       const mapping::NodeRegion& dst);
/// `p`'s data places: its ifmap layout's regions, if it has one, and its dst_data_region.
DataPlaces data_places(const LayerProblem& p);

/// The floors of every valid schedule of `p` under its constraint (0 where they do not apply:
/// back-propagation kinds, imperfect factorisation), at data_places(p).
RefetchFloor refetch_bound(const LayerProblem& p);

/// problem_key of `p` without what refetch_bound reads only through the constraint and the data
/// places, and without what it does not read (the regions' kinds): problems with equal keys,
/// constraints and data_places have equal refetch bounds.
std::string refetch_bound_key(const LayerProblem& p);

namespace detail {
struct FloorNests;  // the partitions' nests, collected once per key
/// Whether the REGF tile with REGF-level factors `t2` may fit `size_regf` words (a hair more
/// room than the cost model's check, which sums the same products in another order).
bool may_fit_regf(const cost::NestedLoopDesc& n, const PerLoopDim<std::int64_t>& t2,
                  double size_regf);
/// ITCN + stored-GBUF energy of nest `n` on `nodes` nodes at the fetch[1] counts `fetch`
/// (before the read-modify-write category's 2f - 1).
double nest_energy_at(const cost::NestedLoopDesc& n, const PerDataCategory<double>& fetch,
                      double nodes, const model::UnitCosts& c, const PerDataCategory<bool>& stored);
/// The least ITCN + stored-GBUF energy of nest `n` on `nodes` nodes over every REGF tile
/// within loopcnt / `top` that fits `size_regf`, each category's fetches at least `forced`'s
/// (refetch_bound.cpp says how the fetches follow the tile); the smallest tile must fit.
/// The three are exposed for the test that checks the last against every tile.
double least_nest_energy(const cost::NestedLoopDesc& n, double size_regf, double nodes,
                         const model::UnitCosts& c, const PerDataCategory<bool>& stored,
                         const PerLoopDim<std::int64_t>& top,
                         const PerDataCategory<double>& forced);
}  // namespace detail

/// refetch_bound with the partitions' nests remembered by refetch_bound_key (collecting them
/// costs the map strategy on every partition size; the network search asks for the same layer
/// on the same region shape under many constraints and placements), the constraint applied
/// on each call. Not thread-safe.
class RefetchBounds {
 public:
  RefetchBounds();
  ~RefetchBounds();
  RefetchFloor operator()(const LayerProblem& p);
  /// `p`'s nests, collected on first use; the handle lives as long as this memo.
  detail::FloorNests* nests(const LayerProblem& p);
  /// Data places kept once, by a handle that the floors are remembered by (two places' hops
  /// are a few hundred numbers; a pair bound asks for a floor many times).
  struct Places {
    std::size_t id = 0;
    const DataPlaces* places = nullptr;
  };
  Places places(const DataPlaces& d);
  /// The handle of the places of a layer on `proc` whose ifmap pieces lie in `ifmap_regions`
  /// (empty: not known) and whose ofmaps go to `dst`, their hops found once per distinct
  /// regions.
  Places places(const mapping::NodeRegion& proc,
                const std::vector<mapping::NodeRegion>& ifmap_regions,
                const mapping::NodeRegion& dst);
  /// refetch_bound(p) from the nests of `p`'s key (a handle kept from a problem with the same
  /// refetch_bound_key) at `places` (a handle of this memo), remembered per constraint and
  /// places. `reads` false leaves out the partitions' ofmap reads (their hops cost
  /// microseconds per partition; refetch_bound has them): a floor no higher, for ordering many
  /// pairs before the few that pass are bounded with them.
  RefetchFloor floor(detail::FloorNests* nests, const LayerProblem& p, Places places,
                     bool reads = true);
  /// Drops the nests (and their floors) of the problems whose layer_scope is `scope`, once no
  /// later bound asks for that layer shape; the handles given out for them go with them.
  void release(const std::string& scope);
  /// The problem keys whose nests are held.
  std::size_t held() const { return known_.size(); }

 private:
  std::unordered_map<std::string, std::unique_ptr<detail::FloorNests>> known_;
  ScopedKeys scoped_;  // of known_
  std::map<DataPlaces, std::size_t> places_;
  std::map<std::vector<std::int64_t>, Places> by_regions_;
};

}  // namespace kapla::pricing
