// Imperfect factorization, spatial (issue 18 part 4, docs/imperfect.md): Ruby's toy case with
// kapla's functions, the wider partition space (uneven splits, sub-grids), a hand-priced
// sub-grid, and for sampled imperfect schemes the exact MAC count and buffers that fit.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/math.hpp"
#include "cost/loop_blocking_search.hpp"
#include "mapping/gen_partition.hpp"
#include "mapping/part_layer.hpp"
#include "model/options.hpp"
#include "pricing/fixed_scheme.hpp"

namespace kapla::mapping {
namespace {

model::SearchOptions options(model::Imperfect m) {
  model::SearchOptions o = model::kapla_option_preset("training");
  o.imperfect = m;
  return o;
}

mapping::Resource resource(PhyDim2 nodes) {
  mapping::Resource r;
  r.proc_region = NodeRegion::rectangle(nodes, {0, 0}, RegionType::Proc);
  r.dram_region = NodeRegion::rectangle(nodes, {0, 0}, RegionType::Dram, {0, 0});
  r.src_data_region = r.dram_region;
  r.dst_data_region = r.dram_region;
  r.dim_array = {4, 4};
  r.size_gbuf = 4096;
  r.size_regf = 64;
  return r;
}

// Ruby's toy case: a dimension of 100 on 6 PEs takes 20 steps with perfect factors (the best
// divisor of 100 that fits is 5) and 17 with a remainder (6 x 17 covers 100, the last PE
// doing 15).
TEST(ImperfectSplit, RubyToyCase) {
  std::int64_t perfect_steps = 100;
  for (const std::int64_t d : divisors(100))
    if (d <= 6) perfect_steps = std::min(perfect_steps, 100 / d);
  EXPECT_EQ(perfect_steps, 20);
  std::int64_t imperfect_steps = 100;
  for (std::int64_t n = 1; n <= 6; ++n)
    if (nonempty_split(100, n)) imperfect_steps = std::min(imperfect_steps, ceil_div(100, n));
  EXPECT_EQ(imperfect_steps, 17);
  // Every split of 100 into at most 6 pieces leaves none empty; 7 into 6 does.
  EXPECT_TRUE(nonempty_split(100, 6));
  EXPECT_FALSE(nonempty_split(7, 6));
  EXPECT_TRUE(nonempty_split(7, 4));
  EXPECT_FALSE(nonempty_split(3, 4));
}

// The same case on a node grid: an FC layer with 10 outputs on 1 x 4 nodes. The reference's
// space cannot split 10 four ways (20 % padding is over approx_dividable's 10 %): its best is
// 5 outputs per node; spatial gives 3 (3 + 3 + 3 + 1).
TEST(ImperfectPartition, UnevenSplitBeyondApproxDividable) {
  const auto fc = model::make_fc(64, 10);
  auto min_nofm = [&](model::Imperfect m) {
    std::int64_t best = fc.nofm;
    for (const auto& part : gen_partition(fc, 1, {1, 4}, options(m)))
      best = std::min(best, part_layer(fc, 1, part).p_layer.nofm);
    return best;
  };
  EXPECT_EQ(min_nofm(model::Imperfect::None), 5);
  EXPECT_EQ(min_nofm(model::Imperfect::Spatial), 3);
}

// A 7 x 7 fmap on 8 x 8 nodes: the reference splits it at most 4 ways per side (7 on 8 leaves
// a node empty); spatial may use a 7 x 7 sub-grid, one output pixel per node, 15 nodes idle.
TEST(ImperfectPartition, SubGridFitsAMisalignedFmap) {
  const auto conv = model::make_conv(8, 8, {7, 7}, {3, 3}, {1, 1});
  auto has_7x7 = [&](model::Imperfect m) {
    for (const auto& part : gen_partition(conv, 1, {8, 8}, options(m)))
      if (part.pdims[ParallelDim::Ofmp] == PhyDim2{7, 7}) return true;
    return false;
  };
  EXPECT_FALSE(has_7x7(model::Imperfect::None));
  EXPECT_TRUE(has_7x7(model::Imperfect::Spatial));
}

// The wider space keeps the reference's schemes first, in its order, and never uses more
// nodes than the region holds.
TEST(ImperfectPartition, SupersetOfTheReferenceInItsOrder) {
  for (const auto& layer :
       {model::make_conv(3, 64, {56, 56}, {3, 3}, {1, 1}), model::make_fc(2048, 1000),
        model::make_conv(512, 512, {7, 7}, {3, 3}, {1, 1})}) {
    for (const PhyDim2 nodes : {PhyDim2{4, 4}, PhyDim2{2, 5}, PhyDim2{8, 8}}) {
      const auto none = gen_partition(layer, 4, nodes, options(model::Imperfect::None));
      const auto wide = gen_partition(layer, 4, nodes, options(model::Imperfect::Spatial));
      ASSERT_GE(wide.size(), none.size());
      EXPECT_TRUE(std::equal(none.begin(), none.end(), wide.begin()));
      for (const auto& p : wide) {
        EXPECT_LE(p.dim().h, nodes.h);
        EXPECT_LE(p.dim().w, nodes.w);
      }
    }
  }
}

// Without hybrid partitioning the reference splits a 7x7 fmap over all 16x16 nodes (207 of
// them empty, their tiles priced as the ceil piece); spatial adds the 7x7 sub-grid and no
// split with an empty piece.
TEST(ImperfectPartition, NonHybridSubGridsHaveNoEmptyPiece) {
  const auto conv = model::make_conv(2048, 512, {7, 7}, {1, 1}, {1, 1});
  model::SearchOptions ref = model::default_options();
  model::SearchOptions wide = ref;
  wide.imperfect = model::Imperfect::Spatial;
  const auto none = gen_partition(conv, 1, {16, 16}, ref);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].pdims[ParallelDim::Ofmp], (PhyDim2{16, 16}));
  const auto more = gen_partition(conv, 1, {16, 16}, wide);
  ASSERT_GT(more.size(), 1u);
  bool has_7x7 = false;
  for (std::size_t i = 1; i < more.size(); ++i) {
    const PhyDim2 f = more[i].pdims[ParallelDim::Ofmp];
    EXPECT_TRUE(nonempty_split(7, f.h) && nonempty_split(7, f.w)) << f.h << "x" << f.w;
    has_7x7 = has_7x7 || f == PhyDim2{7, 7};
  }
  EXPECT_TRUE(has_7x7);
}

