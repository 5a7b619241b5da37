// kapla_sweep_driver: the real `sweep`, `results` and `merge` subcommands (cli/*_command.cpp)
// with the fake tuple runner in place of the strategies, plus test helpers:
//   compare A B        exit 0 if the two results (files or dirs) hold the same tuples with the
//                      same search results (timing and provenance ignored), else 1 + the diff
//   write-foreign F    an HDF5 file that is not a kapla results file
//   provenance F       key,rank,slurm ids,host per tuple
//   simulate F         the dispatch queue's efficiency at many ranks from F's tuple times
// $KAPLA_FAKE_SECONDS_PER_COST sets the fake runner's sleep (default 0.002).
#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "cli/sweep_command.hpp"
#include "core/errors.hpp"
#include "fake_runner.hpp"
#include "io/hdf5_reader.hpp"
#include "sweep/assign.hpp"

int main(int argc, char** argv) {
  using namespace kapla;
  CLI::App app{"kapla sweep test driver (fake tuple runner)", "kapla_sweep_driver"};
  app.require_subcommand(1);
  cli::Context ctx;
  const char* spc = std::getenv("KAPLA_FAKE_SECONDS_PER_COST");
  const double seconds_per_cost = spc ? std::atof(spc) : 0.002;
  cli::register_sweep_with(app, ctx, [seconds_per_cost](const sweep::SweepSpec&, const cli::Context&) {
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
  std::string prov_file;
  CLI::App* pv = app.add_subcommand("provenance", "key,rank,slurm_job_id,slurm_array_job_id,"
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
  int sim_replicate = 1;
  CLI::App* sim = app.add_subcommand("simulate", "Scheduler efficiency at many ranks from measured tuple times");
  sim->add_option("input", sim_input, "results file or directory (search_seconds = tuple times)")->required();
  sim->add_option("--ranks", sim_ranks, "rank counts")->delimiter(',');
  sim->add_option("--latency", sim_latency, "seconds per dispatch (request round trip)");
  sim->add_option("--replicate", sim_replicate, "treat the tuples as N copies (e.g. seeds)");
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
      const auto s_lpt = sweep::simulate_dynamic_queue(times, lpt, n, sim_latency);
      const auto s_no = sweep::simulate_dynamic_queue(times, shuffled, n, sim_latency);
      const auto s_rr = sweep::simulate_round_robin(times, shuffled, n);
      const double bound = total / (n * std::max(longest, total / n));
      std::printf("%6d %12.3f %9.1f%% %9.1f%% %9.1f%% %9.1f%%\n", n, s_lpt.makespan,
                  100 * s_lpt.efficiency, 100 * s_no.efficiency, 100 * s_rr.efficiency, 100 * bound);
    }
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
