// The MPI communicator: the only file that includes <mpi.h>. Work is handed out by rank 0 from
// one queue in the given (longest-first) order. Rank 0 also works: its share runs on a helper
// thread while the main thread answers requests, so only the main thread calls MPI
// (MPI_THREAD_FUNNELED) and a long local task never delays the other ranks' next task.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/errors.hpp"
#include "sweep/communicator.hpp"

namespace kapla::sweep {

namespace {

// worker -> 0: {tasks finished since its last request, wants_more}
constexpr int kTagRequest = 7101;
// 0 -> worker: {n, n task indices}; n = 0: "no more"
constexpr int kTagAssign = 7102;
constexpr std::size_t kMaxChunk = 256;  // tasks per assignment message

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw InternalError(std::string("MPI call failed: ") + what);
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      int provided = 0;
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
      owns_mpi_ = true;
      if (provided < MPI_THREAD_FUNNELED) {
        throw InputError("the MPI library does not provide MPI_THREAD_FUNNELED");
      }
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiCommunicator() override {
    // Skip MPI_Finalize while an exception unwinds: the other ranks may be waiting in a
    // collective and Finalize would hang (arbor's with_mpi does the same).
    if (owns_mpi_ && std::uncaught_exceptions() == 0) MPI_Finalize();
  }
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string kind() const override { return "mpi"; }
  std::string library_version() const override {
    char buf[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    MPI_Get_library_version(buf, &len);
    std::string s(buf, static_cast<std::size_t>(len));
    const auto nl = s.find_first_of("\r\n,");
    return nl == std::string::npos ? s : s.substr(0, nl);
  }

  void abort(int exit_code) override { MPI_Abort(MPI_COMM_WORLD, exit_code); }

  void barrier() override { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }
  int max(int value) override {
    int out = 0;
    check(MPI_Allreduce(&value, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    return out;
  }
  std::string broadcast(const std::string& text) override {
    long long n = static_cast<long long>(text.size());
    check(MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
    std::string out = rank_ == 0 ? text : std::string(static_cast<std::size_t>(n), '\0');
    if (n > 0) {
      check(MPI_Bcast(out.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
    }
    return out;
  }
  std::vector<std::string> gather(const std::string& text) override {
    int n = static_cast<int>(text.size());
    std::vector<int> sizes(static_cast<std::size_t>(size_));
    check(MPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
    std::vector<int> offsets(sizes.size());
    int total = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      offsets[i] = total;
      total += sizes[i];
    }
    std::string all(static_cast<std::size_t>(rank_ == 0 ? total : 0), '\0');
    check(MPI_Gatherv(text.data(), n, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR,
                      0, MPI_COMM_WORLD),
          "MPI_Gatherv");
    std::vector<std::string> out;
    if (rank_ == 0) {
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        out.push_back(
            all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(sizes[i])));
      }
    }
    return out;
  }

  void for_each_task(const std::vector<std::size_t>& order, const TaskFn& work, const StopFn& stop,
                     const ProgressFn& progress, const ChunkFn& chunk) override {
    if (rank_ == 0) {
      dispatch(order, work, stop, progress, chunk);
    } else {
      request_loop(work, stop);
    }
  }

 private:
  // Rank 0: a helper thread works through the queue like any other rank, while this (main)
  // thread answers the other ranks.
  void dispatch(const std::vector<std::size_t>& order, const TaskFn& work, const StopFn& stop,
                const ProgressFn& progress, const ChunkFn& chunk) {
    std::mutex mutex;  // guards next, state, local_failed
    std::size_t next = 0;
    DispatchState state;
    state.total = order.size();
    bool local_failed = false;
    std::exception_ptr local_error;
    // Tasks handed to each rank and not yet reported: its next request reports how many of
    // them it finished; the others were dropped by a stop.
    std::vector<std::size_t> outstanding(static_cast<std::size_t>(size_), 0);

    auto take = [&]() -> long long {  // under mutex
      if (next >= order.size() || local_failed || (stop && stop())) return -1;
      ++state.running;
      return static_cast<long long>(order[next++]);
    };
    auto take_chunk = [&](std::vector<long long>& message) {  // under mutex: {n, tasks...}
      const bool sized = chunk && next < order.size();
      const std::size_t want = sized ? std::clamp<std::size_t>(chunk(next), 1, kMaxChunk) : 1;
      message.assign(1, 0);
      for (long long t = 0; message.size() <= want && (t = take()) >= 0;) message.push_back(t);
      message[0] = static_cast<long long>(message.size() - 1);
    };

    bool local_done = false;
    std::thread local([&] {
      for (;;) {
        long long task = 0;
        {
          std::lock_guard<std::mutex> lock(mutex);
          task = take();
        }
        if (task < 0) break;
        try {
          work(static_cast<std::size_t>(task));
        } catch (...) {
          std::lock_guard<std::mutex> lock(mutex);
          local_error = std::current_exception();
          local_failed = true;
          --state.running;
          break;
        }
        std::lock_guard<std::mutex> lock(mutex);
        --state.running;
        ++state.done;
      }
      std::lock_guard<std::mutex> lock(mutex);
      local_done = true;
    });

    int active = size_ - 1;  // remote ranks that have not yet been told "no more"
    auto last_report = std::chrono::steady_clock::now();
    DispatchState reported{static_cast<std::size_t>(-1), 0, 0};
    try {
      for (;;) {
        bool finished = false;
        {
          std::lock_guard<std::mutex> lock(mutex);
          finished = local_done && active == 0;
        }
        int flag = 0;
        MPI_Status status;
        if (active > 0) {
          check(MPI_Iprobe(MPI_ANY_SOURCE, kTagRequest, MPI_COMM_WORLD, &flag, &status),
                "MPI_Iprobe");
        }
        if (flag) {
          long long msg[2] = {0, 0};
          check(MPI_Recv(msg, 2, MPI_LONG_LONG, status.MPI_SOURCE, kTagRequest, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE),
                "MPI_Recv");
          const auto source = static_cast<std::size_t>(status.MPI_SOURCE);
          std::vector<long long> assign;
          {
            std::lock_guard<std::mutex> lock(mutex);
            state.running -= outstanding[source];
            state.done += static_cast<std::size_t>(msg[0]);
            outstanding[source] = 0;
            if (msg[1]) {
              take_chunk(assign);
              outstanding[source] = static_cast<std::size_t>(assign[0]);
            }
          }
          if (msg[1]) {
            check(MPI_Send(assign.data(), static_cast<int>(assign.size()), MPI_LONG_LONG,
                           status.MPI_SOURCE, kTagAssign, MPI_COMM_WORLD),
                  "MPI_Send");
          }
          if (!msg[1] || assign[0] == 0) --active;
        }
        DispatchState now_state;
        {
          std::lock_guard<std::mutex> lock(mutex);
          now_state = state;
        }
        const auto now = std::chrono::steady_clock::now();
        if (progress && (now_state.done != reported.done || now_state.running != reported.running ||
                         now - last_report > std::chrono::seconds(1))) {
          progress(now_state);
          reported = now_state;
          last_report = now;
        }
        if (finished) break;
        if (!flag) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        local_failed = true;
      }
      local.join();
      throw;
    }
    local.join();
    if (local_error) std::rethrow_exception(local_error);
  }

  // Ranks > 0: ask for tasks, run them, report them and ask again, until told "no more".
  void request_loop(const TaskFn& work, const StopFn& stop) {
    long long finished = 0;  // since the last request
    std::vector<long long> assign(kMaxChunk + 1);
    for (;;) {
      const bool wants_more = !(stop && stop());
      long long msg[2] = {finished, wants_more ? 1 : 0};
      check(MPI_Send(msg, 2, MPI_LONG_LONG, 0, kTagRequest, MPI_COMM_WORLD), "MPI_Send");
      if (!wants_more) return;
      check(MPI_Recv(assign.data(), static_cast<int>(assign.size()), MPI_LONG_LONG, 0, kTagAssign,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE),
            "MPI_Recv");
      const long long n = assign[0];
      if (n <= 0) return;
      finished = 0;
      for (long long i = 1; i <= n; ++i) {
        if (i > 1 && stop && stop()) break;  // the rest of the chunk is dropped, not run
        try {
          work(static_cast<std::size_t>(assign[static_cast<std::size_t>(i)]));
        } catch (...) {
          // Tell rank 0 that this rank leaves (the failed task counts as finished, the rest
          // of the chunk as dropped), then report.
          long long bye[2] = {finished + 1, 0};
          MPI_Send(bye, 2, MPI_LONG_LONG, 0, kTagRequest, MPI_COMM_WORLD);
          throw;
        }
        ++finished;
      }
    }
  }

  int rank_ = 0;
  int size_ = 1;
  bool owns_mpi_ = false;
};

}  // namespace

std::unique_ptr<Communicator> make_mpi_communicator() {
  return std::make_unique<MpiCommunicator>();
}

}  // namespace kapla::sweep
