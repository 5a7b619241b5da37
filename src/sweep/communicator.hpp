// The ranks of a sweep and how they share out work (arbor's distributed_context idea):
// LocalCommunicator always, MpiCommunicator when built with MPI. Only the main thread calls a
// Communicator (MPI_THREAD_FUNNELED).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kapla::sweep {

/// Dispatch counters for progress reports (meaningful on rank 0 only).
struct DispatchState {
  std::size_t done = 0;     // tasks finished
  std::size_t running = 0;  // tasks handed out and not finished
  std::size_t total = 0;    // tasks in this dispatch
};

/// Work for one task index; must not call the Communicator (it may run on a helper thread).
using TaskFn = std::function<void(std::size_t task)>;
/// Polled before a task is handed out (on any thread); true stops handing out more.
using StopFn = std::function<bool()>;
/// Called on rank 0's main thread after each change and about once a second.
using ProgressFn = std::function<void(const DispatchState&)>;
/// How many tasks, from position `next` of the order on, one request of another rank takes
/// (at least 1; null: 1). Many short tasks per request keep rank 0 from becoming the
/// bottleneck when thousands of ranks ask for tasks of milliseconds.
using ChunkFn = std::function<std::size_t(std::size_t next)>;

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// "local" or "mpi".
  virtual std::string kind() const = 0;
  /// The MPI library's version string; "" for local.
  virtual std::string library_version() const = 0;

  virtual void barrier() = 0;
  /// Maximum over ranks (e.g. an agreed exit code).
  virtual int max(int value) = 0;
  /// Rank 0's text on every rank.
  virtual std::string broadcast(const std::string& text) = 0;
  /// Every rank's text, by rank, on rank 0; empty elsewhere.
  virtual std::vector<std::string> gather(const std::string& text) = 0;
  /// Ends every rank after an error on this one (MPI_Abort); a no-op for one process, whose
  /// error simply propagates.
  virtual void abort(int exit_code) = 0;

  /// Runs each of the tasks order[0], order[1], ... exactly once on some rank, handing them
  /// out dynamically in that order: a rank asks for the next tasks (`chunk` of them) when it
  /// finishes its last, so a few long tasks cannot leave other ranks idle behind a static
  /// split. `stop` is also polled between the tasks of a chunk. Returns on every rank when
  /// all handed-out tasks are done or dropped. Exceptions from `work` stop this rank's share
  /// and are rethrown after the others are told.
  virtual void for_each_task(const std::vector<std::size_t>& order, const TaskFn& work,
                             const StopFn& stop, const ProgressFn& progress,
                             const ChunkFn& chunk) = 0;
};

/// One process, no MPI.
std::unique_ptr<Communicator> make_local_communicator();

/// The world of this process: MPI when launched by mpirun/srun with MPI support (and built
/// with it), else local. Initialises MPI (FUNNELED) on first use; finalised at exit.
/// Throws InputError when launched as several Slurm tasks without MPI between them.
std::unique_ptr<Communicator> make_world_communicator();

}  // namespace kapla::sweep
