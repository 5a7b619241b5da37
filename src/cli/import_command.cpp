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
#include "io/timeloop_yaml.hpp"

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
    const bool yaml = io::is_yaml_path(args->model);
    if (!io::is_onnx_path(args->model) && !yaml) {
      throw InputError(args->model +
                       ": not an ONNX model or a Timeloop problem (the file name "
                       "must end in .onnx, .yaml or .yml)");
    }
    const std::string name =
        args->name.empty() ? std::filesystem::path(args->model).stem().string() : args->name;
    const io::OnnxImport imported =
        yaml ? io::OnnxImport{io::import_timeloop_problem(args->model, name), {}}
             : io::import_onnx_file(args->model, name);
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
                << (yaml ? std::string("1 layer (Timeloop problem)")
                         : io::describe_import(imported.summary))
                << "; " << net.total_ops() << " MACs per sample\n";
    }
  });
}

}  // namespace kapla::cli
