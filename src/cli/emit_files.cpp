#include "cli/emit_files.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/errors.hpp"
#include "emit/layer_program.hpp"

namespace kapla::cli {
namespace {

// A file name for a layer name (names may hold '/' or spaces).
std::string file_stem(const std::string& layer) {
  std::string s = layer;
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
  return s;
}

}  // namespace

void prepare_emit_dir(const std::string& dir, const std::vector<std::string>& only,
                      const std::vector<std::string>& layer_names, const EmitFlags& flags) {
  for (const auto& name : only) {
    if (std::find(layer_names.begin(), layer_names.end(), name) == layer_names.end())
      throw InputError(flags.layer + ": no layer named '" + name + "' in " + flags.where);
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(flags.dir + ": cannot create directory " + dir + ": " + ec.message());
}

emit::Target parse_emit_target(const std::string& name, const std::string& flag) {
  if (name == "loops") return emit::Target::Loops;
  if (name == "hls") return emit::Target::Hls;
  throw InputError(flag + ": must be loops or hls, got '" + name + "'");
}

void write_emitted_layers(const std::string& dir, const std::vector<std::string>& only,
                          const std::vector<emit::LayerScheme>& layers, emit::Target target,
                          std::ostream& notes) {
  int written = 0;
  std::set<std::string> stems;
  for (const auto& l : layers) {
    const bool named = std::find(only.begin(), only.end(), l.name) != only.end();
    if (!only.empty() && !named) continue;
    try {
      const std::string source = emit::emit_layer_program(l, target);  // may refuse it
      // Two names may map to one stem ("a/b", "a_b"): the later one gets a suffix, not the
      // earlier one's file.
      std::string stem = file_stem(l.name);
      for (int n = 2; !stems.insert(stem).second; ++n)
        stem = file_stem(l.name) + "~" + std::to_string(n);
      const std::string path = dir + "/" + stem + ".cpp";
      std::ofstream f(path);
      if (!(f << source)) throw InputError("cannot write " + path);
      ++written;
    } catch (const InputError& e) {
      if (named) throw;
      notes << "note: " << e.what() << " (skipped)\n";
    }
  }
  notes << "emitted " << written << " layer program" << (written == 1 ? "" : "s") << " into " << dir
        << " (build each with c++ -O2 FILE)\n";
}

}  // namespace kapla::cli