pricing::LayerProblem problem(const model::Layer& layer, std::int64_t batch, PhyDim2 nodes) {
  pricing::LayerProblem p;
  p.layer = layer;
  p.batch = batch;
  p.resource = resource(nodes);
  p.options = options(model::Imperfect::Spatial);
  p.ifmap_layout = DataLayout{};
  p.ifmap_layout.frngs.push_back(
      FmapRange{{0, 0, 0, 0}, {batch, layer.nifm, layer.sifm.h, layer.sifm.w}});
  p.ifmap_layout.regions.push_back(p.resource.src_data_region);
  PartitionScheme whole;
  whole.pdims[ParallelDim::Ofmp] = p.resource.src_data_region.dim;
  p.ifmap_layout.parts.push_back(whole);
  return p;
}

// Hand-priced: a conv split over the output channels of 2 nodes costs the same in ops,
// accesses, fetches and time whether the region has 2 nodes or 3 (the third idle): idle
// nodes count nothing but static energy, which is per cycle of the whole region.
TEST(ImperfectPricing, IdleNodesOfASubGridCountNothing) {
  const auto conv = model::make_conv(4, 6, {4, 4}, {3, 3}, {1, 1});
  PartitionScheme part;
  part.pdims[ParallelDim::Outp] = {1, 2};  // 3 output channels per node
  const auto p2 = problem(conv, 1, {1, 2});
  const auto p3 = problem(conv, 1, {1, 3});
  const auto s2 = pricing::setup_partition(p2, part);
  const auto s3 = pricing::setup_partition(p3, part);
  EXPECT_EQ(s3.bufshr.used_nodes, 2);
  ASSERT_FALSE(s2.map.nlds.empty());
  const auto found =
      cost::search_loop_blocking(s2.map.nlds[0], p2.resource, s2.bufshr, {}, p2.options, p2.costs);
  ASSERT_FALSE(found.empty());
  const pricing::FixedScheme fs{0, found.front().blocking};
  const auto e2 = pricing::evaluate_blocking(p2, s2, fs);
  const auto e3 = pricing::evaluate_blocking(p3, s3, fs);
  ASSERT_TRUE(e2 && e3);
  EXPECT_EQ(e3->num_nodes, 2);
  // The ops are the layer's MACs: 6 outputs x 4 inputs x 16 pixels x 9 taps.
  EXPECT_DOUBLE_EQ(e3->ops, 6.0 * 4 * 16 * 9);
  EXPECT_EQ(e2->ops, e3->ops);
  EXPECT_EQ(e2->access, e3->access);
  EXPECT_EQ(e2->fetch, e3->fetch);
  EXPECT_EQ(e2->proc_time, e3->proc_time);
  EXPECT_EQ(e2->access_cost, e3->access_cost);
  // With a 7th output channel the split is uneven (4 + 3): time by the largest piece (4
  // channels, as a 4-channel layer on one node), ops by the real 7.
  const auto conv7 = model::make_conv(4, 7, {4, 4}, {3, 3}, {1, 1});
  const auto q3 = problem(conv7, 1, {1, 3});
  const auto t3 = pricing::setup_partition(q3, part);
  EXPECT_EQ(t3.pl.p_layer.nofm, 4);
  const auto found7 =
      cost::search_loop_blocking(t3.map.nlds[0], q3.resource, t3.bufshr, {}, q3.options, q3.costs);
  ASSERT_FALSE(found7.empty());
  const auto e7 = pricing::evaluate_blocking(q3, t3, {0, found7.front().blocking});
  ASSERT_TRUE(e7);
  EXPECT_DOUBLE_EQ(e7->ops, 7.0 * 4 * 16 * 9);
  // 8 channels split evenly (4 + 4) on the same nodes: the same time, 8/7 of the ops.
  const auto q8 = problem(model::make_conv(4, 8, {4, 4}, {3, 3}, {1, 1}), 1, {1, 3});
  const auto t8 = pricing::setup_partition(q8, part);
  const auto e8 = pricing::evaluate_blocking(q8, t8, {0, found7.front().blocking});
  ASSERT_TRUE(e8);
  EXPECT_EQ(e7->proc_time, e8->proc_time);
  EXPECT_DOUBLE_EQ(e8->ops / e7->ops, 8.0 / 7.0);
}

