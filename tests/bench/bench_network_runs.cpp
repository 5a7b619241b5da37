// Strategy B speed against the reference: runs the whole-network search on the golden network
// runs (status ok) and prints kapla seconds vs the record's cpu_time_s (the reference's CPU
// seconds, one process) and the ratio; the summary line gives the median ratio.
// Not a ctest test (timings only). Usage: bench_network_runs [--threads N] [--filter SUBSTR]
//   [--max-ref-seconds S]
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "io/golden_record.hpp"
#include "schedule/run_network.hpp"
#include "search/exhaustive.hpp"
#include "zoo_network.hpp"

int main(int argc, char** argv) {
  using namespace kapla;
  int threads = 1;
  std::string filter;
  double max_ref = 1e30;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--threads")
      threads = std::atoi(argv[i + 1]);
    else if (a == "--filter")
      filter = argv[i + 1];
    else if (a == "--max-ref-seconds")
      max_ref = std::atof(argv[i + 1]);
  }
  const auto recs = io::golden::read_jsonl(std::string(KAPLA_TEST_DATA_DIR) +
                                           "/golden/nn_dataflow/network_runs.jsonl");
  std::vector<double> ratios;
  std::cout << std::left << std::setw(40) << "run" << std::right << std::setw(12) << "kapla_s"
            << std::setw(12) << "ref_cpu_s" << std::setw(10) << "ratio"
            << "  match\n";
  for (const auto& rec : recs) {
    if (rec.at("status") != "ok") continue;
    const std::string id =
        rec.at("config").get<std::string>() + "/" + rec.at("net").get<std::string>();
    if (!filter.empty() && id.find(filter) == std::string::npos) continue;
    const double ref = rec.at("cpu_time_s").get<double>();
    if (ref > max_ref) continue;
    const auto in = io::golden::parse_network_run(rec);
    const auto net = test::zoo_network("nn_zoo.json", in.net);
    search::ExhaustiveStrategy b;
    schedule::RunControls controls;
    controls.num_threads = threads;
    const auto t0 = std::chrono::steady_clock::now();
    const auto res =
        schedule::run_network(net, in.resource, in.cost, b, in.options, in.batch, controls);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const bool match =
        !res.tops.empty() &&
        io::golden::rel_equal(res.tops[0].total_cost(),
                              io::golden::to_double(rec.at("result").at("total_cost"))) &&
        io::golden::rel_equal(res.tops[0].total_time(),
                              io::golden::to_double(rec.at("result").at("total_time")));
    const double ratio = ref / s;
    ratios.push_back(ratio);
    std::cout << std::left << std::setw(40) << id << std::right << std::fixed
              << std::setprecision(4) << std::setw(12) << s << std::setw(12) << std::setprecision(2)
              << ref << std::setw(10) << std::setprecision(1) << ratio << "  "
              << (match ? "yes" : "NO") << std::endl;
  }
  if (ratios.empty()) return 1;
  std::sort(ratios.begin(), ratios.end());
  const std::size_t n = ratios.size();
  const double median = n % 2 ? ratios[n / 2] : 0.5 * (ratios[n / 2 - 1] + ratios[n / 2]);
  std::cout << "runs " << n << ", threads " << threads << ", median speed-up vs reference CPU "
            << std::setprecision(1) << median << "x\n";
  return 0;
}
