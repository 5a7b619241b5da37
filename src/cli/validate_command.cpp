// `kapla validate FILE`: loads any input file kapla reads (network, hardware, job or options,
// told apart by their keys) with every check the real use makes, and says what it found; a job
// is expanded to its tuples and each is checked as `kapla sweep` would before running. Errors
// leave through main's InputError handler (exit 1).
#include <algorithm>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>

#include "cli/commands.hpp"
#include "cli/sweep_command.hpp"
#include "core/errors.hpp"
#include "io/catalog.hpp"
#include "io/job_json.hpp"
#include "io/options_json.hpp"
#include "model/limits.hpp"

namespace kapla::cli {
namespace {

void describe_data_file(const std::string& file) {
  std::visit(
      [](const auto& v) {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, model::Network>) {
          std::cout << "network " << v.name() << ", " << v.size() << " layers";
        } else {
          std::cout << "hardware " << v.name << ", " << v.nodes << " nodes of " << v.pe_array
                    << " PEs";
        }
      },
      io::load_data_file(file));
}

void describe_job_file(const std::string& file, const Context& ctx) {
  const sweep::SweepSpec spec =
      io::load_job_file(file, search::builtin_strategies(), ctx.resolved_data_dir());
  const auto tuples = check_tuples(file, spec, *make_catalog_runner(spec, ctx));
  std::set<std::pair<std::string, std::int64_t>> hardware_batches;
  for (const auto& t : tuples) hardware_batches.emplace(t.hardware, t.batch);
  std::cout << "job " << spec.name << ", " << tuples.size() << " tuples: " << spec.networks.size()
            << " networks x " << hardware_batches.size() << " hardware/batch x "
            << spec.strategies.size() << " strategies x " << spec.seeds.size() << " seeds";
  const auto designs =
      std::count_if(spec.hardware.begin(), spec.hardware.end(),
                    [](const sweep::HardwareAxis& h) { return h.design.has_value(); });
  if (designs > 0) std::cout << " (" << designs << " designs expanded from hardware spaces)";
  for (const auto& search : spec.searches) {
    std::cout << "; a local search prices " << search.initial.size() << " of " << search.grid.size()
              << " designs in round 0, later rounds follow the results";
  }
}

}  // namespace

void register_validate(CLI::App& app, Context& ctx) {
  auto file = std::make_shared<std::string>();
  auto show_limits = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("validate", "Check a network, hardware, job or options file");
  sub->add_option("file", *file, "Network, hardware, job or options JSON file");
  sub->add_flag("--limits", *show_limits,
                "Print the limits of every numeric input (model/limits.hpp, docs/formats.md)");
  sub->callback([file, show_limits, &ctx] {
    if (*show_limits) std::cout << model::limits::describe();
    if (file->empty()) {
      if (*show_limits) return;
      throw InputError("validate: give a FILE (or --limits)");
    }
    const io::InputKind kind = io::input_kind(*file);
    // Everything is checked before "ok" is printed: an error leaves a single line.
    std::ostringstream what;
    std::streambuf* saved = std::cout.rdbuf(what.rdbuf());
    try {
      switch (kind) {
        case io::InputKind::Network:
        case io::InputKind::Hardware:
          describe_data_file(*file);
          break;
        case io::InputKind::Job:
          describe_job_file(*file, ctx);
          break;
        case io::InputKind::Options:
          io::load_options_file(*file);
          std::cout << "search options";
          break;
      }
    } catch (...) {
      std::cout.rdbuf(saved);
      throw;
    }
    std::cout.rdbuf(saved);
    std::cout << "ok: " << *file << " (" << what.str() << ")\n";
  });
}

}  // namespace kapla::cli
