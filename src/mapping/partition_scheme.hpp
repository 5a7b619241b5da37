// How a layer is split over the nodes of a region (nn_dataflow PartitionScheme): a factor
// (h, w) per parallelism kind and their nesting order. Spec: nn_dataflow-spec.md §8.1.
// Geometry functions over it (coordinates, fmap ranges, projection, neighbour distances) are
// in mapping/partition.hpp.
#pragma once

#include <array>
#include <cstdint>

#include "core/enum_array.hpp"
#include "core/phy_dim2.hpp"

namespace kapla::mapping {

struct PartitionScheme {
  /// Parallelism kinds from the top (coarsest) to the bottom level of the node grid.
  std::array<ParallelDim, 4> order{ParallelDim::Outp, ParallelDim::Ofmp, ParallelDim::Batp,
                                   ParallelDim::Inpp};
  /// Partition factor (h, w) of each kind.
  PerParallelDim<PhyDim2> pdims{{PhyDim2{1, 1}, PhyDim2{1, 1}, PhyDim2{1, 1}, PhyDim2{1, 1}}};

  /// Elementwise product of all factors: the node-region dims the scheme covers.
  PhyDim2 dim() const {
    PhyDim2 d{1, 1};
    for (const auto& p : pdims) d = d * p;
    return d;
  }
  std::int64_t size() const { return dim().size(); }
  std::int64_t size(ParallelDim pae) const { return pdims[pae].size(); }
  /// The scheme as 12 words (the order, then each kind's h and w in enum order), for sets
  /// and hash maps of schemes.
  std::array<std::int64_t, 12> flat_key() const {
    std::array<std::int64_t, 12> k{};
    std::size_t i = 0;
    for (auto p : order) k[i++] = static_cast<std::int64_t>(p);
    for (const auto& d : pdims) k[i++] = d.h, k[i++] = d.w;
    return k;
  }

  friend bool operator==(const PartitionScheme&, const PartitionScheme&) = default;
};

}  // namespace kapla::mapping
