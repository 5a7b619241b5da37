// A schedule file's scheme records (io/scheme_record.hpp) read back exactly what was written:
// every valid golden fixed scheme of both families, written and parsed again, gives the same
// layer, batch, resource, costs, options, partition, NLD index and blocking; bad records are
// one InputError naming the origin.
#include <cstdint>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "io/golden_record.hpp"
#include "io/scheme_record.hpp"

namespace kapla::io {
namespace {

using ::testing::HasSubstr;

int round_trip_file(const std::string& file) {
  int n = 0;
  for (const auto& rec : golden::read_jsonl(std::string(KAPLA_TEST_DATA_DIR) + "/golden/" + file)) {
    SchemeRecord r;
    r.problem = golden::parse_layer_problem(rec);
    const auto s = golden::parse_fixed_scheme(rec.at("inputs").at("scheme"));
    r.part = s.part;
    r.nld_index = s.nld_index;
    r.blocking = {s.bl_ts, s.bl_ords};
    // Through text, as a schedule file goes.
    const auto text = scheme_record_json(r).dump();
    const SchemeRecord back = parse_scheme_record(nlohmann::json::parse(text), "t");
    const std::string id = rec.at("id").get<std::string>();
    EXPECT_EQ(back.problem.layer, r.problem.layer) << id;
    EXPECT_EQ(back.problem.batch, r.problem.batch) << id;
    EXPECT_EQ(back.problem.resource, r.problem.resource) << id;
    EXPECT_EQ(back.problem.costs, r.problem.costs) << id;
    EXPECT_EQ(back.problem.options, r.problem.options) << id;
    EXPECT_EQ(back.part, r.part) << id;
    EXPECT_EQ(back.nld_index, r.nld_index) << id;
    EXPECT_EQ(back.blocking, r.blocking) << id;
    ++n;
  }
  return n;
}

TEST(SchemeRecord, EveryGoldenSchemeRoundTrips) {
  EXPECT_GT(round_trip_file("nn_dataflow/scheme_evals.jsonl"), 100);
  EXPECT_GT(round_trip_file("kapla/scheme_evals.jsonl"), 100);
}

TEST(SchemeRecord, KaplasOwnFieldsRoundTrip) {
  SchemeRecord r;
  r.problem.layer = model::make_dwconv(32, {14, 14}, {3, 3});
  r.problem.batch = 7;
  r.problem.resource.dim_array = {8, 8};
  r.problem.resource.proc_region.dim = {1, 1};
  r.blocking.bl_ts = {{{{1, 1, 1}}, {{1, 2, 1}}, {{1, 16, 7}}}};
  r.problem.resource.array_mapping = model::ArrayMapping::Systolic;
  r.problem.options.rs_fold_variants = true;
  r.problem.options.cost_model = model::CostModelVariant::Tangram;
  const SchemeRecord back = parse_scheme_record(scheme_record_json(r), "t");
  EXPECT_EQ(back.problem.layer, r.problem.layer);
  EXPECT_EQ(back.problem.resource, r.problem.resource);  // infinite bandwidths as "inf"
  EXPECT_EQ(back.problem.options, r.problem.options);
}

TEST(SchemeRecord, BadRecordsNameTheirOrigin) {
  SchemeRecord r;
  r.problem.layer = model::make_fc(4, 4);
  auto j = scheme_record_json(r);
  j["inputs"].erase("cost");
  try {
    (void)parse_scheme_record(j, "s.json: scheme_records.fc1");
    FAIL() << "accepted a record without costs";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("s.json: scheme_records.fc1: "));
    EXPECT_THAT(e.what(), HasSubstr("cost"));
  }
  j = scheme_record_json(r);
  j["inputs"]["layer"]["type"] = "NoSuchLayer";
  EXPECT_THROW((void)parse_scheme_record(j, "s"), InputError);
}

// Numbers the pricing pipeline would assert on (an internal error, exit 3) are refused as input.
TEST(SchemeRecord, NumbersOutsideTheLimitsAreRefused) {
  SchemeRecord r;
  r.problem.layer = model::make_fc(4, 4);
  r.problem.resource.dim_array = {4, 4};
  r.problem.resource.proc_region.dim = {1, 1};
  r.blocking.bl_ts = {{{{1, 1, 1}}, {{1, 1, 1}}, {{1, 1, 1}}}};
  ASSERT_NO_THROW((void)parse_scheme_record(scheme_record_json(r), "s"));
  const auto error_of = [&](auto&& edit) {
    auto j = scheme_record_json(r);
    edit(j);
    try {
      (void)parse_scheme_record(j, "s");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_THAT(error_of([](auto& j) { j["inputs"]["batch_size"] = INT64_MAX; }),
              HasSubstr("inputs.batch_size: must be positive"));
  EXPECT_THAT(error_of([](auto& j) {
                j["inputs"]["scheme"]["part"]["order"] = {0, 0, 1, 2};
              }),
              HasSubstr("permutation"));
  EXPECT_THAT(error_of([](auto& j) {
                j["inputs"]["scheme"]["part"]["pdims"][0] = {2, 1};
              }),
              HasSubstr("does not fit the proc_region"));
  EXPECT_THAT(error_of([](auto& j) { j["inputs"]["scheme"]["bl_ts"][0][0] = 0; }),
              HasSubstr("inputs.scheme.bl_ts: must be positive"));
  EXPECT_THAT(error_of([](auto& j) { j["inputs"]["scheme"]["bl_ts"][0][0] = INT64_MAX; }),
              HasSubstr("inputs.scheme.bl_ts: must be positive"));
}

}  // namespace
}  // namespace kapla::io
