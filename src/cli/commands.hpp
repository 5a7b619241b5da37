// The subcommands: each <sub>_command.cpp defines one register_<sub>(), which adds the
// subcommand, its options and its callback to the app. main.cpp calls each once.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/context.hpp"

namespace kapla::cli {

void register_list(CLI::App& app, Context& ctx);
void register_show(CLI::App& app, Context& ctx);
void register_validate(CLI::App& app, Context& ctx);

}  // namespace kapla::cli
