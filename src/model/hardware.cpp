// Hardware validation.
#include "model/hardware.hpp"

#include <cmath>

#include "core/errors.hpp"
#include "model/limits.hpp"
#include "model/network.hpp"

namespace kapla::model {

std::string_view array_mapping_name(ArrayMapping m) {
  return m == ArrayMapping::Systolic ? "systolic" : "row_stationary";
}

ArrayMapping parse_array_mapping(std::string_view s) {
  if (s == "row_stationary" || s == "eyeriss") return ArrayMapping::RowStationary;
  if (s == "systolic") return ArrayMapping::Systolic;
  throw InputError(
      "array_mapping: must be \"row_stationary\" (or \"eyeriss\") or \"systolic\", got \"" +
      std::string(s) + "\"");
}

void check_array_mapping(const Hardware& hw, const Network& net, CostModelVariant variant) {
  if (hw.array_mapping != ArrayMapping::Systolic) return;
  if (variant != CostModelVariant::Kapla) {
    throw InputError("array_mapping: hardware '" + hw.name +
                     "' is systolic, which exists only under --cost-model kapla (upstream "
                     "nn_dataflow has no systolic mapping)");
  }
  for (std::size_t i = 0; i < net.size(); ++i) {
    if (net.layer(i).is_back()) {
      throw InputError("array_mapping: hardware '" + hw.name +
                       "' is systolic, which has no "
                       "back-propagation support, but layer '" +
                       net.layer_name(i) + "' of '" + net.name() + "' is a " +
                       std::string(type_name(net.layer(i).type)));
    }
  }
}

void validate(const UnitCosts& c) {
  using limits::check_real;
  check_real("costs.mac_op", c.mac_op, 0, limits::kMaxUnitCost);
  for (auto me : all_values<MemLevel>()) {
    check_real("costs.mem_hier." + std::string(name_of(me)), c.mem_hier[me], 0,
               limits::kMaxUnitCost);
  }
  check_real("costs.noc_hop", c.noc_hop, 0, limits::kMaxUnitCost);
  check_real("costs.idl_unit", c.idl_unit, 0, limits::kMaxUnitCost);
}

void validate(const Hardware& hw) {
  using namespace limits;
  check_name("name", hw.name);
  check_dim("nodes", hw.nodes, 1, kMaxNodeSide);
  check_dim("pe_array", hw.pe_array, 1, kMaxPeSide);
  check_int("word_bits", hw.word_bits, 1, kMaxWordBits);
  if (hw.gbuf_bytes < hw.word_bytes()) {
    throw InputError("gbuf_bytes: must hold at least one word (" + std::to_string(hw.word_bytes()) +
                     " bytes), got " + std::to_string(hw.gbuf_bytes));
  }
  if (hw.regf_bytes < hw.word_bytes()) {
    throw InputError("regf_bytes: must hold at least one word (" + std::to_string(hw.word_bytes()) +
                     " bytes), got " + std::to_string(hw.regf_bytes));
  }
  check_int("gbuf_bytes", hw.gbuf_bytes, 1, kMaxBufferBytes);
  check_int("regf_bytes", hw.regf_bytes, 1, kMaxBufferBytes);
  check_int("array_bus_width_bits", hw.array_bus_width_bits, 0, kMaxBusWidthBits);
  if (!(hw.dram_bandwidth_bytes_per_cycle > 0)) {
    throw InputError("dram_bandwidth_bytes_per_cycle: must be positive (or inf), got " +
                     std::to_string(hw.dram_bandwidth_bytes_per_cycle));
  }
  check_real("dram_bandwidth_bytes_per_cycle", hw.dram_bandwidth_bytes_per_cycle, 0, kMaxBandwidth,
             true);
  validate(hw.costs);
  if (hw.technology) validate(*hw.technology);
}

double pe_utilisation(const Hardware& hw, std::int64_t macs, double cycles) {
  if (!(cycles > 0)) return 0;
  const double pe_cycles = static_cast<double>(hw.nodes.size() * hw.pe_array.size()) * cycles;
  return static_cast<double>(macs) / pe_cycles;
}

}  // namespace kapla::model