// For every imperfect scheme of a sampled set (each extra partition of a few misaligned
// layers, the loop-blocking search's best scheme of each NLD): the operation count is the
// layer's MACs (no padded work counted) and every buffer fits.
TEST(ImperfectPricing, SampledSchemesCountTheMacsAndFit) {
  struct Case {
    model::Layer layer;
    std::int64_t batch;
    PhyDim2 nodes;
  };
  const std::vector<Case> cases{
      {model::make_conv(3, 16, {14, 14}, {3, 3}, {1, 1}), 2, {4, 4}},
      {model::make_conv(16, 10, {7, 7}, {3, 3}, {1, 1}), 1, {8, 8}},
      {model::make_fc(64, 100), 3, {2, 5}},
      {model::make_conv(8, 24, {7, 7}, {1, 1}, {1, 1}), 4, {3, 3}},
  };
  int checked = 0;
  for (const auto& c : cases) {
    const auto p = problem(c.layer, c.batch, c.nodes);
    auto ref = p.options;
    ref.imperfect = model::Imperfect::None;
    const auto none = gen_partition(c.layer, c.batch, c.nodes, ref);
    const auto wide = gen_partition(c.layer, c.batch, c.nodes, p.options);
    ASSERT_GT(wide.size(), none.size());
    const double macs = static_cast<double>(c.layer.total_ops(c.batch));
    for (std::size_t i = none.size(); i < wide.size(); i += 7) {  // every 7th extra scheme
      const auto s = pricing::setup_partition(p, wide[i]);
      for (std::size_t n = 0; n < s.map.nlds.size(); ++n) {
        const auto found =
            cost::search_loop_blocking(s.map.nlds[n], p.resource, s.bufshr, {}, p.options, p.costs);
        for (const auto& ev : found) {
          ++checked;
          EXPECT_NEAR(ev.ops, macs, macs * 1e-12);
          EXPECT_EQ(ev.num_nodes, wide[i].size());
          double regf = 0, gbuf = 0;
          for (auto d : all_values<DataCategory>()) {
            regf += ev.size[1][d];
            gbuf += ev.size[0][d];
          }
          EXPECT_LE(regf, static_cast<double>(p.resource.size_regf));
          EXPECT_LE(gbuf, static_cast<double>(p.resource.size_gbuf));
        }
      }
    }
  }
  EXPECT_GT(checked, 20);
}

}  // namespace
}  // namespace kapla::mapping
