// Per-node (partitioned) layer. Spec: nn_dataflow-spec.md §8.3, §12.4.
#include "mapping/part_layer.hpp"

#include "core/errors.hpp"
#include "core/math.hpp"
#include "mapping/data_range.hpp"

namespace kapla::mapping {

PartLayer part_layer(const model::Layer& layer, std::int64_t batch, const PartitionScheme& part) {
  const std::int64_t inpp = part.size(ParallelDim::Inpp);
  const PhyDim2 ofmp = part.pdims[ParallelDim::Ofmp];
  const std::int64_t p_nifm = ceil_div(layer.nifm, inpp);
  const std::int64_t p_nofm = ceil_div(layer.nofm, part.size(ParallelDim::Outp));
  // Back kinds compute the forward layer over their ifmap (the gradient input): split it.
  const PhyDim2 s = layer.is_back() ? layer.sifm : layer.sofm;
  const PhyDim2 p_s{ceil_div(s.h, ofmp.h), ceil_div(s.w, ofmp.w)};

  if (inpp > 1 && (layer.is_local_region() || layer.is_depthwise()))
    throw InputError("part_layer: input partitioning is invalid for " +
                     std::string(model::type_name(layer.type)));

  model::Layer p;
  if (layer.is_depthwise()) {
    // Back: reverse_high(p_nofm - 1, nofm, 1, 1) + 1 == p_nofm (kept in the fork's form).
    const std::int64_t n =
        layer.is_back() ? reverse_high(p_nofm - 1, layer.nofm, 1, 1) + 1 : p_nofm;
    p = model::make_dwconv(n, p_s, layer.sfil, layer.strd);
  } else if (layer.is_matmul()) {
    // A MatMul stays one (its B depends on the batch loop); heads are already in the batch.
    p = model::make_matmul(p_s.w, p_nifm, p_nofm);
  } else if (layer.has_filter()) {
    // FC becomes a plain Conv; back kinds swap input and output channels.
    p = layer.is_back() ? model::make_conv(p_nofm, p_nifm, p_s, layer.sfil, layer.strd)
                        : model::make_conv(p_nifm, p_nofm, p_s, layer.sfil, layer.strd);
  } else {
    // Local region: rebuilt with ntrd = 1 (spec §8.3, §11.19).
    const std::int64_t n =
        layer.is_back() ? reverse_high(p_nofm - 1, layer.nofm, layer.nreg, layer.ntrd) + 1 : p_nofm;
    p = model::make_local_region(n, p_s, layer.nreg, layer.sreg, 1, layer.strd);
    // Softmax, LayerNorm, GELU keep their kind: it carries their ops and input passes.
    if (layer.is_transformer_kind()) p.type = layer.type;
  }
  // The fork keeps the back layer's read-write category (FIL for weight gradients).
  if (layer.is_back()) p.rw_data = layer.rw_data;

  PartLayer out;
  out.p_batch = ceil_div(batch, part.size(ParallelDim::Batp));
  out.p_occupancy = static_cast<double>(layer.total_ops(batch)) /
                    static_cast<double>(p.total_ops(out.p_batch) * part.size());
  out.p_layer = p;
  return out;
}

}  // namespace kapla::mapping
