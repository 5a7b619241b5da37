// The per-node layer of a partitioned layer (nn_dataflow PartitionScheme.part_layer), with
// the KAPLA fork's back/depthwise variants. Spec: nn_dataflow-spec.md §8.3, §11.1, §12.4;
// kapla-spec.md §1.6.
#pragma once

#include <cstdint>

#include "mapping/partition_scheme.hpp"
#include "model/layer.hpp"

namespace kapla::mapping {

struct PartLayer {
  /// The largest (ceil-split) piece each node computes. Back kinds become the equivalent
  /// forward kind (Conv / LocalRegion / DWConv) with input and output swapped, keeping
  /// rw_data; FC becomes Conv; Pooling/Eltwise become LocalRegion with ntrd = 1.
  model::Layer p_layer;
  std::int64_t p_batch = 0;
  /// layer.total_ops(batch) / (p_layer.total_ops(p_batch) * part.size()).
  double p_occupancy = 1.0;
};

/// Throws InputError if the scheme partitions input channels (INPP) of a layer that has no
/// input-channel loop (local-region, depthwise and their back kinds).
PartLayer part_layer(const model::Layer& layer, std::int64_t batch, const PartitionScheme& part);

}  // namespace kapla::mapping
