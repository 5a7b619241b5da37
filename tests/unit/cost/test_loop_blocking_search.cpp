// The loop-blocking search: skip rules and generation order against brute force, the top-k
// semantics, the solver, and the per-layer search's optimum on single-node layer_schedules
// records (cmp_keys[0]). Spec: nn_dataflow-spec.md §7.6-7.8, §9.2.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "cost/layer_cost.hpp"
#include "cost/loop_blocking_search.hpp"
#include "cost/map_strategy.hpp"
#include "io/golden_record.hpp"
#include "mapping/buffer_sharing_scheme.hpp"
#include "mapping/data_layout_ops.hpp"
#include "mapping/gen_partition.hpp"
#include "mapping/noc_hops.hpp"
#include "mapping/part_layer.hpp"

namespace kapla::cost {
namespace {

constexpr int kPerm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

mapping::Resource small_resource() {
  mapping::Resource r;
  r.proc_region = mapping::NodeRegion::rectangle({1, 1}, {0, 0}, mapping::RegionType::Proc);
  r.dram_region = mapping::NodeRegion::rectangle({2, 2}, {0, 0}, mapping::RegionType::Dram, {0, 0});
  r.src_data_region = r.dram_region;
  r.dst_data_region = r.dram_region;
  r.dim_array = {8, 8};
  r.size_gbuf = 8192;
  r.size_regf = 64;
  return r;
}

TEST(LoopBlockingSearch, Factorize3Order) {
  const auto f = factorize3(4);
  const std::vector<std::array<std::int64_t, 3>> want{{1, 1, 4}, {1, 2, 2}, {1, 4, 1},
                                                      {2, 1, 2}, {2, 2, 1}, {4, 1, 1}};
  EXPECT_EQ(f, want);
}

TEST(LoopBlockingSearch, SkipConvKeepsOneOrderPerInnermostLoop) {
  // §7.6: with k non-trivial loops at a level only k orders survive (1 if k = 0), when the other
  // levels are trivial.
  for (int nt = 0; nt < 8; ++nt) {
    int kept = 0;
    for (const auto& o0 : kPerm) {
      LoopBlocking b;
      for (auto l : all_values<LoopDim>()) {
        const bool big = (nt >> static_cast<int>(l)) & 1;
        b.bl_ts[0][l] = big ? 2 : 1;
        b.bl_ts[1][l] = 1;
        b.bl_ts[2][l] = 1;
      }
      b.bl_ords[0] = {{o0[0], o0[1], o0[2]}};
      b.bl_ords[1] = {{0, 1, 2}};
      if (!skip_conv(b)) ++kept;
    }
    const int k = __builtin_popcount(static_cast<unsigned>(nt));
    EXPECT_EQ(kept, k == 0 ? 1 : k) << "non-trivial mask " << nt;
  }
}

TEST(LoopBlockingSearch, GenerationOrderMatchesBruteForce) {
  NestedLoopDesc nld;
  nld.loopcnt = {{4, 6, 2}};
  nld.data_loops = {{mapping::LoopSet{LoopDim::Ifm, LoopDim::Ofm},
                     mapping::LoopSet{LoopDim::Ifm, LoopDim::Bat},
                     mapping::LoopSet{LoopDim::Ofm, LoopDim::Bat}}};
  std::vector<LoopBlocking> got;
  for_each_loop_blocking(nld, {}, [&](const LoopBlocking& b) { got.push_back(b); });
  std::vector<LoopBlocking> want;
  for (const auto& fi : factorize3(4))
    for (const auto& fo : factorize3(6))
      for (const auto& fb : factorize3(2))
        for (const auto& o0 : kPerm)
          for (const auto& o1 : kPerm) {
            LoopBlocking b;
            for (std::size_t k = 0; k < 3; ++k) b.bl_ts[k] = {{fi[k], fo[k], fb[k]}};
            b.bl_ords[0] = {{o0[0], o0[1], o0[2]}};
            b.bl_ords[1] = {{o1[0], o1[1], o1[2]}};
            if (!skip_conv(b)) want.push_back(b);
          }
  EXPECT_EQ(got, want);
  // A constraint keeps only schemes with the requested top factors and BAT outermost.
  TopBlockingConstraint c{2, 0, 0};
  for_each_loop_blocking(nld, c, [&](const LoopBlocking& b) {
    EXPECT_EQ(b.bl_ts[0][LoopDim::Bat], 2);
    EXPECT_TRUE(c.is_valid_top_bl(b.bl_ts[0], b.bl_ords[0]));
  });
}

TEST(LoopBlockingSearch, SkippedSchemesNeverBeatTheSearch) {
  // The skip rules drop only equivalent or dominated schemes: the optimum over the whole space
  // (no skipping) equals the search's top-1 key, for every goal.
  const auto res = small_resource();
  const model::UnitCosts costs;
  const auto layer = model::make_conv(12, 20, {6, 6}, {3, 3});
  const auto mr = map_eyeriss(layer, 4, 1.0, res.dim_array, model::CostModelVariant::Kapla);
  for (auto goal : {model::Goal::Energy, model::Goal::Delay, model::Goal::EnergyDelay}) {
    model::SearchOptions opt;
    opt.sw_gbuf_bypass = {{true, true, true}};
    opt.opt_goal = goal;
    opt.ntops = 3;
    for (const auto& nld : mr.nlds) {
      const auto top = search_loop_blocking(nld, res, {}, {}, opt, costs);
      ASSERT_FALSE(top.empty());
      for (std::size_t i = 1; i < top.size(); ++i)
        EXPECT_FALSE(loop_blocking_better(top[i], top[i - 1], goal));
      LoopBlockingEval best;
      bool have = false;
      for (const auto& fi : factorize3(nld.loopcnt[LoopDim::Ifm]))
        for (const auto& fo : factorize3(nld.loopcnt[LoopDim::Ofm]))
          for (const auto& fb : factorize3(nld.loopcnt[LoopDim::Bat]))
            for (const auto& o0 : kPerm)
              for (const auto& o1 : kPerm) {
                LoopBlocking b;
                for (std::size_t k = 0; k < 3; ++k) b.bl_ts[k] = {{fi[k], fo[k], fb[k]}};
                b.bl_ords[0] = {{o0[0], o0[1], o0[2]}};
                b.bl_ords[1] = {{o1[0], o1[1], o1[2]}};
                const auto ev = evaluate_loop_blocking(nld, b, res, {}, opt, costs);
                if (ev.valid() && (!have || loop_blocking_better(ev, best, goal))) {
                  best = ev;
                  have = true;
                }
              }
      ASSERT_TRUE(have);
      EXPECT_FALSE(loop_blocking_better(best, top[0], goal));
      EXPECT_FALSE(loop_blocking_better(top[0], best, goal));
    }
  }
}

TEST(LoopBlockingSearch, SolverSchemesFactorTheLoops) {
  const auto res = small_resource();
  model::SearchOptions opt;
  opt.sw_gbuf_bypass = {{true, true, true}};
  const auto mr = map_eyeriss(model::make_conv(32, 64, {14, 14}, {3, 3}), 4, 1.0, res.dim_array,
                              model::CostModelVariant::Tangram);
  const auto sol = solve_loop_blocking(mr.nlds[0], res, opt);
  EXPECT_EQ(sol.size(), 3u);
  for (const auto& b : sol)
    for (auto l : all_values<LoopDim>())
      EXPECT_EQ(b.bl_ts[0][l] * b.bl_ts[1][l] * b.bl_ts[2][l], mr.nlds[0].loopcnt[l]);
  opt.sw_gbuf_bypass = {{false, true, true}};
  EXPECT_EQ(solve_loop_blocking(mr.nlds[0], res, opt).size(), 1u);  // only FIL may reside
}

/// A per-layer search (Scheduling.schedule_search, §9.2) built from the cost module and
/// src/mapping: the best (cost, time) over partitions x NLDs x loop blocking.
std::array<double, 2> best_layer_key(const nlohmann::json& rec) {
  namespace golden = io::golden;
  const auto& in = rec.at("inputs");
  const std::string model_field = rec.at("model").get<std::string>();
  const auto options = golden::parse_options(in.at("options"), model_field);
  const auto res = golden::parse_resource(in.at("resource"));
  const auto costs = golden::parse_cost(in.at("cost"));
  const auto layer = golden::parse_layer(in.at("layer"));
  const std::int64_t batch = in.at("batch_size").get<std::int64_t>();
  const auto ifl = golden::parse_layout(in.at("ifmap_layout"));
  std::array<double, 2> best{std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::infinity()};
  for (const auto& part : mapping::gen_partition(layer, batch, res.proc_region.dim, options)) {
    const auto pl = mapping::part_layer(layer, batch, part);
    const auto mr =
        map_eyeriss(pl.p_layer, pl.p_batch, pl.p_occupancy, res.dim_array, options.cost_model);
    const auto ofl = mapping::ofmap_layout(layer, batch, part, res.dst_data_region);
    const auto unh = mapping::unit_nhops_to_proc_region(layer, batch, res.proc_region, part,
                                                        mapping::filter_nodes(res.dram_region), ifl,
                                                        ofl, options);
    for (const auto& nld : mr.nlds) {
      const auto bufshr = mapping::make_bufshr_scheme(res.proc_region, part, nld.data_loops);
      for (const auto& ev : search_loop_blocking(nld, res, bufshr, {}, options, costs)) {
        const auto lc = layer_cost(ev, unh, costs);
        if (lc.cost < best[0] || (lc.cost == best[0] && lc.time < best[1]))
          best = {lc.cost, lc.time};
      }
    }
  }
  return best;
}

TEST(LoopBlockingSearch, LayerSearchTop1MatchesReference) {
  const std::vector<std::pair<std::string, std::set<std::string>>> picks{
      {"nn_dataflow/layer_schedules.jsonl", {"ls-case-0020", "ls-case-0032", "ls-case-0015"}},
      {"kapla/layer_schedules.jsonl", {"kls-case-0056", "kls-case-0011", "kls-case-0075"}}};
  int checked = 0;
  for (const auto& [file, ids] : picks) {
    for (const auto& rec :
         io::golden::read_jsonl(std::string(KAPLA_TEST_DATA_DIR) + "/golden/" + file)) {
      const auto id = rec.at("id").get<std::string>();
      if (!ids.count(id)) continue;
      ++checked;
      const auto key = best_layer_key(rec);
      const auto& want = rec.at("cmp_keys").at(0);
      EXPECT_TRUE(io::golden::rel_equal(key[0], io::golden::to_double(want.at(0))))
          << id << ": cost " << key[0] << " want " << want.at(0);
      EXPECT_TRUE(io::golden::rel_equal(key[1], io::golden::to_double(want.at(1))))
          << id << ": time " << key[1] << " want " << want.at(1);
    }
  }
  EXPECT_EQ(checked, 6);
}

}  // namespace
}  // namespace kapla::cost
