// The data each processing node works on (nn_dataflow partition.proc_data_range), with the
// KAPLA fork's back-layer variants. Uses floor-based even splits of the unpartitioned layer
// (unlike part_layer's ceil splits, spec §11.1). Spec: nn_dataflow-spec.md §8.4, §12.4.
#pragma once

#include <cstdint>
#include <utility>

#include "mapping/data_layout.hpp"
#include "mapping/partition.hpp"
#include "mapping/partition_scheme.hpp"
#include "model/layer.hpp"

namespace kapla::mapping {

/// A half-open integer range [beg, end).
struct IntRange {
  std::int64_t beg = 0;
  std::int64_t end = 0;
  std::int64_t size() const { return end > beg ? end - beg : 0; }
  bool empty() const { return end <= beg; }
  friend bool operator==(const IntRange&, const IntRange&) = default;
  friend auto operator<=>(const IntRange&, const IntRange&) = default;
};

/// Filter range: (input-channel range, output-channel range); both empty for layers
/// without filters; depthwise kinds use input range [0, 1).
struct FilterRange {
  IntRange ifm;
  IntRange ofm;
  friend bool operator==(const FilterRange&, const FilterRange&) = default;
  friend auto operator<=>(const FilterRange&, const FilterRange&) = default;
};

struct ProcDataRange {
  FilterRange fil;
  FmapRange ifm;
  FmapRange ofm;
};

/// Ranges of node `pidx` for `layer` with batch `batch` split by `part`. Throws
/// InternalError if the derived ifmap range exceeds the layer's ifmap.
ProcDataRange proc_data_range(const model::Layer& layer, std::int64_t batch,
                              const PartitionScheme& part, const PartIndex& pidx);

/// The fork's util.reverse_low / reverse_high: the first / last gradient-input position a
/// back layer's output position maps to (window `fil`, stride `strd`, extent `length`).
std::int64_t reverse_low(std::int64_t pos, std::int64_t length, std::int64_t fil,
                         std::int64_t strd);
std::int64_t reverse_high(std::int64_t pos, std::int64_t length, std::int64_t fil,
                          std::int64_t strd);

}  // namespace kapla::mapping
