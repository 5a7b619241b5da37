// Network DAG construction and queries. Spec: nn_dataflow-spec.md §4.3.
#include "model/network.hpp"

#include <algorithm>

#include "core/checked_math.hpp"
#include "core/errors.hpp"
#include "model/limits.hpp"

namespace kapla::model {

std::optional<std::size_t> Network::find(std::string_view layer_name) const {
  auto it = std::find(names_.begin(), names_.end(), layer_name);
  if (it == names_.end()) return std::nullopt;
  return static_cast<std::size_t>(it - names_.begin());
}

std::vector<std::size_t> Network::firsts() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    bool all_inputs = std::all_of(prevs_[i].begin(), prevs_[i].end(), [](const LayerSource& s) {
      return s.kind != LayerSource::Kind::Layer;
    });
    if (all_inputs) out.push_back(i);
  }
  return out;
}

std::vector<std::size_t> Network::lasts() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    if (nexts_[i].empty()) out.push_back(i);
  }
  return out;
}

const std::string& Network::source_name(const LayerSource& s) const {
  switch (s.kind) {
    case LayerSource::Kind::NetworkInput:
      return input_.name;
    case LayerSource::Kind::External:
      return externals_[s.index].name;
    case LayerSource::Kind::Layer:
      break;
  }
  return names_[s.index];
}

bool Network::reads_reshaped(const Layer& consumer, const LayerSource& s) const {
  if (consumer.is_matmul()) return true;
  if (s.kind != LayerSource::Kind::Layer) return consumer.nhead != 1;
  const Layer& source = layers_[s.index];
  return source.nhead != consumer.nhead || source.is_matmul();
}

namespace {
// An edge of nn_dataflow's kinds on both sides (no heads, no MatMul) follows its rules.
bool cnn_edge(const Layer& p, const Layer& c) {
  return p.nhead == 1 && c.nhead == 1 && !p.is_matmul() && !c.is_matmul();
}
}  // namespace

bool Network::forwards_on_chip(std::size_t producer, std::size_t consumer) const {
  const Layer& p = layers_[producer];
  const Layer& c = layers_[consumer];
  if (cnn_edge(p, c)) return true;
  const auto& srcs = prevs_[consumer];
  if (num_ifmap_sources(consumer) != 1) return false;
  const LayerSource& a = srcs.front();
  if (a.kind != LayerSource::Kind::Layer || a.index != producer) return false;  // B, or not ours
  // X x X^T: the producer is B as well, which must come from DRAM.
  if (c.is_matmul() && srcs.size() > 1 && srcs[1].kind == LayerSource::Kind::Layer &&
      srcs[1].index == producer) {
    return false;
  }
  if (carries_unchanged(producer, consumer)) return true;
  // A reshape: the consumer must take whole batch groups. The pipeline rules give them to a
  // layer that pipelines as a convolution and reads another such layer's output (fully
  // buffered ifmaps in one region, fully buffered ofmaps across two; schedule/
  // pipeline_constraints.cpp); a local-region layer follows its producer's channel groups,
  // and a reshape changes the channels.
  const auto conv_like = [](const Layer& x) {
    return x.type == LayerType::Conv || x.type == LayerType::FC || x.is_matmul();
  };
  return conv_like(p) && conv_like(c);
}

bool Network::carries_unchanged(std::size_t producer, std::size_t consumer) const {
  const Layer& p = layers_[producer];
  const Layer& c = layers_[consumer];
  if (cnn_edge(p, c)) return true;  // a concat's slice, a padded ifmap: channel for channel
  return p.nhead == c.nhead && p.nofm == c.nifm && p.sofm == c.sifm;
}

std::int64_t Network::total_ops(std::int64_t batch) const {
  std::int64_t sum = 0;
  for (const auto& l : layers_) sum += l.total_ops(batch);
  return sum;
}

NetworkBuilder::NetworkBuilder(std::string name, std::string source, InputSpec input) {
  limits::check_name("name", name);
  if (input.nofm <= 0) {
    throw InputError("input: nofm: must be positive, got " + std::to_string(input.nofm));
  }
  if (input.sofm.h <= 0 || input.sofm.w <= 0) throw InputError("input: sofm: must be positive");
  if (input.name.empty()) input.name = std::string(kNetworkInput);
  net_.name_ = std::move(name);
  net_.source_ = std::move(source);
  net_.input_ = std::move(input);
}

NetworkBuilder& NetworkBuilder::add_external(InputSpec ext) {
  const std::string where = "external '" + ext.name + "': ";
  limits::check_name("external: name", ext.name);
  if (ext.name.empty() || ext.name == kNetworkInput) {
    throw InputError("external: name: must be a non-empty name other than __INPUT__");
  }
  if (net_.find(ext.name) || std::any_of(net_.externals_.begin(), net_.externals_.end(),
                                         [&](const InputSpec& e) { return e.name == ext.name; })) {
    throw InputError(where + "name: duplicate");
  }
  if (ext.nofm <= 0) throw InputError(where + "nofm: must be positive");
  if (ext.sofm.h <= 0 || ext.sofm.w <= 0) throw InputError(where + "sofm: must be positive");
  net_.externals_.push_back(std::move(ext));
  return *this;
}

LayerSource NetworkBuilder::resolve(const std::string& layer_name, const std::string& prev) const {
  if (prev == kNetworkInput) return {LayerSource::Kind::NetworkInput, 0};
  if (auto i = net_.find(prev)) return {LayerSource::Kind::Layer, *i};
  for (std::size_t e = 0; e < net_.externals_.size(); ++e) {
    if (net_.externals_[e].name == prev) return {LayerSource::Kind::External, e};
  }
  throw InputError("layer '" + layer_name + "': prevs: unknown layer '" + prev +
                   "' (a predecessor must be added before its consumers)");
}

