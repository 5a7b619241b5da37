// The layer oracle over the one cost model (layer_oracle.hpp): B's partition generator, the
// Eyeriss map strategy, the loop-blocking evaluation and the layer result, for one
// LayerProblem. What depends only on the partition (nested loops, buffer sharing, ofmap
// layout, memory NoC hops) is computed once per partition of B's list, on first use
// (std::call_once: thread-safe, and the values do not depend on which thread fills them).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "cost/map_strategy.hpp"
#include "mapping/buffer_sharing_scheme.hpp"
#include "mapping/data_layout.hpp"
#include "search/kapla/layer_oracle.hpp"
#include "search/strategy.hpp"

namespace kapla::search::directive {

class CostOracle final : public LayerOracle {
 public:
  explicit CostOracle(const LayerProblem& problem);

  const model::Layer& layer() const override { return p_.layer; }
  std::int64_t batch() const override { return p_.batch; }
  PhyDim2 node_dims() const override { return p_.resource.proc_region.dim; }
  PerLoopDim<std::int64_t> top_constraint() const override;
  const std::vector<mapping::PartitionScheme>& partitions() const override { return parts_; }
  std::vector<NodeNest> nests(const mapping::PartitionScheme& part) const override;
  Capacity capacity(const mapping::PartitionScheme& part, int nest_index) const override;
  std::optional<Score> evaluate(const CanonicalScheme& s) const override;

  /// The full layer result of a canonical scheme (what the strategy returns).
  std::optional<LayerSchedule> schedule(const CanonicalScheme& s) const;
  /// The map strategy's nested loops of the layer under `part`.
  cost::MapResult map(const mapping::PartitionScheme& part) const;

 private:
  struct PartData {
    std::once_flag once;
    cost::MapResult map;
    std::vector<NodeNest> nests;
    mapping::BufShrScheme bufshr;
    mapping::DataLayout ofmap_layout;
    PerDataCategory<double> unit_nhops{};
  };
  // The cached data of a partition of parts_ (nullptr for any other partition).
  const PartData* part_data(const mapping::PartitionScheme& part) const;

  const LayerProblem& p_;
  std::vector<mapping::PartitionScheme> parts_;
  std::vector<PhyDim2> filter_nodes_;
  std::unique_ptr<PartData[]> cache_;
};

/// A cost-model nested loop as the greedy sees it.
NodeNest node_nest(const cost::NestedLoopDesc& nld, const model::Layer& p_layer);

}  // namespace kapla::search::directive
