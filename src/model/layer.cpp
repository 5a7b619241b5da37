// Layer factories and size formulas. Spec: nn_dataflow-spec.md §4.2, kapla-spec.md §6.2.
#include "model/layer.hpp"

#include <array>
#include <sstream>

#include "core/checked_math.hpp"
#include "core/errors.hpp"
#include "model/limits.hpp"

namespace kapla::model {
namespace {

constexpr std::array<std::string_view, kNumLayerTypes> kTypeNames{"Conv",
                                                                  "FC",
                                                                  "DWConv",
                                                                  "LocalRegion",
                                                                  "Pooling",
                                                                  "Eltwise",
                                                                  "ConvBackAct",
                                                                  "ConvBackWeight",
                                                                  "FCBackAct",
                                                                  "FCBackWeight",
                                                                  "LocalRegionBack",
                                                                  "PoolingBack",
                                                                  "EltwiseBack",
                                                                  "DWConvBackAct",
                                                                  "DWConvBackWeight",
                                                                  "MatMul",
                                                                  "Softmax",
                                                                  "LayerNorm",
                                                                  "GELU"};

// The reference's class names, for describe().
constexpr std::array<std::string_view, kNumLayerTypes> kClassNames{
    "ConvLayer", "FCLayer", "DepthwiseConvolutionLayer", "LocalRegionLayer", "PoolingLayer",
    "EltwiseLayer", "ConvBackActLayer", "ConvBackWeightLayer", "FCBackActLayer",
    "FCBackWeightLayer", "LocalRegionBackLayer", "PoolingBackLayer", "EltwiseBackLayer",
    "DepthwiseConvolutionBackActLayer", "DepthwiseConvolutionBackWeightLayer",
    // Not in the reference: kapla's own class names for its schedule files.
    "MatMulLayer", "SoftmaxLayer", "LayerNormLayer", "GELULayer"};

void require_positive(std::string_view field, std::int64_t v) {
  if (v <= 0) {
    throw InputError(std::string(field) + ": must be positive, got " + std::to_string(v));
  }
}

void require_positive(std::string_view field, PhyDim2 v) {
  if (v.h <= 0 || v.w <= 0) {
    std::ostringstream os;
    os << field << ": must be positive, got [" << v.h << ", " << v.w << "]";
    throw InputError(os.str());
  }
}

// The upper limits (model/limits.hpp), after the positivity checks: single dimensions first, so
// that the derived sizes below cannot overflow, then the per-sample sizes, with checked
// products because a user's numbers can make them overflow.
void require_within_limits(const Layer& l) {
  using namespace limits;
  check_int("nifm", l.nifm, 1, kMaxChannels);
  check_int("nofm", l.nofm, 1, kMaxChannels);
  check_dim("sifm", l.sifm, 1, kMaxFmapSide);
  auto per_sample = [](std::string_view what, std::int64_t v) {
    if (v < 0 || v > kMaxPerSampleSize) {
      throw InputError(std::string(what) + ": the layer's " + std::string(what) +
                       " per sample exceed the limit " + std::to_string(kMaxPerSampleSize) +
                       " (model/limits.hpp)");
    }
  };
  // As total_ops(1) counts them: back kinds price the forward layer over sifm.
  const bool back = l.is_back();
  const std::int64_t out_channels = back && l.has_filter() && !l.is_depthwise() ? l.nifm : l.nofm;
  const PhyDim2 out = back ? l.sifm : l.sofm;
  // Heads are samples of the layer (1 for the nn_dataflow kinds).
  per_sample("MACs", checked_product({out_channels, out.h, out.w, l.ops_per_neuron(), l.nhead}));
  per_sample("ifmap words", checked_product({l.nifm, l.sifm.h, l.sifm.w, l.nhead}));
  per_sample("ofmap words", checked_product({l.nofm, l.sofm.h, l.sofm.w, l.nhead}));
  per_sample("filter words", l.is_depthwise()
                                 ? checked_product({l.nofm, l.sfil.h, l.sfil.w})
                                 : checked_product({l.nifm, l.nofm, l.sfil.h, l.sfil.w, l.nhead}));
}

void require_dims_within_limits(PhyDim2 sofm, PhyDim2 window, std::string_view wname,
                                PhyDim2 strd) {
  using namespace limits;
  check_dim("sofm", sofm, 1, kMaxFmapSide);
  check_dim(wname, window, 1, kMaxWindowSide);
  check_dim("strd", strd, 1, kMaxWindowSide);
}

// Forward filter kinds: hifm = hfil + (hofm - 1) * htrd.
PhyDim2 forward_ifmap(PhyDim2 sofm, PhyDim2 window, PhyDim2 strd) {
  return {window.h + (sofm.h - 1) * strd.h, window.w + (sofm.w - 1) * strd.w};
}

// Back kinds (no crop): hifm = (hofm - hfil) // htrd + 1. The window must fit the output.
PhyDim2 backward_ifmap(PhyDim2 sofm, PhyDim2 window, PhyDim2 strd, std::string_view wname) {
  if (window.h > sofm.h || window.w > sofm.w) {
    std::ostringstream os;
    os << wname << ": window [" << window.h << ", " << window.w << "] is larger than sofm ["
       << sofm.h << ", " << sofm.w << "]";
    throw InputError(os.str());
  }
  return {(sofm.h - window.h) / strd.h + 1, (sofm.w - window.w) / strd.w + 1};
}

Layer filter_layer(LayerType type, std::int64_t nifm, std::int64_t nofm, PhyDim2 sofm, PhyDim2 sfil,
                   PhyDim2 strd) {
  require_positive("nifm", nifm);
  require_positive("nofm", nofm);
  require_positive("sofm", sofm);
  require_positive("sfil", sfil);
  require_positive("strd", strd);
  require_dims_within_limits(sofm, sfil, "sfil", strd);
  limits::check_int("nifm", nifm, 1, limits::kMaxChannels);
  limits::check_int("nofm", nofm, 1, limits::kMaxChannels);
  Layer l;
  l.type = type;
  l.nifm = nifm;
  l.nofm = nofm;
  l.sofm = sofm;
  l.sfil = sfil;
  l.strd = strd;
  l.sifm = l.is_back() ? backward_ifmap(sofm, sfil, strd, "sfil") : forward_ifmap(sofm, sfil, strd);
  l.rw_data = (type == LayerType::ConvBackWeight || type == LayerType::FCBackWeight ||
               type == LayerType::DWConvBackWeight)
                  ? DataCategory::Fil
                  : DataCategory::Ofm;
  require_within_limits(l);
  return l;
}

Layer region_layer(LayerType type, std::int64_t nofm, PhyDim2 sofm, std::int64_t nreg, PhyDim2 sreg,
                   std::int64_t ntrd, PhyDim2 strd) {
  require_positive("nofm", nofm);
  require_positive("sofm", sofm);
  require_positive("nreg", nreg);
  require_positive("sreg", sreg);
  require_positive("ntrd", ntrd);
  require_positive("strd", strd);
  require_dims_within_limits(sofm, sreg, "sreg", strd);
  limits::check_int("nofm", nofm, 1, limits::kMaxChannels);
  limits::check_int("nreg", nreg, 1, limits::kMaxChannels);
  limits::check_int("ntrd", ntrd, 1, limits::kMaxChannels);
  if (nreg > 1 && sreg.size() > 1) {
    throw InputError("nreg: a local region cannot mix channels (nreg " + std::to_string(nreg) +
                     ") and a spatial window (sreg " + std::to_string(sreg.h) + "x" +
                     std::to_string(sreg.w) + ")");
  }
  Layer l;
  l.type = type;
  l.nofm = nofm;
  l.sofm = sofm;
  l.nreg = nreg;
  l.sreg = sreg;
  l.ntrd = ntrd;
  l.strd = strd;
  if (l.is_back()) {
    l.nifm = nofm / ntrd;
    require_positive("nifm (nofm / ntrd)", l.nifm);
    l.sifm = backward_ifmap(sofm, sreg, strd, "sreg");
  } else {
    l.nifm = nofm * ntrd;
    l.sifm = forward_ifmap(sofm, sreg, strd);
  }
  require_within_limits(l);
  return l;
}

}  // namespace

std::string_view type_name(LayerType t) { return kTypeNames[static_cast<std::size_t>(t)]; }

std::string_view class_name(LayerType t) { return kClassNames[static_cast<std::size_t>(t)]; }

LayerType parse_layer_type(std::string_view tag) {
  for (std::size_t i = 0; i < kTypeNames.size(); ++i) {
    if (kTypeNames[i] == tag) return static_cast<LayerType>(i);
  }
  std::string known;
  for (auto n : kTypeNames) known += (known.empty() ? "" : ", ") + std::string(n);
  throw InputError("type: unknown layer type '" + std::string(tag) + "'; known: " + known);
}

bool Layer::has_filter() const {
  switch (type) {
    case LayerType::Conv:
    case LayerType::FC:
    case LayerType::DWConv:
    case LayerType::ConvBackAct:
    case LayerType::ConvBackWeight:
    case LayerType::FCBackAct:
    case LayerType::FCBackWeight:
    case LayerType::DWConvBackAct:
    case LayerType::DWConvBackWeight:
    case LayerType::MatMul:  // B plays the filter
      return true;
    default:
      return false;
  }
}

bool Layer::is_local_region() const { return !has_filter(); }

bool Layer::is_back() const {
  switch (type) {
    case LayerType::ConvBackAct:
    case LayerType::ConvBackWeight:
    case LayerType::FCBackAct:
    case LayerType::FCBackWeight:
    case LayerType::LocalRegionBack:
    case LayerType::PoolingBack:
    case LayerType::EltwiseBack:
    case LayerType::DWConvBackAct:
    case LayerType::DWConvBackWeight:
      return true;
    default:
      return false;
  }
}

bool Layer::is_depthwise() const {
  return type == LayerType::DWConv || type == LayerType::DWConvBackAct ||
         type == LayerType::DWConvBackWeight;
}

bool Layer::is_transformer_kind() const {
  switch (type) {
    case LayerType::MatMul:
    case LayerType::Softmax:
    case LayerType::LayerNorm:
    case LayerType::GELU:
      return true;
    default:
      return false;
  }
}

std::int64_t Layer::ops_per_element() const {
  // docs/transformers.md §3. Softmax (online, two passes): max, subtract, exp and sum in the
  // first, one multiply by the reciprocal in the second. LayerNorm: sum and sum of squares in
  // the first pass; subtract the mean, multiply by 1/sigma, multiply-add gamma and beta in the
  // second. GELU: one evaluation by the PE's activation unit.
  switch (type) {
    case LayerType::Softmax:
    case LayerType::LayerNorm:
      return 5;
    default:
      return 1;
  }
}

std::int64_t Layer::ops_per_neuron() const {
  if (is_local_region()) return nreg * sreg.h * sreg.w * ops_per_element();
  if (is_depthwise()) return sfil.h * sfil.w;
  // Conv: hfil * wfil * nifm. Back kinds price the equivalent forward layer, whose input
  // channels are this layer's nofm.
  return sfil.h * sfil.w * (is_back() ? nofm : nifm);
}

std::int64_t Layer::total_ops(std::int64_t batch) const {
  // Forward: nofm * ((hofm * wofm) * batch) * ops_per_neuron, as the reference evaluates
  // total_ofmap_size() * ops_per_neuron() * batch. Back kinds: the forward layer over sifm,
  // whose output channels are nifm (filter kinds) or nofm (region and depthwise kinds).
  if (!is_back()) return nofm * (sofm.h * sofm.w) * ops_per_neuron() * batch * nhead;
  const std::int64_t fwd_nofm = (is_local_region() || is_depthwise()) ? nofm : nifm;
  return fwd_nofm * (sifm.h * sifm.w) * ops_per_neuron() * batch;
}

std::int64_t Layer::total_filter_size() const {
  if (!has_filter()) return 0;
  if (is_depthwise()) return nofm * sfil.h * sfil.w;
  return nifm * nofm * sfil.h * sfil.w;
}

bool Layer::is_valid_padding_sifm(PhyDim2 prev) const {
  auto in_range = [](std::int64_t a, std::int64_t b, std::int64_t v) {
    return (a < b ? a : b) <= v && v <= (a < b ? b : a);
  };
  return in_range(sofm.h * strd.h, sifm.h, prev.h) && in_range(sofm.w * strd.w, sifm.w, prev.w);
}

Layer make_conv(std::int64_t nifm, std::int64_t nofm, PhyDim2 sofm, PhyDim2 sfil, PhyDim2 strd) {
  return filter_layer(LayerType::Conv, nifm, nofm, sofm, sfil, strd);
}

Layer make_fc(std::int64_t nifm, std::int64_t nofm, PhyDim2 sfil) {
  return filter_layer(LayerType::FC, nifm, nofm, {1, 1}, sfil, {1, 1});
}

Layer make_dwconv(std::int64_t nofm, PhyDim2 sofm, PhyDim2 sfil, PhyDim2 strd) {
  return filter_layer(LayerType::DWConv, nofm, nofm, sofm, sfil, strd);
}

Layer make_local_region(std::int64_t nofm, PhyDim2 sofm, std::int64_t nreg, PhyDim2 sreg,
                        std::int64_t ntrd, PhyDim2 strd) {
  return region_layer(LayerType::LocalRegion, nofm, sofm, nreg, sreg, ntrd, strd);
}

Layer make_pooling(std::int64_t nofm, PhyDim2 sofm, PhyDim2 sreg, PhyDim2 strd) {
  if (strd == PhyDim2{0, 0}) strd = sreg;
  return region_layer(LayerType::Pooling, nofm, sofm, 1, sreg, 1, strd);
}

Layer make_eltwise(std::int64_t nofm, PhyDim2 sofm, std::int64_t nreg) {
  return region_layer(LayerType::Eltwise, nofm, sofm, nreg, {1, 1}, nreg, {1, 1});
}

Layer make_conv_back_act(std::int64_t nifm, std::int64_t nofm, PhyDim2 sofm, PhyDim2 sfil,
                         PhyDim2 strd) {
  return filter_layer(LayerType::ConvBackAct, nifm, nofm, sofm, sfil, strd);
}

Layer make_conv_back_weight(std::int64_t nifm, std::int64_t nofm, PhyDim2 sofm, PhyDim2 sfil,
                            PhyDim2 strd) {
  return filter_layer(LayerType::ConvBackWeight, nifm, nofm, sofm, sfil, strd);
}

Layer make_fc_back_act(std::int64_t nifm, std::int64_t nofm, PhyDim2 sfil) {
  return filter_layer(LayerType::FCBackAct, nifm, nofm, sfil, sfil, {1, 1});
}

Layer make_fc_back_weight(std::int64_t nifm, std::int64_t nofm, PhyDim2 sfil) {
  return filter_layer(LayerType::FCBackWeight, nifm, nofm, sfil, sfil, {1, 1});
}

Layer make_local_region_back(std::int64_t nofm, PhyDim2 sofm, std::int64_t nreg, PhyDim2 sreg,
                             std::int64_t ntrd, PhyDim2 strd) {
  return region_layer(LayerType::LocalRegionBack, nofm, sofm, nreg, sreg, ntrd, strd);
}

Layer make_pooling_back(std::int64_t nofm, PhyDim2 sofm, PhyDim2 sreg, PhyDim2 strd) {
  if (strd == PhyDim2{0, 0}) strd = sreg;
  return region_layer(LayerType::PoolingBack, nofm, sofm, 1, sreg, 1, strd);
}

Layer make_eltwise_back(std::int64_t nofm, PhyDim2 sofm, std::int64_t nreg) {
  return region_layer(LayerType::EltwiseBack, nofm, sofm, nreg, {1, 1}, nreg, {1, 1});
}

Layer make_dwconv_back_act(std::int64_t nofm, PhyDim2 sofm, PhyDim2 sfil, PhyDim2 strd) {
  return filter_layer(LayerType::DWConvBackAct, nofm, nofm, sofm, sfil, strd);
}

Layer make_dwconv_back_weight(std::int64_t nofm, PhyDim2 sofm, PhyDim2 sfil, PhyDim2 strd) {
  return filter_layer(LayerType::DWConvBackWeight, nofm, nofm, sofm, sfil, strd);
}

namespace {

// The heads of a transformer kind, checked like a channel count.
Layer with_heads(Layer l, std::int64_t nhead) {
  require_positive("heads", nhead);
  limits::check_int("heads", nhead, 1, limits::kMaxChannels);
  l.nhead = nhead;
  // Per sample of the network the layer holds nhead samples of itself.
  require_within_limits(l);
  return l;
}

Layer elementwise_kind(LayerType type, std::int64_t nofm, PhyDim2 sofm, std::int64_t nhead) {
  Layer l = region_layer(LayerType::LocalRegion, nofm, sofm, 1, {1, 1}, 1, {1, 1});
  l.type = type;
  return with_heads(l, nhead);
}

}  // namespace

Layer make_matmul(std::int64_t m, std::int64_t k, std::int64_t n, std::int64_t nhead) {
  require_positive("m", m);
  limits::check_int("m", m, 1, limits::kMaxFmapSide);
  require_positive("k", k);
  limits::check_int("k", k, 1, limits::kMaxChannels);
  require_positive("n", n);
  limits::check_int("n", n, 1, limits::kMaxChannels);
  Layer l = filter_layer(LayerType::MatMul, k, n, {1, m}, {1, 1}, {1, 1});
  return with_heads(l, nhead);
}

Layer make_softmax(std::int64_t nofm, PhyDim2 sofm, std::int64_t nhead) {
  return elementwise_kind(LayerType::Softmax, nofm, sofm, nhead);
}

Layer make_layernorm(std::int64_t nofm, PhyDim2 sofm, std::int64_t nhead) {
  return elementwise_kind(LayerType::LayerNorm, nofm, sofm, nhead);
}

Layer make_gelu(std::int64_t nofm, PhyDim2 sofm, std::int64_t nhead) {
  return elementwise_kind(LayerType::GELU, nofm, sofm, nhead);
}

std::string describe(const Layer& l) {
  std::ostringstream os;
  auto dim = [&os](PhyDim2 d) {
    if (d.h == d.w) {
      os << d.h;
    } else {
      os << '(' << d.h << ", " << d.w << ')';
    }
  };
  os << class_name(l.type) << '(';
  switch (l.type) {
    case LayerType::FC:
    case LayerType::FCBackAct:
    case LayerType::FCBackWeight:
      os << l.nifm << ", " << l.nofm << ", ";
      dim(l.sfil);
      break;
    case LayerType::Conv:
    case LayerType::ConvBackAct:
    case LayerType::ConvBackWeight:
      os << l.nifm << ", " << l.nofm << ", ";
      dim(l.sofm);
      os << ", ";
      dim(l.sfil);
      os << ", ";
      dim(l.strd);
      break;
    case LayerType::DWConv:
    case LayerType::DWConvBackAct:
    case LayerType::DWConvBackWeight:
      os << l.nofm << ", ";
      dim(l.sofm);
      os << ", ";
      dim(l.sfil);
      os << ", ";
      dim(l.strd);
      break;
    case LayerType::Pooling:
    case LayerType::PoolingBack:
      os << l.nofm << ", ";
      dim(l.sofm);
      os << ", ";
      dim(l.sreg);
      os << ", ";
      dim(l.strd);
      break;
    case LayerType::Eltwise:
    case LayerType::EltwiseBack:
      os << l.nofm << ", ";
      dim(l.sofm);
      os << ", " << l.nreg;
      break;
    case LayerType::LocalRegion:
    case LayerType::LocalRegionBack:
      os << l.nofm << ", ";
      dim(l.sofm);
      os << ", " << l.nreg << ", ";
      dim(l.sreg);
      os << ", " << l.ntrd << ", ";
      dim(l.strd);
      break;
    case LayerType::MatMul:
      os << "m=" << l.sofm.w << ", k=" << l.nifm << ", n=" << l.nofm << ", heads=" << l.nhead;
      break;
    case LayerType::Softmax:
    case LayerType::LayerNorm:
    case LayerType::GELU:
      os << l.nofm << ", ";
      dim(l.sofm);
      os << ", heads=" << l.nhead;
      break;
  }
  os << ')';
  return os.str();
}

}  // namespace kapla::model
