#include "io/matmul_operand_order.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace kapla::io {
namespace {

using nlohmann::json;

std::int64_t heads_of(const json& layer) { return layer.value("heads", std::int64_t{1}); }

// A layer's position by name (-1: an external input).
std::ptrdiff_t position(const json& layers, const std::string& name) {
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (layers[i]["name"] == name) return static_cast<std::ptrdiff_t>(i);
  }
  return -1;
}

// How many prevs entries name the layer.
int readers(const json& layers, const std::string& name) {
  int n = 0;
  for (const json& l : layers) {
    if (!l["prevs"].is_array()) continue;
    for (const json& p : l["prevs"]) n += p.is_string() && p == name ? 1 : 0;
  }
  return n;
}

}  // namespace

void list_matmul_b_producers_early(json& layers) {
  // A network has tens of MatMuls at most: linear scans keep this obvious.
  for (std::size_t m = 0; m < layers.size(); ++m) {
    const json& mm = layers[m];
    if (mm["type"] != "MatMul" || !mm["prevs"].is_array() || mm["prevs"].size() != 2) continue;
    const json& a = mm["prevs"][0];
    const json& b = mm["prevs"][1];
    if (!a.is_string() || !b.is_string()) continue;
    const std::ptrdiff_t ia = position(layers, a.get<std::string>());
    const std::ptrdiff_t ib = position(layers, b.get<std::string>());
    if (ia < 0 || ib < 0 || heads_of(layers[ia]) != heads_of(mm) || heads_of(mm) == 1) continue;
    if (readers(layers, b.get<std::string>()) != 1) continue;
    std::ptrdiff_t earliest = 0;
    if (layers[ib]["prevs"].is_array()) {
      for (const json& p : layers[ib]["prevs"]) {
        if (p.is_string()) earliest = std::max(earliest, position(layers, p) + 1);
      }
    }
    if (earliest >= ib) continue;
    json moved = std::move(layers[ib]);
    layers.erase(layers.begin() + ib);
    layers.insert(layers.begin() + earliest, std::move(moved));
  }
}

}  // namespace kapla::io
