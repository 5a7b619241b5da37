// `kapla list networks|hardware|strategies`: the names kapla knows, one per line (networks and
// hardware sorted; strategies in table order with their letter and a description).
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "io/catalog.hpp"
#include "search/strategy.hpp"

namespace kapla::cli {

void register_list(CLI::App& app, Context& ctx) {
  auto what = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("list", "List the shipped networks, hardware or strategies");
  sub->add_option("what", *what, "networks, hardware or strategies")
      ->required()
      ->check(CLI::IsMember({"networks", "hardware", "strategies"}));
  sub->callback([&ctx, what] {
    if (*what == "strategies") {
      const auto registry = search::builtin_strategies();  // outlives the loop
      for (const auto& s : registry.entries()) {
        std::cout << s.name << " (" << s.letter << "): " << s.description << '\n';
      }
      return;
    }
    const io::Catalog catalog(ctx.resolved_data_dir());
    const auto names = *what == "networks" ? catalog.list_networks() : catalog.list_hardware();
    for (const auto& name : names) std::cout << name << '\n';
  });
}

}  // namespace kapla::cli
