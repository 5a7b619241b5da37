// FlatMap against std::map: the same entries, first insertion wins, insertion order, and
// correct probing when every key hashes alike.
#include "core/flat_map.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace kapla {
namespace {

using Key = std::array<std::int64_t, 3>;

TEST(FlatMap, FindsWhatWasInsertedAndKeepsTheFirstValue) {
  FlatMap<Key, int> m;
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.find({1, 2, 3}), m.end());
  const auto [it, fresh] = m.emplace({1, 2, 3}, 7);
  EXPECT_TRUE(fresh);
  EXPECT_EQ(it->second, 7);
  const auto [again, fresh_again] = m.emplace({1, 2, 3}, 8);
  EXPECT_FALSE(fresh_again);
  EXPECT_EQ(again->second, 7);
  EXPECT_EQ(m.size(), 1u);
  EXPECT_EQ(m.find({1, 2, 3})->second, 7);
  EXPECT_EQ(m.find({3, 2, 1}), m.end());
}

// Against std::map on random keys from a small range (many repeats), across several growths;
// iteration gives the entries in the order they were first inserted.
TEST(FlatMap, AgreesWithStdMapAndIteratesInInsertionOrder) {
  std::mt19937_64 rng(2026);
  std::uniform_int_distribution<std::int64_t> word(-40, 40);
  FlatMap<Key, std::int64_t> m;
  std::map<Key, std::int64_t> ref;
  std::vector<Key> order;
  for (std::int64_t i = 0; i < 20000; ++i) {
    const Key k{word(rng), word(rng), word(rng) * (std::int64_t{1} << 40)};
    const bool fresh = m.emplace(k, i).second;
    EXPECT_EQ(fresh, ref.emplace(k, i).second);
    if (fresh) order.push_back(k);
  }
  ASSERT_EQ(m.size(), ref.size());
  for (const auto& [k, v] : ref) {
    const auto it = m.find(k);
    ASSERT_NE(it, m.end());
    EXPECT_EQ(it->second, v);
  }
  std::size_t i = 0;
  for (const auto& [k, v] : m) EXPECT_EQ(k, order[i++]);
}

struct SameHash {
  std::size_t operator()(const Key&) const { return 42; }
};

TEST(FlatMap, ProbesPastEqualHashes) {
  FlatMap<Key, std::int64_t, SameHash> m;
  m.reserve(10);
  for (std::int64_t i = 0; i < 300; ++i) EXPECT_TRUE(m.emplace({i, 0, 0}, 2 * i).second);
  for (std::int64_t i = 0; i < 300; ++i) EXPECT_EQ(m.find({i, 0, 0})->second, 2 * i);
  EXPECT_EQ(m.find({300, 0, 0}), m.end());
  EXPECT_FALSE(m.emplace({299, 0, 0}, 0).second);
}

}  // namespace
}  // namespace kapla