NetworkBuilder::SourceShape NetworkBuilder::shape_of(const LayerSource& s) const {
  switch (s.kind) {
    case LayerSource::Kind::NetworkInput:
      return {net_.input_.nofm, net_.input_.sofm, 1};
    case LayerSource::Kind::External:
      return {net_.externals_[s.index].nofm, net_.externals_[s.index].sofm, 1};
    case LayerSource::Kind::Layer:
      break;
  }
  const Layer& l = net_.layers_[s.index];
  return {l.nofm, l.sofm, l.nhead};
}

void NetworkBuilder::check_prevs(const std::string& where, const Layer& layer,
                                 const std::vector<LayerSource>& sources) const {
  // -1 when a (user-sized) external overflows: never equal to a layer's words.
  auto words = [](const SourceShape& p) {
    return checked_product({p.nofm, p.sofm.h, p.sofm.w, p.nhead});
  };
  if (layer.is_matmul()) {
    // docs/transformers.md §2: prevs[0] is A (k x m per head), prevs[1] is B (k x n per
    // head), each read from DRAM as a reshaped view, so only the word counts must agree.
    if (sources.size() != 2) {
      throw InputError(where + "prevs: a MatMul takes exactly two predecessors [A, B], got " +
                       std::to_string(sources.size()));
    }
    const std::int64_t want_a = layer.nifm * layer.sifm.size() * layer.nhead;
    const std::int64_t want_b = layer.nifm * layer.nofm * layer.nhead;
    const std::int64_t got_a = words(shape_of(sources[0]));
    const std::int64_t got_b = words(shape_of(sources[1]));
    if (got_a != want_a) {
      throw InputError(where + "prevs: A ('" + net_.source_name(sources[0]) + "') has " +
                       std::to_string(got_a) +
                       " words per sample, the MatMul reads m*k*heads = " + std::to_string(want_a));
    }
    if (got_b != want_b) {
      throw InputError(where + "prevs: B ('" + net_.source_name(sources[1]) + "') has " +
                       std::to_string(got_b) +
                       " words per sample, the MatMul reads k*n*heads = " + std::to_string(want_b));
    }
    return;
  }
  if (std::any_of(sources.begin(), sources.end(),
                  [&](const LayerSource& s) { return net_.reads_reshaped(layer, s); })) {
    // A change of head folding (e.g. the heads of attention x V back into the channels of
    // the output projection), or of the token layout after a MatMul (its 1 x m positions
    // read as the consumer's h x w): the words must agree.
    std::int64_t got = 0;
    for (const auto& s : sources) {
      const std::int64_t w = words(shape_of(s));
      got = (w < 0 || got < 0 || w > limits::kMaxPerSampleSize) ? -1 : got + w;
    }
    const std::int64_t want = layer.nifm * layer.sifm.size() * layer.nhead;
    if (got != want) {
      throw InputError(where + "prevs: the predecessors hold " + std::to_string(got) +
                       " words per sample, the layer reads nifm*sifm*heads = " +
                       std::to_string(want) + " (a reshape keeps the words)");
    }
    return;
  }
  std::int64_t sum_nofm = 0;
  for (const auto& s : sources) {
    const std::string& pname = net_.source_name(s);
    const SourceShape p = shape_of(s);
    if (!layer.is_valid_padding_sifm(p.sofm)) {
      throw InputError(where + "sifm: predecessor '" + pname + "' has ofmap " +
                       std::to_string(p.sofm.h) + "x" + std::to_string(p.sofm.w) +
                       ", not a valid (padded) input for ofmap " + std::to_string(layer.sofm.h) +
                       "x" + std::to_string(layer.sofm.w) + " with input " +
                       std::to_string(layer.sifm.h) + "x" + std::to_string(layer.sifm.w));
    }
    sum_nofm += p.nofm;
  }
  if (sum_nofm != layer.nifm) {
    throw InputError(where + "nifm: " + std::to_string(layer.nifm) +
                     " does not equal the predecessors' total nofm " + std::to_string(sum_nofm));
  }
}

NetworkBuilder& NetworkBuilder::add(std::string name, Layer layer, std::vector<std::string> prevs) {
  const std::string where = "layer '" + name + "': ";
  if (name.empty()) throw InputError("layer: name: must not be empty");
  limits::check_name("layer: name", name);
  if (name == kNetworkInput || net_.find(name) ||
      std::any_of(net_.externals_.begin(), net_.externals_.end(),
                  [&](const InputSpec& e) { return e.name == name; })) {
    throw InputError(where + "name: duplicate or reserved");
  }
  std::vector<LayerSource> sources;
  if (prevs.empty()) {
    // The reference's default: the most recently added layer, or the input for the first.
    sources.push_back(net_.layers_.empty()
                          ? LayerSource{LayerSource::Kind::NetworkInput, 0}
                          : LayerSource{LayerSource::Kind::Layer, net_.layers_.size() - 1});
  } else {
    for (const auto& p : prevs) sources.push_back(resolve(name, p));
  }
  check_prevs(where, layer, sources);
  const std::size_t idx = net_.layers_.size();
  for (const auto& s : sources) {
    if (s.kind != LayerSource::Kind::Layer) continue;
    auto& nexts = net_.nexts_[s.index];
    if (nexts.empty() || nexts.back() != idx) nexts.push_back(idx);
  }
  net_.names_.push_back(std::move(name));
  net_.layers_.push_back(layer);
  net_.prevs_.push_back(std::move(sources));
  net_.nexts_.emplace_back();
  return *this;
}

Network NetworkBuilder::build() && {
  if (net_.layers_.empty()) throw InputError("layers: a network needs at least one layer");
  return std::move(net_);
}

}  // namespace kapla::model
