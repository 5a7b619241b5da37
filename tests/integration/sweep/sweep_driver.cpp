// kapla_sweep_driver: the real `sweep`, `results` and `merge` subcommands (cli/*_command.cpp)
// with the fake tuple runner in place of the strategies, plus test helpers:
//   compare A B        exit 0 if the two results (files or dirs) hold the same tuples with the
//                      same search results (timing and provenance ignored), else 1 + the diff
//   write-foreign F    an HDF5 file that is not a kapla results file
//   provenance F       key,rank,slurm ids,host per tuple
//   simulate F         the dispatch queue's efficiency at many ranks from F's tuple times;
//                      with --group-speedup, also tuples run by rank groups (design only)
//   layer-profile N H B  strategy B's per-layer-search times on one tuple and the speed-up a
//                      rank group splitting each layer search's partitions would reach
//   front-gap REF FOUND  the designs of two results (a grid and a local search of it): their
//                      Pareto fronts over (area, objective), the gap of FOUND's to REF's, the
//                      tuples and CPU seconds of each (docs/codesign.md, step 3)
// $KAPLA_FAKE_SECONDS_PER_COST sets the fake runner's sleep (default 0.002).
#include <hdf5.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "cli/sweep_command.hpp"
#include "core/errors.hpp"
#include "fake_runner.hpp"
#include "io/catalog.hpp"
#include "io/hdf5_reader.hpp"
#include "mapping/gen_partition.hpp"
#include "schedule/run_network.hpp"
#include "search/exhaustive.hpp"
#include "sweep/assign.hpp"
#include "sweep/design_search.hpp"

namespace {

using namespace kapla;

// B behind a stopwatch: each layer search's wall time and its partition count.
class TimedExhaustive final : public search::LayerStrategy {
 public:
  struct Call {
    double seconds = 0;
    std::size_t partitions = 0;
  };
  std::string_view name() const override { return "timed-exhaustive"; }
  char label() const override { return 'B'; }
  std::vector<pricing::LayerSchedule> search(const pricing::LayerProblem& p,
                                             const search::SearchContext& ctx) const override {
    const auto t0 = std::chrono::steady_clock::now();
    auto out = inner_.search(p, ctx);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto parts =
        mapping::gen_partition(p.layer, p.batch, p.resource.proc_region.dim, p.options, true);
    calls.push_back({s, parts.size()});
    return out;
  }
  mutable std::vector<Call> calls;  // the network search calls search() from one thread

