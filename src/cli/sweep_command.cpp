// `kapla sweep JOBFILE [--out PATH] [--threads N] [--quiet|--verbose]`: runs a job file's sweep on
// the ranks of mpirun/srun (or locally), writing HDF5 (docs/sweep.md). Exit codes: 0 done, 1 bad
// input, 3 bug, 4 interrupted by SIGTERM/SIGUSR1 (rerun to resume).
#include <sched.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "cli/commands.hpp"
#include "cli/progress_flags.hpp"
#include "cli/sweep_command.hpp"
#include "cli/text_table.hpp"
#include "core/errors.hpp"
#include "core/once.hpp"
#include "io/hdf5_sink.hpp"
#include "io/job_json.hpp"
#include "model/limits.hpp"
#include "sweep/progress_log.hpp"
#include "sweep/runner.hpp"
#include "sweep/search_rounds.hpp"

namespace kapla::cli {
namespace {

constexpr int kExitInterrupted = 4;

// Progress on stderr: a redrawn line on a terminal, else timestamped log lines (rate-limited:
// sweep/progress_log.hpp); a short summary at the end unless --quiet.
class TerminalProgress final : public sweep::Progress {
 public:
  TerminalProgress(bool live, bool log, double log_interval, bool summary, std::string output)
      : live_(live), summary_(summary), output_(std::move(output)) {
    if (log) {
      log_.emplace(
          std::cerr, [] { return std::chrono::system_clock::now(); }, log_interval);
    }
  }

  void update(const sweep::ProgressState& s) override {
    if (log_) log_->update(s);
    if (!live_) return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(200)) return;  // throttle
    last_ = now;
    drawn_ = true;
    std::fprintf(stderr, "\r\033[Ksweep: %zu/%zu done", s.done + s.skipped, s.total);
    if (s.skipped) std::fprintf(stderr, " (%zu resumed)", s.skipped);
    std::fprintf(stderr, ", %zu running, %s elapsed, ETA %s", s.running,
                 sweep::duration_text(s.elapsed_seconds).c_str(),
                 sweep::duration_text(s.eta_seconds).c_str());
    std::fflush(stderr);
  }

  void finish(const sweep::RunSummary& s) override {
    if (live_ && drawn_) std::fprintf(stderr, "\r\033[K");
    if (!summary_) return;
    if (log_) std::cerr << sweep::log_prefix(std::chrono::system_clock::now()) << std::flush;
    std::fprintf(
        stderr,
        "sweep: %zu of %zu tuples recorded in %s (%zu this run: %zu failed, "
        "%zu timeout; %zu resumed)%s -> %s\n",
        s.skipped + s.done, s.total, sweep::duration_text(s.wall_seconds).c_str(), s.done, s.failed,
        s.timed_out, s.skipped,
        s.interrupted
            ? (", INTERRUPTED: " + std::to_string(s.remaining) + " remain, rerun to resume").c_str()
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
  std::optional<sweep::ProgressLog> log_;
  bool summary_;
  std::string output_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

// The CPUs this rank may run on ("0-3,8"), so a batch log shows whether each rank got its
// own cores (docs/sweep.md, Slurm). With OMP_PLACES set, the OpenMP runtime has already pinned
// this (main) thread to the first place, so the rank's CPUs are the union of its places;
// otherwise the thread's affinity mask (sched_getaffinity) is the process's.
std::string affinity_text() {
  std::set<int> cpus;
#ifdef _OPENMP
  for (int p = 0; p < omp_get_num_places(); ++p) {
    std::vector<int> ids(static_cast<std::size_t>(omp_get_place_num_procs(p)));
    omp_get_place_proc_ids(p, ids.data());
    cpus.insert(ids.begin(), ids.end());
  }
#endif
  if (cpus.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return "?";
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) cpus.insert(c);
    }
  }
  std::ostringstream os;
  for (auto it = cpus.begin(); it != cpus.end();) {
    const int first = *it;
    int last = first;
    while (++it != cpus.end() && *it == last + 1) last = *it;
    os << (os.tellp() > 0 ? "," : "") << first;
    if (last > first) os << '-' << last;
  }
  return os.str();
}

std::string host_name() {
  char host[256] = "?";
  ::gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = '\0';
  return host;
}

// Forwards to a runner; before the first tuple this rank runs it writes `line` (if any) to
// stderr with a timestamp.
class AnnouncingRunner final : public sweep::TupleRunner {
 public:
  AnnouncingRunner(const sweep::TupleRunner& inner, std::string line)
      : inner_(inner), line_(std::move(line)) {}
  void check(const sweep::Tuple& t) const override { inner_.check(t); }
  double estimate_cost(const sweep::Tuple& t) const override { return inner_.estimate_cost(t); }
  sweep::TupleResult run(const sweep::Tuple& t, const sweep::RunContext& ctx) const override {
    once_.call([this] {
      if (!line_.empty()) {
        std::cerr << sweep::log_prefix(std::chrono::system_clock::now()) + line_ + "\n"
                  << std::flush;
      }
    });
    return inner_.run(t, ctx);
  }

