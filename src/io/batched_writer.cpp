#include "io/batched_writer.hpp"

#include <utility>

namespace kapla::io {

BatchedWriter::BatchedWriter(WriteFn write, std::chrono::milliseconds interval)
    : write_(std::move(write)), interval_(interval) {}

BatchedWriter::~BatchedWriter() {
  try {
    drain();
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw; drain() reports
  }
}

void BatchedWriter::add(sweep::TupleRecord record) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (error_) std::rethrow_exception(error_);
  queued_.push_back(std::move(record));
  if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
  wake_.notify_one();
}

void BatchedWriter::drain() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  closing_ = false;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void BatchedWriter::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return closing_ || !queued_.empty(); });
    if (queued_.empty()) return;  // closing with nothing left
    std::vector<sweep::TupleRecord> batch = std::exchange(queued_, {});
    lock.unlock();
    try {
      write_(batch);
    } catch (...) {
      lock.lock();
      error_ = std::current_exception();
      return;  // the records of the failed batch are not recorded: a resume reruns them
    }
    lock.lock();
    // Let the next records gather for one interval (a drain cuts it short).
    wake_.wait_for(lock, interval_, [this] { return closing_; });
  }
}

}  // namespace kapla::io
