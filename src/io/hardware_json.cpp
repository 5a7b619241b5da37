// Hardware file readers for both formats, then model::validate with its field names mapped back
// to the file's keys.
#include "io/hardware_json.hpp"

#include <array>
#include <limits>
#include <string_view>
#include <utility>

#include "core/errors.hpp"
#include "io/json_util.hpp"

namespace kapla::io {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 6> kReferenceKeys{"word_bit", "op_cost", "DRAM",
                                                         "GBUF",     "ITCN",    "REGF"};
constexpr std::array<std::string_view, 6> kOwnKeys{"nodes",      "pe_array", "gbuf_bytes",
                                                   "regf_bytes", "costs",    "word_bits"};
constexpr std::string_view kUnlimited = "unlimited";

// model::validate field name -> key path in a file, one table per format.
using FieldMap = std::array<std::pair<std::string_view, std::string_view>, 16>;

constexpr FieldMap kOwnFields{{
    {"nodes.h", "nodes"},
    {"nodes.w", "nodes"},
    {"pe_array.h", "pe_array"},
    {"pe_array.w", "pe_array"},
    {"word_bits", "word_bits"},
    {"gbuf_bytes", "gbuf_bytes"},
    {"regf_bytes", "regf_bytes"},
    {"array_bus_width_bits", "array_bus_width_bits"},
    {"dram_bandwidth_bytes_per_cycle", "dram_bandwidth_bytes_per_cycle"},
    {"costs.mac_op", "costs.mac_op"},
    {"costs.mem_hier.DRAM", "costs.dram_access"},
    {"costs.mem_hier.GBUF", "costs.gbuf_access"},
    {"costs.mem_hier.ITCN", "costs.itcn_access"},
    {"costs.mem_hier.REGF", "costs.regf_access"},
    {"costs.noc_hop", "costs.noc_hop"},
    {"costs.idl_unit", "costs.idle_per_cycle"},
}};

constexpr FieldMap kReferenceFields{{
    {"nodes.h", "GBUF.array"},
    {"nodes.w", "GBUF.array"},
    {"pe_array.h", "REGF.array"},
    {"pe_array.w", "REGF.array"},
    {"word_bits", "word_bit"},
    {"gbuf_bytes", "GBUF.size"},
    {"regf_bytes", "REGF.size"},
    {"array_bus_width_bits", "DRAM.bus_width"},
    {"dram_bandwidth_bytes_per_cycle", "DRAM.bandwidth"},
    {"costs.mac_op", "op_cost"},
    {"costs.mem_hier.DRAM", "DRAM.access_cost"},
    {"costs.mem_hier.GBUF", "GBUF.access_cost"},
    {"costs.mem_hier.ITCN", "ITCN.access_cost"},
    {"costs.mem_hier.REGF", "REGF.access_cost"},
    {"costs.noc_hop", "GBUF.hop_cost"},
    {"costs.idl_unit", "GBUF.idle_cost"},
}};

template <std::size_t N>
bool has_any(const json& doc, const std::array<std::string_view, N>& keys) {
  if (!doc.is_object()) return false;
  for (auto k : keys) {
    if (doc.contains(k)) return true;
  }
  return false;
}

// model::validate says "FIELD: reason"; report the file's key for FIELD instead.
void validate_in_file_terms(const model::Hardware& hw, const FieldMap& fields) {
  try {
    model::validate(hw);
  } catch (const InputError& e) {
    const std::string what = e.what();
    const auto colon = what.find(": ");
    if (colon != std::string::npos) {
      const std::string_view field = std::string_view(what).substr(0, colon);
      for (const auto& [model_field, key] : fields) {
        if (model_field == field) fail(std::string(key), what.substr(colon + 2));
      }
    }
    throw;
  }
}

model::MemoryType read_mem_type(const json& value, const std::string& path) {
  const std::string s = as_string(value, path);
  if (s == "2D") return model::MemoryType::TwoD;
  if (s == "3D") return model::MemoryType::ThreeD;
  fail(path, "must be \"2D\" (DRAM at the four corners) or \"3D\" (DRAM above every node), got " +
                 brief(value));
}

double non_negative(const JsonObject& o, std::string_view key) {
  const double v = o.number(key);
  if (v < 0) fail(o.path_of(key), "must be non-negative, got " + brief(o.at(key)));
  return v;
}

model::UnitCosts read_costs(const json& value) {
  const JsonObject o(value, "costs",
                     {"energy_unit", "mac_op", "dram_access", "gbuf_access", "itcn_access",
                      "regf_access", "noc_hop", "idle_per_cycle"});
  // The unit is for the reader: the model works in whatever unit the numbers are in.
  const std::string unit = o.string("energy_unit");
  if (unit != "joule" && unit != "relative") {
    fail(o.path_of("energy_unit"),
         "must be \"joule\" or \"relative\", got " + brief(o.at("energy_unit")));
  }
  model::UnitCosts c;
  c.mac_op = non_negative(o, "mac_op");
  c.mem_hier[MemLevel::Dram] = non_negative(o, "dram_access");
  c.mem_hier[MemLevel::Gbuf] = non_negative(o, "gbuf_access");
  c.mem_hier[MemLevel::Itcn] = non_negative(o, "itcn_access");
  c.mem_hier[MemLevel::Regf] = non_negative(o, "regf_access");
  c.noc_hop = non_negative(o, "noc_hop");
  c.idl_unit = non_negative(o, "idle_per_cycle");
  return c;
}

// The optional technology section (docs/codesign.md): areas in um^2, energies in pJ, every
// figure required; model::validate checks the ranges under the same key names.
model::Technology read_technology(const json& value) {
  const JsonObject o(value, "technology", {"source", "area_um2", "energy_pj"});
  model::Technology t;
  t.source = o.string("source");
  if (t.source.empty())
    fail(o.path_of("source"), "must not be empty (say where the figures come from)");
  const JsonObject area(o.at("area_um2"), o.path_of("area_um2"),
                        {"mac", "regf_word", "gbuf_word", "router"});
  t.area = {area.number("mac"), area.number("regf_word"), area.number("gbuf_word"),
            area.number("router")};
  const JsonObject energy(o.at("energy_pj"), o.path_of("energy_pj"),
                          {"mac", "dram", "regf", "gbuf", "itcn", "noc_hop", "idle_per_cycle"});
  auto scaled = [&energy](std::string_view key) {
    const JsonObject s(energy.at(key), energy.path_of(key), {"pj", "at_words"});
    return model::ScaledEnergy{s.number("pj"), s.positive_int("at_words")};
  };
  t.energy.mac_pj = energy.number("mac");
  t.energy.dram_pj = energy.number("dram");
  t.energy.regf = scaled("regf");
  t.energy.gbuf = scaled("gbuf");
  t.energy.itcn_pj = energy.number("itcn");
  t.energy.noc_hop_pj = energy.number("noc_hop");
  t.energy.idle_pj_per_cycle = energy.number("idle_per_cycle");
  return t;
}

model::HardwareFeatures read_features(const json& value) {
  const JsonObject o(value, "features", {"access_forwarding", "gbuf_sharing", "save_writeback"});
  return {o.boolean("access_forwarding"), o.boolean("gbuf_sharing"), o.boolean("save_writeback")};
}

// Optional keys default to the model's values (word_bits 16, unlimited bus and DRAM bandwidth,
// 2D memory, row-stationary PE arrays, all features); everything else is required.
model::Hardware read_own_format(const json& doc) {
  const JsonObject o(doc, "",
                     {"name", "source", "nodes", "pe_array", "gbuf_bytes", "regf_bytes",
                      "word_bits", "array_bus_width_bits", "dram_bandwidth_bytes_per_cycle",
                      "mem_type", "array_mapping", "costs", "technology", "features"});
  model::Hardware hw;
  hw.name = o.string("name");
  if (hw.name.empty()) fail("name", "must not be empty");
  hw.source = o.string("source");
  if (hw.source.empty()) fail("source", "must not be empty (say where the numbers come from)");
  hw.nodes = o.positive_dim("nodes");
  hw.pe_array = o.positive_dim("pe_array");
  hw.gbuf_bytes = o.positive_int("gbuf_bytes");
  hw.regf_bytes = o.positive_int("regf_bytes");
  if (o.has("word_bits")) hw.word_bits = o.positive_int("word_bits");
  if (o.has("array_bus_width_bits")) {
    const json& v = o.at("array_bus_width_bits");
    if (v.is_string()) {
      if (v.get<std::string>() != kUnlimited) {
        fail("array_bus_width_bits",
             "must be a positive integer or \"unlimited\", got " + brief(v));
      }
      hw.array_bus_width_bits = 0;  // the model's "unlimited"
    } else {
      hw.array_bus_width_bits = as_positive_int(v, "array_bus_width_bits");
    }
  }
  if (o.has("dram_bandwidth_bytes_per_cycle")) {
    const json& v = o.at("dram_bandwidth_bytes_per_cycle");
    if (v.is_string()) {
      if (v.get<std::string>() != kUnlimited) {
        fail("dram_bandwidth_bytes_per_cycle",
             "must be a positive number or \"unlimited\", got " + brief(v));
      }
      hw.dram_bandwidth_bytes_per_cycle = std::numeric_limits<double>::infinity();
    } else {
      hw.dram_bandwidth_bytes_per_cycle = as_number(v, "dram_bandwidth_bytes_per_cycle");
      if (!(hw.dram_bandwidth_bytes_per_cycle > 0)) {
        fail("dram_bandwidth_bytes_per_cycle", "must be positive, got " + brief(v));
      }
    }
  }
  if (o.has("mem_type")) hw.mem_type = read_mem_type(o.at("mem_type"), "mem_type");
  if (o.has("array_mapping")) {
    const std::string m = o.string("array_mapping");
    if (m != "row_stationary" && m != "systolic") {
      fail("array_mapping",
           "must be \"row_stationary\" or \"systolic\", got " + brief(o.at("array_mapping")));
    }
    hw.array_mapping = model::parse_array_mapping(m);
  }
  if (o.has("technology")) {
    // One source of energies: the technology derives them, so costs would be a second one.
    if (o.has("costs")) {
      fail("costs", "must be absent when \"technology\" is given (it derives the costs)");
    }
    hw.technology = read_technology(o.at("technology"));
    hw.energy_in_joules = true;
  } else {
    hw.costs = read_costs(o.at("costs"));
    hw.energy_in_joules = o.at("costs").at("energy_unit") == "joule";  // read_costs checked it
  }
  if (o.has("features")) hw.features = read_features(o.at("features"));
  // Derived before validation, so that validation sees the costs the model will use.
  if (hw.technology) hw.costs = model::technology_costs(hw);
  validate_in_file_terms(hw, kOwnFields);
  return hw;
}

// The reference's parse_hardware reads every key below except DRAM.size and the three feature
// flags, which it ignores; here the flags fill model::HardwareFeatures when present.
model::Hardware read_reference_format(const json& doc, const std::string& origin,
                                      const std::string& name) {
  const JsonObject o(doc, "",
                     {"word_bit", "op_cost", "access_forwarding", "gbuf_sharing",
                      "gbuf_save_writeback", "DRAM", "GBUF", "ITCN", "REGF"});
  const JsonObject dram(o.at("DRAM"), "DRAM", {"size", "access_cost", "bandwidth", "bus_width"});
  const JsonObject gbuf(o.at("GBUF"), "GBUF",
                        {"size", "array", "access_cost", "hop_cost", "idle_cost", "mem_type"});
  const JsonObject itcn(o.at("ITCN"), "ITCN", {"access_cost"});
  const JsonObject regf(o.at("REGF"), "REGF", {"size", "access_cost", "array"});

  model::Hardware hw;
  hw.name = name;
  hw.source = "KAPLA reference hardware file (nn_dataflow/hardwares format): " + origin;
  hw.word_bits = o.positive_int("word_bit");
  hw.nodes = as_positive_pair(gbuf.at("array"), "GBUF.array");
  hw.pe_array = as_positive_pair(regf.at("array"), "REGF.array");
  hw.gbuf_bytes = gbuf.positive_int("size");
  hw.regf_bytes = regf.positive_int("size");
  if (dram.has("size") && !dram.at("size").is_null()) as_number(dram.at("size"), "DRAM.size");
  hw.dram_bandwidth_bytes_per_cycle = dram.number("bandwidth");
  // bus_width 0 means unlimited in the reference, as in the model.
  hw.array_bus_width_bits = as_int(dram.at("bus_width"), "DRAM.bus_width");
  hw.mem_type = read_mem_type(gbuf.at("mem_type"), "GBUF.mem_type");
  hw.costs.mac_op = o.number("op_cost");
  hw.costs.mem_hier[MemLevel::Dram] = dram.number("access_cost");
  hw.costs.mem_hier[MemLevel::Gbuf] = gbuf.number("access_cost");
  hw.costs.mem_hier[MemLevel::Itcn] = itcn.number("access_cost");
  hw.costs.mem_hier[MemLevel::Regf] = regf.number("access_cost");
  hw.costs.noc_hop = gbuf.number("hop_cost");
  hw.costs.idl_unit = gbuf.number("idle_cost");
  hw.energy_in_joules = true;  // the KAPLA code's hardware files give joules (= the presets)
  if (o.has("access_forwarding")) hw.features.access_forwarding = o.boolean("access_forwarding");
  if (o.has("gbuf_sharing")) hw.features.gbuf_sharing = o.boolean("gbuf_sharing");
  if (o.has("gbuf_save_writeback")) {
    hw.features.save_writeback = o.boolean("gbuf_save_writeback");
  }
  validate_in_file_terms(hw, kReferenceFields);
  return hw;
}

}  // namespace

bool is_reference_hardware_document(const json& doc) { return has_any(doc, kReferenceKeys); }

bool is_hardware_document(const json& doc) {
  return is_reference_hardware_document(doc) || has_any(doc, kOwnKeys);
}

model::Hardware parse_hardware(const json& doc, const std::string& origin,
                               const std::string& default_name) {
  try {
    return is_reference_hardware_document(doc) ? read_reference_format(doc, origin, default_name)
                                               : read_own_format(doc);
  } catch (const InputError& e) {
    throw InputError(origin + ": " + e.what());
  }
}

model::Hardware load_hardware_file(const std::filesystem::path& file) {
  return parse_hardware(read_json_file(file), file.string(), file.stem().string());
}

}  // namespace kapla::io
