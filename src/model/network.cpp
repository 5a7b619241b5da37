// Network DAG construction and queries. Spec: nn_dataflow-spec.md §4.3.
#include "model/network.hpp"

#include <algorithm>

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
  std::int64_t sum_nofm = 0;
  for (const auto& s : sources) {
    const std::string& pname = net_.source_name(s);
    std::int64_t p_nofm = 0;
    PhyDim2 p_sofm;
    switch (s.kind) {
      case LayerSource::Kind::NetworkInput:
        p_nofm = net_.input_.nofm;
        p_sofm = net_.input_.sofm;
        break;
      case LayerSource::Kind::External:
        p_nofm = net_.externals_[s.index].nofm;
        p_sofm = net_.externals_[s.index].sofm;
        break;
      case LayerSource::Kind::Layer:
        p_nofm = net_.layers_[s.index].nofm;
        p_sofm = net_.layers_[s.index].sofm;
        break;
    }
    if (!layer.is_valid_padding_sifm(p_sofm)) {
      throw InputError(where + "sifm: predecessor '" + pname + "' has ofmap " +
                       std::to_string(p_sofm.h) + "x" + std::to_string(p_sofm.w) +
                       ", not a valid (padded) input for ofmap " + std::to_string(layer.sofm.h) +
                       "x" + std::to_string(layer.sofm.w) + " with input " +
                       std::to_string(layer.sifm.h) + "x" + std::to_string(layer.sifm.w));
    }
    sum_nofm += p_nofm;
  }
  if (sum_nofm != layer.nifm) {
    throw InputError(where + "nifm: " + std::to_string(layer.nifm) +
                     " does not equal the predecessors' total nofm " + std::to_string(sum_nofm));
  }
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
