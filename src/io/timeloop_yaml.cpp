// Timeloop problem YAML <-> one kapla layer, with yaml-cpp (Debian's libyaml-cpp-dev).
#include "io/timeloop_yaml.hpp"

#include <sstream>

#include <yaml-cpp/yaml.h>

#include "core/errors.hpp"
#include "io/json_util.hpp"
#include "model/limits.hpp"

namespace kapla::io {
namespace {

// A dimension of the instance; one absent from it is 1 (Timeloop's default). Bounded by the
// model's limit for what it becomes (channels, fmap side, window side) before the derived
// input size multiplies it.
std::int64_t dim(const YAML::Node& instance, const std::string& key, const std::string& origin,
                 std::int64_t max) {
  const YAML::Node v = instance[key];
  if (!v) return 1;
  std::int64_t x = 0;
  try {
    x = v.as<std::int64_t>();
  } catch (const YAML::Exception&) {
    throw InputError(origin + ": problem.instance." + key + ": must be an integer");
  }
  if (x <= 0) {
    throw InputError(origin + ": problem.instance." + key + ": must be positive, got " +
                     std::to_string(x));
  }
  if (x > max) {
    throw InputError(origin + ": problem.instance." + key + ": must be at most " +
                     std::to_string(max) + ", got " + std::to_string(x));
  }
  return x;
}

nlohmann::json dims_json(std::int64_t h, std::int64_t w) {
  return h == w ? nlohmann::json(h) : nlohmann::json::array({h, w});
}

}  // namespace

bool is_yaml_path(const std::filesystem::path& file) {
  return file.extension() == ".yaml" || file.extension() == ".yml";
}

nlohmann::json import_timeloop_problem(const std::filesystem::path& file, const std::string& name) {
  const std::string origin = file.string();
  const std::string text = read_text_file(file);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(origin + ": line " + std::to_string(e.mark.line + 1) +
                     ": malformed YAML: " + e.msg);
  }
  const YAML::Node problem = root.IsMap() ? root["problem"] : YAML::Node();
  if (!problem || !problem.IsMap()) throw InputError(origin + ": problem: missing");
  const YAML::Node instance = problem["instance"];
  if (!instance || !instance.IsMap()) throw InputError(origin + ": problem.instance: missing");
  std::string shape = "CNN-Layer";
  const YAML::Node shape_node = problem["shape"];
  if (shape_node && shape_node.IsMap() && shape_node["name"]) {
    try {
      shape = shape_node["name"].as<std::string>();
    } catch (const YAML::Exception&) {
      throw InputError(origin + ": problem.shape.name: must be a string");
    }
  }
  nlohmann::json layer = {{"name", name}};
  nlohmann::json input;
  if (shape == "CNN-Layer" || shape == "CNN_Layer") {
    using namespace model::limits;
    const std::int64_t c = dim(instance, "C", origin, kMaxChannels);
    const std::int64_t m = dim(instance, "M", origin, kMaxChannels);
    const std::int64_t r = dim(instance, "R", origin, kMaxWindowSide);
    const std::int64_t s = dim(instance, "S", origin, kMaxWindowSide);
    const std::int64_t p = dim(instance, "P", origin, kMaxFmapSide);
    const std::int64_t q = dim(instance, "Q", origin, kMaxFmapSide);
    const std::int64_t ws = dim(instance, "Wstride", origin, kMaxWindowSide);
    const std::int64_t hs = dim(instance, "Hstride", origin, kMaxWindowSide);
    dim(instance, "N", origin, kMaxBatch);  // not kept, but checked as any batch
    for (const char* k : {"Wdilation", "Hdilation", "G"}) {
      if (dim(instance, k, origin, kMaxChannels) != 1) {
        throw InputError(origin + ": problem.instance." + k + ": only 1 is supported");
      }
    }
    // kapla gives height first: an S x R filter, a Q x P output.
    layer.update({{"type", "Conv"},
                  {"nifm", c},
                  {"nofm", m},
                  {"sofm", dims_json(q, p)},
                  {"sfil", dims_json(s, r)}});
    if (hs != 1 || ws != 1) layer["strd"] = dims_json(hs, ws);
    input = {{"nofm", c}, {"sofm", dims_json((q - 1) * hs + s, (p - 1) * ws + r)}};
  } else if (shape == "GEMM" || shape == "Gemm" || shape == "MatMul") {
    using namespace model::limits;
    const std::int64_t m = dim(instance, "M", origin, kMaxFmapSide);
    const std::int64_t n = dim(instance, "N", origin, kMaxChannels);
    const std::int64_t k = dim(instance, "K", origin, kMaxChannels);
    layer.update(
        {{"type", "Conv"}, {"nifm", k}, {"nofm", n}, {"sofm", dims_json(1, m)}, {"sfil", 1}});
    input = {{"nofm", k}, {"sofm", dims_json(1, m)}};
  } else {
    throw InputError(origin + ": problem.shape.name: '" + shape +
                     "' is not supported (CNN-Layer or GEMM)");
  }
  layer["prevs"] = nlohmann::json::array({nullptr});
  return {{"name", name},
          {"source", "Timeloop problem " + origin},
          {"input", input},
          {"externals", nlohmann::json::array()},
          {"layers", nlohmann::json::array({layer})}};
}

std::string export_timeloop_problem(const model::Layer& l, const std::string& name,
                                    std::int64_t batch) {
  using model::LayerType;
  std::ostringstream out;
  out << "# " << name << " (kapla: " << model::describe(l) << ")\n";
  if (l.type == LayerType::Conv || l.type == LayerType::FC) {
    out << "problem:\n  shape:\n    name: CNN-Layer\n  instance:\n"
        << "    C: " << l.nifm << "\n    M: " << l.nofm << "\n    R: " << l.sfil.w
        << "\n    S: " << l.sfil.h << "\n    N: " << batch << "\n    P: " << l.sofm.w
        << "\n    Q: " << l.sofm.h << "\n    Wstride: " << l.strd.w << "\n    Hstride: " << l.strd.h
        << "\n";
  } else if (l.type == LayerType::MatMul && l.nhead == 1 && batch == 1) {
    out << "problem:\n  shape:\n    name: GEMM\n  instance:\n"
        << "    M: " << l.sofm.w << "\n    N: " << l.nofm << "\n    K: " << l.nifm << "\n";
  } else {
    throw InputError("layer '" + name + "': " + std::string(model::type_name(l.type)) +
                     " has no Timeloop problem shape here (CNN-Layer: Conv, FC; GEMM: a "
                     "one-head MatMul at batch 1)");
  }
  return out.str();
}

}  // namespace kapla::io
