// kapla's one set of default options, and the description of every option for /resolved.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "model/options.hpp"

namespace kapla::model {
namespace {

TEST(options, defaults_are_nn_dataflow_command_line) {
  // nn_dataflow_search.py without --disable-bypass: every category may bypass the GBUF; the
  // rest is the reference Option(), but for the fold variants, which are left to each
  // strategy (search::options_for).
  const SearchOptions d = default_options();
  for (auto c : all_values<DataCategory>()) EXPECT_TRUE(d.sw_gbuf_bypass[c]);
  EXPECT_FALSE(d.rs_fold_variants.has_value());
  SearchOptions rest = d;
  rest.sw_gbuf_bypass = SearchOptions{}.sw_gbuf_bypass;
  rest.rs_fold_variants = SearchOptions{}.rs_fold_variants;
  EXPECT_EQ(rest, SearchOptions{});
  EXPECT_NO_THROW(validate(d));
}

TEST(options, describe_shows_every_field) {
  // Changing any one field must change its description: /resolved can explain any difference.
  const std::vector<std::function<void(SearchOptions&)>> changes = {
      [](SearchOptions& o) { o.sw_gbuf_bypass[DataCategory::Ifm] = false; },
      [](SearchOptions& o) { o.sw_solve_loopblocking = true; },
      [](SearchOptions& o) { o.hw_access_forwarding = true; },
      [](SearchOptions& o) { o.hw_gbuf_sharing = true; },
      [](SearchOptions& o) { o.hw_gbuf_save_writeback = true; },
      [](SearchOptions& o) { o.partition_hybrid = true; },
      [](SearchOptions& o) { o.partition_batch = true; },
      [](SearchOptions& o) { o.partition_ifmaps = true; },
      [](SearchOptions& o) { o.partition_interlayer = true; },
      [](SearchOptions& o) { o.layer_pipeline_time_ovhd = 0.5; },
      [](SearchOptions& o) { o.layer_pipeline_max_degree = 5; },
      [](SearchOptions& o) { o.layer_pipeline_opt = false; },
      [](SearchOptions& o) { o.opt_goal = Goal::Delay; },
      [](SearchOptions& o) { o.ntops = 3; },
      [](SearchOptions& o) { o.cost_model = CostModelVariant::Tangram; },
      [](SearchOptions& o) { o.rs_fold_variants = true; },
      [](SearchOptions& o) { o.imperfect = Imperfect::Spatial; },
  };
  const auto base = describe(default_options());
  EXPECT_EQ(base.size(), changes.size());
  for (std::size_t i = 0; i < changes.size(); ++i) {
    SearchOptions o = default_options();
    changes[i](o);
    const auto d = describe(o);
    ASSERT_EQ(d.size(), base.size());
    int differing = 0;
    for (std::size_t k = 0; k < d.size(); ++k) {
      EXPECT_EQ(d[k].first, base[k].first);
      differing += d[k].second != base[k].second;
    }
    EXPECT_EQ(differing, 1) << "change " << i;
  }
  EXPECT_EQ(base.front().first, "options.sw_gbuf_bypass");
  EXPECT_EQ(base.front().second, "[true,true,true]");
}

TEST(options, imperfect_is_none_by_default_and_parsed_strictly) {
  EXPECT_EQ(default_options().imperfect, Imperfect::None);
  EXPECT_EQ(SearchOptions{}.imperfect, Imperfect::None);
  for (auto m : {Imperfect::None, Imperfect::Spatial, Imperfect::Full, Imperfect::Perfect})
    EXPECT_EQ(parse_imperfect(imperfect_name(m)), m);
  for (const char* bad : {"", "Spatial", "exact", "spatial "}) {
    try {
      (void)parse_imperfect(bad);
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(
          std::string(e.what()),
          "imperfect: must be one of none, spatial, full, perfect; got '" + std::string(bad) + "'");
    }
  }
  SearchOptions o = default_options();
  for (auto m : {Imperfect::None, Imperfect::Spatial, Imperfect::Full, Imperfect::Perfect}) {
    o.imperfect = m;
    EXPECT_NO_THROW(validate(o));
  }
}

}  // namespace
}  // namespace kapla::model
