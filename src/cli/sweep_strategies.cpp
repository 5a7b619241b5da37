// `kapla sweep` bound to the real search: the strategy registry over the data catalog. Kept
// apart from sweep_command.cpp so that the sweep tests can link the command with a fake runner.
#include "cli/commands.hpp"
#include "cli/sweep_command.hpp"
#include "io/catalog.hpp"
#include "io/schedule_json.hpp"
#include "sweep/strategy_runner.hpp"

namespace kapla::cli {

std::unique_ptr<sweep::TupleRunner> make_catalog_runner(const sweep::SweepSpec& spec,
                                                        const Context& ctx) {
  auto catalog = std::make_shared<io::Catalog>(ctx.resolved_data_dir());
  sweep::ModelLoaders loaders;
  loaders.network = [catalog](const std::string& n) { return catalog->load_network(n); };
  loaders.hardware = [catalog](const std::string& n) { return catalog->load_hardware(n); };
  // Each tuple's schedule, as `kapla schedule --json` writes it, compact (`kapla emit` reads it).
  loaders.schedule_document = [](const schedule::ScheduledNetwork& s) {
    return io::schedule_json(s).dump();
  };
  return sweep::make_strategy_runner(spec, std::move(loaders));
}

void register_sweep(CLI::App& app, Context& ctx) {
  register_sweep_with(app, ctx, make_catalog_runner);
}

}  // namespace kapla::cli
