// Hardware validation.
#include "model/hardware.hpp"

#include <cmath>

#include "core/errors.hpp"
#include "model/network.hpp"

namespace kapla::model {
namespace {

void positive(const char* field, std::int64_t v) {
  if (v <= 0) throw InputError(std::string(field) + ": must be positive, got " + std::to_string(v));
}

void non_negative(const char* field, double v) {
  if (!(v >= 0)) {
    throw InputError(std::string(field) + ": must be a non-negative number, got " +
                     std::to_string(v));
  }
}

}  // namespace

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
      throw InputError("array_mapping: hardware '" + hw.name + "' is systolic, which has no "
                       "back-propagation support, but layer '" + net.layer_name(i) + "' of '" +
                       net.name() + "' is a " + std::string(type_name(net.layer(i).type)));
    }
  }
}

void validate(const Hardware& hw) {
  positive("nodes.h", hw.nodes.h);
  positive("nodes.w", hw.nodes.w);
  positive("pe_array.h", hw.pe_array.h);
  positive("pe_array.w", hw.pe_array.w);
  positive("word_bits", hw.word_bits);
  if (hw.gbuf_bytes < hw.word_bytes()) {
    throw InputError("gbuf_bytes: must hold at least one word (" +
                     std::to_string(hw.word_bytes()) + " bytes), got " +
                     std::to_string(hw.gbuf_bytes));
  }
  if (hw.regf_bytes < hw.word_bytes()) {
    throw InputError("regf_bytes: must hold at least one word (" +
                     std::to_string(hw.word_bytes()) + " bytes), got " +
                     std::to_string(hw.regf_bytes));
  }
  if (hw.array_bus_width_bits < 0) {
    throw InputError("array_bus_width_bits: must be >= 0 (0 = unlimited), got " +
                     std::to_string(hw.array_bus_width_bits));
  }
  if (!(hw.dram_bandwidth_bytes_per_cycle > 0)) {
    throw InputError("dram_bandwidth_bytes_per_cycle: must be positive (or inf), got " +
                     std::to_string(hw.dram_bandwidth_bytes_per_cycle));
  }
  non_negative("costs.mac_op", hw.costs.mac_op);
  for (auto me : all_values<MemLevel>()) {
    non_negative(("costs.mem_hier." + std::string(name_of(me))).c_str(), hw.costs.mem_hier[me]);
  }
  non_negative("costs.noc_hop", hw.costs.noc_hop);
  non_negative("costs.idl_unit", hw.costs.idl_unit);
}

}  // namespace kapla::model
