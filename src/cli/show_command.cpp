// `kapla show NETWORK [--batch N]`: the layer table of a network and its total MACs.
// `kapla show --hardware NAME|FILE`: a hardware's sizes, per-access energies and, when it has a
// technology section, its area by part (docs/codesign.md).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "cli/commands.hpp"
#include "cli/int_option.hpp"
#include "cli/text_table.hpp"
#include "core/errors.hpp"
#include "core/number_text.hpp"
#include "io/catalog.hpp"
#include "model/limits.hpp"

namespace kapla::cli {
namespace {

struct ShowOptions {
  std::string network;
  std::string hardware;
  std::int64_t batch = 1;
};

std::string dim_text(PhyDim2 d) {
  std::ostringstream os;
  os << d;
  return os.str();
}

void show(const model::Network& net, std::int64_t batch) {
  using Align = TextTable::Align;
  TextTable table({{"layer", Align::Left},
                   {"type", Align::Left},
                   {"nifm", Align::Right},
                   {"nofm", Align::Right},
                   {"sofm", Align::Right},
                   {"sfil/sreg", Align::Right},
                   {"strd", Align::Right},
                   {"macs", Align::Right}});
  for (std::size_t i = 0; i < net.size(); ++i) {
    const model::Layer& l = net.layer(i);
    table.add_row({net.layer_name(i), std::string(model::type_name(l.type)), std::to_string(l.nifm),
                   std::to_string(l.nofm), dim_text(l.sofm),
                   dim_text(l.has_filter() ? l.sfil : l.sreg), dim_text(l.strd),
                   std::to_string(l.total_ops(batch))});
  }
  std::cout << "network " << net.name() << " (" << net.size() << " layers, batch " << batch
            << "): " << net.source() << '\n';
  table.print(std::cout);
  std::cout << "total_macs " << net.total_ops(batch) << '\n';
}

std::string bytes_and_words(std::int64_t bytes, std::int64_t words) {
  return std::to_string(bytes) + " B (" + std::to_string(words) + " words)";
}

std::string share(double part, double total) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(1);
  os << (total > 0 ? 100 * part / total : 0.0) << " %";
  return os.str();
}

void show(const model::Hardware& hw) {
  using Align = TextTable::Align;
  std::cout << "hardware " << hw.name << ": " << hw.source << '\n';
  std::cout << "nodes " << dim_text(hw.nodes) << ", PE array " << dim_text(hw.pe_array) << " ("
            << hw.pe_array.size() << " PEs per node), GBUF "
            << bytes_and_words(hw.gbuf_bytes, hw.gbuf_words()) << " per node, REGF "
            << bytes_and_words(hw.regf_bytes, hw.regf_words()) << " per PE, word " << hw.word_bits
            << " bits\n";
  std::cout << "array bus "
            << (hw.array_bus_width_bits == 0 ? std::string("unlimited")
                                             : std::to_string(hw.array_bus_width_bits) + " bits")
            << ", DRAM bandwidth "
            << (std::isinf(hw.dram_bandwidth_bytes_per_cycle)
                    ? std::string("unlimited")
                    : shortest_text(hw.dram_bandwidth_bytes_per_cycle) + " B/cycle")
            << ", memory " << (hw.mem_type == model::MemoryType::TwoD ? "2D" : "3D") << ", mapping "
            << model::array_mapping_name(hw.array_mapping) << '\n';
  const std::string unit = hw.energy_in_joules ? "J" : "relative";
  // 6 significant digits: derived energies carry rounding noise (2.2 pJ = 2.2000000000000003e-12).
  auto e = [](double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return std::string(buf);
  };
  TextTable energy({{"energy", Align::Left}, {"per access (" + unit + ")", Align::Right}});
  energy.add_row({"mac_op", e(hw.costs.mac_op)});
  energy.add_row({"regf_access", e(hw.costs.mem_hier[MemLevel::Regf])});
  energy.add_row({"itcn_access", e(hw.costs.mem_hier[MemLevel::Itcn])});
  energy.add_row({"gbuf_access", e(hw.costs.mem_hier[MemLevel::Gbuf])});
  energy.add_row({"dram_access", e(hw.costs.mem_hier[MemLevel::Dram])});
  energy.add_row({"noc_hop", e(hw.costs.noc_hop)});
  energy.add_row({"idle_per_cycle", e(hw.costs.idl_unit)});
  energy.print(std::cout);
  if (!hw.technology) {
    std::cout << "area: unknown (no technology section; docs/codesign.md)\n";
    return;
  }
  std::cout << "energies and area from the technology: " << hw.technology->source << '\n';
  const model::AreaBreakdown a = model::chip_area(hw);
  TextTable area({{"area", Align::Left}, {"um^2", Align::Right}, {"share", Align::Right}});
  const double total = a.total_um2();
  area.add_row({"mac", shortest_text(a.mac_um2), share(a.mac_um2, total)});
  area.add_row({"regf", shortest_text(a.regf_um2), share(a.regf_um2, total)});
  area.add_row({"gbuf", shortest_text(a.gbuf_um2), share(a.gbuf_um2, total)});
  area.add_row({"router", shortest_text(a.router_um2), share(a.router_um2, total)});
  area.add_row({"total", shortest_text(total), share(total, total)});
  area.print(std::cout);
  std::cout << "area_mm2 " << shortest_text(a.total_mm2()) << '\n';
}

}  // namespace

void register_show(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<ShowOptions>();
  CLI::App* sub = app.add_subcommand(
      "show", "Print the layer table of a network, or a hardware's energies and area");
  auto* network =
      sub->add_option("network", opts->network, "Network name (see 'kapla list networks') or file");
  auto* hardware = sub->add_option("--hardware", opts->hardware,
                                   "Show this hardware (preset name or file) instead: sizes, "
                                   "per-access energies, area by part if it has a technology");
  network->excludes(hardware);
  sub->add_option("--batch", opts->batch, "Batch size for the MAC counts")
      ->capture_default_str()
      ->check(fits_int64());
  sub->callback([&ctx, opts] {
    // Checked here: CLI11's PositiveNumber message prints the largest double as its bound.
    model::limits::check_batch("--batch", opts->batch);
    const io::Catalog catalog(ctx.resolved_data_dir());
    if (!opts->hardware.empty()) {
      show(catalog.load_hardware(opts->hardware));
      return;
    }
    if (opts->network.empty()) {
      throw InputError("show: give a NETWORK or --hardware NAME|FILE");
    }
    show(catalog.load_network(opts->network), opts->batch);
  });
}

}  // namespace kapla::cli
