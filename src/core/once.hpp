// A once flag whose first run costs no system call. std::call_once runs on glibc's
// pthread_once, which after every first run wakes possible waiters with a futex system call,
// whether any thread waits or not. K's memo slots (a partition's setup, reach, placement and
// nests; a layer search) run about 114 k first runs in one inference search of ResNet-50 at
// cloud 64 (strace -c), and on a virtual machine each of those calls costs microseconds of
// system time. Here a first run takes an uncontended mutex (no system call unless another
// thread waits on it) and an atomic store; every later call, one atomic load.
#pragma once

#include <atomic>
#include <mutex>
#include <utility>

namespace kapla {

class Once {
 public:
  Once() = default;
  Once(const Once&) = delete;
  Once& operator=(const Once&) = delete;

  /// Runs `f` unless a call has completed: concurrent callers wait for the one running it. If
  /// `f` throws, nothing is marked done and the exception propagates (as std::call_once).
  template <class F>
  void call(F&& f) {
    if (done_.load(std::memory_order_acquire)) return;
    const std::lock_guard<std::mutex> lock(mu_);
    if (done_.load(std::memory_order_relaxed)) return;
    std::forward<F>(f)();
    done_.store(true, std::memory_order_release);
  }

 private:
  std::atomic<bool> done_{false};
  std::mutex mu_;
};

}  // namespace kapla
