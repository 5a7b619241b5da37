// One layer of a network: an immutable, validated value (nn_dataflow Layer and its subclasses,
// plus the KAPLA fork's depthwise and back-propagation kinds).
// Spec: nn_dataflow-spec.md §4.1-4.2, §12.1; kapla-spec.md §6.2.
//
// Glossary (nn_dataflow names, used throughout the model and cost code):
//   nifm/nofm  input/output channels;  sifm/sofm  input/output fmap size (h, w)
//   sfil       filter size;  strd  stride;  sreg/nreg  local-region window size / channel count
//   ntrd       channel stride of a local region;  rw_data  the read-modify-write data category
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/enums.hpp"
#include "core/phy_dim2.hpp"

namespace kapla::model {

/// The layer kinds. The names (type_name) are the reference's class tags used in the zoo
/// tables (nn_zoo.json / nn_zoo_kapla.json "type").
enum class LayerType : std::uint8_t {
  Conv,
  FC,
  DWConv,
  LocalRegion,
  Pooling,
  Eltwise,
  ConvBackAct,
  ConvBackWeight,
  FCBackAct,
  FCBackWeight,
  LocalRegionBack,
  PoolingBack,
  EltwiseBack,
  DWConvBackAct,
  DWConvBackWeight,
  // Transformer kinds (docs/transformers.md): an activation x activation matrix product, the
  // two row reductions and an element-wise activation.
  MatMul,
  Softmax,
  LayerNorm,
  GELU,
};
inline constexpr int kNumLayerTypes = 19;

std::string_view type_name(LayerType t);
/// Throws InputError for an unknown tag.
LayerType parse_layer_type(std::string_view tag);
/// The reference's class name ("ConvLayer", "DepthwiseConvolutionLayer", ...): the "type" of a
/// golden record's layer and of a schedule file's scheme records.
std::string_view class_name(LayerType t);

/// A layer. Fields are public and read-only by convention; build one with a make_* function,
/// which validates and derives nifm (where implied) and sifm.
struct Layer {
  LayerType type = LayerType::Conv;
  std::int64_t nifm = 0;
  std::int64_t nofm = 0;
  PhyDim2 sofm;           // output fmap (hofm, wofm)
  PhyDim2 sifm;           // input fmap (hifm, wifm), derived
  PhyDim2 strd{1, 1};     // stride (htrd, wtrd)
  PhyDim2 sfil;           // filter (hfil, wfil); {0, 0} for local-region kinds
  std::int64_t nreg = 0;  // local-region kinds only
  PhyDim2 sreg;           // local-region window (hreg, wreg); {0, 0} for filter kinds
  std::int64_t ntrd = 0;  // local-region kinds only
  bool crop = false;      // back kinds: always false here (crop variants are not supported)
  /// Transformer kinds: heads (or key/value head groups) folded into the batch loop, so that
  /// one sample of the network is nhead samples of this layer (docs/transformers.md §1). 1 for
  /// every other kind.
  std::int64_t nhead = 1;
  DataCategory rw_data = DataCategory::Ofm;

  // Kind predicates.
  /// Conv, FC, DWConv and their back kinds: the layer has a filter.
  bool has_filter() const;
  /// LocalRegion, Pooling, Eltwise and their back kinds.
  bool is_local_region() const;
  /// Back-propagation kinds (the KAPLA fork's reverse mapping applies).
  bool is_back() const;
  /// DWConv and its back kinds: one filter per channel.
  bool is_depthwise() const;
  /// MatMul: both operands are activations; B (prevs[1]) plays the filter, which is why its
  /// FIL category depends on the batch loop too (docs/transformers.md §2).
  bool is_matmul() const { return type == LayerType::MatMul; }
  /// Softmax and LayerNorm: each output needs a statistic over its whole row (all nofm
  /// channels of one position), so the input is read in two passes (docs/transformers.md §3).
  bool is_row_reduction() const {
    return type == LayerType::Softmax || type == LayerType::LayerNorm;
  }
  /// The transformer kinds (MatMul, Softmax, LayerNorm, GELU).
  bool is_transformer_kind() const;
  /// How many times the layer reads each input word: 2 for the row reductions, else 1.
  std::int64_t input_passes() const { return is_row_reduction() ? 2 : 1; }
  /// Operations per output element of a region kind beyond its window (Softmax 5, LayerNorm 5,
  /// GELU 1, the nn_dataflow kinds 1; docs/transformers.md §3).
  std::int64_t ops_per_element() const;

