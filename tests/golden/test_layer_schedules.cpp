// Per-layer search (strategy B) against tests/data/golden/*/layer_schedules.jsonl (both
// families). Default build: a representative subset (the reference needed at most 1 CPU s);
// KAPLA_SLOW_SET: every record (label slow). Spec: nn_dataflow-spec.md §9.2.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "cli/golden_checks.hpp"
#include "io/golden_record.hpp"
#include "zoo_network.hpp"

namespace kapla {
namespace {

// The slow build registers its tests under other names (ctest needs unique names).
#ifdef KAPLA_SLOW_SET
#define KAPLA_SUITE(name) name##Slow
#else
#define KAPLA_SUITE(name) name
#endif

using nlohmann::json;

std::vector<json> selected(const std::string& family) {
  std::vector<json> out;
  for (auto& r : io::golden::read_jsonl(std::string(KAPLA_TEST_DATA_DIR) + "/golden/" + family +
                                        "/layer_schedules.jsonl")) {
    if (r.at("status") == "error" || r.at("status") == "timeout") continue;
#ifndef KAPLA_SLOW_SET
    if (r.at("runtime_cpu_s").get<double>() > 1.0) continue;
#endif
    out.push_back(std::move(r));
  }
  return out;
}

void check_family(const std::string& family) {
  const auto recs = selected(family);
  ASSERT_FALSE(recs.empty());
  int failed = 0;
  double max_err = 0;
  for (const auto& r : recs) {
    const auto c = cli::check_golden_record(r, 1, {});
    max_err = std::max(max_err, c.max_rel_err);
    if (!c.mismatch.empty()) {
      ADD_FAILURE() << c.mismatch;
      ++failed;
    }
  }
  std::cout << family << ": " << recs.size() - static_cast<std::size_t>(failed) << " passed, "
            << failed << " failed, max rel err " << max_err << "\n";
}

TEST(KAPLA_SUITE(LayerSchedules), NnDataflow) { check_family("nn_dataflow"); }
TEST(KAPLA_SUITE(LayerSchedules), Kapla) { check_family("kapla"); }

#ifndef KAPLA_SLOW_SET
TEST(LayerSchedules, SameResultForOneAndTwoThreads) {
  int checked = 0;
  for (const auto& r : selected("nn_dataflow")) {
    if (r.at("status") != "ok") continue;
    const auto p = io::golden::parse_layer_problem(r);
    if (p.resource.proc_region.dim.size() < 4) continue;
    EXPECT_EQ(cli::check_golden_record(r, 2, {}).mismatch, "");
    if (++checked == 3) break;
  }
  EXPECT_GT(checked, 0);
}
#endif

}  // namespace
}  // namespace kapla
