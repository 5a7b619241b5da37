// Progress lines for batch logs: format and rate limit, with a fake clock.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "sweep/progress_log.hpp"

namespace kapla::sweep {
namespace {

// 2026-01-31T12:00:00Z plus `offset` seconds.
std::chrono::system_clock::time_point at(double offset) {
  return std::chrono::system_clock::time_point(std::chrono::seconds(1769860800)) +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(
             std::chrono::duration<double>(offset));
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(progress_log, line_format) {
  std::ostringstream out;
  double now = 0;
  ProgressLog log(out, [&] { return at(now); });
  ProgressState s;
  s.total = 30;
  s.skipped = 3;
  s.done = 9;
  s.running = 2;
  s.elapsed_seconds = 80;
  s.eta_seconds = 125;
  log.update(s);
  EXPECT_EQ(out.str(),
            "[2026-01-31T12:00:00.000Z] sweep: 12/30 tuples done (3 resumed), 2 running, 1m20s "
            "elapsed, ETA 2m05s\n");
}

TEST(progress_log, rate_limited_per_finished_tuple_with_a_heartbeat) {
  std::ostringstream out;
  double now = 0;
  ProgressLog log(
      out, [&] { return at(now); }, 10, 60);
  ProgressState s;
  s.total = 100;
  auto step = [&](double t, std::size_t done) {
    now = t;
    s.done = done;
    s.elapsed_seconds = t;
    log.update(s);
  };
  step(0, 0);   // first: a line
  step(1, 1);   // a tuple finished 1 s later: too soon
  step(5, 2);   // too soon
  step(11, 3);  // >= 10 s and changed: a line
  step(15, 3);  // nothing changed
  step(30, 3);  // nothing changed, < 60 s
  step(71, 3);  // heartbeat (60 s since the last line)
  step(72, 4);  // changed but 1 s after the heartbeat
  step(90, 5);  // a line
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 4u) << out.str();
  EXPECT_NE(lines[0].find("12:00:00.000Z] sweep: 0/100 tuples done"), std::string::npos);
  EXPECT_NE(lines[1].find("12:00:11.000Z] sweep: 3/100 tuples done"), std::string::npos);
  EXPECT_NE(lines[2].find("12:01:11.000Z] sweep: 3/100 tuples done"), std::string::npos);
  EXPECT_NE(lines[3].find("12:01:30.000Z] sweep: 5/100 tuples done"), std::string::npos);
}

TEST(progress_log, durations) {
  EXPECT_EQ(duration_text(-1), "?");
  EXPECT_EQ(duration_text(44.6), "45s");
  EXPECT_EQ(duration_text(185), "3m05s");
  EXPECT_EQ(duration_text(7620), "2h07m");
}

}  // namespace
}  // namespace kapla::sweep
