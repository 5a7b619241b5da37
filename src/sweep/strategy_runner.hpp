// The TupleRunner of the real search: binds a tuple to the strategy registry
// (search/strategy.hpp) and the network search (schedule/network_search.hpp). Networks and
// hardware come through loaders so that sweep/ needs no io/ (the CLI passes the catalog).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "model/hardware.hpp"
#include "model/network.hpp"
#include "schedule/scheduled_network.hpp"
#include "search/strategy_registry.hpp"
#include "sweep/job.hpp"
#include "sweep/tuple_runner.hpp"

namespace kapla::sweep {

struct ModelLoaders {
  std::function<model::Network(const std::string&)> network;
  std::function<model::Hardware(const std::string&)> hardware;
  /// The best schedule as the document TupleResult::schedule records (the CLI passes
  /// io::schedule_json, so that sweep/ needs no JSON); empty: no schedule is recorded.
  std::function<std::string(const schedule::ScheduledNetwork&)> schedule_document;
};

/// Tuples name strategies of `registry` (kapla's own unless a test brings its own).
std::unique_ptr<TupleRunner> make_strategy_runner(
    const SweepSpec& spec, ModelLoaders loaders,
    search::StrategyRegistry registry = search::builtin_strategies());

}  // namespace kapla::sweep
