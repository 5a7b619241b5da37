// A rectangular (possibly zig-zag folded) set of nodes on the chip grid: processing nodes or
// memory (DRAM) nodes (nn_dataflow NodeRegion). Spec: nn_dataflow-spec.md §2.2.
#pragma once

#include <cstdint>
#include <vector>

#include "core/phy_dim2.hpp"

namespace kapla::mapping {

enum class RegionType : std::uint8_t { Proc = 0, Dram = 1 };

struct NodeRegion {
  PhyDim2 dim;         // node counts (h, w)
  PhyDim2 origin;      // absolute coordinate of relative (0, 0)
  PhyDim2 dist{1, 1};  // absolute step between neighbouring nodes
  RegionType type = RegionType::Proc;
  std::int64_t wtot = 0;  // folding: stripe width; 0 = dim.w (unfolded)
  std::int64_t wbeg = 0;  // folding: width of the first stripe (sign = direction); 0 = wtot

  /// An unfolded rectangle.
  static NodeRegion rectangle(PhyDim2 dim, PhyDim2 origin, RegionType type, PhyDim2 dist = {1, 1});

  /// Absolute coordinate of a relative one (nn_dataflow rel2abs, including folding).
  PhyDim2 rel2abs(PhyDim2 rel) const;
  /// Absolute coordinates of all nodes, relative h outer, w inner (nn_dataflow iter_node).
  std::vector<PhyDim2> nodes() const;
  bool contains_node(PhyDim2 abs) const;
  /// Splits the region into zig-zag stripes of the requested node counts (nn_dataflow
  /// NodeRegion.allocate, for inter-layer pipelining); empty when they do not fit.
  std::vector<NodeRegion> allocate(const std::vector<std::int64_t>& requests) const;

  /// The fewest hops between a node of this region and a node of `other` (0 when they share
  /// one), from the regions' bands of rows without listing their nodes.
  std::int64_t min_hops_to(const NodeRegion& other) const;

  std::int64_t effective_wtot() const { return wtot == 0 ? dim.w : wtot; }
  std::int64_t effective_wbeg() const { return wbeg == 0 ? effective_wtot() : wbeg; }

  friend bool operator==(const NodeRegion& a, const NodeRegion& b) {
    return a.dim == b.dim && a.origin == b.origin && a.dist == b.dist && a.type == b.type &&
           a.effective_wtot() == b.effective_wtot() && a.effective_wbeg() == b.effective_wbeg();
  }
};

}  // namespace kapla::mapping
