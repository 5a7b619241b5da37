// `kapla validate FILE`: loads a network or hardware file (told apart by its keys) with every
// check, and says what it found. Errors leave through main's InputError handler (exit 1).
#include <iostream>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>

#include "cli/commands.hpp"
#include "core/errors.hpp"
#include "io/catalog.hpp"
#include "model/limits.hpp"

namespace kapla::cli {

void register_validate(CLI::App& app, Context& /*ctx*/) {
  auto file = std::make_shared<std::string>();
  auto show_limits = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("validate", "Check a network or hardware file");
  sub->add_option("file", *file, "Network or hardware JSON file");
  sub->add_flag("--limits", *show_limits,
                "Print the limits of every numeric input (model/limits.hpp, docs/formats.md)");
  sub->callback([file, show_limits] {
    if (*show_limits) std::cout << model::limits::describe();
    if (file->empty()) {
      if (*show_limits) return;
      throw InputError("validate: give a FILE (or --limits)");
    }
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
