// `kapla merge OUTPUT` completes a sweep's output from its OUTPUT.parts/ (after a kill);
// `kapla merge INPUT... -o OUT` combines results files or directories into OUT. Foreign or
// corrupt inputs, and an existing OUT that is not a kapla results file, are refused before
// anything is written; OUT is replaced atomically.
#include <filesystem>
#include <iostream>
#include <memory>
#include <vector>

#include "cli/commands.hpp"
#include "core/errors.hpp"
#include "io/hdf5_reader.hpp"
#include "io/hdf5_sink.hpp"

namespace kapla::cli {

void register_merge(CLI::App& app, Context& /*ctx*/) {
  struct Args {
    std::vector<std::string> inputs;
    std::string out;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand(
      "merge", "Merge a sweep's parts into its output, or several results into one file");
  sub->add_option("inputs", args->inputs, "OUTPUT (with OUTPUT.parts/), or inputs with -o")
      ->required();
  sub->add_option("-o,--out", args->out, "Merged output file");
  sub->callback([args] {
    namespace fs = std::filesystem;
    if (args->out.empty()) {
      if (args->inputs.size() != 1) {
        throw InputError("merge: several inputs need -o OUT");
      }
      const std::size_t n = io::finish_output(args->inputs.front());
      std::cerr << "merge: " << args->inputs.front() << " holds " << n << " tuples\n";
      return;
    }
    std::vector<io::ResultsFile> all;
    std::error_code ec;
    if (fs::exists(args->out, ec)) {
      all.push_back(io::read_results_file(args->out));  // refuses a foreign OUT
    }
    for (const auto& in : args->inputs) {
      for (auto& f : io::read_results(in)) all.push_back(std::move(f));
    }
    const io::ResultsFile merged = io::merge_results(all);
    io::write_results_file(args->out, merged);
    std::cerr << "merge: " << args->out << " holds " << merged.records.size() << " tuples\n";
  });
}

}  // namespace kapla::cli
