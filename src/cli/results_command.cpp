// `kapla results FILE_OR_DIR [--csv]`: one line per tuple, sorted by tuple key. The CSV's first
// columns are fixed (network,hardware,strategy,batch,status,total_cost,total_time,
// search_seconds) so that two runs compare with diff (cut the timing column first).
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/text_table.hpp"
#include "core/number_text.hpp"
#include "io/hdf5_reader.hpp"

namespace kapla::cli {
namespace {

// Round-trips (equal text <=> equal double) in the shortest form.
std::string exact(double v) { return shortest_text(v); }

std::string short_number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

void register_results(CLI::App& app, Context& /*ctx*/) {
  struct Args {
    std::string input;
    bool csv = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("results", "List the tuples of a results file or directory");
  sub->add_option("input", args->input,
                  "A results file, or a directory of them (with any *.parts/ of unfinished runs)")
      ->required();
  sub->add_flag("--csv", args->csv,
                "CSV with a header line, numbers in the shortest form that reads back exactly");
  sub->callback([args] {
    std::map<std::string, sweep::TupleRecord> by_key;  // sorted by key; first one wins
    for (const auto& file : io::read_results(args->input)) {
      for (const auto& r : file.records) by_key.emplace(r.tuple.key(), r);
    }
    if (args->csv) {
      std::cout << "network,hardware,strategy,batch,status,total_cost,total_time,search_seconds,"
                   "seed,energy,edp,evaluated,valid,pruned,threads,key\n";
      for (const auto& [key, r] : by_key) {
        const auto& x = r.result;
        std::cout << csv_field(r.tuple.network) << ',' << csv_field(r.tuple.hardware) << ','
                  << csv_field(r.tuple.strategy) << ',' << r.tuple.batch << ','
                  << sweep::status_name(x.status) << ',' << exact(x.total_cost) << ','
                  << exact(x.time) << ',' << exact(x.stats.wall_seconds) << ',' << r.tuple.seed
                  << ',' << exact(x.energy) << ',' << exact(x.edp) << ',' << x.stats.evaluated
                  << ',' << x.stats.valid << ',' << x.stats.pruned << ',' << x.stats.threads << ','
                  << csv_field(key) << '\n';
      }
      return;
    }
    TextTable table({{"network"},
                     {"hardware"},
                     {"strategy"},
                     {"batch", TextTable::Align::Right},
                     {"status"},
                     {"total_cost", TextTable::Align::Right},
                     {"total_time", TextTable::Align::Right},
                     {"search_s", TextTable::Align::Right},
                     {"seed", TextTable::Align::Right}});
    for (const auto& [key, r] : by_key) {
      const auto& x = r.result;
      table.add_row({r.tuple.network, r.tuple.hardware, r.tuple.strategy,
                     std::to_string(r.tuple.batch), std::string(sweep::status_name(x.status)),
                     short_number(x.total_cost), short_number(x.time),
                     short_number(x.stats.wall_seconds), std::to_string(r.tuple.seed)});
    }
    table.print(std::cout);
  });
}

}  // namespace kapla::cli
