// `kapla sweep`: the registration with a chosen tuple runner. main.cpp uses register_sweep()
// (commands.hpp), which binds the strategy registry; the sweep tests bind a fake runner here.
#pragma once

#include <functional>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/context.hpp"
#include "sweep/job.hpp"
#include "sweep/tuple_runner.hpp"

namespace kapla::cli {

using TupleRunnerFactory =
    std::function<std::unique_ptr<sweep::TupleRunner>(const sweep::SweepSpec&, const Context&)>;

void register_sweep_with(CLI::App& app, Context& ctx, TupleRunnerFactory factory);

/// The default factory: sweep/strategy_runner over the catalog of ctx.resolved_data_dir().
std::unique_ptr<sweep::TupleRunner> make_catalog_runner(const sweep::SweepSpec& spec,
                                                        const Context& ctx);

}  // namespace kapla::cli
