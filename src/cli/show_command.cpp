// `kapla show NETWORK [--batch N]`: the layer table of a network and its total MACs.
#include <cstdint>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "cli/commands.hpp"
#include "cli/text_table.hpp"
#include "core/errors.hpp"
#include "io/catalog.hpp"
#include "model/limits.hpp"

namespace kapla::cli {
namespace {

struct ShowOptions {
  std::string network;
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

}  // namespace

void register_show(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<ShowOptions>();
  CLI::App* sub = app.add_subcommand("show", "Print the layer table of a network");
  sub->add_option("network", opts->network, "Network name (see 'kapla list networks') or file")
      ->required();
  sub->add_option("--batch", opts->batch, "Batch size for the MAC counts")->capture_default_str();
  sub->callback([&ctx, opts] {
    // Checked here: CLI11's PositiveNumber message prints the largest double as its bound.
    model::limits::check_batch("--batch", opts->batch);
    const io::Catalog catalog(ctx.resolved_data_dir());
    show(catalog.load_network(opts->network), opts->batch);
  });
}

}  // namespace kapla::cli
