// The sweep runner (see runner.hpp).
#include "sweep/runner.hpp"

#include <signal.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <sstream>

#include "core/errors.hpp"
#include "model/limits.hpp"
#include "sweep/assign.hpp"

namespace kapla::sweep {

std::atomic<bool>& stop_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

std::atomic<std::int64_t>& stop_since_ns() {
  static std::atomic<std::int64_t> ns{0};
  return ns;
}

namespace {

// Estimated seconds of work one request of another rank takes (chunk_size).
constexpr double kChunkSeconds = 0.05;

extern "C" void on_stop_signal(int /*signo*/) {
  // clock_gettime is async-signal-safe; steady_clock is CLOCK_MONOTONIC. A second signal
  // does not restart the grace period.
  if (!stop_flag().load()) {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    stop_since_ns().store(static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec);
  }
  stop_flag().store(true);
}

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream is(text);
  while (std::getline(is, item, sep)) out.push_back(item);
  return out;
}

// Per-rank counters, sent to rank 0 at the end as one tab-separated line.
struct RankCounters {
  std::size_t recorded = 0;
  std::size_t failed = 0;
  std::size_t timed_out = 0;
  std::size_t interrupted = 0;
  double busy_seconds = 0;
};

}  // namespace

void install_stop_signals() {
  static_assert(std::atomic<bool>::is_always_lock_free, "the stop flag must be signal-safe");
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGUSR1, &sa, nullptr);
}

