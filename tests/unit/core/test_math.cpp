// Integer helpers against the reference's documented examples (nn_dataflow-spec §1.3).
#include "core/math.hpp"

#include <gtest/gtest.h>

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

TEST(Math, Divisors) {
  EXPECT_EQ(divisors(36), (std::vector<std::int64_t>{1, 2, 3, 4, 6, 9, 12, 18, 36}));
  EXPECT_EQ(divisors(1), (std::vector<std::int64_t>{1}));
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
