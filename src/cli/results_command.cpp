// `kapla results FILE_OR_DIR [--csv]`: one line per tuple, sorted by tuple key. The CSV's first
// columns are fixed (network,hardware,strategy,batch,status,total_cost,total_time,
// search_seconds) so that two runs compare with diff (cut the timing column first).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/text_table.hpp"
#include "core/number_text.hpp"
#include "io/hdf5_reader.hpp"
#include "sweep/design_search.hpp"

namespace kapla::cli {
namespace {

// Round-trips (equal text <=> equal double) in the shortest form.
std::string exact(double v) { return shortest_text(v); }

std::string short_number(double v) {  // 6 significant digits
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

// The design columns (docs/codesign.md), shown only when some tuple is a design point so that
// the output of ordinary sweeps is unchanged; then also the tuple's PE utilisation.
const std::vector<std::string> kDesignTitles = {"area_mm2",   "nodes",      "pe_array",
                                                "gbuf_bytes", "regf_bytes", "bus_bits",
                                                "dram_bw",    "min_pe_util"};

std::vector<std::string> design_cells(const sweep::DesignParams& d, std::string (*number)(double)) {
  if (d.base.empty()) return std::vector<std::string>(kDesignTitles.size(), "");
  return {number(d.area_mm2),
          std::to_string(d.nodes_h) + "x" + std::to_string(d.nodes_w),
          std::to_string(d.pe_h) + "x" + std::to_string(d.pe_w),
          std::to_string(d.gbuf_bytes),
          std::to_string(d.regf_bytes),
          std::to_string(d.array_bus_width_bits),
          number(d.dram_bandwidth_bytes_per_cycle),
          number(d.min_pe_utilisation)};
}

// The tuple's PE utilisation; "(below)" when its schedule misses its design's floor, which
// makes the design infeasible (left off every Pareto front). A tuple without a schedule says
// so in its status.
std::string utilisation_cell(const sweep::TupleRecord& r, std::string (*number)(double)) {
  std::string cell = number(r.result.pe_utilisation);
  if (r.result.status == sweep::TupleStatus::Ok && !sweep::meets_utilisation_floor(r)) {
    cell += " (below)";
  }
  return cell;
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
    for (const auto& file : io::read_results(args->input, io::Schedules::Skip)) {
      for (const auto& r : file.records) by_key.emplace(r.tuple.key(), r);
    }
    const bool designs = std::any_of(by_key.begin(), by_key.end(), [](const auto& kv) {
      return !kv.second.tuple.design.base.empty();
    });
    if (args->csv) {
      std::cout << "network,hardware,strategy,batch,status,total_cost,total_time,search_seconds,"
                   "seed,energy,edp,evaluated,valid,pruned,threads,key";
      if (designs) {
        for (const auto& t : kDesignTitles) std::cout << ",design_" << t;
        std::cout << ",pe_utilisation";
      }
      std::cout << '\n';
      for (const auto& [key, r] : by_key) {
        const auto& x = r.result;
        std::cout << csv_field(r.tuple.network) << ',' << csv_field(r.tuple.hardware) << ','
                  << csv_field(r.tuple.strategy) << ',' << r.tuple.batch << ','
                  << sweep::status_name(x.status) << ',' << exact(x.total_cost) << ','
                  << exact(x.time) << ',' << exact(x.stats.wall_seconds) << ',' << r.tuple.seed
                  << ',' << exact(x.energy) << ',' << exact(x.edp) << ',' << x.stats.evaluated
                  << ',' << x.stats.valid << ',' << x.stats.pruned << ',' << x.stats.threads << ','
                  << csv_field(key);
        if (designs) {
          for (const auto& c : design_cells(r.tuple.design, exact)) std::cout << ',' << c;
          std::cout << ',' << exact(x.pe_utilisation);
        }
        std::cout << '\n';
      }
      return;
    }
    std::vector<TextTable::Column> columns = {{"network"},
                                              {"hardware"},
                                              {"strategy"},
                                              {"batch", TextTable::Align::Right},
                                              {"status"},
                                              {"total_cost", TextTable::Align::Right},
                                              {"total_time", TextTable::Align::Right},
                                              {"search_s", TextTable::Align::Right},
                                              {"seed", TextTable::Align::Right}};
    if (designs) {
      for (const auto& t : kDesignTitles) columns.push_back({t, TextTable::Align::Right});
      columns.push_back({"pe_util", TextTable::Align::Right});
    }
    TextTable table(columns);
    for (const auto& [key, r] : by_key) {
      const auto& x = r.result;
      std::vector<std::string> row = {r.tuple.network,
                                      r.tuple.hardware,
                                      r.tuple.strategy,
                                      std::to_string(r.tuple.batch),
                                      std::string(sweep::status_name(x.status)),
                                      short_number(x.total_cost),
                                      short_number(x.time),
                                      short_number(x.stats.wall_seconds),
                                      std::to_string(r.tuple.seed)};
      if (designs) {
        for (auto& c : design_cells(r.tuple.design, short_number)) row.push_back(std::move(c));
        row.push_back(utilisation_cell(r, short_number));
      }
      table.add_row(std::move(row));
    }
    table.print(std::cout);
  });
}

}  // namespace kapla::cli