 private:
  const sweep::TupleRunner& inner_;
  std::string line_;
  mutable Once once_;
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
  ProgressFlags progress;
  bool dry_run = false;
  double warn_hours = 4;
  double stop_grace = 60;
  std::string imperfect;  // --imperfect: overrides the job's options.imperfect when given
  std::string command_line;
};

// The job file with the command line's overrides applied (the fingerprint follows them, so
// results searched in another space are never resumed into).
sweep::SweepSpec load_job(const SweepArgs& args, const Context& ctx) {
  const auto& registry = search::builtin_strategies();
  sweep::SweepSpec spec = io::load_job_file(args.job, registry, ctx.resolved_data_dir());
  if (!args.imperfect.empty()) {
    try {
      spec.options.imperfect = model::parse_imperfect(args.imperfect);
      model::validate(spec.options);
    } catch (const InputError& e) {
      throw InputError(std::string("--") + e.what());
    }
    spec.fingerprint = io::job_fingerprint(spec, registry);
  }
  return spec;
}

// `--dry-run`: the tuples with the runner's estimate of each one's CPU time (one thread) and
// the 90th-percentile bound of its error, the totals, and a warning when the bound is large.
// Nothing runs, nothing is written.
void dry_run(const SweepArgs& args, const Context& ctx, const TupleRunnerFactory& factory) {
  // Measured / estimated CPU time is within this factor for 90 % of the tuples the estimate
  // was fitted to (scripts/fit_tuple_estimate.py, docs/sweep.md "Dry run").
  constexpr double kUpTo = 10.7;
  const sweep::SweepSpec spec = load_job(args, ctx);
  const auto runner = factory(spec, ctx);
  TextTable table({{"tuple", TextTable::Align::Left},
                   {"estimated CPU time", TextTable::Align::Right},
                   {"up to", TextTable::Align::Right}});
  double total = 0;
  std::size_t n = 0;
  for (const auto& t : sweep::expand_tuples(spec)) {
    try {
      runner->check(t);
    } catch (const InputError& e) {
      throw InputError(args.job + ": tuple " + t.key() + ": " + e.what());
    }
    const double seconds = runner->estimate_cost(t);
    table.add_row({t.key(), sweep::duration_text(seconds), sweep::duration_text(seconds * kUpTo)});
    total += seconds;
    ++n;
  }
  table.print(std::cout);
  for (const auto& search : spec.searches) {
    std::cout << "local search: these are round 0's " << search.initial.size() << " of "
              << search.grid.size() << " designs; later rounds follow the results\n";
  }
  std::cout << "total: " << n << " tuples, estimated " << sweep::duration_text(total)
            << " CPU time on one thread, up to " << sweep::duration_text(total * kUpTo)
            << " (the dispatcher's estimate, fitted to measured tuple times; docs/sweep.md "
               "\"Dry run\")\n";
  if (total * kUpTo > args.warn_hours * 3600) {
    std::cerr << "warning: " << args.job << ": up to " << sweep::duration_text(total * kUpTo)
              << " of CPU time, more than --warn-hours " << args.warn_hours
              << " (divide by ranks x threads for the wall time; exhaustive tuples on large "
                 "networks can take longer still: time a subset first)\n";
  }
}

}  // namespace

std::vector<sweep::Tuple> check_tuples(const std::string& job_file, const sweep::SweepSpec& spec,
                                       const sweep::TupleRunner& runner) {
  auto tuples = sweep::expand_tuples(spec);
  for (const auto& t : tuples) {
    try {
      runner.check(t);
    } catch (const InputError& e) {
      throw InputError(job_file + ": tuple " + t.key() + ": " + e.what());
    }
  }
  return tuples;
}

namespace {

void run(const SweepArgs& args, Context& ctx, const TupleRunnerFactory& factory) {
  // Checked here, not by CLI11, whose message prints the largest double as the bound.
  model::limits::check_real("--stop-grace", args.stop_grace, 0, model::limits::kMaxSeconds);
  args.progress.check();
  if (args.dry_run) {
    dry_run(args, ctx, factory);
    return;
  }
  sweep::install_stop_signals();
  std::exception_ptr error;
  int rank = 0;
  {
    const auto comm = sweep::make_world_communicator();
    rank = comm->rank();
    try {
      const sweep::SweepSpec spec = load_job(args, ctx);
      const std::string output = args.out.empty() ? spec.output : args.out;
      const auto runner = factory(spec, ctx);
      (void)check_tuples(args.job, spec, *runner);
      // One sink per round of a design search: /expected lists what was asked so far.
      const sweep::SinkFactory make_sink = [&](const sweep::SweepSpec& round_spec) {
        io::ResultsFileInfo info;
        info.job_name = spec.name;
        info.job_fingerprint = spec.fingerprint;
        info.job_file = spec.source_text;
        info.kapla_version = KAPLA_VERSION;
        for (const auto& t : sweep::expand_tuples(round_spec)) {
          info.expected.push_back({spec.name, t});
        }
        return std::make_unique<io::Hdf5Sink>(output, std::move(info));
      };
      const bool terminal = ::isatty(2) != 0;
      const ProgressMode mode = rank == 0 ? args.progress.mode(terminal) : ProgressMode::Quiet;
      TerminalProgress progress(mode == ProgressMode::Live, mode == ProgressMode::Log,
                                args.progress.log_interval(), mode != ProgressMode::Quiet, output);
      sweep::RunOptions options;
      options.threads = resolve_threads(args.threads, spec.threads);
      options.tuple_time_limit_seconds = spec.tuple_time_limit_seconds;
      options.command_line = args.command_line;
      options.stop_grace_seconds = args.stop_grace;
      // In a log, each rank says where it runs when it starts its first tuple (not before:
      // an error found while starting stays the only line).
      const std::string where = "rank " + std::to_string(rank) + " of " +
                                std::to_string(comm->size()) + " on " + host_name() + ": cpus " +
                                affinity_text() + ", " + std::to_string(options.threads) +
                                " OpenMP thread" + (options.threads == 1 ? "" : "s");
      const AnnouncingRunner announcing(*runner, args.progress.quiet || terminal ? "" : where);
      const auto on_round = [&](const sweep::RoundStart& r) {
        if (mode == ProgressMode::Quiet) return;
        if (mode == ProgressMode::Log)
          std::cerr << sweep::log_prefix(std::chrono::system_clock::now());
        std::cerr << "design search: round " << r.round << ", " << r.new_designs << " new designs ("
                  << r.designs << " priced)\n"
                  << std::flush;
      };
      const auto summary =
          sweep::run_search_rounds(spec, announcing, *comm, make_sink, progress, options, on_round);
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
  sub->add_flag("--dry-run", args->dry_run,
                "Print the tuples with each one's estimated CPU time and the total; run nothing");
  sub->add_option("--warn-hours", args->warn_hours,
                  "--dry-run: warn when the total's upper bound exceeds this many CPU hours")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->add_option("--imperfect", args->imperfect,
                  "Imperfect factorization: none, spatial, full, or perfect (the PE array with "
                  "exact folds only; overrides the job's "
                  "options.imperfect; docs/imperfect.md)");
  add_progress_flags(*sub, args->progress, "finished tuple", "summary");
  sub->add_option("--stop-grace", args->stop_grace,
                  "Seconds a running tuple may go on after SIGTERM/SIGUSR1 to finish its record "
                  "(then it is abandoned and rerun on resume)")
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
