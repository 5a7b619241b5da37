// Throughput of the loop-blocking evaluation (schemes evaluated per second), the hot path of
// strategy B. Not run by ctest. Cases: AlexNet conv2 per node on one 16x16 node, without and
// with GBUF sharing on 4x4 nodes.
#include <benchmark/benchmark.h>

#include <limits>
#include <vector>

#include "cost/loop_blocking.hpp"
#include "cost/loop_blocking_search.hpp"
#include "cost/map_strategy.hpp"

namespace {

using namespace kapla;

mapping::Resource resource(PhyDim2 nodes) {
  mapping::Resource r;
  r.proc_region = mapping::NodeRegion::rectangle(nodes, {0, 0}, mapping::RegionType::Proc);
  r.dram_region = mapping::NodeRegion::rectangle({2, 2}, {0, 0}, mapping::RegionType::Dram,
                                                 nodes - PhyDim2{1, 1});
  r.src_data_region = r.dram_region;
  r.dst_data_region = r.dram_region;
  r.dim_array = {16, 16};
  r.size_gbuf = 65536;
  r.size_regf = 256;
  return r;
}

void run(benchmark::State& state, PhyDim2 nodes, bool sharing) {
  const auto res = resource(nodes);
  model::SearchOptions opt;
  opt.sw_gbuf_bypass = {{true, true, true}};
  opt.hw_gbuf_sharing = sharing;
  const model::UnitCosts costs;
  const auto mr = cost::map_eyeriss(model::make_conv(48, 256, {27, 27}, {5, 5}), 16, 1.0,
                                    res.dim_array, model::CostModelVariant::Kapla);
  const auto& nld = mr.nlds[0];
  const double inf = std::numeric_limits<double>::infinity();
  mapping::BufShrScheme bufshr;
  if (sharing)
    bufshr = mapping::BufShrScheme(
        {{PhyDim2{2, 2}, PhyDim2{2, 1}, PhyDim2{1, 1}}},
        {{mapping::Dist2{1, 1}, mapping::Dist2{1, inf}, mapping::Dist2{inf, inf}}});
  std::vector<cost::LoopBlocking> schemes;
  cost::for_each_loop_blocking(nld, {}, [&](const cost::LoopBlocking& b) { schemes.push_back(b); });
  std::size_t i = 0;
  double sink = 0;
  for (auto _ : state) {
    const auto ev = cost::evaluate_loop_blocking(nld, schemes[i], res, bufshr, opt, costs);
    sink += ev.valid() ? ev.access_cost : 0;
    if (++i == schemes.size()) i = 0;
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations());
  state.counters["space"] = static_cast<double>(schemes.size());
}

void BM_EvaluateLoopBlocking(benchmark::State& s) { run(s, {1, 1}, false); }
void BM_EvaluateLoopBlockingBufShr(benchmark::State& s) { run(s, {4, 4}, true); }
BENCHMARK(BM_EvaluateLoopBlocking);
BENCHMARK(BM_EvaluateLoopBlockingBufShr);

/// A whole exhaustive search of one NLD (top-1, goal e).
void BM_SearchLoopBlocking(benchmark::State& state) {
  const auto res = resource({1, 1});
  model::SearchOptions opt;
  opt.sw_gbuf_bypass = {{true, true, true}};
  const model::UnitCosts costs;
  const auto mr = cost::map_eyeriss(model::make_conv(48, 256, {27, 27}, {5, 5}), 16, 1.0,
                                    res.dim_array, model::CostModelVariant::Kapla);
  std::int64_t evaluated = 0;
  for (auto _ : state) {
    cost::LoopBlockingSearchStats st;
    auto top = cost::search_loop_blocking(mr.nlds[0], res, {}, {}, opt, costs, &st);
    benchmark::DoNotOptimize(top);
    evaluated += st.evaluated;
  }
  state.SetItemsProcessed(evaluated);
}
BENCHMARK(BM_SearchLoopBlocking)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