  // Sizes, all in elements (words). Multiplication order follows the reference.
  std::int64_t ops_per_neuron() const;
  /// MACs of the whole layer for a batch (nn_dataflow Layer.total_ops; back kinds: the
  /// equivalent forward layer over sifm). Heads count as samples: MatMul b*h*m*n*k.
  std::int64_t total_ops(std::int64_t batch = 1) const;
  std::int64_t filter_size() const { return sfil.h * sfil.w; }
  /// Filter words; for MatMul the B operand of ONE sample of the layer (one head).
  std::int64_t total_filter_size() const;
  std::int64_t ofmap_size(std::int64_t batch = 1) const { return sofm.h * sofm.w * batch; }
  std::int64_t total_ofmap_size(std::int64_t batch = 1) const { return nofm * ofmap_size(batch); }
  std::int64_t ifmap_size(std::int64_t batch = 1) const { return sifm.h * sifm.w * batch; }
  std::int64_t total_ifmap_size(std::int64_t batch = 1) const { return nifm * ifmap_size(batch); }

  /// Whether a predecessor's ofmap of size `prev_sofm` may feed this layer (implicit padding
  /// when smaller, unused border when larger): nn_dataflow Layer.is_valid_padding_sifm.
  bool is_valid_padding_sifm(PhyDim2 prev_sofm) const;

  friend bool operator==(const Layer&, const Layer&) = default;
};

// Factories, each the reference constructor of the same name. They throw InputError naming
// the offending field ("nofm: must be positive, got 0").
Layer make_conv(std::int64_t nifm, std::int64_t nofm, PhyDim2 sofm, PhyDim2 sfil,
                PhyDim2 strd = {1, 1});
Layer make_fc(std::int64_t nifm, std::int64_t nofm, PhyDim2 sfil = {1, 1});
Layer make_dwconv(std::int64_t nofm, PhyDim2 sofm, PhyDim2 sfil, PhyDim2 strd = {1, 1});
Layer make_local_region(std::int64_t nofm, PhyDim2 sofm, std::int64_t nreg, PhyDim2 sreg,
                        std::int64_t ntrd = 1, PhyDim2 strd = {1, 1});
/// Pooling: strd defaults to the window (pass {0, 0}).
Layer make_pooling(std::int64_t nofm, PhyDim2 sofm, PhyDim2 sreg, PhyDim2 strd = {0, 0});
Layer make_eltwise(std::int64_t nofm, PhyDim2 sofm, std::int64_t nreg);
Layer make_conv_back_act(std::int64_t nifm, std::int64_t nofm, PhyDim2 sofm, PhyDim2 sfil,
                         PhyDim2 strd = {1, 1});
Layer make_conv_back_weight(std::int64_t nifm, std::int64_t nofm, PhyDim2 sofm, PhyDim2 sfil,
                            PhyDim2 strd = {1, 1});
Layer make_fc_back_act(std::int64_t nifm, std::int64_t nofm, PhyDim2 sfil = {1, 1});
Layer make_fc_back_weight(std::int64_t nifm, std::int64_t nofm, PhyDim2 sfil = {1, 1});
Layer make_local_region_back(std::int64_t nofm, PhyDim2 sofm, std::int64_t nreg, PhyDim2 sreg,
                             std::int64_t ntrd = 1, PhyDim2 strd = {1, 1});
Layer make_pooling_back(std::int64_t nofm, PhyDim2 sofm, PhyDim2 sreg, PhyDim2 strd = {0, 0});
Layer make_eltwise_back(std::int64_t nofm, PhyDim2 sofm, std::int64_t nreg);
Layer make_dwconv_back_act(std::int64_t nofm, PhyDim2 sofm, PhyDim2 sfil, PhyDim2 strd = {1, 1});
Layer make_dwconv_back_weight(std::int64_t nofm, PhyDim2 sofm, PhyDim2 sfil, PhyDim2 strd = {1, 1});
/// out[b, h, m, n] = sum_k A[b, h, m, k] * B[b, h, k, n] with nhead = h: nifm = k, nofm = n,
/// sofm = sifm = {1, m}, sfil = {1, 1} (docs/transformers.md §2).
Layer make_matmul(std::int64_t m, std::int64_t k, std::int64_t n, std::int64_t nhead = 1);
/// Row-wise softmax over the nofm channels of each of the sofm positions, per head.
Layer make_softmax(std::int64_t nofm, PhyDim2 sofm, std::int64_t nhead = 1);
/// Layer normalisation over the nofm channels of each position.
Layer make_layernorm(std::int64_t nofm, PhyDim2 sofm, std::int64_t nhead = 1);
/// Element-wise GELU.
Layer make_gelu(std::int64_t nofm, PhyDim2 sofm, std::int64_t nhead = 1);

/// A one-line description in the reference's constructor form, e.g. "ConvLayer(3, 96, 55, 11, 4)".
std::string describe(const Layer& layer);

}  // namespace kapla::model
