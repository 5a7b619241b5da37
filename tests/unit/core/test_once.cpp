// Once against std::call_once's contract: the function runs once however many threads call,
// every caller returns after it has completed, and a run that throws leaves it to the next.
#include "core/once.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace kapla {
namespace {

TEST(Once, RunsTheFunctionOnceOnly) {
  Once once;
  int runs = 0;
  for (int i = 0; i < 3; ++i) once.call([&] { ++runs; });
  EXPECT_EQ(runs, 1);
}

TEST(Once, ConcurrentCallersSeeTheCompletedRun) {
  Once once;
  std::atomic<int> runs{0};
  int value = 0;  // written by the one run, read by every caller after call() returns
  std::vector<int> seen(8, -1);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < seen.size(); ++t)
    threads.emplace_back([&, t] {
      once.call([&] {
        ++runs;
        std::this_thread::yield();
        value = 42;
      });
      seen[t] = value;
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(runs.load(), 1);
  for (int v : seen) EXPECT_EQ(v, 42);
}

TEST(Once, AThrowingRunIsNotMarkedDone) {
  Once once;
  EXPECT_THROW(once.call([] { throw std::runtime_error("first"); }), std::runtime_error);
  int runs = 0;
  once.call([&] { ++runs; });
  once.call([&] { ++runs; });
  EXPECT_EQ(runs, 1);
}

}  // namespace
}  // namespace kapla
