// `kapla validate FILE`: loads a network or hardware file (told apart by its keys) with every
// check, and says what it found. Errors leave through main's InputError handler (exit 1).
#include <iostream>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>

#include "cli/commands.hpp"
#include "io/catalog.hpp"

namespace kapla::cli {

void register_validate(CLI::App& app, Context& /*ctx*/) {
  auto file = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("validate", "Check a network or hardware file");
  sub->add_option("file", *file, "Network or hardware JSON file")->required();
  sub->callback([file] {
    const io::DataFile data = io::load_data_file(*file);
    std::cout << "ok: " << *file << " (";
    std::visit(
        [](const auto& v) {
          if constexpr (std::is_same_v<std::decay_t<decltype(v)>, model::Network>) {
            std::cout << "network " << v.name() << ", " << v.size() << " layers";
          } else {
            std::cout << "hardware " << v.name << ", " << v.nodes << " nodes of " << v.pe_array
                      << " PEs";
          }
        },
        data);
    std::cout << ")\n";
  });
}

}  // namespace kapla::cli
