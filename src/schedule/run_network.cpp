// The network-run entry point (see run_network.hpp).
#include "schedule/run_network.hpp"

#include "core/errors.hpp"
#include "schedule/resource_builder.hpp"
#include "schedule/segment_filter.hpp"

namespace kapla::schedule {

NetworkSearchResult run_network(const model::Network& net, const mapping::Resource& resource,
                                const model::UnitCosts& costs,
                                const search::LayerStrategy& strategy,
                                const model::SearchOptions& options, std::int64_t batch,
                                const RunControls& controls) {
  // The systolic mapping's batch loop runs over folds of output positions too and its
  // replicas share one filter: wrong for a MatMul's per-sample B (docs/transformers.md §5.3).
  for (std::size_t i = 0; i < net.size(); ++i) {
    if (net.layer(i).is_matmul() && resource.array_mapping == model::ArrayMapping::Systolic) {
      throw InputError("layer '" + net.layer_name(i) +
                       "': type: MatMul is not mapped on the systolic array (use a "
                       "row-stationary hardware; docs/transformers.md)");
    }
  }
  const search::InterLayerPruning pruning = strategy.inter_layer_pruning();
  NetworkSearchOptions nso;
  nso.options = options;
  nso.costs = costs;
  nso.num_threads = controls.num_threads;
  nso.constraint_frontier =
      pruning.constraint_frontier || options.cost_model == model::CostModelVariant::Tangram;
  nso.bound_pruning = pruning.bound_pruning;
  nso.pair_wave = pruning.pair_wave;
  nso.segment_filter = segment_filter_of(pruning, net, batch, costs, options);
  nso.stop = controls.stop;
  nso.progress = controls.progress;
  return network_search(net, batch, resource, strategy, nso);
}

NetworkSearchResult run_network(const model::Network& net, const model::Hardware& hw,
                                const search::LayerStrategy& strategy,
                                const model::SearchOptions& options, std::int64_t batch,
                                const RunControls& controls) {
  return run_network(net, build_resource(hw), hw.costs, strategy, options, batch, controls);
}

}  // namespace kapla::schedule
