// Writes finished tuples in batches from a background thread, so that a sweep of thousands of
// short tuples writes a few part files a second instead of one per tuple (each part file costs
// an HDF5 create, two fsyncs, and later a read and a delete in the merge).
//
// A record handed to add() is written within `interval` of the previous write, whatever the
// caller does next, so a kill loses at most the tuples finished in the last interval (plus the
// write in progress). One thread writes, so the write function need not be thread-safe; the
// caller must not use HDF5 itself while the writer runs (drain() first).
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "sweep/record.hpp"

namespace kapla::io {

class BatchedWriter {
 public:
  using WriteFn = std::function<void(const std::vector<sweep::TupleRecord>&)>;

  BatchedWriter(WriteFn write, std::chrono::milliseconds interval);
  ~BatchedWriter();  // drains; an error then is dropped (drain() reports it)
  BatchedWriter(const BatchedWriter&) = delete;
  BatchedWriter& operator=(const BatchedWriter&) = delete;

  /// Queues a record; rethrows the error of an earlier failed write.
  void add(sweep::TupleRecord record);
  /// Writes everything queued and stops the thread (add() starts it again); rethrows the
  /// error of a failed write.
  void drain();

 private:
  void loop();

  WriteFn write_;
  std::chrono::milliseconds interval_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<sweep::TupleRecord> queued_;
  bool closing_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace kapla::io
