// BufShrScheme against the spec's worked example (nn_dataflow-spec.md §8.9.2).
#include "mapping/buffer_sharing_scheme.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "core/errors.hpp"
#include "model/layer.hpp"

namespace kapla::mapping {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

PartitionScheme example_part() {
  PartitionScheme p;
  p.order = {ParallelDim::Batp, ParallelDim::Outp, ParallelDim::Ofmp, ParallelDim::Inpp};
  p.pdims[ParallelDim::Outp] = {2, 1};
  p.pdims[ParallelDim::Ofmp] = {1, 2};
  p.pdims[ParallelDim::Batp] = {2, 2};
  p.pdims[ParallelDim::Inpp] = {1, 1};
  return p;
}

TEST(BufShrScheme, SpecExampleGroups) {
  const auto region = NodeRegion::rectangle({4, 4}, {0, 0}, RegionType::Proc);
  const auto conv = model::make_conv(8, 8, {4, 4}, {3, 3});
  const BufShrScheme s = make_bufshr_scheme(region, example_part(), data_loops(conv));
  EXPECT_EQ(s.dims[DataCategory::Fil], (PhyDim2{1, 2}));
  EXPECT_EQ(s.dims[DataCategory::Ifm], (PhyDim2{2, 1}));
  EXPECT_EQ(s.dims[DataCategory::Ofm], (PhyDim2{1, 1}));
  EXPECT_EQ(s.nbr_dists[DataCategory::Fil], (Dist2{kInf, 1}));
  EXPECT_EQ(s.nbr_dists[DataCategory::Ifm], (Dist2{1, kInf}));
  EXPECT_EQ(s.size(DataCategory::Fil), 2);
}

TEST(BufShrScheme, SpecExampleHops) {
  const auto region = NodeRegion::rectangle({4, 4}, {0, 0}, RegionType::Proc);
  const auto conv = model::make_conv(8, 8, {4, 4}, {3, 3});
  const BufShrScheme s = make_bufshr_scheme(region, example_part(), data_loops(conv));
  EXPECT_DOUBLE_EQ(s.nhops_rotate_all(DataCategory::Fil, 2), 1.0);
  EXPECT_DOUBLE_EQ(s.nhops_wide_fetch_once(DataCategory::Fil, 2, 1.5), 1.0 / 3);
  EXPECT_DOUBLE_EQ(s.nhops_wide_fetch_once(DataCategory::Fil, 2, 2), 0.5);
  EXPECT_EQ(s.nhops_wide_fetch_once(DataCategory::Fil, 2, 1), 0.0);
  EXPECT_THROW((void)s.nhops_wide_fetch_once(DataCategory::Fil, 2, 3), InternalError);
  // The unshared category: M = 1 never rotates.
  EXPECT_EQ(s.nhops_rotate_all(DataCategory::Ofm, 1), 0.0);
}

TEST(BufShrScheme, DirectConstructionMatchesDerived) {
  PerDataCategory<PhyDim2> dims{{PhyDim2{1, 2}, PhyDim2{2, 1}, PhyDim2{1, 1}}};
  PerDataCategory<Dist2> nbr{{Dist2{kInf, 1}, Dist2{1, kInf}, Dist2{kInf, kInf}}};
  const BufShrScheme s(dims, nbr);
  EXPECT_DOUBLE_EQ(s.nhops_rotate_all(DataCategory::Ifm, 2), 1.0);
  // Rotation units fewer than M end the rotation early: skipped = max(1, M/U).
  const BufShrScheme big({{PhyDim2{4, 1}, PhyDim2{1, 1}, PhyDim2{1, 1}}},
                         {{Dist2{1, kInf}, Dist2{kInf, kInf}, Dist2{kInf, kInf}}});
  // M = 4 along h: neighbour steps 3, loopback 3: (3+3) * (4-4/3) / 4 * 1.
  EXPECT_DOUBLE_EQ(big.nhops_rotate_all(DataCategory::Fil, 4, 3), 6 * (4 - 4.0 / 3) / 4);
  EXPECT_DOUBLE_EQ(big.nhops_rotate_all(DataCategory::Fil, 4), 6 * 3.0 / 4);
  // Sub-group 2 of 4: two sub-groups, each 1 step + loopback 1.
  EXPECT_DOUBLE_EQ(big.nhops_rotate_all(DataCategory::Fil, 2), 2 * 1.0 / 2 * 2);
}

TEST(BufShrScheme, RejectsInfiniteDistanceAlongSharedDimension) {
  EXPECT_THROW(BufShrScheme({{PhyDim2{2, 1}, PhyDim2{1, 1}, PhyDim2{1, 1}}},
                            {{Dist2{kInf, kInf}, Dist2{kInf, kInf}, Dist2{kInf, kInf}}}),
               InternalError);
}

}  // namespace
}  // namespace kapla::mapping
