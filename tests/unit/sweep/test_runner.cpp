// The runner with the local communicator, a fake runner and an in-memory sink: every tuple is
// recorded once, resume skips what is recorded, stops and time limits behave.
#include <gtest/gtest.h>

#include <map>

#include "fake_runner.hpp"
#include "memory_sink.hpp"
#include "sweep/runner.hpp"

namespace kapla::sweep {
namespace {

using testing::MemorySink;
using testing::StoppingRunner;

SweepSpec spec_of(std::vector<std::string> networks) {
  SweepSpec s;
  s.name = "unit";
  s.networks = std::move(networks);
  s.hardware = {{"edge", {1}, {}, {}}, {"cloud", {64}, {}, {}}};
  s.strategies = {{"exhaustive", "", {}, "", ""}, {"random", "", {}, "", ""}};
  s.output = "unused.h5";
  return s;
}

TEST(run_sweep, records_every_tuple_once) {
  stop_flag().store(false);
  const auto spec = spec_of({"a", "b_c5", "nosol", "throw"});
  testing::FakeRunner fake;
  auto comm = make_local_communicator();
  MemorySink sink;
  NullProgress progress;
  const auto summary = run_sweep(spec, fake, *comm, sink, progress, RunOptions{});
  EXPECT_EQ(sink.records.size(), 16u);
  EXPECT_EQ(sink.finishes, 1);
  EXPECT_EQ(summary.done, 16u);
  EXPECT_EQ(summary.failed, 4u);
  EXPECT_FALSE(summary.interrupted);
  ASSERT_EQ(summary.ranks.size(), 1u);
  EXPECT_EQ(sink.records.at("throw:edge:exhaustive:b1:s1").result.status, TupleStatus::Failed);
  EXPECT_EQ(sink.records.at("nosol:edge:exhaustive:b1:s1").result.status, TupleStatus::NoSolution);
  const auto& ok = sink.records.at("a:cloud:random:b64:s1");
  EXPECT_EQ(ok.result.status, TupleStatus::Ok);
  EXPECT_EQ(ok.search_seed, tuple_seed(ok.tuple));
  EXPECT_FALSE(ok.provenance.start_time.empty());
}

TEST(run_sweep, resumes_after_a_stop_without_loss_or_duplicates) {
  const auto spec = spec_of({"a", "b", "c"});
  testing::FakeRunner fake;
  auto comm = make_local_communicator();
  NullProgress progress;
  MemorySink reference;
  stop_flag().store(false);
  run_sweep(spec, fake, *comm, reference, progress, RunOptions{});

  for (int after = 1; after < 12; after += 3) {
    MemorySink sink;
    stop_flag().store(false);
    StoppingRunner stopping(fake, after);
    const auto first = run_sweep(spec, stopping, *comm, sink, progress, RunOptions{});
    EXPECT_TRUE(first.interrupted);
    EXPECT_EQ(sink.records.size(), static_cast<std::size_t>(after));
    stop_flag().store(false);
    const auto second = run_sweep(spec, fake, *comm, sink, progress, RunOptions{});
    EXPECT_FALSE(second.interrupted);
    EXPECT_EQ(second.skipped, static_cast<std::size_t>(after));
    EXPECT_EQ(sink.writes, 12);
    std::vector<TupleRecord> a, b;
    for (auto& [k, r] : reference.records) a.push_back(r);
    for (auto& [k, r] : sink.records) b.push_back(r);
    EXPECT_EQ(first_difference(a, b), std::nullopt);
  }
}

TEST(run_sweep, interrupted_tuples_are_not_recorded) {
  const auto spec = spec_of({"a_c1000"});  // long enough to be interrupted
  testing::FakeRunner fake(0.001);
  auto comm = make_local_communicator();
  MemorySink sink;
  NullProgress progress;
  stop_flag().store(false);
  std::thread stopper([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stop_flag().store(true);
  });
  const auto summary = run_sweep(spec, fake, *comm, sink, progress, RunOptions{});
  stopper.join();
  stop_flag().store(false);
  EXPECT_TRUE(summary.interrupted);
  EXPECT_TRUE(sink.records.empty());
  EXPECT_EQ(summary.remaining, 4u);
}

TEST(run_sweep, time_limit_records_timeout) {
  const auto spec = spec_of({"a_c1000"});
  testing::FakeRunner fake(0.001);  // 1 s per tuple
  auto comm = make_local_communicator();
  MemorySink sink;
  NullProgress progress;
  RunOptions options;
  options.tuple_time_limit_seconds = 0.02;
  stop_flag().store(false);
  const auto summary = run_sweep(spec, fake, *comm, sink, progress, options);
  EXPECT_EQ(summary.timed_out, 4u);
  for (const auto& [k, r] : sink.records) {
    EXPECT_EQ(r.result.status, TupleStatus::Timeout) << k;
    EXPECT_LT(r.result.stats.wall_seconds, 0.5);
  }
}

TEST(run_context, a_stop_is_due_only_after_its_grace_period) {
  std::atomic<bool> stop{false};
  std::atomic<std::int64_t> since_ns{0};
  RunContext ctx;
  ctx.stop = &stop;
  ctx.stop_since_ns = &since_ns;
  ctx.stop_grace = std::chrono::hours(1);
  EXPECT_FALSE(ctx.stop_due());  // no signal yet
  since_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::steady_clock::now().time_since_epoch())
                 .count();
  stop = true;
  EXPECT_TRUE(ctx.stop_requested());
  EXPECT_FALSE(ctx.stop_due());  // within the hour: the running tuple may finish
  ctx.stop_grace = std::chrono::seconds(0);
  EXPECT_TRUE(ctx.stop_due());
  ctx.stop_grace = std::chrono::hours(1);
  ctx.stop_since_ns = nullptr;  // a stop without a time (tests, other callers) is due at once
  EXPECT_TRUE(ctx.stop_due());
}

TEST(run_sweep, threads_do_not_change_results) {
  const auto spec = spec_of({"a", "b"});
  testing::FakeRunner fake;
  auto comm = make_local_communicator();
  NullProgress progress;
  MemorySink one, two;
  stop_flag().store(false);
  RunOptions o1, o2;
  o1.threads = 1;
  o2.threads = 2;
  run_sweep(spec, fake, *comm, one, progress, o1);
  run_sweep(spec, fake, *comm, two, progress, o2);
  std::vector<TupleRecord> a, b;
  for (auto& [k, r] : one.records) a.push_back(r);
  for (auto& [k, r] : two.records) b.push_back(r);
  EXPECT_EQ(first_difference(a, b), std::nullopt);
  EXPECT_EQ(two.records.begin()->second.result.stats.threads, 2);
}

TEST(run_sweep, unknown_names_fail_before_anything_runs) {
  const auto spec = spec_of({"a", "bad_net"});
  testing::FakeRunner fake;
  auto comm = make_local_communicator();
  MemorySink sink;
  NullProgress progress;
  EXPECT_THROW(run_sweep(spec, fake, *comm, sink, progress, RunOptions{}), InputError);
  EXPECT_EQ(sink.writes, 0);
}

}  // namespace
}  // namespace kapla::sweep
