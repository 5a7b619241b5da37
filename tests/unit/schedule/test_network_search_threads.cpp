// One requested thread is one thread: the network search never opens an OpenMP team larger
// than NetworkSearchOptions::num_threads. A team opened with num_threads(0) (a wave of zero
// pairs) is a team of every core, whose idle threads spin-wait after each region: at one
// requested thread that doubled K's CPU time on BERT-base at cloud batch 64 (8.4 -> 3.4 s).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "io/catalog.hpp"
#include "io/network_json.hpp"
#include "schedule/run_network.hpp"
#include "search/strategy_registry.hpp"

namespace kapla::schedule {
namespace {

// Threads of this process (Linux: one entry per thread in /proc/self/task).
std::size_t process_threads() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

TEST(NetworkSearchThreads, OneRequestedThreadRunsOnOneThread) {
  if (!std::filesystem::exists("/proc/self/task")) GTEST_SKIP() << "no /proc/self/task";
  ASSERT_EQ(process_threads(), 1u) << "the test must start single-threaded";
  // A tiny encoder block on cloud with KAPLA's inference options: its bounded pair search
  // meets waves with nothing left to solve.
  const auto net =
      io::load_network_file(std::string(KAPLA_TEST_DATA_DIR) + "/networks/transformer_tiny.json");
  const auto hw = io::Catalog(KAPLA_SOURCE_DATA_DIR).load_hardware("cloud");
  const auto strategy = search::make_layer_strategy("kapla");
  const auto res = run_network(net, hw, *strategy, model::kapla_option_preset("inference"), 2);
  ASSERT_FALSE(res.tops.empty());
  EXPECT_EQ(process_threads(), 1u) << "an OpenMP team of more than one thread was opened";
}

}  // namespace
}  // namespace kapla::schedule
