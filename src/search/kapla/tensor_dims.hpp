// KAPLA's tensor dimensions and the constexpr tables over them (kapla-spec.md §1.1, §2.3):
// which dims make up each data tensor, which dims each nested loop iterates, and the layer
// kinds as the directive layer sees them. Convention (fixes reference quirk §10.11): X is the
// fmap width and Y the height everywhere; R is the filter width, S the filter height.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "core/enum_array.hpp"
#include "model/hardware.hpp"
#include "model/layer.hpp"

namespace kapla::search::kapla {

/// The tensor dimensions of both templates (row stationary uses N..S, systolic N, C, K, XY, F).
enum class Dim : std::uint8_t { N, C, K, Xi, Yi, Xo, Yo, R, S, XY, F };
inline constexpr std::size_t kNumDims = 11;
inline constexpr std::array<std::string_view, kNumDims> kDimNames{"N",  "C", "K", "Xi", "Yi", "Xo",
                                                                  "Yo", "R", "S", "XY", "F"};
constexpr std::string_view dim_name(Dim d) { return kDimNames[static_cast<std::size_t>(d)]; }

/// A set of dims (bit set, iterated in Dim order).
class DimSet {
 public:
  constexpr DimSet() = default;
  constexpr DimSet(std::initializer_list<Dim> dims) {
    for (auto d : dims) bits_ |= bit(d);
  }
  constexpr bool contains(Dim d) const { return (bits_ & bit(d)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr DimSet operator|(DimSet o) const { return from_bits(bits_ | o.bits_); }
  constexpr DimSet operator&(DimSet o) const { return from_bits(bits_ & o.bits_); }
  friend constexpr bool operator==(DimSet, DimSet) = default;

 private:
  static constexpr std::uint16_t bit(Dim d) {
    return static_cast<std::uint16_t>(1u << static_cast<unsigned>(d));
  }
  static constexpr DimSet from_bits(unsigned b) {
    DimSet s;
    s.bits_ = static_cast<std::uint16_t>(b);
    return s;
  }
  std::uint16_t bits_ = 0;
};

/// An extent per dim (a tensor block, a workload, a histogram key).
struct DimExtents {
  std::array<std::int64_t, kNumDims> v{};
  constexpr std::int64_t& operator[](Dim d) { return v[static_cast<std::size_t>(d)]; }
  constexpr const std::int64_t& operator[](Dim d) const { return v[static_cast<std::size_t>(d)]; }
  friend constexpr bool operator==(const DimExtents&, const DimExtents&) = default;
};

/// The layer kinds of the directive layer (kapla-spec.md §1.1 "KAPLA layer type").
enum class KindClass : std::uint8_t {
  Conv,        // Conv, FC
  Local,       // LocalRegion, Pooling, Eltwise
  DwConv,      // depthwise conv
  ConvBackH,   // ConvBackAct, FCBackAct
  LocalBackH,  // LocalRegionBack, PoolingBack, EltwiseBack
  ConvBackW,   // ConvBackWeight, FCBackWeight
  DwConvH,     // DWConvBackAct
  DwConvW,     // DWConvBackWeight
};
inline constexpr std::size_t kNumKindClasses = 8;

KindClass kind_class(const model::Layer& layer);
/// LOCAL/DW-like kinds: IFM and OFM loops iterate the same channel dim.
constexpr bool is_channelwise_class(KindClass k) {
  return k == KindClass::Local || k == KindClass::DwConv || k == KindClass::LocalBackH ||
         k == KindClass::DwConvH || k == KindClass::DwConvW;
}

/// Tensor dims of each data category (kapla-spec.md §1.1 tensor table).
PerDataCategory<DimSet> tensor_dims(model::ArrayMapping m);
/// Dims iterated by each loop (LoopDim::Ifm, Ofm, Bat) for a layer kind (§1.1 loop table).
PerLoopDim<DimSet> loop_dims(model::ArrayMapping m, KindClass k);
/// The loop a dim belongs to, if any.
bool loop_of_dim(model::ArrayMapping m, KindClass k, Dim d, LoopDim& out);

}  // namespace kapla::search::kapla
