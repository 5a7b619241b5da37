// Where a (batched) fmap lives (nn_dataflow FmapRange, DataLayout): channel-contiguous pieces,
// each stored on a node region split by a partition scheme. Spec: nn_dataflow-spec.md §8.5.
// Functions over layouts (hop counts, concatenation) are in mapping/data_layout_ops.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "mapping/node_region.hpp"
#include "mapping/partition_scheme.hpp"

namespace kapla::mapping {

/// A 4D half-open range over (batch, channel, height, width).
struct FmapRange {
  std::array<std::int64_t, 4> beg{};
  std::array<std::int64_t, 4> end{};

  std::int64_t size() const {
    std::int64_t s = 1;
    for (int i = 0; i < 4; ++i) s *= (end[i] > beg[i] ? end[i] - beg[i] : 0);
    return s;
  }
  friend bool operator==(const FmapRange&, const FmapRange&) = default;
  friend auto operator<=>(const FmapRange&, const FmapRange&) = default;
};

struct DataLayout {
  std::vector<FmapRange> frngs;
  std::vector<NodeRegion> regions;
  std::vector<PartitionScheme> parts;
  friend bool operator==(const DataLayout&, const DataLayout&) = default;
};

}  // namespace kapla::mapping
