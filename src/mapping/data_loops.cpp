// Data loops per layer kind (nn_dataflow Layer.data_loops(), kapla fork's new kinds).
#include "mapping/data_loops.hpp"

namespace kapla::mapping {

PerDataCategory<LoopSet> data_loops(const model::Layer& layer) {
  PerDataCategory<LoopSet> d;
  d[DataCategory::Ifm] = {LoopDim::Ofm, LoopDim::Bat};
  d[DataCategory::Ofm] = {LoopDim::Ofm, LoopDim::Bat};
  if (layer.is_depthwise()) {
    d[DataCategory::Fil] = {LoopDim::Ofm};
  } else if (layer.has_filter()) {
    d[DataCategory::Fil] = {LoopDim::Ifm, LoopDim::Ofm};
    d[DataCategory::Ifm] = {LoopDim::Ifm, LoopDim::Bat};
    // MatMul: the weight role is an activation, one per sample (docs/transformers.md §2).
    if (layer.is_matmul()) d[DataCategory::Fil] = {LoopDim::Ifm, LoopDim::Ofm, LoopDim::Bat};
  }
  return d;
}

PerDataCategory<LoopSet> input_layer_data_loops() {
  PerDataCategory<LoopSet> d;
  d[DataCategory::Ofm] = {LoopDim::Ofm, LoopDim::Bat};
  return d;
}

}  // namespace kapla::mapping
