// The network-level beam search over an abstract per-layer strategy (a fake with known
// figures): totals (§3.4), DAG order (§9.4), segment indices and pipelined segments (§9.5-9.8).
#include <gtest/gtest.h>

#include "mapping/data_layout_ops.hpp"
#include "model/hardware.hpp"
#include "schedule/network_search.hpp"
#include "schedule/resource_builder.hpp"
#include "zoo_network.hpp"

namespace kapla {
namespace {

// Cost = ops (+ 1 per ifmap piece, so layouts matter a little); time = ops / 100; one result,
// or two when ntops > 1 (the second 10% worse).
class FakeStrategy final : public search::LayerStrategy {
 public:
  std::string_view name() const override { return "fake"; }
  char label() const override { return 'F'; }
  std::vector<pricing::LayerSchedule> search(const pricing::LayerProblem& p,
                                             const search::SearchContext&) const override {
    std::vector<pricing::LayerSchedule> out;
    for (int k = 0; k < std::min(2, p.options.ntops); ++k) {
      pricing::LayerSchedule s;
      const double ops = static_cast<double>(p.layer.total_ops(p.batch));
      s.ops = ops;
      s.cost = ops * (1 + 0.1 * k) + static_cast<double>(p.ifmap_layout.frngs.size());
      s.cost_op = s.cost;
      s.time = std::floor(ops / 100) + 1;
      s.proc_time = s.time;
      s.num_nodes = p.resource.proc_region.dim.size();
      s.tvals[0] = {{1, 1, 1}};
      s.tvals[2] = {{1, 1, p.batch}};
      s.orders[0] = {{0, 1, 2}};
      s.ofmap_layout = mapping::ofmap_layout(p.layer, p.batch, s.part, p.resource.dst_data_region);
      s.sched_seq = p.sched_seq;
      out.push_back(s);
    }
    return out;
  }
};

mapping::Resource resource() {
  model::Hardware hw;
  hw.nodes = {4, 4};
  hw.pe_array = {8, 8};
  hw.gbuf_bytes = 65536;
  hw.regf_bytes = 64;
  return schedule::build_resource(hw);
}

TEST(NetworkSearchSkeleton, LayerWiseTotalsAreSums) {
  const auto net = test::zoo_network("alex_net");
  FakeStrategy fake;
  schedule::NetworkSearchOptions opts;
  opts.options.ntops = 2;
  const auto res = schedule::network_search(net, 4, resource(), fake, opts);
  ASSERT_EQ(res.tops.size(), 2u);
  const auto& best = res.tops[0];
  ASSERT_EQ(best.size(), net.size());
  double cost = 0;
  double time = 0;
  for (std::size_t l : best.order()) {
    cost += best.get(l)->cost;
    time += best.get(l)->time;
  }
  EXPECT_DOUBLE_EQ(best.total_cost(), cost);
  EXPECT_DOUBLE_EQ(best.total_time(), time);
  EXPECT_EQ(best.segment_timings().size(), net.size());
  EXPECT_LE(best.total_cost(), res.tops[1].total_cost());
  // Layers are scheduled in DAG order, one segment each.
  const auto dag = schedule::build_sched_dag(net);
  EXPECT_EQ(best.order(), dag.ordered_layers());
  int seg = 0;
  for (std::size_t l : best.order()) EXPECT_EQ(best.get(l)->sched_seq[0], seg++);
  // Beam of 2: the runner-up differs from the best in exactly one layer's choice.
  EXPECT_EQ(res.stats.segments, net.size());
}

TEST(NetworkSearchSkeleton, PipelinedSegmentsAreConsidered) {
  const auto net = test::zoo_network("mlp_s");
  FakeStrategy fake;
  schedule::NetworkSearchOptions opts;
  opts.options.partition_interlayer = true;
  opts.options.hw_gbuf_save_writeback = true;
  const auto res = schedule::network_search(net, 4, resource(), fake, opts);
  ASSERT_EQ(res.tops.size(), 1u);
  EXPECT_GT(res.stats.segments, net.size());
  EXPECT_GT(res.stats.constraints_searched, net.size());
  EXPECT_EQ(res.tops[0].size(), net.size());
}

}  // namespace
}  // namespace kapla
