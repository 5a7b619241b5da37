// A network: an immutable DAG of named layers (nn_dataflow Network). Built once by
// NetworkBuilder, which checks every layer against its predecessors. Spec: nn_dataflow-spec.md
// §4.3.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/phy_dim2.hpp"
#include "model/layer.hpp"

namespace kapla::model {

/// The data a network starts from: the network input or an external input (e.g. an LSTM's
/// initial cell state). nn_dataflow InputLayer.
struct InputSpec {
  std::string name;
  std::int64_t nofm = 0;
  PhyDim2 sofm;
  friend bool operator==(const InputSpec&, const InputSpec&) = default;
};

/// What a layer reads: the network input, an external input, or an earlier layer.
struct LayerSource {
  enum class Kind : std::uint8_t { NetworkInput, External, Layer };
  Kind kind = Kind::NetworkInput;
  std::size_t index = 0;  // into externals() or the layer list; 0 for the network input
  friend bool operator==(const LayerSource&, const LayerSource&) = default;
};

class Network {
 public:
  const std::string& name() const { return name_; }
  /// Citation of the network (paper), or where its table comes from.
  const std::string& source() const { return source_; }
  const InputSpec& input() const { return input_; }
  const std::vector<InputSpec>& externals() const { return externals_; }

  /// Number of layers (the input and external inputs excluded).
  std::size_t size() const { return layers_.size(); }
  const Layer& layer(std::size_t i) const { return layers_[i]; }
  const std::string& layer_name(std::size_t i) const { return names_[i]; }
  std::optional<std::size_t> find(std::string_view layer_name) const;

  /// Predecessors in the given (channel-concatenation) order.
  const std::vector<LayerSource>& prevs(std::size_t i) const { return prevs_[i]; }
  /// Successor layers in insertion order; empty for a network output.
  const std::vector<std::size_t>& nexts(std::size_t i) const { return nexts_[i]; }
  /// Layers that read only the network input or external inputs.
  std::vector<std::size_t> firsts() const;
  /// Network outputs.
  std::vector<std::size_t> lasts() const;
  /// Name of a source: the input's name, an external's or a layer's.
  const std::string& source_name(const LayerSource& s) const;
  /// Whether `consumer` may read source `s` as a reshaped view, so that only the words must
  /// agree (docs/transformers.md §4): a MatMul's operands, a source with other heads, and a
  /// MatMul's output. Such an operand goes through DRAM unless forwards_on_chip holds.
  bool reads_reshaped(const Layer& consumer, const LayerSource& s) const;
  /// Whether layer `consumer` may read the output of layer `producer` straight from the
  /// producer's on-chip buffers, inside one pipeline segment (docs/transformers.md §5.4).
  /// Layers of the CNN kinds (no heads, no MatMul on either side) always may: nn_dataflow's
  /// segment rules apply. Otherwise `producer` must be the consumer's only ifmap source (a
  /// MatMul's A, never its B, which is fetched as a filter from DRAM), and either the edge
  /// carries the operand unchanged (carries_unchanged) or it is a reshape between two layers
  /// that pipeline as convolutions (Conv, FC, MatMul): the pipeline rules then hand over
  /// whole batch groups, all channels of all heads at once (fully buffered).
  bool forwards_on_chip(std::size_t producer, std::size_t consumer) const;
  /// Whether the consumer reads the producer's output channel for channel as it is stored:
  /// always between layers of the CNN kinds (nn_dataflow's rules); otherwise both fold the
  /// same heads into the batch and the producer's ofmap (channels, rows, columns per sample
  /// and head) is the consumer's ifmap. Only such an edge may hand over channel groups.
  bool carries_unchanged(std::size_t producer, std::size_t consumer) const;
  /// How many of prevs(i), from the first, layer i reads as its ifmap: all of them (a concat),
  /// but a MatMul's A alone (its B is fetched as a filter, docs/transformers.md §2).
  std::size_t num_ifmap_sources(std::size_t i) const {
    return layers_[i].is_matmul() ? std::min<std::size_t>(1, prevs_[i].size()) : prevs_[i].size();
  }
  /// MACs of all layers for a batch.
  std::int64_t total_ops(std::int64_t batch = 1) const;

 private:
  friend class NetworkBuilder;
  std::string name_;
  std::string source_;
  InputSpec input_;
  std::vector<InputSpec> externals_;
  std::vector<std::string> names_;
  std::vector<Layer> layers_;
  std::vector<std::vector<LayerSource>> prevs_;
  std::vector<std::vector<std::size_t>> nexts_;
};

/// Builds a Network layer by layer, with the reference's checks (nn_dataflow Network.add and
/// _check_prevs): unique names; every predecessor exists; every predecessor's ofmap size is a
/// valid (padded) input of the layer; the predecessors' nofm add up to the layer's nifm.
/// Transformer kinds (docs/transformers.md): a MatMul has exactly two predecessors [A, B] whose
/// words per sample equal m*k*heads and k*n*heads; a layer whose heads differ from a
/// predecessor's reads a reshaped view, so only the words per sample must agree.
/// Errors are InputError naming the layer and the field.
class NetworkBuilder {
 public:
  NetworkBuilder(std::string name, std::string source, InputSpec input);
  /// An external input (nn_dataflow Network.add_ext).
  NetworkBuilder& add_external(InputSpec ext);
  /// Adds a layer. `prevs` lists predecessor names; kNetworkInput names the network input.
  /// Empty `prevs` means the most recently added layer (the network input for the first).
  NetworkBuilder& add(std::string name, Layer layer, std::vector<std::string> prevs = {});
  Network build() &&;

  /// The reference's key of the network input in prevs lists.
  static constexpr std::string_view kNetworkInput = "__INPUT__";

 private:
  // What a source provides per sample of the network.
  struct SourceShape {
    std::int64_t nofm = 0;
    PhyDim2 sofm;
    std::int64_t nhead = 1;
  };
  LayerSource resolve(const std::string& layer_name, const std::string& prev) const;
  SourceShape shape_of(const LayerSource& s) const;
  void check_prevs(const std::string& where, const Layer& layer,
                   const std::vector<LayerSource>& sources) const;
  Network net_;
};

}  // namespace kapla::model
