// The subcommands: each <sub>_command.cpp defines one register_<sub>(), which adds the
// subcommand, its options and its callback to the app. main.cpp calls each once.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/context.hpp"

namespace kapla::cli {

void register_list(CLI::App& app, Context& ctx);
void register_show(CLI::App& app, Context& ctx);
void register_validate(CLI::App& app, Context& ctx);
void register_sweep(CLI::App& app, Context& ctx);            // sweep_strategies.cpp
void register_results(CLI::App& app, Context& ctx);          // results_command.cpp
void register_merge(CLI::App& app, Context& ctx);            // merge_command.cpp
void register_schedule(CLI::App& app, Context& ctx);         // schedule_command.cpp
void register_check_golden(CLI::App& app, Context& ctx);     // check_golden_command.cpp
void register_emit(CLI::App& app, Context& ctx);             // emit_command.cpp
void register_import(CLI::App& app);                         // import_command.cpp
void register_export_timeloop(CLI::App& app, Context& ctx);  // export_timeloop_command.cpp

}  // namespace kapla::cli
