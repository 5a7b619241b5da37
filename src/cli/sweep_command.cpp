// `kapla sweep JOBFILE [--out PATH] [--threads N] [--quiet]`: runs a job file's sweep on the
// ranks of mpirun/srun (or locally), writing HDF5 (docs/sweep.md). Exit codes: 0 done,
// 1 bad input, 3 bug, 4 interrupted by SIGTERM/SIGUSR1 (rerun to resume).
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/sweep_command.hpp"
#include "core/errors.hpp"
#include "io/hdf5_sink.hpp"
#include "io/job_json.hpp"
#include "sweep/runner.hpp"

namespace kapla::cli {
namespace {

constexpr int kExitInterrupted = 4;

std::string duration(double seconds) {
  if (seconds < 0) return "?";
  const long s = std::lround(seconds);
  std::ostringstream os;
  if (s >= 3600) os << s / 3600 << "h" << (s % 3600) / 60 << "m";
  else if (s >= 60) os << s / 60 << "m" << s % 60 << "s";
  else os << s << "s";
  return os.str();
}

// Progress on stderr: a redrawn line on a terminal, nothing otherwise; a short summary at the
// end unless --quiet.
class TerminalProgress final : public sweep::Progress {
 public:
  TerminalProgress(bool live, bool summary, std::string output)
      : live_(live), summary_(summary), output_(std::move(output)) {}

  void update(const sweep::ProgressState& s) override {
    if (!live_) return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(200)) return;  // throttle
    last_ = now;
    drawn_ = true;
    std::fprintf(stderr, "\r\033[Ksweep: %zu/%zu done", s.done + s.skipped, s.total);
    if (s.skipped) std::fprintf(stderr, " (%zu resumed)", s.skipped);
    std::fprintf(stderr, ", %zu running, %s elapsed, ETA %s", s.running,
                 duration(s.elapsed_seconds).c_str(), duration(s.eta_seconds).c_str());
    std::fflush(stderr);
  }

  void finish(const sweep::RunSummary& s) override {
    if (live_ && drawn_) std::fprintf(stderr, "\r\033[K");
    if (!summary_) return;
    std::fprintf(stderr, "sweep: %zu of %zu tuples recorded in %s (%zu this run: %zu failed, "
                 "%zu timeout; %zu resumed)%s -> %s\n",
                 s.skipped + s.done, s.total, duration(s.wall_seconds).c_str(), s.done,
                 s.failed, s.timed_out, s.skipped,
                 s.interrupted ? (", INTERRUPTED: " + std::to_string(s.remaining) +
                                  " remain, rerun to resume").c_str()
                               : "",
                 output_.c_str());
    for (const auto& r : s.ranks) {
      const double pct = r.wall_seconds > 0 ? 100.0 * r.busy_seconds / r.wall_seconds : 0;
      std::fprintf(stderr, "  rank %d (%s): %zu tuples, busy %.1fs of %.1fs (%.0f%%)\n", r.rank,
                   r.host.c_str(), r.tuples, r.busy_seconds, r.wall_seconds, pct);
    }
  }

 private:
  bool live_;
  bool summary_;
  std::string output_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

int resolve_threads(int flag, int from_job) {
  if (flag > 0) return flag;
  if (from_job > 0) return from_job;
  for (const char* var : {"OMP_NUM_THREADS", "SLURM_CPUS_PER_TASK"}) {
    if (const char* v = std::getenv(var)) {
      const int n = std::atoi(v);
      if (n > 0) return n;
    }
  }
  return 1;
}

struct SweepArgs {
  std::string job;
  std::string out;
  int threads = 0;
  bool quiet = false;
  double stop_grace = 60;
  std::string command_line;
};

void run(const SweepArgs& args, Context& ctx, const TupleRunnerFactory& factory) {
  sweep::install_stop_signals();
  std::exception_ptr error;
  int rank = 0;
  {
    const auto comm = sweep::make_world_communicator();
    rank = comm->rank();
    try {
      const sweep::SweepSpec spec = io::load_job_file(args.job);
      const std::string output = args.out.empty() ? spec.output : args.out;
      const auto runner = factory(spec, ctx);
      for (const auto& t : sweep::expand_tuples(spec)) {
        try {
          runner->check(t);
        } catch (const InputError& e) {
          throw InputError(args.job + ": tuple " + t.key() + ": " + e.what());
        }
      }
      io::ResultsFileInfo info;
      info.job_name = spec.name;
      info.job_fingerprint = spec.fingerprint;
      info.job_file = spec.source_text;
      info.kapla_version = KAPLA_VERSION;
      io::Hdf5Sink sink(output, info);
      TerminalProgress progress(rank == 0 && ::isatty(2) && !args.quiet, rank == 0 && !args.quiet,
                                output);
      sweep::RunOptions options;
      options.threads = resolve_threads(args.threads, spec.threads);
      options.tuple_time_limit_seconds = spec.tuple_time_limit_seconds;
      options.command_line = args.command_line;
      options.stop_grace_seconds = args.stop_grace;
      const auto summary = sweep::run_sweep(spec, *runner, *comm, sink, progress, options);
      if (summary.interrupted) ctx.exit_code = kExitInterrupted;
    } catch (const sweep::DispatchError& e) {
      // Raised on one rank while the others work: they cannot be told in order, so end all.
      std::cerr << "[rank " << rank << "] error: " << e.what() << "\n";
      if (comm->size() > 1) comm->abort(1);
      error = std::current_exception();
    } catch (...) {
      error = std::current_exception();
    }
  }  // MPI is finalised here, on every rank alike
  if (error) {
    if (rank == 0) std::rethrow_exception(error);
    ctx.exit_code = 1;  // rank 0 reports the (same) error
  }
}

}  // namespace

void register_sweep_with(CLI::App& app, Context& ctx, TupleRunnerFactory factory) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App* sub = app.add_subcommand(
      "sweep", "Run a job file's sweep (under mpirun/srun the ranks share the tuples)");
  sub->add_option("jobfile", args->job, "Job file (jobs/*.json)")->required();
  sub->add_option("--out", args->out, "Output HDF5 file (overrides the job file's output)");
  sub->add_option("--threads", args->threads,
                  "OpenMP threads per rank (default: the job's, else $OMP_NUM_THREADS, else 1)")
      ->check(CLI::Range(1, 4096));
  sub->add_flag("--quiet,-q", args->quiet, "No progress and no summary on stderr");
  sub->add_option("--stop-grace", args->stop_grace,
                  "Seconds a running tuple may go on after SIGTERM/SIGUSR1 to finish its record "
                  "(then it is abandoned and rerun on resume)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->callback([&ctx, args, factory = std::move(factory)] { run(*args, ctx, factory); });
  // The command line, for provenance.
  args->command_line = "kapla sweep";
  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
  if (cmdline) {
    std::string all((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    for (char& c : all) c = c == '\0' ? ' ' : c;
    while (!all.empty() && all.back() == ' ') all.pop_back();
    if (!all.empty()) args->command_line = all;
  }
}

}  // namespace kapla::cli
