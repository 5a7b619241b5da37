// Imperfect factorization, temporal (`imperfect: full`, issue 18, docs/imperfect.md): trip
// counts that cover a loop with a smaller last block. Ruby's toy case in temporal form, a
// hand-priced conv with a 7-long loop blocked 4 + 3, the Ruby-T candidate lists, and for a
// sampled set of blockings with a remainder the exact MAC count and buffers that fit.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/errors.hpp"
#include "cost/loop_blocking.hpp"
#include "cost/loop_blocking_search.hpp"
#include "cost/map_strategy.hpp"
#include "mapping/node_region.hpp"

namespace kapla::cost {
namespace {

using mapping::LoopSet;

mapping::Resource one_node(std::int64_t gbuf, std::int64_t regf, PhyDim2 array = {16, 16}) {
  mapping::Resource r;
  r.proc_region = mapping::NodeRegion::rectangle({1, 1}, {0, 0}, mapping::RegionType::Proc);
  r.dram_region = mapping::NodeRegion::rectangle({1, 1}, {0, 0}, mapping::RegionType::Dram, {0, 0});
  r.src_data_region = r.dram_region;
  r.dst_data_region = r.dram_region;
  r.dim_array = array;
  r.size_gbuf = gbuf;
  r.size_regf = regf;
  r.array_bus_width = 8;
  r.dram_bandwidth = 16;
  return r;
}

model::SearchOptions stored_options(model::Imperfect m) {
  model::SearchOptions o;
  o.sw_gbuf_bypass = {{false, false, false}};  // everything stays in GBUF: no bypass decision
  o.imperfect = m;
  return o;
}

/// A small conv as a nested-loop description written by hand: one pass is one input channel
/// x one output channel of a 3x3 filter over a 4x4 ofmap (6x6 ifmap): 9 filter, 36 ifmap and
/// 16 ofmap words, 144 MACs in 10 cycles.
NestedLoopDesc hand_conv(std::int64_t nifm, std::int64_t nofm) {
  NestedLoopDesc n;
  n.loopcnt = {{nifm, nofm, 1}};
  n.usize_gbuf = {{9, 36, 16}};
  n.usize_regf = {{3, 3, 1}};
  n.unit_access[MemLevel::Dram] = {{9, 36, 16}};
  n.unit_access[MemLevel::Gbuf] = {{9, 36, 16}};
  n.unit_access[MemLevel::Itcn] = {{18, 72, 32}};
  n.unit_access[MemLevel::Regf] = {{144, 144, 144}};
  n.unit_ops = 144;
  n.unit_time = 10;
  n.data_loops = {{LoopSet{LoopDim::Ifm, LoopDim::Ofm}, LoopSet{LoopDim::Ifm, LoopDim::Bat},
                   LoopSet{LoopDim::Ofm, LoopDim::Bat}}};
  return n;
}

TEST(ImperfectBlocking, CoversAndRubyTCandidates) {
  EXPECT_EQ(block_candidates(7), (std::vector<std::int64_t>{1, 2, 3, 4, 7}));
  EXPECT_EQ(block_candidates(1), (std::vector<std::int64_t>{1}));
  // 7: the exact factors in the reference's order, then the covers ascending in (t2, t1).
  const std::vector<std::array<std::int64_t, 3>> want{
      {1, 1, 7}, {1, 7, 1}, {7, 1, 1},                         // exact
      {4, 2, 1}, {3, 3, 1}, {2, 4, 1},                         // REGF block 1
      {4, 1, 2}, {2, 2, 2}, {1, 4, 2},                         // REGF block 2: 2+2+2+1
      {3, 1, 3}, {2, 2, 3}, {1, 3, 3}, {2, 1, 4}, {1, 2, 4}};  // 3+3+1, 4+3
  EXPECT_EQ(loop_blockings3(7, true), want);
  EXPECT_EQ(loop_blockings3(7, false), factorize3(7));
  for (std::int64_t n = 1; n <= 60; ++n) {
    const auto all = loop_blockings3(n, true);
    const auto exact = factorize3(n);
    EXPECT_TRUE(std::equal(exact.begin(), exact.end(), all.begin())) << n;
    for (std::size_t i = 0; i < all.size(); ++i) {
      EXPECT_TRUE(blocks_cover(all[i][0], all[i][1], all[i][2], n)) << n;
      EXPECT_EQ(std::count(all.begin(), all.end(), all[i]), 1) << n;
    }
  }
  EXPECT_TRUE(blocks_cover(2, 4, 1, 7));   // GBUF blocks 4 + 3
  EXPECT_FALSE(blocks_cover(3, 4, 1, 7));  // a third GBUF block would be empty
  EXPECT_FALSE(blocks_cover(2, 8, 1, 7));  // a GBUF block of 8 REGF blocks of which 7 run
  EXPECT_FALSE(blocks_cover(1, 1, 8, 7));  // a REGF block larger than the loop
}

// Ruby's toy case in temporal form: a loop of 100 whose GBUF block may hold at most 6 units.
// Exact factors take blocks of 5 (20 trips); a block of 6 with a remainder takes 17 (16 x 6 +
// 4). The ofmap, re-read once per trip of the input-channel loop outside it, is fetched
// 2 x 17 - 1 = 33 times instead of 39.
TEST(ImperfectBlocking, RubyToyCaseTemporal) {
  auto fewest_trips = [](bool remainders) {
    std::int64_t best = 100;
    for (const auto& t : loop_blockings3(100, remainders))
      if (t[1] * t[2] <= 6) best = std::min(best, t[0]);
    return best;
  };
  EXPECT_EQ(fewest_trips(false), 20);
  EXPECT_EQ(fewest_trips(true), 17);

  const auto nld = hand_conv(100, 2);
  const auto res = one_node(1 << 20, 64);
  auto trips = [&](std::int64_t t0, std::int64_t t1, model::Imperfect m) {
    LoopBlocking b;
    b.bl_ts = {{{{t0, 2, 1}}, {{t1, 1, 1}}, {{1, 1, 1}}}};
    b.bl_ords = {{{{1, 0, 2}}, {{0, 1, 2}}}};  // level 0: OFM inside IFM
    return evaluate_loop_blocking(nld, b, res, {}, stored_options(m), {});
  };
  const auto exact = trips(20, 5, model::Imperfect::None);
  const auto rem = trips(17, 6, model::Imperfect::Full);
  ASSERT_TRUE(exact.valid() && rem.valid());
  EXPECT_EQ(exact.fetch[0][DataCategory::Ofm], 39);
  EXPECT_EQ(rem.fetch[0][DataCategory::Ofm], 33);
  // The real words: 2 ofmaps of 16 words per fetch; the ops and passes are the layer's.
  EXPECT_DOUBLE_EQ(rem.access[MemLevel::Dram][DataCategory::Ofm], 33.0 * 32);
  EXPECT_EQ(rem.lcnt, 200);
  EXPECT_DOUBLE_EQ(rem.ops, 200.0 * 144);
  EXPECT_EQ(rem.proc_time, exact.proc_time);
  // GBUF sized for the full block: 6 input channels, not the last 4.
  EXPECT_DOUBLE_EQ(rem.size[0][DataCategory::Ifm], 6.0 * 36);
  EXPECT_DOUBLE_EQ(exact.size[0][DataCategory::Ifm], 5.0 * 36);
}

// A conv with 7 input channels and 2 output channels, the input channels blocked 4 + 3 in
// GBUF (trip counts 2, 4, 1), one channel per pass; at the GBUF->REGF level the output
// channels run inside the input channels. Every number below is worked out by hand from
// docs/imperfect.md's formulas (nn_dataflow-spec.md §7.2-7.5 with real block counts).
TEST(ImperfectBlocking, HandPricedConvSevenAsFourPlusThree) {
  const auto nld = hand_conv(7, 2);
  LoopBlocking b;
  b.bl_ts = {{{{2, 1, 1}}, {{4, 2, 1}}, {{1, 1, 1}}}};  // [level][IFM, OFM, BAT]
  b.bl_ords = {{{{0, 1, 2}}, {{1, 0, 2}}}};
  // GBUF: the full block, 4 input channels: 4 x 2 filters x 9 + 4 x 36 + 2 x 16 = 248 words
  // (the last block, 3 channels, needs 194). REGF: 3 + 3 + 1 = 7 words.
  const auto res = one_node(248, 7);
  const auto opt = stored_options(model::Imperfect::Full);
  const model::UnitCosts costs;  // DRAM 200, GBUF 6, ITCN 2, REGF 1 per word
  const auto ev = evaluate_loop_blocking(nld, b, res, {}, opt, costs);
  ASSERT_TRUE(ev.valid()) << invalid_reason_name(ev.invalid);
  EXPECT_DOUBLE_EQ(ev.size[0][DataCategory::Fil], 72);
  EXPECT_DOUBLE_EQ(ev.size[0][DataCategory::Ifm], 144);
  EXPECT_DOUBLE_EQ(ev.size[0][DataCategory::Ofm], 32);
  EXPECT_DOUBLE_EQ(
      ev.size[1][DataCategory::Fil] + ev.size[1][DataCategory::Ifm] + ev.size[1][DataCategory::Ofm],
      7);
  // One word less of GBUF and the full block no longer fits, although the last one would.
  EXPECT_EQ(evaluate_loop_blocking(nld, b, one_node(247, 7), {}, opt, costs).invalid,
            InvalidReason::CapacityInitial);
  // Fetches. DRAM: every category once (the input-channel loop is the only one at level 0 and
  // none of the three is re-read across it: FIL and IFM depend on it, OFM's loops are trivial
  // there). GBUF->REGF: the ofmap is re-read for every input channel that runs, 4 + 3 = 7
  // (not 2 x 4 = 8), the first a write only: 2 x 7 - 1 = 13.
  using F = PerDataCategory<std::int64_t>;
  EXPECT_EQ(ev.fetch[0], (F{{1, 1, 1}}));
  EXPECT_EQ(ev.fetch[1], (F{{1, 1, 13}}));
  // Passes 7 x 2 = 14 (16 with the padded channel): ops 14 x 144 = 2016 = 7 x 2 x 16 x 9 MACs,
  // time 14 x 10.
  EXPECT_EQ(ev.lcnt, 14);
  EXPECT_DOUBLE_EQ(ev.ops, 2016);
  EXPECT_EQ(ev.proc_time, 140);
  // Accesses: real words per fetch (FIL 9 x 14, IFM 36 x 7, OFM 16 x 2) times the fetches.
  using A = PerDataCategory<double>;
  EXPECT_EQ(ev.access[MemLevel::Dram], (A{{126, 252, 32}}));
  EXPECT_EQ(ev.access[MemLevel::Gbuf], (A{{126, 252, 416}}));
  EXPECT_EQ(ev.access[MemLevel::Itcn], (A{{252, 504, 832}}));
  EXPECT_EQ(ev.access[MemLevel::Regf], (A{{2016, 2016, 4032}}));
  // DRAM ceil(410 / 16) = 26 cycles, array bus 416 / 8 = 52, processing 140.
  EXPECT_EQ(ev.dram_time, 26);
  EXPECT_EQ(ev.bus_time, 52);
  EXPECT_DOUBLE_EQ(ev.time(), 140);
  EXPECT_DOUBLE_EQ(ev.access_cost, 200 * 410 + 6 * 794 + 2 * 1588 + 1 * 8064);
  // The same trip counts are refused outside `full` (a bug if a search offers them).
  EXPECT_THROW((void)evaluate_loop_blocking(nld, b, res, {},
                                            stored_options(model::Imperfect::Spatial), costs),
               InternalError);
}

// For a sampled set of blockings with a remainder (every 5th valid one B enumerates with
// `full`, a few misaligned layers on one 14x12 node): the operation count is the layer's MACs
// (no padded pass counted), the passes are the layer's, and every buffer fits.
TEST(ImperfectBlocking, SampledRemaindersCountTheMacsAndFit) {
  const std::vector<std::pair<model::Layer, std::int64_t>> layers{
      {model::make_conv(3, 64, {28, 28}, {7, 7}, {2, 2}), 1},
      {model::make_conv(96, 40, {7, 7}, {1, 1}), 3},
      {model::make_fc(200, 100), 2},
  };
  const auto res = one_node(1 << 14, 64, {14, 12});
  model::SearchOptions opt;
  opt.imperfect = model::Imperfect::Full;
  int checked = 0;
  for (const auto& [layer, batch] : layers) {
    const auto mr = map_eyeriss(layer, batch, 1.0, res.dim_array, model::CostModelVariant::Kapla);
    ASSERT_FALSE(mr.nlds.empty());
    const auto& nld = mr.nlds[0];
    const double macs = static_cast<double>(layer.total_ops(batch));
    int k = 0;
    for_each_loop_blocking(
        nld, {},
        [&](const LoopBlocking& b) {
          bool exact = true;
          for (auto l : all_values<LoopDim>())
            exact = exact && b.bl_ts[0][l] * b.bl_ts[1][l] * b.bl_ts[2][l] == nld.loopcnt[l];
          if (exact) return;
          const auto ev = evaluate_loop_blocking(nld, b, res, {}, opt, {});
          if (!ev.valid() || k++ % 5 != 0) return;
          ++checked;
          EXPECT_NEAR(ev.ops, macs, macs * 1e-12);
          EXPECT_EQ(ev.lcnt, nld.total_loopcnt());
          double regf = 0, gbuf = 0;
          for (auto d : all_values<DataCategory>()) {
            regf += ev.size[1][d];
            gbuf += ev.size[0][d];
            // Sized for the full block of every loop d depends on.
            std::int64_t block = 1;
            for (auto l : all_values<LoopDim>())
              if (nld.data_loops[d].contains(l)) block *= b.bl_ts[1][l] * b.bl_ts[2][l];
            if (ev.stored_in_gbuf[d]) {
              EXPECT_DOUBLE_EQ(ev.size[0][d], static_cast<double>(block) * nld.usize_gbuf[d]);
            }
          }
          EXPECT_LE(regf, static_cast<double>(res.size_regf));
          EXPECT_LE(gbuf, static_cast<double>(res.size_gbuf));
        },
        true);
  }
  EXPECT_GT(checked, 500);
}

// `full` searches a superset: B's best over the blockings with a remainder is never worse
// than over exact factors, and strictly better on a loop that does not factor well (a 7x7
// conv whose input channels fill GBUF).
TEST(ImperfectBlocking, SearchWithRemaindersNeverWorse) {
  const auto res = one_node(3000, 64, {14, 12});
  int searched = 0, better = 0;
  for (const auto& layer :
       {model::make_conv(97, 40, {7, 7}, {3, 3}), model::make_conv(2048, 512, {7, 7}, {1, 1}),
        model::make_fc(200, 100)}) {
    const auto mr = map_eyeriss(layer, 1, 1.0, res.dim_array, model::CostModelVariant::Kapla);
    for (const auto& nld : mr.nlds) {
      auto opt = stored_options(model::Imperfect::Spatial);
      opt.opt_goal = model::Goal::EnergyDelay;
      const auto exact = search_loop_blocking(nld, res, {}, {}, opt, {});
      opt.imperfect = model::Imperfect::Full;
      LoopBlockingSearchStats st;
      const auto full = search_loop_blocking(nld, res, {}, {}, opt, {}, &st);
      if (exact.empty()) continue;
      ASSERT_FALSE(full.empty());
      EXPECT_FALSE(loop_blocking_better(exact[0], full[0], opt.opt_goal));
      better += loop_blocking_better(full[0], exact[0], opt.opt_goal) ? 1 : 0;
      ++searched;
    }
  }
  EXPECT_GT(searched, 3);
  EXPECT_GT(better, 0);
}

}  // namespace
}  // namespace kapla::cost
