// The node partition of an emitted layer (issue 21): every node's piece of the layer the
// program computes, from the model's per-node data ranges (mapping::proc_data_range), and the
// node whose piece is the ceil piece the model prices every node as (mapping::part_layer).
#pragma once

#include <cstdint>
#include <vector>

#include "mapping/data_range.hpp"
#include "mapping/part_layer.hpp"
#include "mapping/partition_scheme.hpp"
#include "model/layer.hpp"

namespace kapla::emit {

/// One node's piece of the program's layer (the forward layer part_layer prices, over the
/// whole layer): samples n, input channels c, output channels m, ofmap rows h and columns w.
/// A channel-wise kind (depthwise, local regions) has c == m.
struct NodePiece {
  mapping::IntRange n, c, m, h, w;
  /// A node with nothing to compute (more nodes than samples, channels or rows): it idles.
  bool empty() const { return n.empty() || c.empty() || m.empty() || h.empty() || w.empty(); }
};

struct NodePieces {
  /// The layer the program computes, whole: part_layer over one node (a back kind is the
  /// forward layer over its gradient input, channels swapped; FC a Conv; Pooling and Eltwise a
  /// local region).
  model::Layer whole;
  /// One piece per node, in mapping::gen_pidx order.
  std::vector<NodePiece> nodes;
  /// A node whose piece is part_layer's ceil piece (`pl.p_layer`, `pl.p_batch`).
  std::size_t ceil_node = 0;
};

/// The pieces of `layer` (batch `batch`) over the nodes of `part`; `pl` is part_layer's per-node
/// layer. Forward kinds take proc_data_range's ranges: the ofmap range (samples, output
/// channels, rows, columns) and the filter's input-channel range (INPP). A back kind computes
/// the forward layer over its gradient input: its OUTP range (of its output channels) is that
/// layer's input channels and its INPP range its output channels, and its rows and columns are
/// the partition's even split of the gradient input (fmap_range), as part_layer splits it.
/// Throws InternalError when no node holds the ceil piece or a piece exceeds it.
NodePieces node_pieces(const model::Layer& layer, std::int64_t batch,
                       const mapping::PartitionScheme& part, const mapping::PartLayer& pl);

}  // namespace kapla::emit
