// Where the energy of a schedule goes: one value carried from the cost model (layer_cost) to
// the layer schedule, the network scheme, `kapla schedule`, `kapla check-golden` and the HDF5
// energy_* columns, so no caller re-prices accesses x unit costs itself.
// Spec: nn_dataflow-spec.md §3.2 (the cost parts), §3.4 (network static energy).
#pragma once

#include <array>
#include <string_view>

namespace kapla::cost {

struct EnergyBreakdown {
  double op = 0;    // MAC operations: mac_op x ops
  double regf = 0;  // register-file accesses
  double itcn = 0;  // array-interconnect accesses
  double gbuf = 0;  // global-buffer accesses, the local node's and remote (neighbour) ones
  double dram = 0;  // DRAM accesses
  double noc = 0;   // NoC hops: memory traffic and buffer sharing
  double idle = 0;  // static energy: idl_unit x time (the part named "static")

  /// The parts in the order of kPartNames: the HDF5 columns energy_<name> and the "energy"
  /// object of `kapla schedule --json` use these names.
  static constexpr std::array<std::string_view, 7> kPartNames = {"op",   "noc",  "static", "dram",
                                                                 "gbuf", "itcn", "regf"};
  std::array<double, 7> parts() const { return {op, noc, idle, dram, gbuf, itcn, regf}; }
  /// The memory-access parts (the layer's cost_access up to rounding).
  double access() const { return dram + gbuf + itcn + regf; }
  /// The sum of the parts: the total cost up to rounding (about 1e-16 relative).
  double total() const { return ((op + access()) + noc) + idle; }

  EnergyBreakdown& operator+=(const EnergyBreakdown& o) {
    op += o.op;
    regf += o.regf;
    itcn += o.itcn;
    gbuf += o.gbuf;
    dram += o.dram;
    noc += o.noc;
    idle += o.idle;
    return *this;
  }
  friend bool operator==(const EnergyBreakdown&, const EnergyBreakdown&) = default;
};

}  // namespace kapla::cost
