// `kapla list networks|hardware`: the names the catalog knows, one per line, sorted.
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "io/catalog.hpp"

namespace kapla::cli {

void register_list(CLI::App& app, Context& ctx) {
  auto what = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("list", "List the shipped networks or hardware");
  sub->add_option("what", *what, "networks or hardware")
      ->required()
      ->check(CLI::IsMember({"networks", "hardware"}));
  sub->callback([&ctx, what] {
    const io::Catalog catalog(ctx.resolved_data_dir());
    const auto names = *what == "networks" ? catalog.list_networks() : catalog.list_hardware();
    for (const auto& name : names) std::cout << name << '\n';
  });
}

}  // namespace kapla::cli
