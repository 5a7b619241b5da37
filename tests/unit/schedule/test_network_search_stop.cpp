// The network search's cooperative stop (NetworkSearchOptions::stop) and strategy B's scheme
// counts. Stops are driven by counting predicates (layer searches, polls), never by time, so
// every expectation is exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "cost/loop_blocking_search.hpp"
#include "io/catalog.hpp"
#include "mapping/data_layout_ops.hpp"
#include "mapping/gen_partition.hpp"
#include "pricing/fixed_scheme.hpp"
#include "schedule/network_search.hpp"
#include "schedule/resource_builder.hpp"
#include "search/exhaustive.hpp"
#include "search/strategy.hpp"

namespace kapla::schedule {
namespace {

const io::Catalog& catalog() {
  static const io::Catalog c(KAPLA_SOURCE_DATA_DIR);
  return c;
}

// B behind a call counter; records whether the network search handed it the stop.
class CountingStrategy final : public search::LayerStrategy {
 public:
  std::string_view name() const override { return "counting-exhaustive"; }
  char label() const override { return 'b'; }
  std::vector<pricing::LayerSchedule> search(const pricing::LayerProblem& problem,
                                             const search::SearchContext& ctx) const override {
    ++calls;
    if (ctx.stop != nullptr) saw_stop = true;
    return inner_.search(problem, ctx);
  }
  mutable std::atomic<int> calls{0};
  mutable std::atomic<bool> saw_stop{false};

 private:
  search::ExhaustiveStrategy inner_;
};

struct Fixture {
  model::Network net = catalog().load_network("mlp_m");
  model::Hardware hw = catalog().load_hardware("cloud4x4");
  std::int64_t batch = 16;

