// Tuple expansion: order, keys, seeds.
#include <gtest/gtest.h>

#include <set>

#include "core/errors.hpp"
#include "sweep/job.hpp"

namespace kapla::sweep {
namespace {

SweepSpec small_spec() {
  SweepSpec s;
  s.name = std::string(1, 't');  // not = "t": GCC 12 warns falsely (-Wrestrict)
  s.networks = {"n1", "n2"};
  s.hardware = {{"edge", {1}, {}, {}}, {"cloud", {64, 16}, {}, {}}};
  s.strategies = {{"exhaustive", "", {}, "", ""}, {"random", "{\"samples\":10}", {}, "", ""}};
  s.seeds = {1, 2};
  s.output = "x.h5";
  return s;
}

TEST(expand_tuples, product_in_fixed_order) {
  const auto tuples = expand_tuples(small_spec());
  ASSERT_EQ(tuples.size(), 2u * 3u * 2u * 2u);
  EXPECT_EQ(tuples.front().key(), "n1:edge:exhaustive:b1:s1");
  EXPECT_EQ(tuples[1].key(), "n1:edge:exhaustive:b1:s2");
  EXPECT_EQ(tuples[2].strategy, "random");
  EXPECT_EQ(tuples.back().network, "n2");
  EXPECT_EQ(tuples.back().batch, 16);
  for (std::size_t i = 0; i < tuples.size(); ++i) EXPECT_EQ(tuples[i].index, i);
  std::set<std::string> keys;
  for (const auto& t : tuples) keys.insert(t.key());
  EXPECT_EQ(keys.size(), tuples.size());
}

TEST(expand_tuples, params_enter_the_key) {
  const auto tuples = expand_tuples(small_spec());
  EXPECT_NE(tuples[2].key().find(":p"), std::string::npos);
  EXPECT_EQ(tuples[0].key().find(":p"), std::string::npos);
}

TEST(expand_tuples, is_stable) {
  const auto a = expand_tuples(small_spec());
  const auto b = expand_tuples(small_spec());
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].key(), b[i].key());
}

TEST(expand_tuples, rejects_duplicates) {
  SweepSpec s = small_spec();
  s.hardware = {{"edge", {1, 1}, {}, {}}};
  EXPECT_THROW(expand_tuples(s), InputError);
}

TEST(tuple_seed, depends_on_key_and_seed_only) {
  const auto tuples = expand_tuples(small_spec());
  Tuple t = tuples[0];
  const auto s = tuple_seed(t);
  t.index = 99;  // position in the sweep does not matter
  EXPECT_EQ(tuple_seed(t), s);
  t.seed = 2;
  EXPECT_NE(tuple_seed(t), s);
  EXPECT_NE(tuple_seed(tuples[0]), tuple_seed(tuples[2]));
}

}  // namespace
}  // namespace kapla::sweep
