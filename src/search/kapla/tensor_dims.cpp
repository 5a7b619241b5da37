// Tables of kapla-spec.md §1.1 / §2.3. The only place that knows which dims belong to which
// tensor and loop; everything else asks these functions.
#include "search/kapla/tensor_dims.hpp"

namespace kapla::search::kapla {

KindClass kind_class(const model::Layer& layer) {
  using model::LayerType;
  switch (layer.type) {
    case LayerType::Conv:
    case LayerType::FC:
    case LayerType::MatMul:
      return KindClass::Conv;
    case LayerType::DWConv:
      return KindClass::DwConv;
    case LayerType::LocalRegion:
    case LayerType::Pooling:
    case LayerType::Eltwise:
    case LayerType::Softmax:
    case LayerType::LayerNorm:
    case LayerType::GELU:
      return KindClass::Local;
    case LayerType::ConvBackAct:
    case LayerType::FCBackAct:
      return KindClass::ConvBackH;
    case LayerType::ConvBackWeight:
    case LayerType::FCBackWeight:
      return KindClass::ConvBackW;
    case LayerType::LocalRegionBack:
    case LayerType::PoolingBack:
    case LayerType::EltwiseBack:
      return KindClass::LocalBackH;
    case LayerType::DWConvBackAct:
      return KindClass::DwConvH;
    case LayerType::DWConvBackWeight:
      return KindClass::DwConvW;
  }
  return KindClass::Conv;
}

namespace {

using D = Dim;
constexpr std::size_t kNumMappings = 2;

// [mapping] -> tensor dims of FIL, IFM, OFM.
constexpr std::array<PerDataCategory<DimSet>, kNumMappings> kTensorDims{{
    {{DimSet{D::C, D::K, D::R, D::S}, DimSet{D::N, D::C, D::Xi, D::Yi},
      DimSet{D::N, D::K, D::Xo, D::Yo}}},
    {{DimSet{D::C, D::F, D::K}, DimSet{D::N, D::C, D::F, D::XY}, DimSet{D::N, D::K, D::XY}}},
}};

// [mapping][kind class] -> dims of the IFM, OFM and BAT loops.
constexpr PerLoopDim<DimSet> kConvLoops{{DimSet{D::C}, DimSet{D::K}, DimSet{D::N, D::Yo, D::Xo}}};
constexpr PerLoopDim<DimSet> kLocalLoops{{DimSet{D::K}, DimSet{D::K}, DimSet{D::N, D::Yo, D::Xo}}};
constexpr PerLoopDim<DimSet> kConvBackLoops{
    {DimSet{D::C}, DimSet{D::K}, DimSet{D::N, D::Yi, D::Xi}}};
constexpr PerLoopDim<DimSet> kLocalBackLoops{
    {DimSet{D::C}, DimSet{D::C}, DimSet{D::N, D::Yi, D::Xi}}};
constexpr PerLoopDim<DimSet> kSysConvLoops{{DimSet{D::C}, DimSet{D::K}, DimSet{D::N, D::XY}}};
constexpr PerLoopDim<DimSet> kSysLocalLoops{{DimSet{D::K}, DimSet{D::K}, DimSet{D::N, D::XY}}};
// Kind order: Conv, Local, DwConv, ConvBackH, LocalBackH, ConvBackW, DwConvH, DwConvW.
// Systolic has no back-propagation kinds (reference: rejected); their rows are empty.
constexpr std::array<std::array<PerLoopDim<DimSet>, kNumKindClasses>, kNumMappings> kLoopDims{{
    {{kConvLoops, kLocalLoops, kLocalLoops, kConvBackLoops, kLocalBackLoops, kConvBackLoops,
      kLocalBackLoops, kLocalBackLoops}},
    {{kSysConvLoops, kSysLocalLoops, kSysLocalLoops, {}, {}, {}, {}, {}}},
}};

}  // namespace

PerDataCategory<DimSet> tensor_dims(model::ArrayMapping m) {
  return kTensorDims[static_cast<std::size_t>(m)];
}

PerLoopDim<DimSet> loop_dims(model::ArrayMapping m, KindClass k) {
  return kLoopDims[static_cast<std::size_t>(m)][static_cast<std::size_t>(k)];
}

bool loop_of_dim(model::ArrayMapping m, KindClass k, Dim d, LoopDim& out) {
  const auto loops = loop_dims(m, k);
  for (auto l : all_values<LoopDim>()) {
    if (loops[l].contains(d)) {
      out = l;
      return true;
    }
  }
  return false;
}

}  // namespace kapla::search::kapla
