// `kapla emit SCHEDULE --out DIR [--layer NAME]...`: the layer schemes of a schedule document
// written as loop-nest programs, as `schedule --emit` does at search time. The document is a
// `kapla schedule --json` file, or the one a sweep recorded for a tuple of its results file
// (`kapla emit RESULTS.h5 --tuple KEY`; the same writer, io/schedule_json.hpp). Each scheme is
// re-priced by the one cost model from its record (the document's "scheme_records") and must
// reproduce the access counts and MACs the document reports for it: a document written by
// another kapla version, or edited, is refused rather than emitted with counts that are not its
// own.
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/emit_files.hpp"
#include "cli/tuple_selector.hpp"
#include "core/checked_math.hpp"
#include "core/errors.hpp"
#include "core/number_text.hpp"
#include "cost/loop_blocking.hpp"
#include "io/golden_record.hpp"
#include "io/hdf5_reader.hpp"
#include "io/json_util.hpp"
#include "io/scheme_record.hpp"
#include "pricing/fixed_scheme.hpp"

namespace kapla::cli {
namespace {

using nlohmann::json;

// The file's own figures of layer `name` ("schedules": [result, layout, seq]) against the
// re-priced evaluation: MACs and every access count, to the golden tolerance.
void check_reported(const json& reported, const cost::LoopBlockingEval& ev,
                    const std::string& where) {
  const auto differs = [&](const char* what, double file, double now) {
    if (!io::golden::rel_equal(file, now)) {
      throw InputError(where + ": " + what + " is " + shortest_text(file) + " in the file but " +
                       shortest_text(now) +
                       " re-priced (a schedule of another kapla version, or edited); "
                       "rerun kapla schedule --json");
    }
  };
  differs("ops", io::as_number(reported.at("ops"), where + ".ops"), ev.ops);
  const json& access = reported.at("access");
  for (auto m : all_values<MemLevel>()) {
    for (auto d : all_values<DataCategory>()) {
      const double file = io::as_number(access.at(index_of(m)).at(index_of(d)), where + ".access");
      const std::string what =
          "access[" + std::string(name_of(m)) + "][" + std::string(name_of(d)) + "]";
      differs(what.c_str(), file, ev.access[m][d]);
    }
  }
}

// Emits the layers of one schedule document; `origin` names it in error lines ("FILE", or
// "FILE: tuple KEY").
void emit_document(const json& doc, const std::string& origin, const std::string& dir,
                   const std::vector<std::string>& only, emit::Target target) {
  if (!doc.is_object() || !doc.contains("scheme_records") || !doc.contains("schedules")) {
    throw InputError(origin +
                     ": scheme_records: missing (not a `kapla schedule --json` file of this "
                     "version; rerun it)");
  }
  const json& records = doc.at("scheme_records");
  std::vector<std::string> names;
  for (const auto& [name, record] : records.items()) names.push_back(name);
  prepare_emit_dir(dir, only, names, {"--out", "--layer", origin});

  std::vector<emit::LayerScheme> layers;
  for (const auto& [name, record] : records.items()) {
    const std::string where = origin + ": scheme_records." + name;
    const io::SchemeRecord r = io::parse_scheme_record(record, where);
    const auto setup = pricing::setup_partition(r.problem, r.part);
    if (r.nld_index < 0 || static_cast<std::size_t>(r.nld_index) >= setup.map.nlds.size())
      throw InputError(where + ": nld_index " + std::to_string(r.nld_index) + " out of range");
    // The trip counts of each loop must multiply to the chosen NLD's loop count, or, under
    // imperfect: full, cover it with a remainder (the evaluator asserts it; the emitter guards
    // the last block): checked products, so a huge factor is an error, not an overflow.
    const auto& loopcnt = setup.map.nlds[static_cast<std::size_t>(r.nld_index)].loopcnt;
    for (auto l : all_values<LoopDim>()) {
      const auto& t = r.blocking.bl_ts;
      if (checked_product({t[0][l], t[1][l], t[2][l]}) == loopcnt[l]) continue;
      const bool cover = cost::blocks_cover(t[0][l], t[1][l], t[2][l], loopcnt[l]);
      if (cover && r.problem.options.imperfect == model::Imperfect::Full) continue;
      throw InputError(where + ": bl_ts of loop " + std::string(name_of(l)) +
                       (cover
                            ? " cover its loop count " + std::to_string(loopcnt[l]) +
                                  " with a remainder, which needs options.imperfect full"
                            : " do not multiply to its loop count " + std::to_string(loopcnt[l])));
    }
    const auto ev = pricing::evaluate_blocking(r.problem, setup, {r.nld_index, r.blocking});
    if (!ev) throw InputError(where + ": the scheme is invalid under the cost model");
    try {
      check_reported(doc.at("schedules").at(name).at(0), *ev, where);
    } catch (const json::exception& e) {
      throw InputError(origin + ": schedules." + name + ": " + e.what());
    }
    layers.push_back({name, r.problem, r.part, r.nld_index, *ev});
  }
  write_emitted_layers(dir, only, layers, target, std::cerr);
}

// A results file is HDF5 (io::looks_like_hdf5, the readers' own test: a foreign HDF5 file is
// refused by the results reader, naming what it lacks); anything else is read as a schedule
// file.
enum class FileKind { Results, Json, Other };

FileKind kind_of(const std::string& file) {
  if (io::looks_like_hdf5(file)) return FileKind::Results;
  std::ifstream in(file, std::ios::binary);
  std::string head(512, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  const auto first = head.find_first_not_of(" \t\r\n");
  return first != std::string::npos && head[first] == '{' ? FileKind::Json : FileKind::Other;
}

void emit_from_file(const std::string& file, const std::string& tuple, const std::string& dir,
                    const std::vector<std::string>& only, emit::Target target) {
  const FileKind kind = kind_of(file);
  if (!tuple.empty() && kind == FileKind::Json) {
    throw InputError(file +
                     ": --tuple: a schedule file (kapla schedule --json) holds one "
                     "schedule and no tuples; drop --tuple");
  }
  if (kind == FileKind::Results || (!tuple.empty() && kind == FileKind::Other)) {
    const io::ResultsFile results = io::read_results_file(file);  // refuses foreign, corrupt
    if (results.info.schema < io::kSchedulesSchema) {
      throw InputError(file + ": kapla_schema version " + std::to_string(results.info.schema) +
                       " predates recorded schedules (version " +
                       std::to_string(io::kSchedulesSchema) +
                       "); rerun its sweep with this kapla, or emit from `kapla schedule --json`");
    }
    const sweep::TupleRecord& record = select_tuple(results, tuple);
    const std::string origin = file + ": tuple " + record.tuple.key();
    if (record.result.schedule.empty()) {
      const auto status = record.result.status;
      throw InputError(
          origin + ": schedule: none recorded (" +
          (status == sweep::TupleStatus::Ok
               ? std::string(
                     "status ok: it ran with \"record_schedules\": false, or before version ") +
                     std::to_string(io::kSchedulesSchema)
               : "status " + std::string(sweep::status_name(status)) + ": " +
                     record.result.message) +
          ")");
    }
    json doc;
    try {
      doc = io::parse_json_text(record.result.schedule);
    } catch (const InputError& e) {
      throw InputError(origin + ": schedule: " + e.what());
    }
    emit_document(doc, origin, dir, only, target);
    return;
  }
  emit_document(io::read_json_file(file), file, dir, only, target);
}

}  // namespace

void register_emit(CLI::App& app, Context& /*ctx*/) {
  struct Args {
    std::string schedule;
    std::string tuple;
    std::string out;
    std::vector<std::string> layers;
    std::string target = "loops";
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand(
      "emit",
      "Write the layer schedules of a `kapla schedule --json` file, or of a tuple of a "
      "results file, as C++ loop-nest programs that count their accesses (docs/emit.md)");
  sub->add_option("schedule", args->schedule,
                  "The schedule file (kapla schedule --json FILE), or a results file "
                  "(kapla sweep) with --tuple")
      ->required();
  sub->add_option("--tuple", args->tuple,
                  "The tuple of a results file: its key (kapla results --csv), a unique prefix "
                  "(mlp_s:edge:kapla) or the same with the strategy's letter (mlp_s:edge:K)");
  sub->add_option("-o,--out", args->out, "Directory for the programs")->required();
  sub->add_option("--layer", args->layers, "Only this layer (repeatable)");
  sub->add_option("--target", args->target,
                  "loops: the loop nest with the array bus counted by formula; hls: the unit "
                  "pass as the row-stationary PE array with HLS pragmas, counting it")
      ->capture_default_str();
  sub->callback([args] {
    // Checked before the file is read: a bad target is the request's error, not the file's.
    const emit::Target target = parse_emit_target(args->target, "--target");
    emit_from_file(args->schedule, args->tuple, args->out, args->layers, target);
  });
}

}  // namespace kapla::cli