  NetworkSearchOptions options(int threads) const {
    NetworkSearchOptions o;
    o.costs = hw.costs;
    o.num_threads = threads;
    // KAPLA's inference partitioning: pipelined segments, many layer searches.
    o.options.partition_hybrid = o.options.partition_batch = o.options.partition_ifmaps = true;
    o.options.partition_interlayer = true;
    return o;
  }
  NetworkSearchResult run(const search::LayerStrategy& s, const NetworkSearchOptions& o) const {
    return network_search(net, batch, build_resource(hw), s, o);
  }
};

TEST(NetworkSearchStop, NoStopNoChange) {
  const Fixture f;
  search::ExhaustiveStrategy b;
  const auto plain = f.run(b, f.options(1));
  auto o = f.options(1);
  o.stop = [] { return false; };
  const auto polled = f.run(b, o);
  ASSERT_FALSE(plain.tops.empty());
  EXPECT_FALSE(plain.stopped);
  EXPECT_FALSE(polled.stopped);
  EXPECT_EQ(polled.tops.front().total_cost(), plain.tops.front().total_cost());
  EXPECT_EQ(polled.tops.front().total_time(), plain.tops.front().total_time());
  EXPECT_EQ(polled.stats.layer_searches, plain.stats.layer_searches);
  EXPECT_EQ(polled.stats.schemes_evaluated, plain.stats.schemes_evaluated);
}

// A search that would run many layer searches stops right after the one during which the
// predicate turned true: exactly that many strategy calls, no schedule.
TEST(NetworkSearchStop, StopsBetweenLayerSearches) {
  const Fixture f;
  CountingStrategy full;
  const auto unstopped = f.run(full, f.options(1));
  ASSERT_GT(unstopped.stats.layer_searches, 10u);
  EXPECT_FALSE(full.saw_stop);  // no predicate, nothing handed over

  CountingStrategy s;
  auto o = f.options(1);
  o.stop = [&s] { return s.calls.load() >= 3; };
  const auto r = f.run(s, o);
  EXPECT_TRUE(r.stopped);
  EXPECT_TRUE(r.tops.empty());
  EXPECT_EQ(r.stats.layer_searches, 3u);
  EXPECT_EQ(s.calls.load(), 3);
  EXPECT_TRUE(s.saw_stop);
  EXPECT_GT(r.stats.schemes_evaluated, 0);
  EXPECT_LT(r.stats.schemes_evaluated, unstopped.stats.schemes_evaluated);
}

TEST(NetworkSearchStop, AlreadyStoppedSearchesNothing) {
  const Fixture f;
  search::ExhaustiveStrategy b;
  for (int threads : {1, 2}) {
    auto o = f.options(threads);
    o.stop = [] { return true; };
    const auto r = f.run(b, o);
    EXPECT_TRUE(r.stopped);
    EXPECT_TRUE(r.tops.empty());
    EXPECT_EQ(r.stats.layer_searches, 0u) << threads;
    EXPECT_EQ(r.stats.schemes_evaluated, 0) << threads;
  }
}

// B polls inside a layer search (once per loop-blocking work item): a predicate that turns
// true on its 4th poll (1st: before the first call; 2nd, 3rd: two work items) stops the first
// call after two work items.
TEST(NetworkSearchStop, ExhaustiveStopsInsideALayerSearch) {
  const Fixture f;
  search::ExhaustiveStrategy b;
  const auto unstopped = f.run(b, f.options(1));
  std::atomic<int> polls{0};
  auto o = f.options(1);
  o.stop = [&polls] { return ++polls > 3; };
  const auto r = f.run(b, o);
  EXPECT_TRUE(r.stopped);
  EXPECT_TRUE(r.tops.empty());
  EXPECT_EQ(r.stats.layer_searches, 1u);
  EXPECT_GT(r.stats.schemes_evaluated, 0);
  EXPECT_LT(r.stats.schemes_evaluated, unstopped.stats.schemes_evaluated);
}

// S (per partition), R and M (per evaluation) poll inside a layer search too: a predicate
// that turns true on its 4th poll stops the first call (without inner polls it would take two).
TEST(NetworkSearchStop, DirectiveAndSamplingStopInsideALayerSearch) {
  const Fixture f;
  for (const char* name : {"directive-exhaustive", "random", "guided"}) {
    const auto strategy = search::make_layer_strategy(name);
    std::atomic<int> polls{0};
    auto o = f.options(1);
    o.stop = [&polls] { return ++polls > 3; };
    const auto r = f.run(*strategy, o);
    EXPECT_TRUE(r.stopped) << name;
    EXPECT_TRUE(r.tops.empty()) << name;
    EXPECT_EQ(r.stats.layer_searches, 1u) << name;
  }
}

// B's counts do not depend on the thread count (2 threads also prepares per-node work ahead,
// which is counted by the call that first uses it).
TEST(ExhaustiveCounts, SameForOneAndTwoThreads) {
  const Fixture f;
  search::ExhaustiveStrategy b;
  const auto o1 = f.options(1);
  const auto o2 = f.options(2);
  const auto r1 = f.run(b, o1);
  const auto r2 = f.run(b, o2);
  ASSERT_FALSE(r1.tops.empty());
  EXPECT_GT(r1.stats.schemes_evaluated, 0);
  EXPECT_GT(r1.stats.schemes_valid, 0);
  EXPECT_LE(r1.stats.schemes_valid, r1.stats.schemes_evaluated);
  EXPECT_EQ(r1.stats.schemes_evaluated, r2.stats.schemes_evaluated);
  EXPECT_EQ(r1.stats.schemes_valid, r2.stats.schemes_valid);
  EXPECT_EQ(r1.tops.front().total_cost(), r2.tops.front().total_cost());
}

// One layer search, counted by brute force: every distinct nested-loop description of every
// partition (no buffer sharing: the NLD alone decides the loop-blocking search), every scheme
// the loop-blocking enumeration yields, priced by the cost model.
TEST(ExhaustiveCounts, OneLayerMatchesBruteForce) {
  const auto hw = catalog().load_hardware("edge");
  pricing::LayerProblem p;
  p.layer = model::make_conv(8, 16, {6, 6}, {3, 3});
  p.batch = 2;
  p.resource = build_resource(hw);
  p.costs = hw.costs;
  p.ifmap_layout = mapping::input_layouts(p.layer.nifm, p.layer.sifm, p.batch,
                                          p.resource.src_data_region, p.options)
                       .front();
  ASSERT_FALSE(p.options.hw_gbuf_sharing || p.options.hw_access_forwarding);

  std::int64_t evaluated = 0;
  std::int64_t valid = 0;
  std::vector<cost::NestedLoopDesc> seen;
  for (const auto& part :
       mapping::gen_partition(p.layer, p.batch, p.resource.proc_region.dim, p.options, true)) {
    const auto setup = pricing::setup_partition(p, part);
    for (const auto& nld : setup.map.nlds) {
      if (std::find(seen.begin(), seen.end(), nld) != seen.end()) continue;
      seen.push_back(nld);
      cost::for_each_loop_blocking(nld, p.constraint.top_blocking(), [&](const auto& b) {
        ++evaluated;
        if (cost::evaluate_loop_blocking(nld, b, p.resource, setup.bufshr, p.options, p.costs)
                .valid()) {
          ++valid;
        }
      });
    }
  }
  ASSERT_GT(evaluated, 0);
  for (int threads : {1, 2}) {
    search::LayerSearchStats st;
    search::SearchContext ctx;
    ctx.num_threads = threads;
    ctx.stats = &st;
    const auto found = search::ExhaustiveStrategy().search(p, ctx);
    ASSERT_FALSE(found.empty());
    EXPECT_TRUE(st.reported);
    EXPECT_EQ(st.evaluated, evaluated) << threads;
    EXPECT_EQ(st.valid, valid) << threads;
  }
}

}  // namespace
}  // namespace kapla::schedule
