// Symbolic scheduling constraints of a pipeline segment (nn_dataflow
// PipelineSegment._init_sym_cstrs and gen_constraint). Internal to the schedule module.
// Spec: nn_dataflow-spec.md §9.6.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mapping/resource.hpp"
#include "model/network.hpp"
#include "schedule/constraint_expr.hpp"
#include "schedule/pipeline_segment.hpp"

namespace kapla::schedule::detail {

/// Dependencies of each layer of a segment (nn_dataflow _init_deps).
struct SegmentDeps {
  struct Src {
    bool memory = false;
    std::optional<SegIndex> neighbour;
  };
  struct Dst {
    bool memory = false;
    std::vector<SegIndex> neighbours;
  };
  std::vector<std::vector<Src>> src;
  std::vector<std::vector<Dst>> dst;
  /// Shared memory sources: lists of layers with the exact same prevs; the first fetches.
  std::vector<std::vector<SegIndex>> ifm_fwd;
  /// Layers writing to memory and to on-chip consumers: (producer, consumers).
  std::vector<std::pair<SegIndex, std::vector<SegIndex>>> ofm_fwd;
};

/// Argument names of a layer constraint.
enum class Arg : std::uint8_t { Topbat, Topifm, Topofm, Fbifm, Fbofm };

struct SymbolicConstraints {
  std::vector<std::string> names;                   // symbol id -> name
  std::map<int, std::vector<std::int64_t>> values;  // remaining symbols -> candidates (bools 0/1)
  std::vector<int> bool_syms;                       // symbols whose values are booleans
  /// Per [sp][tm]: argument -> value.
  std::vector<std::vector<std::map<Arg, ExprPtr>>> args;
  std::vector<std::vector<std::optional<std::size_t>>> update_from;
  std::int64_t num_sp_fbs = 0;
};

/// Builds the constraints; nullopt if no fbofm_init value fits the buffers (segment invalid).
/// nn_dataflow's ConvLayer as its pipeline rules see it (a layer with its own output channels):
/// Conv, FC and MatMul, whose B plays the filter (docs/transformers.md §2). The KAPLA fork
/// treats depthwise and back layers as local layers here (kapla-spec §4.1).
bool pipelines_as_conv(const model::Layer& l);

std::optional<SymbolicConstraints> build_symbolic_constraints(
    const std::vector<std::vector<std::size_t>>& layers, const SegmentDeps& deps,
    const model::Network& net, std::int64_t batch,
    const std::vector<std::vector<mapping::Resource>>& alloc, bool with_opt);

std::vector<SegmentConstraint> enumerate_constraints(const SymbolicConstraints& sc,
                                                     double max_time_overhead);

}  // namespace kapla::schedule::detail
