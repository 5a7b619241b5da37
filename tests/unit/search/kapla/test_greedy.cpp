// fill_stack / fill_tensor (kapla-spec.md §3.3-3.4).
#include "search/kapla/greedy.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <tuple>
#include <utility>
#include <vector>

#include "core/math.hpp"
#include "search/kapla/canonical.hpp"

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

// The GBUF occupancy's shared share without a division for power-of-two groups: the same as
// ceil_div for every group size, including 1 and non-powers, and words near the int64 top.
TEST(Greedy, CeilDivByGroupIsCeilDiv) {
  for (std::int64_t g = 1; g <= 70; ++g)
    for (std::int64_t w = 0; w <= 1000; ++w)
      ASSERT_EQ(ceil_div_by_group(w, g), ceil_div(w, g)) << w << " / " << g;
  const std::int64_t big = (std::int64_t{1} << 62) - 1;
  EXPECT_EQ(ceil_div_by_group(big, std::int64_t{1} << 40), ceil_div(big, std::int64_t{1} << 40));
  EXPECT_EQ(ceil_div_by_group(big, 3), ceil_div(big, 3));
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

// A capacity predicate that counts its calls.
struct Counted {
  std::function<bool(const PerLoopDim<std::int64_t>&)> fits;
  int calls = 0;
  bool operator()(const PerLoopDim<std::int64_t>& t) {
    ++calls;
    return fits(t);
  }
};

// Ifm innermost (loop_orders()[0]) with kConvLoops: the knobs are Bat (irrelevant to the
// filters) and Ofm (to the ifmaps); with totals 1 the estimate of (bat, ofm) is 4/bat + 4/ofm.
TEST(Greedy, FillTensorCallCountsByHand) {
  const PerLoopDim<std::int64_t> rem{{1, 4, 4}};
  auto run = [&](FitsOrder order, int& calls) {
    Counted c{
        [](const PerLoopDim<std::int64_t>& t) { return t[LoopDim::Bat] * t[LoopDim::Ofm] <= 8; }};
    const auto t = fill_tensor({{1, 1, 1}}, rem, loop_orders()[0], kConvLoops, DataCategory::Ofm,
                               {{1, 1, 1}}, std::ref(c), order);
    calls = c.calls;
    return t;
  };
  int any = 0, mono = 0;
  // (4, 2) and (2, 4) tie at 3; (4, 2) comes first (Bat is the fastest knob).
  EXPECT_EQ(run(FitsOrder::Any, any), (PerLoopDim<std::int64_t>{{1, 2, 4}}));
  EXPECT_EQ(run(FitsOrder::Monotone, mono), (PerLoopDim<std::int64_t>{{1, 2, 4}}));
  // The start, 3 + 3 candidates, then the joint points with both knobs moved: all four
  // ((2,2) (4,2) (2,4) (4,4)), or only where a row stops fitting ((4,2); (4,4) fails, (2,4)).
  // Asking at every point, as before the skip, took 1 + 6 + 9 = 16.
  EXPECT_EQ(any, 11);
  EXPECT_EQ(mono, 10);
}

TEST(Greedy, FillTensorMonotoneSkipIsWrongOnAHole) {
  // A predicate with a hole at (bat, ofm) = (4, 2), where (4, 4) fits again: the whole walk
  // finds (4, 4) (estimate 2); trusting monotonicity stops the rows at bat 2 and misses it.
  // Hence fits_tiles_order: Any where a category may bypass GBUF (next test).
  auto hole = [](const PerLoopDim<std::int64_t>& t) {
    return !(t[LoopDim::Bat] == 4 && t[LoopDim::Ofm] == 2);
  };
  const PerLoopDim<std::int64_t> rem{{1, 4, 4}};
  EXPECT_EQ(fill_tensor({{1, 1, 1}}, rem, loop_orders()[0], kConvLoops, DataCategory::Ofm,
                        {{1, 1, 1}}, hole, FitsOrder::Any),
            (PerLoopDim<std::int64_t>{{1, 4, 4}}));
  EXPECT_EQ(fill_tensor({{1, 1, 1}}, rem, loop_orders()[0], kConvLoops, DataCategory::Ofm,
                        {{1, 1, 1}}, hole, FitsOrder::Monotone),
            (PerLoopDim<std::int64_t>{{1, 4, 2}}));
}

// A nest whose filters and ofmaps may bypass GBUF (found by a random search over small nests).
NodeNest bypass_nest() {
  NodeNest n;
  n.loopcnt = {{4, 16, 8}};
  n.usize_gbuf = {{1, 3, 5}};
  n.usize_regf = {{1, 1, 1}};
  n.data_loops = kConvLoops;
  n.regf_reusable = {{true, false, true}};
  return n;
}

TEST(Greedy, FitsTilesIsNotMonotoneWhenDataMayBypass) {
  const NodeNest n = bypass_nest();
  Capacity cap{1000, 84, {{1, 1, 1}}, {{false, true, false}}};
  EXPECT_EQ(fits_tiles_order(cap), FitsOrder::Any);
  auto fits_t1 = [&](const PerLoopDim<std::int64_t>& t1) {
    Blocking b;
    for (auto l : all_values<LoopDim>()) {
      b.bl_ts[0][l] = n.loopcnt[l] / t1[l];
      b.bl_ts[1][l] = t1[l];
      b.bl_ts[2][l] = 1;
    }
    b.bl_ords = {PerLoopDim<int>{{1, 0, 2}}, PerLoopDim<int>{{1, 2, 0}}};
    return fits(n, b, cap);
  };
  // Doubling the GBUF tile's ifm factor makes it fit: a category stops being reused in GBUF
  // and takes no GBUF space.
  EXPECT_FALSE(fits_t1({{2, 16, 1}}));
  EXPECT_TRUE(fits_t1({{4, 16, 1}}));
  cap.always_in_gbuf = {{true, true, true}};
  EXPECT_EQ(fits_tiles_order(cap), FitsOrder::Monotone);
}

TEST(Greedy, FillTensorMonotoneSkipKeepsTheTiles) {
  // The REGF fill (t1 = 1) and then the GBUF fill of fit_on_partition on hand-built nests with
  // every category in GBUF, buffer sharing, every order pair: the same tiles either way, and
  // fewer capacity checks with the skip.
  std::vector<NodeNest> nests;
  for (const auto& [lc, ug, ur] : {std::tuple{PerLoopDim<std::int64_t>{{96, 256, 16}},
                                              PerDataCategory<std::int64_t>{{9, 27, 13}},
                                              PerDataCategory<std::int64_t>{{3, 3, 1}}},
                                   std::tuple{PerLoopDim<std::int64_t>{{1024, 1000, 64}},
                                              PerDataCategory<std::int64_t>{{1, 1, 1}},
                                              PerDataCategory<std::int64_t>{{1, 1, 1}}},
                                   std::tuple{PerLoopDim<std::int64_t>{{48, 192, 32}},
                                              PerDataCategory<std::int64_t>{{25, 144, 49}},
                                              PerDataCategory<std::int64_t>{{5, 5, 1}}}}) {
    NodeNest n;
    n.loopcnt = lc;
    n.usize_gbuf = ug;
    n.usize_regf = ur;
    n.data_loops = kConvLoops;
    nests.push_back(n);
  }
  const Capacity cap{64, 16384, {{4, 1, 2}}, {{true, true, true}}};
  ASSERT_EQ(fits_tiles_order(cap), FitsOrder::Monotone);
  const DataTotals totals{{3e5, 2e6, 1e6}};
  long any_calls = 0, mono_calls = 0;
  int fills = 0;
  for (const auto& n : nests)
    for (const auto& og : loop_orders())
      for (const auto& orr : loop_orders()) {
        auto fill = [&](const PerLoopDim<std::int64_t>& start, const PerLoopDim<std::int64_t>& rem,
                        const PerLoopDim<int>& ord, auto&& tile_of, FitsOrder order, long& calls) {
          Counted c{[&](const PerLoopDim<std::int64_t>& t) {
            const auto [t1, t2] = tile_of(t);
            return fits_tiles(n, t1, t2, cap, [&] {
              Blocking b;
              for (auto l : all_values<LoopDim>()) {
                b.bl_ts[0][l] = n.loopcnt[l] / (t1[l] * t2[l]);
                b.bl_ts[1][l] = t1[l];
                b.bl_ts[2][l] = t2[l];
              }
              b.bl_ords = {og, orr};
              return b;
            });
          }};
          const auto t =
              fill_tensor(start, rem, ord, n.data_loops, n.rw_data, totals, std::ref(c), order);
          calls += c.calls;
          return t;
        };
        const PerLoopDim<std::int64_t> one{{1, 1, 1}};
        auto regf = [&](const PerLoopDim<std::int64_t>& t) { return std::pair{one, t}; };
        const auto t2a = fill(one, n.loopcnt, orr, regf, FitsOrder::Any, any_calls);
        const auto t2m = fill(one, n.loopcnt, orr, regf, FitsOrder::Monotone, mono_calls);
        ASSERT_TRUE(t2a.has_value());
        ASSERT_EQ(t2a, t2m);
        PerLoopDim<std::int64_t> rem{};
        for (auto l : all_values<LoopDim>()) rem[l] = n.loopcnt[l] / (*t2a)[l];
        auto gbuf = [&](const PerLoopDim<std::int64_t>& t) { return std::pair{t, *t2a}; };
        const auto t1a = fill(one, rem, og, gbuf, FitsOrder::Any, any_calls);
        const auto t1m = fill(one, rem, og, gbuf, FitsOrder::Monotone, mono_calls);
        ASSERT_TRUE(t1a.has_value());
        EXPECT_EQ(t1a, t1m);
        fills += 2;
      }
  EXPECT_EQ(fills, 3 * 36 * 2);
  EXPECT_LT(mono_calls, any_calls);
  std::cout << "fits calls over " << fills << " fills: " << any_calls << " walking every row, "
            << mono_calls << " with the monotone skip\n";
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
