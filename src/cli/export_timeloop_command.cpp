// `kapla export-timeloop --network NET --layer NAME [--batch B] [--out FILE]`: one layer as a
// Timeloop problem file (docs/onnx.md "Timeloop"), the way back of `kapla import LAYER.yaml`.
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/int_option.hpp"
#include "core/errors.hpp"
#include "io/catalog.hpp"
#include "io/timeloop_yaml.hpp"
#include "model/limits.hpp"

namespace kapla::cli {

void register_export_timeloop(CLI::App& app, Context& ctx) {
  struct Args {
    std::string network, layer, out;
    std::int64_t batch = 1;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub =
      app.add_subcommand("export-timeloop", "Write one layer as a Timeloop problem (YAML)");
  sub->add_option("--network", args->network, "Network name or file")->required();
  sub->add_option("--layer", args->layer, "Layer name")->required();
  sub->add_option("--batch", args->batch, "Batch (Timeloop's N)")->check(fits_int64());
  sub->add_option("--out", args->out, "File to write (default: stdout)");
  sub->callback([args, &ctx] {
    model::limits::check_batch("--batch", args->batch);
    const model::Network net = io::Catalog(ctx.resolved_data_dir()).load_network(args->network);
    const auto i = net.find(args->layer);
    if (!i) throw InputError("--layer: no layer '" + args->layer + "' in " + net.name());
    const std::string text = io::export_timeloop_problem(net.layer(*i), args->layer, args->batch);
    if (args->out.empty()) {
      std::cout << text;
      return;
    }
    std::ofstream f(args->out, std::ios::binary | std::ios::trunc);
    if (!(f << text) || !f.flush()) throw InputError(args->out + ": cannot write");
  });
}

}  // namespace kapla::cli
