// `kapla import MODEL.onnx [--out FILE.json] [--name NAME]`: an ONNX model as a kapla network
// file (docs/onnx.md). The network is built with every check a hand-written file gets before
// anything is written; the summary (layers made, ops fused, views dropped) goes to stderr.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "core/errors.hpp"
#include "io/network_json.hpp"
#include "io/onnx_import.hpp"

namespace kapla::cli {

void register_import(CLI::App& app) {
  struct Args {
    std::string model, out, name;
    bool quiet = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand(
      "import", "Convert an ONNX model (or a Timeloop problem) into a kapla network file");
  sub->add_option("model", args->model, "ONNX model (.onnx) or Timeloop problem (.yaml)")
      ->required();
  sub->add_option("--out", args->out, "Network file to write (default: stdout)");
  sub->add_option("--name", args->name, "Network name (default: the model file's stem)");
  sub->add_flag("-q,--quiet", args->quiet, "No summary on stderr");
  sub->callback([args] {
    if (!io::is_model_path(args->model)) {
      throw InputError(args->model +
                       ": not an ONNX model or a Timeloop problem (the file name "
                       "must end in .onnx, .yaml or .yml)");
    }
    const io::OnnxImport imported = io::import_model_file(args->model, args->name);
    const model::Network net = io::parse_network(imported.network, args->model);
    const std::string text = io::render_network_document(imported.network);
    if (args->out.empty()) {
      std::cout << text;
    } else {
      std::ofstream f(args->out, std::ios::binary | std::ios::trunc);
      if (!(f << text) || !f.flush()) throw InputError(args->out + ": cannot write");
    }
    if (!args->quiet) {
      std::cerr << "import: " << args->model << " -> network " << net.name() << ": "
                << io::describe_import(imported.summary) << "; " << net.total_ops()
                << " MACs per sample\n";
    }
  });
}

}  // namespace kapla::cli
