// `kapla schedule`'s progress (cli/schedule_text.hpp ScheduleProgress): while no segment
// finishes, the heartbeat thread keeps a log and the live line alive; it stops with finish(),
// and a quiet run writes nothing. Heartbeats are shortened to keep the test fast; the counts
// asserted are lower bounds, since a loaded machine may wake the thread late.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/schedule_text.hpp"
#include "io/catalog.hpp"

namespace kapla::cli {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

const model::Network& mlp_s() {
  static const model::Network net = io::Catalog(KAPLA_SOURCE_DATA_DIR).load_network("mlp_s");
  return net;
}

const std::regex kStamp(R"(^\[20[0-9-]+T[0-9:.]+Z\] )");

TEST(ScheduleProgress, ALogGetsSearchingLinesWhileNoSegmentFinishes) {
  std::ostringstream err;
  ScheduleProgress p(ProgressMode::Log, err, mlp_s(), 10, 0.05);
  std::this_thread::sleep_for(400ms);
  p.finish();
  const auto got = lines(err.str());
  ASSERT_GE(got.size(), 1u) << err.str();
  for (const auto& l : got) {
    EXPECT_TRUE(std::regex_search(l, kStamp)) << l;
    EXPECT_NE(l.find("] schedule: searching, no segment searched yet, 0s elapsed"),
              std::string::npos)
        << l;
  }
}

TEST(ScheduleProgress, HeartbeatsCarryTheLastReportsCounts) {
  std::ostringstream err;
  ScheduleProgress p(ProgressMode::Log, err, mlp_s(), 0, 0.05);
  p({1, 3, 1, 3, nullptr});  // a segment line at once (interval 0)
  std::this_thread::sleep_for(400ms);
  p.finish();
  const auto got = lines(err.str());
  ASSERT_GE(got.size(), 2u) << err.str();
  EXPECT_NE(got[0].find("] schedule: segment 1/3 searched (), 1/3 layers done, 0s elapsed"),
            std::string::npos)
      << got[0];
  EXPECT_NE(got[1].find("] schedule: searching, 1/3 layers, 1/3 segments, 0s elapsed"),
            std::string::npos)
      << got[1];
}

TEST(ScheduleProgress, FinishStopsTheHeartbeat) {
  std::ostringstream err;
  ScheduleProgress p(ProgressMode::Log, err, mlp_s(), 10, 0.02);
  std::this_thread::sleep_for(100ms);
  p.finish();
  const std::string at_finish = err.str();
  std::this_thread::sleep_for(150ms);
  EXPECT_EQ(err.str(), at_finish);
  p.finish();  // twice is harmless
}

TEST(ScheduleProgress, QuietWritesNothing) {
  std::ostringstream err;
  {
    ScheduleProgress p(ProgressMode::Quiet, err, mlp_s(), 0, 0.01);
    p({1, 3, 1, 3, nullptr});
    std::this_thread::sleep_for(100ms);
  }  // the destructor without finish()
  EXPECT_EQ(err.str(), "");
}

TEST(ScheduleProgress, TheLiveLinesClockTicksEverySecond) {
  std::ostringstream err;
  ScheduleProgress p(ProgressMode::Live, err, mlp_s());
  std::this_thread::sleep_for(1500ms);
  p.finish();
  const std::string s = err.str();
  EXPECT_TRUE(
      std::regex_search(s, std::regex("^\r\x1b\\[Kschedule: no segment searched yet, [12]s")))
      << s;
  EXPECT_EQ(s.substr(s.size() - 4), "\r\033[K");  // cleared at the end
}

}  // namespace
}  // namespace kapla::cli
