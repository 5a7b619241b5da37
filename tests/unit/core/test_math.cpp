// Integer helpers against the reference's documented examples (nn_dataflow-spec §1.3).
#include "core/math.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace kapla {
namespace {

using V = std::vector<std::vector<std::int64_t>>;

TEST(Math, FactorizeTwoWaysInReferenceOrder) {
  EXPECT_EQ(factorize(12, 2), (V{{1, 12}, {2, 6}, {3, 4}, {4, 3}, {6, 2}, {12, 1}}));
}

TEST(Math, FactorizeThreeWaysInReferenceOrder) {
  EXPECT_EQ(factorize(4, 3), (V{{1, 1, 4}, {1, 2, 2}, {1, 4, 1}, {2, 1, 2}, {2, 2, 1}, {4, 1, 1}}));
  EXPECT_EQ(factorize(7, 1), (V{{7}}));
}

// The reference's enumeration (every f <= value that divides it, ascending), for comparison.
void naive_factorize(std::int64_t value, int num, std::vector<std::int64_t>& prefix, V& out) {
  if (num == 1) {
    prefix.push_back(value);
    out.push_back(prefix);
    prefix.pop_back();
    return;
  }
  for (std::int64_t f = 1; f <= value; ++f) {
    if (value % f != 0) continue;
    prefix.push_back(f);
    naive_factorize(value / f, num - 1, prefix, out);
    prefix.pop_back();
  }
}

TEST(Math, FactorizeEqualsTheReferenceEnumeration) {
  for (std::int64_t value = 1; value <= 600; ++value) {
    for (int num = 1; num <= 4; ++num) {
      V want;
      std::vector<std::int64_t> prefix;
      naive_factorize(value, num, prefix, want);
      ASSERT_EQ(factorize(value, num), want) << value << " " << num;
    }
  }
  for (const std::int64_t value : {4096, 50176, 802816, 12544 * 64}) {
    V want;
    std::vector<std::int64_t> prefix;
    naive_factorize(value, 3, prefix, want);
    ASSERT_EQ(factorize(value, 3), want) << value;
  }
}

TEST(Math, Divisors) {
  EXPECT_EQ(divisors(36), (std::vector<std::int64_t>{1, 2, 3, 4, 6, 9, 12, 18, 36}));
  EXPECT_EQ(divisors(1), (std::vector<std::int64_t>{1}));
}

TEST(Math, ForEachDivisorWalksDivisorsInOrderAndStops) {
  // divisors() is for_each_divisor collected: both against a brute force for every value up to
  // 2000, and by hand for a large prime and a large power of two; a visitor returning false
  // stops the walk after that divisor.
  for (std::int64_t v = 1; v <= 2000; ++v) {
    std::vector<std::int64_t> brute;
    for (std::int64_t f = 1; f <= v; ++f)
      if (v % f == 0) brute.push_back(f);
    ASSERT_EQ(divisors(v), brute) << v;
  }
  EXPECT_EQ(divisors(999999999989LL), (std::vector<std::int64_t>{1, 999999999989LL}));
  std::vector<std::int64_t> powers;
  for (int k = 0; k <= 40; ++k) powers.push_back(std::int64_t{1} << k);
  EXPECT_EQ(divisors(std::int64_t{1} << 40), powers);
  std::vector<std::int64_t> first;
  for_each_divisor(36, [&](std::int64_t f) {
    first.push_back(f);
    return f < 6;
  });
  EXPECT_EQ(first, (std::vector<std::int64_t>{1, 2, 3, 4, 6}));
}

TEST(Math, ForEachDivisorDescWalksDivisorsDownAndStops) {
  // The reverse of divisors() for every value up to 2000 and a large power of two; a visitor
  // returning false stops the walk after that divisor (in both halves of the walk).
  auto walk = [](std::int64_t v) {
    std::vector<std::int64_t> out;
    for_each_divisor_desc(v, [&](std::int64_t f) {
      out.push_back(f);
      return true;
    });
    return out;
  };
  for (std::int64_t v = 1; v <= 2000; ++v) {
    auto want = divisors(v);
    std::reverse(want.begin(), want.end());
    ASSERT_EQ(walk(v), want) << v;
  }
  std::vector<std::int64_t> powers;
  for (int k = 40; k >= 0; --k) powers.push_back(std::int64_t{1} << k);
  EXPECT_EQ(walk(std::int64_t{1} << 40), powers);
  for (std::int64_t stop : {12, 4, 3, 1}) {
    std::vector<std::int64_t> seen;
    for_each_divisor_desc(36, [&](std::int64_t f) {
      seen.push_back(f);
      return f > stop;
    });
    EXPECT_EQ(seen.back(), stop);
    EXPECT_EQ(seen.front(), 36);
  }
}

TEST(Math, ApproxDividable) {
  EXPECT_TRUE(approx_dividable(56, 4));
  EXPECT_TRUE(approx_dividable(55, 4));   // pads to 56: 1 <= max(5.6, 1)
  EXPECT_FALSE(approx_dividable(3, 4));   // total < num
  EXPECT_FALSE(approx_dividable(13, 4));  // pads to 16: 3 > max(1.6, 1)
}

TEST(Math, IthRangeSpreadsTheRemainder) {
  // L = 6, n = 4 gives sizes 1, 2, 1, 2 (spec §1.3).
  EXPECT_EQ(ith_range(0, 6, 0, 4), (std::pair<std::int64_t, std::int64_t>{0, 1}));
  EXPECT_EQ(ith_range(0, 6, 1, 4), (std::pair<std::int64_t, std::int64_t>{1, 3}));
  EXPECT_EQ(ith_range(0, 6, 2, 4), (std::pair<std::int64_t, std::int64_t>{3, 4}));
  EXPECT_EQ(ith_range(0, 6, 3, 4), (std::pair<std::int64_t, std::int64_t>{4, 6}));
}

}  // namespace
}  // namespace kapla
