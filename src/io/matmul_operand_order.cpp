#include "io/matmul_operand_order.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "io/network_json.hpp"
#include "model/network.hpp"

namespace kapla::io {
namespace {

using nlohmann::json;

// A layer's position in the document by name (-1: not a layer).
std::ptrdiff_t position(const json& layers, const json& name) {
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (layers[i]["name"] == name) return static_cast<std::ptrdiff_t>(i);
  }
  return -1;
}

// The B producers to list early, by name, in the order of their MatMuls. Decided once on the
// parsed network: a move changes no edge, so what forwards_on_chip and nexts say still holds
// after it.
std::vector<std::string> b_producers_to_move(const model::Network& net) {
  using Kind = model::LayerSource::Kind;
  std::vector<std::string> names;
  for (std::size_t m = 0; m < net.size(); ++m) {
    const auto& prevs = net.prevs(m);
    if (!net.layer(m).is_matmul() || prevs.size() != 2) continue;
    if (prevs[0].kind != Kind::Layer || prevs[1].kind != Kind::Layer) continue;
    if (!net.forwards_on_chip(prevs[0].index, m)) continue;
    if (net.nexts(prevs[1].index) != std::vector<std::size_t>{m}) continue;
    names.push_back(net.layer_name(prevs[1].index));
  }
  return names;
}

}  // namespace

void list_matmul_b_producers_early(json& doc) {
  std::optional<model::Network> net;
  try {
    net = parse_network(doc, "imported network");
  } catch (const InputError&) {
    return;
  }
  json& layers = doc["layers"];
  // A network has tens of MatMuls at most: linear scans keep this obvious.
  for (const std::string& name : b_producers_to_move(*net)) {
    const std::ptrdiff_t from = position(layers, name);
    std::ptrdiff_t to = 0;
    if (layers[from]["prevs"].is_array()) {
      for (const json& p : layers[from]["prevs"]) to = std::max(to, position(layers, p) + 1);
    }
    if (to >= from) continue;
    json moved = std::move(layers[from]);
    layers.erase(layers.begin() + from);
    layers.insert(layers.begin() + to, std::move(moved));
  }
}

}  // namespace kapla::io
