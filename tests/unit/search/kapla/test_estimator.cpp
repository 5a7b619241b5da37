// KAPLA estimator steps on hand-checked directive schedules (kapla-spec.md §1.4).
#include "estimator.hpp"

#include <gtest/gtest.h>

namespace kapla::search::kapla {
namespace {

// One PE row convolution: a 3-tap filter row sliding over an 8-wide output row.
DirectiveSchedule row_conv() {
  DirectiveSchedule s;
  s.regf.tensor[Dim::R] = 3;
  s.regf.tensor[Dim::Xi] = 3;
  s.regf.tensor[Dim::Xo] = 1;
  s.regf.updates.push_back({{DimStep{Dim::Xi, 1}, DimStep{Dim::Xo, 1}}, 2, 8, true});
  return s;
}

TEST(Estimator, SlidingWindowCountsEachInputOnce) {
  const auto s = row_conv();
  EXPECT_DOUBLE_EQ(unit_access(s, s.regf, DataCategory::Ifm), 10);  // 3 + 7 fresh
  EXPECT_DOUBLE_EQ(unit_access(s, s.regf, DataCategory::Fil), 3);
  EXPECT_DOUBLE_EQ(unit_access(s, s.regf, DataCategory::Ofm), 8);
}

TEST(Estimator, RefetchCountsIrrelevantOuterUpdates) {
  DirectiveSchedule s;
  s.gbuf.tensor[Dim::K] = 2;
  s.gbuf.tensor[Dim::N] = 1;
  s.gbuf.updates.push_back({{DimStep{Dim::K, 2}, DimStep{}}, 1, 4, false});
  s.gbuf.updates.push_back({{DimStep{Dim::N, 1}, DimStep{}}, 1, 2, false});
  EXPECT_DOUBLE_EQ(refetch(s, s.gbuf, DataCategory::Ifm), 1);  // K inside its N update
  EXPECT_DOUBLE_EQ(refetch(s, s.gbuf, DataCategory::Fil), 2);  // N outside its K update
  EXPECT_DOUBLE_EQ(refetch(s, s.gbuf, DataCategory::Ofm), 1);
}

TEST(Estimator, MulticastGroupsOfRowStationaryStacks) {
  DirectiveSchedule s;
  s.regf.stacks.push_back({{DimStep{Dim::Yi, 1}, DimStep{Dim::Yo, 1}}, 2, 3});
  s.regf.stacks.push_back({{DimStep{Dim::S, 1}, DimStep{Dim::Yi, 1}}, 2, 3});
  EXPECT_DOUBLE_EQ(distinct_copies(s, DataCategory::Ifm), 5);  // diagonals share rows
  EXPECT_DOUBLE_EQ(distinct_copies(s, DataCategory::Fil), 3);
  EXPECT_DOUBLE_EQ(distinct_copies(s, DataCategory::Ofm), 3);
}

TEST(Estimator, EnergyIsTheSumOfItsParts) {
  auto s = row_conv();
  s.unit_ops = 3;
  s.regf_ops_iter = 1;
  model::UnitCosts c;
  const auto e = estimate(s, c);
  double sum = e.ops * c.mac_op;
  for (auto m : all_values<MemLevel>())
    for (auto d : all_values<DataCategory>()) sum += e.access[m][d] * c.mem_hier[m];
  EXPECT_DOUBLE_EQ(e.energy, sum);
  EXPECT_DOUBLE_EQ(e.ops, 3 * 8);
}

}  // namespace
}  // namespace kapla::search::kapla
