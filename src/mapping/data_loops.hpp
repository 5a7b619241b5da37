// Which loops each data category depends on (nn_dataflow DataDimLoops, Layer.data_loops()).
// Spec: nn_dataflow-spec.md §1.1; kapla fork: depthwise filters depend on the OFM loop only.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "core/enum_array.hpp"
#include "model/layer.hpp"

namespace kapla::mapping {

/// A set of loops, iterated in ascending LoopDim order (the reference's sorted tuple).
class LoopSet {
 public:
  constexpr LoopSet() = default;
  constexpr LoopSet(std::initializer_list<LoopDim> loops) {
    for (auto l : loops) bits_ |= bit(l);
  }
  constexpr bool contains(LoopDim l) const { return (bits_ & bit(l)) != 0; }
  constexpr int size() const {
    return ((bits_ >> 0) & 1) + ((bits_ >> 1) & 1) + ((bits_ >> 2) & 1);
  }
  constexpr bool empty() const { return bits_ == 0; }
  /// The loops not in the set (the reference's drop()), as a set.
  constexpr LoopSet complement() const {
    LoopSet s;
    s.bits_ = static_cast<std::uint8_t>(~bits_ & 0x7);
    return s;
  }
  friend constexpr bool operator==(LoopSet, LoopSet) = default;

 private:
  static constexpr std::uint8_t bit(LoopDim l) {
    return static_cast<std::uint8_t>(1u << static_cast<unsigned>(l));
  }
  std::uint8_t bits_ = 0;
};

/// Data loops of a layer kind: Conv/FC and their back kinds: FIL (IFM, OFM), IFM (IFM, BAT),
/// OFM (OFM, BAT); depthwise kinds: FIL (OFM), IFM/OFM (OFM, BAT); local-region kinds:
/// FIL (), IFM/OFM (OFM, BAT); MatMul: FIL (IFM, OFM, BAT), IFM (IFM, BAT), OFM (OFM, BAT);
/// Softmax, LayerNorm and GELU are local-region kinds.
PerDataCategory<LoopSet> data_loops(const model::Layer& layer);

/// Data loops of an input layer: FIL (), IFM (), OFM (OFM, BAT).
PerDataCategory<LoopSet> input_layer_data_loops();

}  // namespace kapla::mapping