 private:
  search::ExhaustiveStrategy inner_;
};

// Rank-group model (docs/sweep.md "Rank groups"): a group of g ranks splits each layer
// search's partitions (perfect balance, at most one rank per partition) and pays `exchange`
// seconds per layer search for the top-k exchange; the rest of the tuple is serial.
double group_speedup(const std::vector<TimedExhaustive::Call>& calls, double total, int g,
                     double exchange) {
  double searches = 0, grouped = 0;
  for (const auto& c : calls) {
    searches += c.seconds;
    const double ways = static_cast<double>(
        std::min<std::size_t>(static_cast<std::size_t>(g), std::max<std::size_t>(c.partitions, 1)));
    grouped += c.seconds / ways + (g > 1 ? exchange : 0);
  }
  return total / (total - searches + grouped);
}

// "g:S,g:S,..." -> piecewise-linear S(g) in log2(g); S(1) = 1.
double interpolate_speedup(const std::map<int, double>& table, int g) {
  if (g <= 1 || table.empty()) return 1;
  auto hi = table.lower_bound(g);
  if (hi == table.end()) return std::prev(hi)->second;
  if (hi->first == g || hi == table.begin()) return hi->second;
  const auto lo = std::prev(hi);
  const double x =
      (std::log2(g) - std::log2(lo->first)) / (std::log2(hi->first) - std::log2(lo->first));
  return lo->second + x * (hi->second - lo->second);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kapla;
  CLI::App app{"kapla sweep test driver (fake tuple runner)", "kapla_sweep_driver"};
  app.require_subcommand(1);
  cli::Context ctx;
  const char* spc = std::getenv("KAPLA_FAKE_SECONDS_PER_COST");
  const double seconds_per_cost = spc ? std::atof(spc) : 0.002;
  cli::register_sweep_with(app, ctx,
                           [seconds_per_cost](const sweep::SweepSpec&, const cli::Context&) {
                             return std::make_unique<sweep::testing::FakeRunner>(seconds_per_cost);
                           });
  cli::register_results(app, ctx);
  cli::register_merge(app, ctx);

  std::string a, b;
  CLI::App* cmp = app.add_subcommand("compare", "Compare two results (timing ignored)");
  cmp->add_option("a", a)->required();
  cmp->add_option("b", b)->required();
  cmp->callback([&] {
    auto load = [](const std::string& p) {
      std::vector<sweep::TupleRecord> out;
      for (const auto& rf : io::merge_results(io::read_results(p)).records) out.push_back(rf);
      return out;
    };
    const auto ra = load(a);
    const auto rb = load(b);
    if (auto d = sweep::first_difference(ra, rb)) {
      std::cout << "DIFFERENT: " << *d << "\n";
      ctx.exit_code = 1;
    } else {
      std::cout << "same " << ra.size() << " tuples\n";
    }
  });
  // front-gap: how close a local search's front comes to a grid's.
  std::string gap_ref, gap_found, gap_objective = "energy";
  CLI::App* fg = app.add_subcommand("front-gap", "Pareto-front gap of a design search to a grid");
  fg->add_option("reference", gap_ref, "results of the grid")->required();
  fg->add_option("found", gap_found, "results of the search")->required();
  fg->add_option("--objective", gap_objective, "energy, time or edp")->capture_default_str();
  fg->callback([&] {
    const auto objective = gap_objective == "time"  ? sweep::SearchObjective::Time
                           : gap_objective == "edp" ? sweep::SearchObjective::Edp
                                                    : sweep::SearchObjective::Energy;
    struct Side {
      std::vector<sweep::DesignScore> designs;  // with a score
      std::vector<sweep::DesignScore> front;
      std::size_t tuples = 0;
      double cpu_seconds = 0;
      double best = INFINITY;
    };
    auto side = [&](const std::string& path) {
      const auto results = io::merge_results(io::read_results(path));
      Side out;
      std::vector<const sweep::TupleRecord*> records;
      for (const auto& r : results.records) {
        records.push_back(&r);
        out.cpu_seconds += r.result.stats.cpu_seconds;
      }
      out.tuples = records.size();
      for (const auto& [name, score] : sweep::score_records(records, objective)) {
        if (!score) continue;
        out.designs.push_back(*score);
        out.best = std::min(out.best, score->value);
      }
      for (const auto i : sweep::pareto_front(out.designs)) out.front.push_back(out.designs[i]);
      return out;
    };
    const Side ref = side(gap_ref);
    const Side found = side(gap_found);
    std::size_t matched = 0;
    for (const auto& f : ref.front) {
      if (std::find(found.front.begin(), found.front.end(), f) != found.front.end()) ++matched;
    }
    std::printf(
        "reference: %zu tuples, %zu designs with a score, front %zu, best %.9g, %.2f CPU s\n",
        ref.tuples, ref.designs.size(), ref.front.size(), ref.best, ref.cpu_seconds);
    std::printf(
        "found:     %zu tuples, %zu designs with a score, front %zu, best %.9g, %.2f CPU s\n",
        found.tuples, found.designs.size(), found.front.size(), found.best, found.cpu_seconds);
    std::printf("reference front designs found: %zu of %zu\n", matched, ref.front.size());
    std::printf("front gap: %.4f %%\n", 100 * sweep::front_gap(ref.front, found.designs));
  });
  std::string prov_file;
  CLI::App* pv = app.add_subcommand("provenance",
                                    "key,rank,slurm_job_id,slurm_array_job_id,"
                                    "slurm_array_task_id,host per tuple");
  pv->add_option("file", prov_file)->required();
  pv->callback([&] {
    for (const auto& rf : io::read_results(prov_file)) {
      for (const auto& r : rf.records) {
        const auto& p = r.provenance;
        std::cout << r.tuple.key() << ',' << p.rank << ',' << p.slurm_job_id << ','
                  << p.slurm_array_job_id << ',' << p.slurm_array_task_id << ',' << p.host << '\n';
      }
    }
  });
  // simulate: the dynamic queue at many ranks from measured tuple times (search_seconds).
  std::string sim_input;
  std::vector<int> sim_ranks{1, 2, 64, 128, 256, 512, 1024};
  double sim_latency = 0.001;
  double sim_service = 0;
  double sim_chunk = 0.05;
  int sim_replicate = 1;
  CLI::App* sim = app.add_subcommand(
      "simulate", "Scheduler efficiency at many ranks from measured tuple times");
  sim->add_option("input", sim_input, "results file or directory (search_seconds = tuple times)")
      ->required();
  sim->add_option("--ranks", sim_ranks, "rank counts")->delimiter(',');
  sim->add_option("--latency", sim_latency, "seconds per dispatch (request round trip)");
  sim->add_option("--service", sim_service,
                  "seconds rank 0 spends answering one request (one at a time)");
  sim->add_option("--chunk", sim_chunk,
                  "seconds of work per request (kapla sweep: 0.05; 0 = one task per request)");
  sim->add_option("--replicate", sim_replicate, "treat the tuples as N copies (e.g. seeds)");
  std::vector<std::string> sim_speedup;
  sim->add_option("--group-speedup", sim_speedup,
                  "g:S pairs (layer-profile's line): also simulate rank groups of g ranks, each "
                  "running a tuple S(g) times faster")
      ->delimiter(',');
  sim->callback([&] {
    std::vector<double> times;
    for (const auto& r : io::merge_results(io::read_results(sim_input)).records) {
      for (int i = 0; i < sim_replicate; ++i) times.push_back(r.result.stats.wall_seconds);
    }
    // Dispatch order: longest first by the true time (a perfect estimate) and by a shuffled
    // order (no estimate at all), to bracket what a real estimate achieves.
    const auto lpt = sweep::longest_first(times);
    std::vector<std::size_t> shuffled(times.size());
    for (std::size_t i = 0; i < shuffled.size(); ++i) shuffled[i] = i;
    std::uint64_t h = 12345;
    for (std::size_t i = shuffled.size(); i > 1; --i) {
      h = sweep::mix_seed(h, i);
      std::swap(shuffled[i - 1], shuffled[h % i]);
    }
    double total = 0, longest = 0;
    for (double t : times) {
      total += t;
      longest = std::max(longest, t);
    }
    std::printf("tuples %zu, total %.3f s, longest %.3f s (%.1f%% of the total)\n", times.size(),
                total, longest, 100 * longest / total);
    std::printf("%6s %12s %10s %10s %10s %10s\n", "ranks", "makespan_s", "eff_lpt", "eff_noest",
                "eff_rr", "bound");
    for (int n : sim_ranks) {
      const auto s_lpt =
          sweep::simulate_dynamic_queue(times, lpt, n, sim_latency, sim_service, sim_chunk);
      const auto s_no =
          sweep::simulate_dynamic_queue(times, shuffled, n, sim_latency, sim_service, sim_chunk);
      const auto s_rr = sweep::simulate_round_robin(times, shuffled, n);
      const double bound = total / (n * std::max(longest, total / n));
      std::printf("%6d %12.3f %9.1f%% %9.1f%% %9.1f%% %9.1f%%\n", n, s_lpt.makespan,
                  100 * s_lpt.efficiency, 100 * s_no.efficiency, 100 * s_rr.efficiency,
                  100 * bound);
    }
    if (sim_speedup.empty()) return;
    // Moldable tuples: the ranks form R/g equal groups; the same longest-first queue hands
    // tuples to groups; a tuple takes t / S(g). Efficiency = total one-rank work / (R x
    // makespan); the best group size per R is reported.
    std::map<int, double> table;
    for (const auto& pair : sim_speedup) {
      const auto colon = pair.find(':');
      if (colon == std::string::npos)
        throw InputError("--group-speedup: expected g:S, got " + pair);
      table[std::stoi(pair.substr(0, colon))] = std::stod(pair.substr(colon + 1));
    }
    std::printf("rank groups (design, simulated):\n%6s %6s %8s %12s %10s\n", "ranks", "group",
                "S(group)", "makespan_s", "eff");
    for (int n : sim_ranks) {
      int best_g = 1;
      double best_eff = 0, best_makespan = 0;
      for (int g = 1; g <= n; g *= 2) {
        const double sp = interpolate_speedup(table, g);
        std::vector<double> scaled;
        for (double t : times) scaled.push_back(t / sp);
        const auto s = sweep::simulate_dynamic_queue(scaled, lpt, n / g, sim_latency);
        const double eff = total / (n * s.makespan);
        if (eff > best_eff) best_eff = eff, best_g = g, best_makespan = s.makespan;
      }
      std::printf("%6d %6d %8.2f %12.3f %9.1f%%\n", n, best_g, interpolate_speedup(table, best_g),
                  best_makespan, 100 * best_eff);
    }
  });
  // layer-profile: B's layer-search times on one tuple and the modelled rank-group speed-up.
  std::string lp_net, lp_hw, lp_preset = "inference";
  std::int64_t lp_batch = 1;
  double lp_exchange = 0.001;
  CLI::App* lp =
      app.add_subcommand("layer-profile", "B's per-layer-search times and rank-group speed-up");
  lp->add_option("network", lp_net)->required();
  lp->add_option("hardware", lp_hw)->required();
  lp->add_option("batch", lp_batch)->required();
  lp->add_option("--preset", lp_preset, "option preset (inference, training, default)");
  lp->add_option("--exchange", lp_exchange,
                 "seconds per layer search for the group's top-k exchange");
  lp->callback([&] {
    const io::Catalog catalog(KAPLA_DATA_DIR);
    const auto net = catalog.load_network(lp_net);
    const auto hw = catalog.load_hardware(lp_hw);
    const auto options =
        lp_preset == "default" ? model::SearchOptions{} : model::kapla_option_preset(lp_preset);
    TimedExhaustive timed;
    const auto t0 = std::chrono::steady_clock::now();
    const auto res = schedule::run_network(net, hw, timed, options, lp_batch);
    const double total =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    auto calls = timed.calls;
    double searches = 0;
    for (const auto& c : calls) searches += c.seconds;
    std::sort(calls.begin(), calls.end(),
              [](const auto& x, const auto& y) { return x.seconds < y.seconds; });
    auto q = [&](double f) {
      return calls.empty() ? 0 : calls[static_cast<std::size_t>(f * (calls.size() - 1))].seconds;
    };
    std::printf("%s %s b%lld: total %.3f s, %zu layer searches = %.3f s (%.1f%%), evaluated %lld\n",
                lp_net.c_str(), lp_hw.c_str(), static_cast<long long>(lp_batch), total,
                calls.size(), searches, 100 * searches / total,
                static_cast<long long>(res.stats.schemes_evaluated));
    std::printf("layer search seconds: median %.4f, p90 %.4f, max %.4f\n", q(0.5), q(0.9), q(1.0));
    std::size_t pmin = calls.empty() ? 0 : calls.front().partitions, pmax = 0;
    double top10 = 0;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      pmin = std::min(pmin, calls[i].partitions);
      pmax = std::max(pmax, calls[i].partitions);
      if (i + 10 >= calls.size()) top10 += calls[i].seconds;
    }
    std::printf(
        "partitions per layer search: %zu..%zu; the 10 longest searches: %.1f%% of the total\n",
        pmin, pmax, 100 * top10 / total);
    std::printf("group-speedup ");
    for (int g = 2; g <= 1024; g *= 2) {
      std::printf("%s%d:%.2f", g == 2 ? "" : ",", g,
                  group_speedup(timed.calls, total, g, lp_exchange));
    }
    std::printf("\n");
  });
  std::string foreign;
  CLI::App* wf = app.add_subcommand("write-foreign", "Write an HDF5 file that kapla did not write");
  wf->add_option("file", foreign)->required();
  wf->callback([&] {
    const hid_t f = H5Fcreate(foreign.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t dims[1] = {4};
    const hid_t s = H5Screate_simple(1, dims, nullptr);
    const hid_t d = H5Dcreate2(f, "data", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const int v[4] = {1, 2, 3, 4};
    H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d);
    H5Sclose(s);
    H5Fclose(f);
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return 3;
  }
  return ctx.exit_code;
}
