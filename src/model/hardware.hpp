// The accelerator: node array, per-node PE array and buffers, DRAM, NoC, and unit energies.
// An immutable, validated value; sizes are stored as the user gives them (bytes, bits) and
// converted to words in one place (the cost model's resource). Spec: nn_dataflow-spec.md §2-3,
// kapla-spec.md §7.1.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "core/enum_array.hpp"
#include "core/phy_dim2.hpp"
#include "model/options.hpp"
#include "model/technology.hpp"

namespace kapla::model {

class Network;

/// Where DRAM sits: "2D" = four memory controllers at the chip corners, "3D" = one stacked
/// memory per node (nn_dataflow --mem-type).
enum class MemoryType : std::uint8_t { TwoD, ThreeD };

/// The dataflow of every node's PE array: Eyeriss row stationary (nn_dataflow's
/// MapStrategyEyeriss, all of the paper's multi-node runs) or the KAPLA fork's TPU-like systolic
/// array (MapStrategySystolic, the paper's single-array "edge" runs; forward layers only, and
/// only under the fork's cost-model rules). Spec: kapla-spec.md §1.1, §1.6, §2.2, §7.3.
enum class ArrayMapping : std::uint8_t { RowStationary, Systolic };

/// "row_stationary" or "systolic" (the hardware file's spelling).
std::string_view array_mapping_name(ArrayMapping m);
/// "row_stationary" (alias "eyeriss", the reference CLI's name) or "systolic"; throws
/// InputError otherwise.
ArrayMapping parse_array_mapping(std::string_view s);

/// Unit energies (nn_dataflow Cost). Units are whatever the user's numbers are (relative
/// units for the reference CLI defaults, joules for the KAPLA hardware files).
struct UnitCosts {
  double mac_op = 1;                             // per MAC
  PerMemLevel<double> mem_hier{{200, 6, 2, 1}};  // per word access: DRAM, GBUF, ITCN, REGF
  double noc_hop = 10;                           // per word per hop
  double idl_unit = 0;                           // static energy of all nodes per cycle
  friend bool operator==(const UnitCosts&, const UnitCosts&) = default;
};

/// Hardware capabilities that the search options may switch on (the reference's hw_* options).
struct HardwareFeatures {
  bool access_forwarding = true;
  bool gbuf_sharing = true;
  bool save_writeback = true;
  friend bool operator==(const HardwareFeatures&, const HardwareFeatures&) = default;
};

struct Hardware {
  std::string name;
  std::string source;           // where the numbers come from
  PhyDim2 nodes{1, 1};          // node (tile) array
  PhyDim2 pe_array{16, 16};     // PE array of each node
  std::int64_t gbuf_bytes = 0;  // global buffer per node
  std::int64_t regf_bytes = 0;  // register file per PE
  std::int64_t word_bits = 16;
  /// Array bus width per data category; 0 = unlimited (nn_dataflow --bus-width 0).
  std::int64_t array_bus_width_bits = 0;
  /// Total DRAM bandwidth; +inf = unlimited (nn_dataflow's default).
  double dram_bandwidth_bytes_per_cycle = std::numeric_limits<double>::infinity();
  MemoryType mem_type = MemoryType::TwoD;
  ArrayMapping array_mapping = ArrayMapping::RowStationary;
  UnitCosts costs;
  HardwareFeatures features;
  /// The costs are in joules (hardware files with "energy_unit": "joule"); else relative units
  /// (the reference CLI's). For the reader only: the model works in whatever unit they are.
  bool energy_in_joules = false;
  /// The opt-in technology model (area, capacity-dependent energies); when present, `costs`
  /// are technology_costs(*this), in joules.
  std::optional<Technology> technology;

  /// Bytes per word: ceil(word_bits / 8), as the reference CLI computes it.
  std::int64_t word_bytes() const { return (word_bits + 7) / 8; }
  std::int64_t gbuf_words() const { return gbuf_bytes / word_bytes(); }
  std::int64_t regf_words() const { return regf_bytes / word_bytes(); }

  friend bool operator==(const Hardware&, const Hardware&) = default;
};

/// Throws InputError naming the field ("costs.mac_op: ...") when a unit energy is NaN, negative
/// or above limits::kMaxUnitCost. The CLI's cost flags go through it as well.
void validate(const UnitCosts& costs);

/// Throws InputError naming the field when a value is impossible or outside model/limits.hpp
/// (non-positive sizes, a buffer smaller than one word, negative energies or bandwidth).
void validate(const Hardware& hw);

/// Throws a one-line InputError when `hw`'s array mapping cannot run `net` under `variant`:
/// the systolic mapping exists only in the KAPLA fork's rules and has no back-propagation
/// support (the error names the first back-propagation layer). Row stationary runs anything.
void check_array_mapping(const Hardware& hw, const Network& net, CostModelVariant variant);

/// The fraction of the chip's PE-cycles that do a MAC in a schedule of `macs` MACs that takes
/// `cycles`: macs / (nodes x PEs per node x cycles). The PE-utilisation floor of design spaces
/// compares it (docs/codesign.md); 0 when `cycles` is not positive (no schedule).
double pe_utilisation(const Hardware& hw, std::int64_t macs, double cycles);

}  // namespace kapla::model
