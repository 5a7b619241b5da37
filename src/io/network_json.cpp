// Network file reader: strict keys per layer type, then the model factories and NetworkBuilder,
// whose errors are re-raised with the file and the key path.
#include "io/network_json.hpp"

#include <algorithm>

#include "core/errors.hpp"
#include "io/json_util.hpp"
#include "io/onnx_import.hpp"

namespace kapla::io {
namespace {

using model::LayerType;
using nlohmann::json;

// Layer types that share a constructor signature.
enum class Signature {
  Filter,
  FullyConnected,
  Depthwise,
  Region,
  Pooling,
  Eltwise,
  MatMul,
  Activation
};

Signature signature_of(LayerType t) {
  switch (t) {
    case LayerType::Conv:
    case LayerType::ConvBackAct:
    case LayerType::ConvBackWeight:
      return Signature::Filter;
    case LayerType::FC:
    case LayerType::FCBackAct:
    case LayerType::FCBackWeight:
      return Signature::FullyConnected;
    case LayerType::DWConv:
    case LayerType::DWConvBackAct:
    case LayerType::DWConvBackWeight:
      return Signature::Depthwise;
    case LayerType::LocalRegion:
    case LayerType::LocalRegionBack:
      return Signature::Region;
    case LayerType::Pooling:
    case LayerType::PoolingBack:
      return Signature::Pooling;
    case LayerType::Eltwise:
    case LayerType::EltwiseBack:
      return Signature::Eltwise;
    case LayerType::MatMul:
      return Signature::MatMul;
    case LayerType::Softmax:
    case LayerType::LayerNorm:
    case LayerType::GELU:
      return Signature::Activation;
  }
  throw InternalError("signature_of: unhandled layer type");
}

// The keys a layer of this signature may have: its constructor's parameters plus name, type
// and prevs. Derived values (sifm, nifm of region kinds) are not accepted: one source of truth.
std::vector<std::string_view> layer_keys(Signature s) {
  switch (s) {
    case Signature::Filter:
      return {"name", "type", "nifm", "nofm", "sofm", "sfil", "strd", "prevs"};
    case Signature::FullyConnected:
      return {"name", "type", "nifm", "nofm", "sfil", "prevs"};
    case Signature::Depthwise:
      return {"name", "type", "nofm", "sofm", "sfil", "strd", "prevs"};
    case Signature::Region:
      return {"name", "type", "nofm", "sofm", "nreg", "sreg", "ntrd", "strd", "prevs"};
    case Signature::Pooling:
      return {"name", "type", "nofm", "sofm", "sreg", "strd", "prevs"};
    case Signature::Eltwise:
      return {"name", "type", "nofm", "sofm", "nreg", "prevs"};
    case Signature::MatMul:
      return {"name", "type", "m", "k", "n", "heads", "prevs"};
    case Signature::Activation:
      return {"name", "type", "nofm", "sofm", "heads", "prevs"};
  }
  throw InternalError("layer_keys: unhandled signature");
}

PhyDim2 dim_or(const JsonObject& o, std::string_view key, PhyDim2 fallback) {
  return o.has(key) ? o.positive_dim(key) : fallback;
}

std::int64_t int_or(const JsonObject& o, std::string_view key, std::int64_t fallback) {
  return o.has(key) ? o.positive_int(key) : fallback;
}

// A layer's constructor parameters as read from the file; those of other signatures stay unset.
struct LayerParams {
  std::int64_t nifm = 0;
  std::int64_t nofm = 0;
  PhyDim2 sofm;
  PhyDim2 sfil;
  std::int64_t nreg = 0;
  PhyDim2 sreg;
  std::int64_t ntrd = 1;
  PhyDim2 strd{1, 1};
  std::int64_t m = 0, k = 0, n = 0;  // MatMul
  std::int64_t heads = 1;            // transformer kinds
};

// Reads in constructor order, so that the first bad parameter is the one reported.
LayerParams read_params(Signature s, const JsonObject& o) {
  LayerParams p;
  if (s == Signature::MatMul) {
    p.m = o.positive_int("m");
    p.k = o.positive_int("k");
    p.n = o.positive_int("n");
    p.heads = int_or(o, "heads", 1);
    return p;
  }
  if (s == Signature::Filter || s == Signature::FullyConnected) p.nifm = o.positive_int("nifm");
  p.nofm = o.positive_int("nofm");
  if (s != Signature::FullyConnected) p.sofm = o.positive_dim("sofm");
  switch (s) {
    case Signature::Filter:
    case Signature::Depthwise:
      p.sfil = o.positive_dim("sfil");
      p.strd = dim_or(o, "strd", {1, 1});
      break;
    case Signature::FullyConnected:
      p.sfil = dim_or(o, "sfil", {1, 1});
      break;
    case Signature::Region:
      p.nreg = o.positive_int("nreg");
      p.sreg = o.positive_dim("sreg");
      p.ntrd = int_or(o, "ntrd", 1);
      p.strd = dim_or(o, "strd", {1, 1});
      break;
    case Signature::Pooling:
      p.sreg = o.positive_dim("sreg");
      p.strd = dim_or(o, "strd", p.sreg);  // the reference's default: stride = window
      break;
    case Signature::Eltwise:
      p.nreg = o.positive_int("nreg");
      break;
    case Signature::Activation:
      p.heads = int_or(o, "heads", 1);
      break;
    case Signature::MatMul:
      break;  // read above
  }
  return p;
}

// The model factory of the type; it checks what the file format cannot (e.g. a back layer's
// window must fit its output) and throws InputError("FIELD: reason").
model::Layer make_layer(LayerType type, const LayerParams& p) {
  using namespace model;
  switch (type) {
    case LayerType::Conv:
      return make_conv(p.nifm, p.nofm, p.sofm, p.sfil, p.strd);
    case LayerType::ConvBackAct:
      return make_conv_back_act(p.nifm, p.nofm, p.sofm, p.sfil, p.strd);
    case LayerType::ConvBackWeight:
      return make_conv_back_weight(p.nifm, p.nofm, p.sofm, p.sfil, p.strd);
    case LayerType::FC:
      return make_fc(p.nifm, p.nofm, p.sfil);
    case LayerType::FCBackAct:
      return make_fc_back_act(p.nifm, p.nofm, p.sfil);
    case LayerType::FCBackWeight:
      return make_fc_back_weight(p.nifm, p.nofm, p.sfil);
    case LayerType::DWConv:
      return make_dwconv(p.nofm, p.sofm, p.sfil, p.strd);
    case LayerType::DWConvBackAct:
      return make_dwconv_back_act(p.nofm, p.sofm, p.sfil, p.strd);
    case LayerType::DWConvBackWeight:
      return make_dwconv_back_weight(p.nofm, p.sofm, p.sfil, p.strd);
    case LayerType::LocalRegion:
      return make_local_region(p.nofm, p.sofm, p.nreg, p.sreg, p.ntrd, p.strd);
    case LayerType::LocalRegionBack:
      return make_local_region_back(p.nofm, p.sofm, p.nreg, p.sreg, p.ntrd, p.strd);
    case LayerType::Pooling:
      return make_pooling(p.nofm, p.sofm, p.sreg, p.strd);
    case LayerType::PoolingBack:
      return make_pooling_back(p.nofm, p.sofm, p.sreg, p.strd);
    case LayerType::Eltwise:
      return make_eltwise(p.nofm, p.sofm, p.nreg);
    case LayerType::EltwiseBack:
      return make_eltwise_back(p.nofm, p.sofm, p.nreg);
    case LayerType::MatMul:
      return make_matmul(p.m, p.k, p.n, p.heads);
    case LayerType::Softmax:
      return make_softmax(p.nofm, p.sofm, p.heads);
    case LayerType::LayerNorm:
      return make_layernorm(p.nofm, p.sofm, p.heads);
    case LayerType::GELU:
      return make_gelu(p.nofm, p.sofm, p.heads);
  }
  throw InternalError("make_layer: unhandled layer type");
}

// "prevs": absent = the previous layer (empty list for the builder), null = the network input,
// or a non-empty list of names in which null stands for the network input.
std::vector<std::string> read_prevs(const JsonObject& o) {
  if (!o.has("prevs")) return {};
  const std::string path = o.path_of("prevs");
  const json& value = o.at("prevs");
  const std::string input(model::NetworkBuilder::kNetworkInput);
  if (value.is_null()) return {input};
  if (!value.is_array() || value.empty()) {
    fail(path,
         "must be null (the network input) or a non-empty list of names, got " + brief(value));
  }
  std::vector<std::string> prevs;
  for (std::size_t k = 0; k < value.size(); ++k) {
    const std::string item_path = index_path(path, k);
    if (value[k].is_null()) {
      prevs.push_back(input);
      continue;
    }
    std::string name = as_string(value[k], item_path);
    if (name.empty() || name == input) {
      fail(item_path,
           "must be a layer or external name (null for the network input), got " + brief(value[k]));
    }
    prevs.push_back(std::move(name));
  }
  return prevs;
}

// The model reports "layer 'x': FIELD: reason" or "external 'x': FIELD: reason"; the file's key
// path already says which entry it is.
std::string without_subject(const std::string& message) {
  for (std::string_view subject : {"layer '", "external '"}) {
    if (message.rfind(subject, 0) != 0) continue;
    const auto end = message.find("': ", subject.size());
    if (end != std::string::npos) return message.substr(end + 3);
  }
  return message;
}

void add_layer(model::NetworkBuilder& builder, const json& value, const std::string& path) {
  std::string name;
  try {
    const JsonObject layer(value, path);
    name = layer.string("name");
    if (name.empty()) fail(layer.path_of("name"), "must not be empty");
    const std::string tag = layer.string("type");
    LayerType type{};
    try {
      type = model::parse_layer_type(tag);
    } catch (const InputError& e) {
      rethrow_at(path, e);
    }
    layer.check_keys(layer_keys(signature_of(type)));
    const LayerParams params = read_params(signature_of(type), layer);
    model::Layer built;
    try {
      built = make_layer(type, params);
    } catch (const InputError& e) {
      rethrow_at(path, e);
    }
    std::vector<std::string> prevs = read_prevs(layer);
    try {
      builder.add(name, built, std::move(prevs));
    } catch (const InputError& e) {
      rethrow_at(path, InputError(without_subject(e.what())));
    }
  } catch (const InputError& e) {
    if (name.empty()) throw;
    throw InputError(std::string(e.what()) + " (layer '" + name + "')");
  }
}

model::InputSpec read_input(const JsonObject& o, std::string name = {}) {
  return {std::move(name), o.positive_int("nofm"), o.positive_dim("sofm")};
}

model::Network build_network(const json& doc) {
  const JsonObject top(doc, "", {"name", "source", "input", "externals", "layers"});
  const std::string name = top.string("name");
  if (name.empty()) fail("name", "must not be empty");
  const std::string source = top.string("source");
  if (source.empty()) fail("source", "must not be empty (cite the paper)");
  const JsonObject input(top.at("input"), "input", {"nofm", "sofm"});
  model::NetworkBuilder builder(name, source, read_input(input));

  if (top.has("externals")) {
    const auto& externals = as_array(top.at("externals"), "externals");
    for (std::size_t i = 0; i < externals.size(); ++i) {
      const std::string path = index_path("externals", i);
      const JsonObject ext(externals[i], path, {"name", "nofm", "sofm"});
      std::string ext_name = ext.string("name");
      if (ext_name.empty() || ext_name == model::NetworkBuilder::kNetworkInput) {
        fail(ext.path_of("name"), "must be a non-empty name other than " +
                                      std::string(model::NetworkBuilder::kNetworkInput));
      }
      model::InputSpec spec = read_input(ext, std::move(ext_name));
      try {
        builder.add_external(std::move(spec));
      } catch (const InputError& e) {
        rethrow_at(path, InputError(without_subject(e.what())));
      }
    }
  }

  const auto& layers = as_array(top.at("layers"), "layers");
  if (layers.empty()) fail("layers", "a network needs at least one layer");
  for (std::size_t i = 0; i < layers.size(); ++i) {
    add_layer(builder, layers[i], index_path("layers", i));
  }
  return std::move(builder).build();
}

}  // namespace

bool is_network_document(const json& doc) { return doc.is_object() && doc.contains("layers"); }

model::Network parse_network(const json& doc, const std::string& origin) {
  try {
    return build_network(doc);
  } catch (const InputError& e) {
    throw InputError(origin + ": " + e.what());
  }
}

namespace {

// A value on one line with ", " between items, as scripts/dev/import_zoo.py writes them.
std::string one_line(const json& v) {
  if (!v.is_array()) return v.dump();
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + one_line(v[i]);
  return out + "]";
}

std::string one_line_object(const json& obj) {
  static constexpr std::string_view kOrder[] = {"name", "type", "m",    "k",    "n",
                                                "nifm", "nofm", "sofm", "sfil", "sreg",
                                                "nreg", "ntrd", "strd", "heads"};
  std::vector<std::string> keys;
  for (auto k : kOrder) {
    if (obj.contains(k)) keys.emplace_back(k);
  }
  for (const auto& [k, v] : obj.items()) {
    if (k != "prevs" && std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  }
  if (obj.contains("prevs")) keys.emplace_back("prevs");
  std::string out = "{";
  for (std::size_t i = 0; i < keys.size(); ++i) {
    out += (i ? ", " : "") + json(keys[i]).dump() + ": " + one_line(obj.at(keys[i]));
  }
  return out + "}";
}

std::string one_line_list(const json& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i ? ",\n    " : "    ") + one_line_object(items[i]);
  }
  return out;
}

}  // namespace

std::string render_network_document(const json& doc) {
  std::string out = "{\n";
  out += "  \"name\": " + doc.at("name").dump() + ",\n";
  out += "  \"source\": " + doc.at("source").dump() + ",\n";
  out += "  \"input\": " + one_line_object(doc.at("input")) + ",\n";
  const json& ext = doc.contains("externals") ? doc.at("externals") : json::array();
  out += ext.empty() ? std::string("  \"externals\": [],\n")
                     : "  \"externals\": [\n" + one_line_list(ext) + "\n  ],\n";
  out += "  \"layers\": [\n" + one_line_list(doc.at("layers")) + "\n  ]\n}\n";
  return out;
}

model::Network load_network_file(const std::filesystem::path& file) {
  if (is_model_path(file)) return parse_network(import_model_file(file).network, file.string());
  return parse_network(read_json_file(file), file.string());
}

}  // namespace kapla::io
