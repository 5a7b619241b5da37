// BatchedWriter: records reach the write function within the interval whatever the caller
// does next, in batches, and a failed write is reported to the caller.
#include "io/batched_writer.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace kapla::io {
namespace {

using namespace std::chrono_literals;

sweep::TupleRecord record(const std::string& network) {
  sweep::TupleRecord r;
  r.tuple.network = network;
  return r;
}

struct Log {
  std::mutex mutex;
  std::vector<std::vector<std::string>> batches;
  std::size_t records() {
    std::lock_guard<std::mutex> lock(mutex);
    std::size_t n = 0;
    for (const auto& b : batches) n += b.size();
    return n;
  }
};

BatchedWriter::WriteFn logging(Log& log) {
  return [&log](const std::vector<sweep::TupleRecord>& batch) {
    std::vector<std::string> names;
    for (const auto& r : batch) names.push_back(r.tuple.network);
    std::lock_guard<std::mutex> lock(log.mutex);
    log.batches.push_back(names);
  };
}

TEST(BatchedWriter, WritesWithinTheIntervalWhileTheCallerIsBusy) {
  Log log;
  BatchedWriter w(logging(log), 50ms);
  w.add(record("a"));
  // The caller now runs a long tuple and adds nothing: "a" must still be written.
  for (int i = 0; i < 200 && log.records() < 1; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(log.records(), 1u);
  w.drain();
  ASSERT_EQ(log.batches.size(), 1u);
  EXPECT_EQ(log.batches[0], std::vector<std::string>{"a"});
}

TEST(BatchedWriter, GathersRecordsOfOneIntervalIntoOneBatchAndDrainsInOrder) {
  Log log;
  BatchedWriter w(logging(log), 10s);  // long: everything after the first write waits
  w.add(record("a"));
  for (int i = 0; i < 200 && log.records() < 1; ++i) std::this_thread::sleep_for(10ms);
  for (const char* n : {"b", "c", "d"}) w.add(record(n));
  const auto t0 = std::chrono::steady_clock::now();
  w.drain();  // cuts the interval short
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  ASSERT_EQ(log.batches.size(), 2u);
  EXPECT_EQ(log.batches[1], (std::vector<std::string>{"b", "c", "d"}));
  w.add(record("e"));  // usable again after a drain
  w.drain();
  EXPECT_EQ(log.records(), 5u);
}

TEST(BatchedWriter, AFailedWriteIsReportedAndItsRecordsAreNotClaimed) {
  std::atomic<int> calls = 0;
  BatchedWriter w(
      [&](const std::vector<sweep::TupleRecord>&) {
        ++calls;
        throw std::runtime_error("disk full");
      },
      1ms);
  w.add(record("a"));
  EXPECT_THROW(w.drain(), std::runtime_error);
  EXPECT_EQ(calls.load(), 1);
  w.drain();  // the error was reported once
}

TEST(BatchedWriter, TheDestructorWritesWhatIsQueued) {
  Log log;
  {
    BatchedWriter w(logging(log), 10s);
    w.add(record("a"));
    w.add(record("b"));
  }
  EXPECT_EQ(log.records(), 2u);
}

}  // namespace
}  // namespace kapla::io
