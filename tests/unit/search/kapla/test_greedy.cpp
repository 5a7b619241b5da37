// fill_stack / fill_tensor (kapla-spec.md §3.3-3.4).
#include "search/kapla/greedy.hpp"

#include <gtest/gtest.h>

#include "core/math.hpp"

namespace kapla::search::kapla {
namespace {

const PerDataCategory<mapping::LoopSet> kConvLoops{{mapping::LoopSet{LoopDim::Ifm, LoopDim::Ofm},
                                                    mapping::LoopSet{LoopDim::Ifm, LoopDim::Bat},
                                                    mapping::LoopSet{LoopDim::Ofm, LoopDim::Bat}}};

TEST(Greedy, MinFactor) {
  EXPECT_EQ(min_factor(1), 1);
  EXPECT_EQ(min_factor(12), 2);
  EXPECT_EQ(min_factor(49), 7);
  EXPECT_EQ(min_factor(13), 13);
}

TEST(Greedy, FillTensorStaysInsideCapacityAndDivides) {
  const PerLoopDim<std::int64_t> rem{{24, 36, 16}};
  for (const auto& ord : loop_orders()) {
    auto fits = [](const PerLoopDim<std::int64_t>& t) {
      return t[LoopDim::Ifm] * t[LoopDim::Ofm] * 2 + t[LoopDim::Ifm] * t[LoopDim::Bat] * 3 +
                 t[LoopDim::Ofm] * t[LoopDim::Bat] <=
             200;
    };
    const auto t = fill_tensor({{1, 1, 1}}, rem, ord, kConvLoops, DataCategory::Ofm,
                               {{1000, 2000, 3000}}, fits);
    ASSERT_TRUE(t.has_value());
    EXPECT_TRUE(fits(*t));
    for (auto l : all_values<LoopDim>()) EXPECT_EQ(rem[l] % (*t)[l], 0);
    // Greedy growth stops only when the innermost loop cannot grow further.
    LoopDim inner = LoopDim::Ifm;
    for (auto l : all_values<LoopDim>())
      if (ord[l] == 0) inner = l;
    auto g = *t;
    if (rem[inner] / (*t)[inner] > 1) {
      g[inner] *= min_factor(rem[inner] / (*t)[inner]);
      EXPECT_FALSE(fits(g));
    }
  }
}

TEST(Greedy, FillTensorTakesDivisorsBeyondTheInlineList) {
  // 110880 has 144 divisors, more than fill_tensor keeps inline: with room for everything
  // each loop takes its whole count, the last of its divisors.
  const PerLoopDim<std::int64_t> rem{{110880, 110880, 110880}};
  auto all = [&](const PerLoopDim<std::int64_t>& t) {
    for (auto l : all_values<LoopDim>())
      if (t[l] > rem[l]) return false;
    return true;
  };
  for (const auto& ord : loop_orders()) {
    const auto t = fill_tensor({{1, 1, 1}}, rem, ord, kConvLoops, DataCategory::Ofm,
                               {{1000, 2000, 3000}}, all);
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(*t, rem);
  }
}

TEST(Greedy, FillTensorFailsWhenStartOverflows) {
  auto never = [](const PerLoopDim<std::int64_t>&) { return false; };
  EXPECT_FALSE(fill_tensor({{1, 1, 1}}, {{2, 2, 2}}, loop_orders()[0], kConvLoops,
                           DataCategory::Ofm, {{1, 1, 1}}, never)
                   .has_value());
}

TEST(Greedy, FillStackUsesBudgetWhenDivisible) {
  std::vector<StackItem> items{{LoopDim::Ifm, {true, true}, 64},
                               {LoopDim::Ofm, {true, true}, 64},
                               {LoopDim::Bat, {true, true}, 16}};
  for (const auto& ord : loop_orders()) {
    const auto sf =
        fill_stack(items, {4, 8}, ord, kConvLoops, DataCategory::Ofm, {{1e4, 1e5, 1e5}});
    EXPECT_EQ(sf.unused[0], 1);
    EXPECT_EQ(sf.unused[1], 1);
    std::int64_t w = 1, h = 1;
    for (const auto& f : sf.factor) w *= f[0], h *= f[1];
    EXPECT_EQ(w, 4);
    EXPECT_EQ(h, 8);
  }
}

TEST(Greedy, FillStackLeavesBudgetWhenNothingRemains) {
  std::vector<StackItem> items{{LoopDim::Ifm, {true, true}, 1},
                               {LoopDim::Ofm, {true, true}, 1},
                               {LoopDim::Bat, {true, true}, 1}};
  const auto sf =
      fill_stack(items, {2, 2}, loop_orders()[0], kConvLoops, DataCategory::Ofm, {{1, 1, 1}});
  EXPECT_EQ(sf.unused[0] * sf.unused[1], 4);
}

}  // namespace
}  // namespace kapla::search::kapla