RunSummary run_sweep(const SweepSpec& spec, const TupleRunner& runner, Communicator& comm,
                     ResultSink& sink, Progress& progress, const RunOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<Tuple> tuples = expand_tuples(spec);
  // Every rank checks every tuple: the same input gives the same error everywhere.
  for (const auto& t : tuples) runner.check(t);

  // Resume: rank 0 reads what is recorded and tells the others (or tells them the error).
  std::string message;
  if (comm.rank() == 0) {
    try {
      message = "K";
      for (const auto& key : sink.existing_keys()) message += key + "\n";
      sink.begin();
    } catch (const InputError& e) {
      message = std::string("E") + e.what();
    }
  }
  message = comm.broadcast(message);
  if (message.empty() || message[0] != 'K') throw InputError(message.substr(1));
  std::set<std::string> existing;
  for (auto& key : split(message.substr(1), '\n')) existing.insert(std::move(key));

  std::vector<std::size_t> pending;
  std::vector<double> estimates;
  for (const auto& t : tuples) {
    if (existing.count(t.key())) continue;
    pending.push_back(t.index);
    estimates.push_back(runner.estimate_cost(t));
  }
  std::vector<std::size_t> order;
  // prefix[k]: estimated work of the first k tuples in dispatch order (for the ETA: tuples are
  // handed out in this order, so the first `done` ones are about the finished ones).
  std::vector<double> prefix{0.0};
  for (const std::size_t i : longest_first(estimates)) {
    order.push_back(pending[i]);
    prefix.push_back(prefix.back() + std::max(0.0, estimates[i]));
  }

  RunSummary summary;
  summary.total = tuples.size();
  summary.skipped = tuples.size() - pending.size();

  const Provenance base =
      process_provenance(comm.rank(), options.command_line, comm.library_version());
  RankCounters counters;
  const std::atomic<bool>* stop = &stop_flag();
  auto work = [&](std::size_t index) {
    const Tuple& tuple = tuples[index];
    RunContext ctx;
    ctx.seed = tuple_seed(tuple);
    ctx.num_threads = std::max(1, options.threads);
    ctx.stop = stop;
    ctx.stop_since_ns = &stop_since_ns();
    ctx.stop_grace = std::chrono::duration<double>(options.stop_grace_seconds);
    const auto w0 = std::chrono::steady_clock::now();
    if (options.tuple_time_limit_seconds > 0) {
      // Clamped to the job limit: a longer duration overflows steady_clock's nanoseconds and the
      // deadline lands in the past (every tuple timed out at once).
      const double limit = std::min(options.tuple_time_limit_seconds, model::limits::kMaxSeconds);
      ctx.deadline = w0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(limit));
    }
    TupleRecord record;
    record.provenance = base;
    record.provenance.start_time = utc_now();
    const double cpu0 = process_cpu_seconds();
    try {
      record.result = runner.run(tuple, ctx);
    } catch (const std::exception& e) {
      record.result = TupleResult{};
      record.result.status = TupleStatus::Failed;
      record.result.message = e.what();
    }
    const double wall = seconds_since(w0);
    counters.busy_seconds += wall;
    if (record.result.status == TupleStatus::Interrupted) {
      ++counters.interrupted;
      return;  // not recorded: a resume runs it again
    }
    record.provenance.end_time = utc_now();
    record.tuple = tuple;
    record.search_seed = ctx.seed;
    record.result.stats.wall_seconds = wall;
    record.result.stats.cpu_seconds = process_cpu_seconds() - cpu0;
    record.result.stats.threads = ctx.num_threads;
    sink.write(record);
    ++counters.recorded;
    if (record.result.status == TupleStatus::Failed) ++counters.failed;
    if (record.result.status == TupleStatus::Timeout) ++counters.timed_out;
  };
  auto should_stop = [stop] { return stop->load(std::memory_order_relaxed); };
  auto on_progress = [&](const DispatchState& d) {
    ProgressState p;
    p.total = summary.total;
    p.skipped = summary.skipped;
    p.done = d.done;
    p.running = d.running;
    p.elapsed_seconds = seconds_since(t0);
    if (d.done > 0 && d.done <= order.size()) {
      const double done_work = prefix[d.done];
      const double total_work = prefix.back();
      p.eta_seconds = done_work > 0 ? p.elapsed_seconds * (total_work - done_work) / done_work
                                    : p.elapsed_seconds / static_cast<double>(d.done) *
                                          static_cast<double>(order.size() - d.done);
    }
    progress.update(p);
  };
  try {
    // A request of another rank takes about 50 ms of estimated work: with tuples of
    // milliseconds, one task per request made the round trip (1-2 ms) a tenth of the work at
    // 2 ranks and rank 0 the bottleneck at 1024 (docs/codesign.md "Sweeps of 10^4 designs").
    const int ranks = comm.size();
    auto chunk = [&prefix, ranks](std::size_t next) {
      return chunk_size(prefix, next, ranks, kChunkSeconds);
    };
    comm.for_each_task(order, work, should_stop,
                       comm.rank() == 0 ? ProgressFn(on_progress) : ProgressFn(),
                       comm.rank() == 0 ? ChunkFn(chunk) : ChunkFn());
    sink.flush();  // this rank's last records, before rank 0 merges them
  } catch (const std::exception& e) {
    throw DispatchError(e.what());
  }

  // Gather what each rank did (this also waits for every rank's last write).
  std::ostringstream line;
  line.precision(17);
  line << comm.rank() << '\t' << base.host << '\t' << counters.recorded << '\t' << counters.failed
       << '\t' << counters.timed_out << '\t' << counters.interrupted << '\t'
       << counters.busy_seconds << '\t' << seconds_since(t0);
  const std::vector<std::string> lines = comm.gather(line.str());
  if (comm.rank() == 0) {
    sink.finish();
    for (const auto& l : lines) {
      const auto f = split(l, '\t');
      KAPLA_ASSERT(f.size() == 8, "run_sweep: malformed rank summary");
      RankSummary r;
      r.rank = std::stoi(f[0]);
      r.host = f[1];
      r.tuples = std::stoul(f[2]);
      r.busy_seconds = std::stod(f[6]);
      r.wall_seconds = std::stod(f[7]);
      summary.done += r.tuples;
      summary.failed += std::stoul(f[3]);
      summary.timed_out += std::stoul(f[4]);
      summary.ranks.push_back(r);
    }
    summary.remaining = pending.size() - summary.done;
    summary.interrupted = summary.remaining > 0;
    summary.wall_seconds = seconds_since(t0);
    progress.finish(summary);
  }
  // Every rank learns the outcome; nobody exits before the final file is in place.
  summary.interrupted = comm.max(summary.interrupted ? 1 : 0) != 0;
  return summary;
}

}  // namespace kapla::sweep
