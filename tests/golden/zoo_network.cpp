#include "zoo_network.hpp"

#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>

#include "io/network_json.hpp"

namespace kapla::test {

using nlohmann::json;

const json& zoo_table(const std::string& file) {
  static std::mutex mu;
  static std::map<std::string, json> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(file);
  if (it == cache.end()) {
    std::ifstream in(std::string(KAPLA_TEST_DATA_DIR) + "/" + file);
    if (!in) throw std::runtime_error("cannot open tests/data/" + file);
    it = cache.emplace(file, json::parse(in)).first;
  }
  return it->second;
}

std::vector<std::string> zoo_network_names(const std::string& file) {
  std::vector<std::string> out;
  for (const auto& [name, rec] : zoo_table(file).at("networks").items()) out.push_back(name);
  return out;
}

namespace {

// The network-file keys of each zoo type tag (see io/network_json.cpp signatures).
std::vector<std::string> keys_of(const std::string& type) {
  if (type == "Conv" || type == "ConvBackAct" || type == "ConvBackWeight")
    return {"nifm", "nofm", "sofm", "sfil", "strd"};
  if (type == "FC" || type == "FCBackAct" || type == "FCBackWeight")
    return {"nifm", "nofm", "sfil"};
  if (type == "DWConv" || type == "DWConvBackAct" || type == "DWConvBackWeight")
    return {"nofm", "sofm", "sfil", "strd"};
  if (type == "LocalRegion" || type == "LocalRegionBack")
    return {"nofm", "sofm", "nreg", "sreg", "ntrd", "strd"};
  if (type == "Pooling" || type == "PoolingBack") return {"nofm", "sofm", "sreg", "strd"};
  if (type == "Eltwise" || type == "EltwiseBack") return {"nofm", "sofm", "nreg"};
  throw std::runtime_error("zoo: unknown layer type " + type);
}

}  // namespace

model::Network zoo_network(const std::string& file, const std::string& name) {
  const json& rec = zoo_table(file).at("networks").at(name);
  json doc;
  doc["name"] = name;
  doc["source"] = "tests/data/" + file;
  doc["input"] = {{"nofm", rec.at("input").at("nofm")}, {"sofm", rec.at("input").at("sofm")}};
  doc["externals"] = json::array();
  for (const auto& e : rec.at("ext_layers")) {
    doc["externals"].push_back(
        {{"name", e.at("name")}, {"nofm", e.at("nofm")}, {"sofm", e.at("sofm")}});
  }
  doc["layers"] = json::array();
  for (const auto& l : rec.at("layers")) {
    json out;
    out["name"] = l.at("name");
    const std::string type = l.at("type");
    out["type"] = type;
    for (const auto& k : keys_of(type)) out[k] = l.at(k);
    out["prevs"] = l.at("prevs");
    doc["layers"].push_back(out);
  }
  return io::parse_network(doc, "tests/data/" + file + ":" + name);
}

model::Network zoo_network(const std::string& name) {
  if (zoo_table("nn_zoo.json").at("networks").contains(name))
    return zoo_network("nn_zoo.json", name);
  return zoo_network("nn_zoo_kapla.json", name);
}

}  // namespace kapla::test
