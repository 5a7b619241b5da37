// The scheduling DAG of a network (nn_dataflow InterLayerPipeline._calc_sched_dag): filter layers
// start vertices, local-region layers merge into the vertex of their producer, and vertices are
// put in a depth-first topological order, which is the layer scheduling order of the network
// search. kapla's one addition: where a MatMul's A may stay on chip, its B's producer counts as
// listed right after its own inputs, so the B does not split A's segment (sched_dag.cpp,
// docs/transformers.md §5.4; networks without MatMuls are unaffected). Spec:
// nn_dataflow-spec.md §9.4, §12.8; kapla-spec.md §4.1.
#pragma once

#include <cstddef>
#include <vector>

#include "model/network.hpp"

namespace kapla::schedule {

/// The vertex index standing for the network input and all external inputs.
inline constexpr int kInputVertex = -1;

struct SchedDag {
  /// Vertices in scheduling (topological) order; each lists layer indices, the filter layer
  /// (if any) first, then the merged local-region layers.
  std::vector<std::vector<std::size_t>> vertices;
  /// Vertex index of every layer.
  std::vector<int> vertex_of;
  /// Per vertex: indices of the vertices it reads from / feeds, ascending, without itself;
  /// kInputVertex for the network input and external inputs (prevs only).
  std::vector<std::vector<int>> prevs;
  std::vector<std::vector<int>> nexts;

  std::size_t size() const { return vertices.size(); }
  /// All layers, vertex after vertex (nn_dataflow ordered_layer_list()).
  std::vector<std::size_t> ordered_layers() const;
};

/// Whether a layer starts its own DAG vertex (nn_dataflow checks isinstance ConvLayer; the KAPLA
/// fork adds depthwise and back-propagation filter layers, §12.8): exactly the filter kinds.
bool starts_vertex(const model::Layer& layer);

SchedDag build_sched_dag(const model::Network& network);

}  // namespace kapla::schedule
