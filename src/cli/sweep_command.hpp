// `kapla sweep`: the registration with a chosen tuple runner. main.cpp uses register_sweep()
// (commands.hpp), which binds the strategy registry; the sweep tests bind a fake runner here.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/context.hpp"
#include "sweep/job.hpp"
#include "sweep/tuple_runner.hpp"

namespace kapla::cli {

using TupleRunnerFactory =
    std::function<std::unique_ptr<sweep::TupleRunner>(const sweep::SweepSpec&, const Context&)>;

void register_sweep_with(CLI::App& app, Context& ctx, TupleRunnerFactory factory);

/// The job's tuples, each checked by the runner before anything runs (unknown network, hardware
/// or strategy: InputError "JOBFILE: tuple KEY: reason"). Used by `sweep` and `validate`.
std::vector<sweep::Tuple> check_tuples(const std::string& job_file, const sweep::SweepSpec& spec,
                                       const sweep::TupleRunner& runner);

/// The default factory: sweep/strategy_runner over the catalog of ctx.resolved_data_dir().
std::unique_ptr<sweep::TupleRunner> make_catalog_runner(const sweep::SweepSpec& spec,
                                                        const Context& ctx);

}  // namespace kapla::cli
