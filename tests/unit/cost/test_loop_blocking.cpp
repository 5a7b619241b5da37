// Invariants of the map strategies and the loop-blocking evaluation on random schemes:
// factors multiply to the loop counts, valid schemes fit the buffers, cost parts add up, ops
// equal the layer's MACs; plus CPython set order for the buffer-sharing candidates.
// Spec: nn_dataflow-spec.md §6, §7.2-7.5, §8.9.3, §9.2.
#include <gtest/gtest.h>
#include <cmath>

#include <iostream>
#include <limits>
#include <random>

#include "cost/layer_cost.hpp"
#include "cost/loop_blocking.hpp"
#include "cost/loop_blocking_detail.hpp"
#include "cost/loop_blocking_search.hpp"
#include "cost/map_strategy.hpp"
#include "mapping/node_region.hpp"

namespace kapla::cost {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

mapping::Resource make_resource(PhyDim2 nodes, std::int64_t gbuf, std::int64_t regf) {
  mapping::Resource r;
  r.proc_region = mapping::NodeRegion::rectangle(nodes, {0, 0}, mapping::RegionType::Proc);
  r.dram_region = mapping::NodeRegion::rectangle({2, 2}, {0, 0}, mapping::RegionType::Dram,
                                                 nodes - PhyDim2{1, 1});
  r.src_data_region = r.dram_region;
  r.dst_data_region = r.dram_region;
  r.dim_array = {16, 16};
  r.size_gbuf = gbuf;
  r.size_regf = regf;
  r.array_bus_width = 8;
  r.dram_bandwidth = 16;
  return r;
}

std::vector<model::Layer> sample_layers() {
  return {model::make_conv(96, 256, {27, 27}, {5, 5}),
          model::make_conv(3, 48, {55, 55}, {11, 11}, {4, 4}),
          model::make_fc(250, 10),
          model::make_local_region(96, {27, 27}, 1, {3, 3}, 1, {2, 2}),
          model::make_local_region(16, {28, 28}, 3, {1, 1}),
          model::make_dwconv(32, {56, 56}, {3, 3})};
}

/// A random scheme: random factorisation per loop, random order pair.
LoopBlocking random_blocking(const NestedLoopDesc& nld, std::mt19937_64& rng) {
  LoopBlocking b;
  for (auto l : all_values<LoopDim>()) {
    const auto fs = factorize3(nld.loopcnt[l]);
    const auto& f = fs[std::uniform_int_distribution<std::size_t>(0, fs.size() - 1)(rng)];
    for (std::size_t k = 0; k < 3; ++k) b.bl_ts[k][l] = f[k];
  }
  static constexpr int kPerm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                      {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (auto& o : b.bl_ords) {
    const auto& p = kPerm[std::uniform_int_distribution<int>(0, 5)(rng)];
    o = {{p[0], p[1], p[2]}};
  }
  return b;
}

TEST(MapStrategy, OpsAndDramTotalsMatchTheLayer) {
  for (const auto& layer : sample_layers()) {
    for (auto variant : {model::CostModelVariant::Kapla, model::CostModelVariant::Tangram}) {
      const auto mr = map_eyeriss(layer, 4, 1.0, {16, 16}, variant);
      ASSERT_FALSE(mr.nlds.empty()) << model::describe(layer);
      for (const auto& nld : mr.nlds) {
        const double ops = static_cast<double>(layer.total_ops(4));
        EXPECT_NEAR(nld.total_ops(), ops, 1e-9 * ops) << model::describe(layer);
        const double ofm = static_cast<double>(layer.total_ofmap_size(4));
        EXPECT_NEAR(nld.total_access_at_of(MemLevel::Dram, DataCategory::Ofm), ofm, 1e-6 * ofm);
        const double fil =
            layer.has_filter() ? static_cast<double>(layer.total_filter_size()) : 0.0;
        EXPECT_NEAR(nld.total_access_at_of(MemLevel::Dram, DataCategory::Fil), fil,
                    1e-6 * fil + 1e-9);
      }
    }
  }
}

TEST(MapStrategy, AlexNetConv1MatchesSpecExample) {
  // nn_dataflow-spec.md §6.4 example: Conv(3,48,55,11,4), N=16, 16x16.
  const auto mr = map_eyeriss(model::make_conv(3, 48, {55, 55}, {11, 11}, {4, 4}), 16, 1.0,
                              {16, 16}, model::CostModelVariant::Tangram);
  EXPECT_EQ(mr.geometry.fold, (PhyDim2{1, 4}));
  EXPECT_EQ(mr.geometry.dim_flpeset, (PhyDim2{11, 14}));
  ASSERT_EQ(mr.nlds.size(), 1u);
  const auto& n = mr.nlds[0];
  EXPECT_EQ(n.loopcnt, (PerLoopDim<std::int64_t>{{3, 48, 64}}));
  EXPECT_EQ(n.usize_gbuf, (PerDataCategory<double>{{121, 14301, 770}}));
  EXPECT_EQ(n.unit_access[MemLevel::Dram], (PerDataCategory<double>{{121, 14074, 756.25}}));
  EXPECT_EQ(n.unit_access[MemLevel::Itcn], (PerDataCategory<double>{{1694, 34958, 8470}}));
  EXPECT_EQ(n.unit_ops, 91506.25);
  EXPECT_EQ(n.unit_time, 605);
}

TEST(MapStrategy, FcReplicationYieldsEveryRunningMinimum) {
  // §6.4: FC C=250, M=10 on 16x16 gives five NLDs.
  const auto mr =
      map_eyeriss(model::make_fc(250, 10), 4, 1.0, {16, 16}, model::CostModelVariant::Tangram);
  ASSERT_EQ(mr.nlds.size(), 5u);
  EXPECT_EQ(mr.nlds[4].loopcnt, (PerLoopDim<std::int64_t>{{16, 1, 4}}));
}

TEST(LoopBlocking, RandomSchemeInvariants) {
  std::mt19937_64 rng(20261122);
  int valid = 0;
  for (const auto& layer : sample_layers()) {
    for (auto nodes : {PhyDim2{1, 1}, PhyDim2{2, 2}}) {
      for (bool sharing : {false, true}) {
        model::SearchOptions opt;
        opt.sw_gbuf_bypass = {{true, true, true}};
        opt.hw_gbuf_sharing = sharing;
        const auto res = make_resource(nodes, 16384, 64);
        const model::UnitCosts costs;
        mapping::BufShrScheme bufshr;
        if (nodes.size() > 1) {
          // Sharing groups along BAT for FIL and OFM for IFM (as OFMP / OUTP partitions give).
          bufshr = mapping::BufShrScheme(
              {{PhyDim2{1, 2}, PhyDim2{2, 1}, PhyDim2{1, 1}}},
              {{mapping::Dist2{kInf, 1}, mapping::Dist2{1, kInf}, mapping::Dist2{kInf, kInf}}});
        }
        const auto mr = map_eyeriss(layer, 4, 1.0, res.dim_array, model::CostModelVariant::Kapla);
        for (const auto& nld : mr.nlds) {
          for (int i = 0; i < 200; ++i) {
            const auto b = random_blocking(nld, rng);
            const auto ev = evaluate_loop_blocking(nld, b, res, bufshr, opt, costs);
            for (auto l : all_values<LoopDim>())
              EXPECT_EQ(b.bl_ts[0][l] * b.bl_ts[1][l] * b.bl_ts[2][l], nld.loopcnt[l]);
            if (!ev.valid()) {
              EXPECT_TRUE(std::isinf(ev.access_cost));
              continue;
            }
            ++valid;
            double regf = 0, gbuf = 0;
            for (auto d : all_values<DataCategory>()) {
              regf += ev.size[1][d];
              gbuf += ev.size[0][d];
            }
            EXPECT_LE(regf, static_cast<double>(res.size_regf));
            EXPECT_LE(gbuf, static_cast<double>(res.size_gbuf));
            const double ops = static_cast<double>(layer.total_ops(4)) * nodes.size();
            EXPECT_NEAR(ev.ops, ops, 1e-9 * ops);
            const auto lc = layer_cost(ev, {{1.0, 2.0, 3.0}}, costs);
            EXPECT_DOUBLE_EQ(lc.cost, lc.cost_op + lc.cost_access + lc.cost_noc + lc.cost_static);
            EXPECT_NEAR(lc.cost_access, lc.cost_dram + lc.cost_sram + lc.cost_itcn + lc.cost_regf,
                        1e-9 * lc.cost);
            EXPECT_NEAR(lc.cost_noc, lc.cost_node_nhops + lc.cost_mem_nhops, 1e-9 * lc.cost + 1e-9);
            EXPECT_GE(ev.time(), static_cast<double>(ev.proc_time));
            for (auto d : all_values<DataCategory>()) {
              EXPECT_GE(ev.fetch[1][d], ev.fetch[0][d]) << "REGF-level fetches include DRAM ones";
              EXPECT_GE(ev.bufshr.subgrp_size[d], 1);
              EXPECT_EQ(ev.bufshr.grp_size[d] % ev.bufshr.subgrp_size[d], 0);
            }
          }
        }
      }
    }
  }
  EXPECT_GT(valid, 100);
}

TEST(LoopBlocking, BufferSharingFastSweepMatchesPlainSweep) {
  // apply_bufshr's fast sweep (loop lists shared by the subgroup candidates, repeated GBUF-level
  // orders skipped, hop factors and shrinks cached) against the plain sweep, which prices every
  // candidate from scratch in the reference's order, on the same valid schemes: the same
  // subgroups, BS-level factors and order, rotation and wide-fetch figures, candidate count and
  // GBUF-level order, to the bit. Groups of 2-16 nodes on 4x4 nodes; small GBUFs make the
  // subgroups shrink.
  std::mt19937_64 rng(20261128);
  const std::vector<mapping::BufShrScheme> schemes{
      mapping::BufShrScheme(
          {{PhyDim2{2, 2}, PhyDim2{4, 1}, PhyDim2{1, 1}}},
          {{mapping::Dist2{1, 1}, mapping::Dist2{1, kInf}, mapping::Dist2{kInf, kInf}}}),
      mapping::BufShrScheme(
          {{PhyDim2{1, 4}, PhyDim2{2, 2}, PhyDim2{2, 1}}},
          {{mapping::Dist2{kInf, 1}, mapping::Dist2{2, 1}, mapping::Dist2{1, kInf}}}),
      mapping::BufShrScheme(
          {{PhyDim2{4, 4}, PhyDim2{1, 1}, PhyDim2{1, 2}}},
          {{mapping::Dist2{1, 3}, mapping::Dist2{kInf, kInf}, mapping::Dist2{kInf, 1}}}),
  };
  int compared = 0, shrunk = 0, reordered = 0, rotated = 0;
  for (const auto& layer : sample_layers()) {
    for (std::int64_t gbuf : {2048, 8192, 65536}) {
      const auto res = make_resource({4, 4}, gbuf, 64);
      model::SearchOptions opt;
      opt.sw_gbuf_bypass = {{true, true, true}};
      opt.hw_gbuf_sharing = true;
      const model::UnitCosts costs;
      const auto mr = map_eyeriss(layer, 16, 1.0, res.dim_array, model::CostModelVariant::Kapla);
      for (const auto& bufshr : schemes) {
        for (const auto& nld : mr.nlds) {
          for (int i = 0; i < 40; ++i) {
            const auto b = random_blocking(nld, rng);
            const auto unswept = evaluate_loop_blocking_unswept(nld, b, res, bufshr, opt, costs);
            if (!unswept.valid()) continue;
            auto fast = unswept;
            auto plain = unswept;
            detail::apply_bufshr(fast, nld, res, bufshr, detail::SweepMode::Fast);
            detail::apply_bufshr(plain, nld, res, bufshr, detail::SweepMode::Plain);
            ASSERT_EQ(fast.bufshr, plain.bufshr) << model::describe(layer) << " gbuf " << gbuf;
            ASSERT_EQ(fast.blocking, plain.blocking) << model::describe(layer);
            ASSERT_EQ(fast.ords_changed_by_bufshr, plain.ords_changed_by_bufshr);
            // The evaluation's own sweep is the fast one.
            EXPECT_EQ(evaluate_loop_blocking(nld, b, res, bufshr, opt, costs).bufshr, fast.bufshr);
            ++compared;
            shrunk += fast.bufshr.subgrp_size != fast.bufshr.grp_size &&
                      fast.bufshr.subgrp_size != PerDataCategory<std::int64_t>{{1, 1, 1}};
            reordered += fast.ords_changed_by_bufshr;
            for (auto d : all_values<DataCategory>()) rotated += fast.bufshr.rot_fetch[d] > 0;
          }
        }
      }
    }
  }
  // The cases exercise every part of the sweep.
  EXPECT_GT(compared, 500);
  EXPECT_GT(shrunk, 20);
  EXPECT_GT(reordered, 20);
  EXPECT_GT(rotated, 20);
  std::cout << "compared " << compared << " shrunk " << shrunk << " reordered " << reordered
            << " rotated " << rotated << "\n";
}

TEST(LoopBlocking, PythonSetOrderOfSubgroupCandidates) {
  // Expected orders printed by CPython 3.11 (list(set(c))).
  auto check = [](std::vector<std::array<std::int64_t, 3>> in,
                  std::vector<std::array<std::int64_t, 3>> want) {
    std::int64_t t[6][3];
    for (std::size_t i = 0; i < in.size(); ++i)
      for (std::size_t k = 0; k < 3; ++k) t[i][k] = in[i][k];
    int order[6];
    detail::py_set_order(t, static_cast<int>(in.size()), order);
    for (std::size_t i = 0; i < in.size(); ++i)
      EXPECT_EQ(in[static_cast<std::size_t>(order[i])], want[i]) << i;
  };
  check({{8, 1, 1}, {4, 1, 1}, {2, 1, 1}, {1, 1, 1}, {8, 2, 1}, {1, 1, 8}},
        {{2, 1, 1}, {8, 2, 1}, {4, 1, 1}, {8, 1, 1}, {1, 1, 8}, {1, 1, 1}});
  check({{8, 1, 1}, {4, 1, 1}, {2, 1, 1}}, {{2, 1, 1}, {4, 1, 1}, {8, 1, 1}});
  check({{16, 4, 1}, {16, 2, 1}, {8, 4, 1}, {4, 4, 2}, {16, 1, 1}},
        {{16, 1, 1}, {4, 4, 2}, {8, 4, 1}, {16, 4, 1}, {16, 2, 1}});
  check({{1, 2, 4}, {2, 1, 4}, {4, 2, 1}, {1, 4, 2}}, {{4, 2, 1}, {1, 2, 4}, {2, 1, 4}, {1, 4, 2}});
}

TEST(LoopBlocking, PythonFloorDivision) {
  EXPECT_EQ(detail::py_idivc(7.0, 2), 4.0);
  EXPECT_EQ(detail::py_idivc(8.0, 2), 4.0);
  EXPECT_EQ(detail::py_idivc(2.5, 1), 2.0);
  EXPECT_EQ(detail::py_idivc(0.5, 1), 0.0);
  EXPECT_EQ(detail::py_idivc(2.5, 2), 1.0);  // (2.5 + 2 - 1) // 2 = 3.5 // 2
}

// CPython's float floor division, written out (fmod, then the sign and rounding fix-ups):
// py_floordiv's integer shortcut must give the same value, sign of zero included.
double cpython_floordiv(double vx, double wx) {
  const double mod = std::fmod(vx, wx);
  double div = (vx - mod) / wx;
  if (mod != 0 && ((wx < 0) != (mod < 0))) div -= 1.0;
  if (div == 0) return std::copysign(0.0, vx / wx);
  double fl = std::floor(div);
  if (div - fl > 0.5) fl += 1.0;
  return fl;
}

TEST(LoopBlocking, PythonFloorDivisionShortcutIsExact) {
  const double big = 9007199254740992.0;  // 2^53: the shortcut's bound
  const std::vector<double> xs = {0.0,     -0.0, 0.5,  1.0,     2.0,       3.0,     7.0,
                                  8.0,     9.5,  1e6,  1e6 + 1, 123456789, big - 1, big,
                                  big + 2, -1.0, -7.0, 1e300,   2.5,       64.0,    4095.0};
  const std::vector<double> ws = {1.0, 2.0, 3.0, 7.0, 64.0, 0.5, 1e6 + 3, big - 1, -2.0};
  for (double x : xs)
    for (double w : ws) {
      const double want = cpython_floordiv(x, w);
      const double got = detail::py_floordiv(x, w);
      EXPECT_EQ(got, want) << x << " // " << w;
      EXPECT_EQ(std::signbit(got), std::signbit(want)) << x << " // " << w;
    }
  for (std::int64_t x = 1; x <= 3000; ++x)
    for (std::int64_t w = 1; w <= 70; ++w)
      ASSERT_EQ(detail::py_floordiv(static_cast<double>(x), static_cast<double>(w)),
                cpython_floordiv(static_cast<double>(x), static_cast<double>(w)));
}

}  // namespace
}  // namespace kapla::cost
