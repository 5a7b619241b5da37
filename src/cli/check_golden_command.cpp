// `kapla check-golden FILE.jsonl [...]`: re-evaluates (scheme_eval) or re-searches
// (layer_schedule, network_run) every golden record and compares with the reference's
// numbers (tests/data/golden/README.md "How to compare": 1e-9 relative; goals d and ed
// "never worse"). One line per mismatch, then "N passed, M failed" and the largest relative
// error; exit 0 only if everything passed.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/golden_checks.hpp"
#include "core/errors.hpp"
#include "io/catalog.hpp"
#include "io/golden_record.hpp"

namespace kapla::cli {

namespace {

struct CheckArgs {
  std::vector<std::string> files;
  int threads = 1;
  std::string only_kind;
  bool breakdown = false;
};

// "<id> cost C energy op .. noc .. static .. dram .. gbuf .. itcn .. regf .." (full precision):
// the breakdown kapla priced for the record, in cost::EnergyBreakdown::kPartNames order.
void print_breakdown(const nlohmann::json& rec, const GoldenCheck& c) {
  if (!c.energy) return;
  const std::string id = rec.contains("id") ? rec.at("id").get<std::string>()
                                            : rec.value("config", std::string()) + "/" +
                                                  rec.value("net", std::string());
  std::ostringstream os;
  os.precision(17);
  os << id << " cost " << c.cost << " energy";
  const auto parts = c.energy->parts();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    os << ' ' << cost::EnergyBreakdown::kPartNames[i] << ' ' << parts[i];
  }
  std::cout << os.str() << "\n";
}

void run_check(const CheckArgs& a, Context& ctx) {
  const io::Catalog catalog(ctx.resolved_data_dir());
  const NetworkLoader loader = [&catalog](const std::string& name) {
    return catalog.load_network(name);
  };
  std::size_t passed = 0;
  std::size_t failed = 0;
  std::size_t skipped = 0;
  double max_err = 0;
  for (const auto& file : a.files) {
    const std::vector<nlohmann::json> recs = io::golden::read_jsonl(file);
    for (std::size_t i = 0; i < recs.size(); ++i) {
      const auto& rec = recs[i];
      if (!rec.is_object())
        throw InputError(file + ": record " + std::to_string(i + 1) + ": not an object");
      const std::string kind = rec.value("kind", std::string());
      if (!a.only_kind.empty() && kind != a.only_kind) continue;
      GoldenCheck c;
      try {
        c = io::golden::parsing_record([&] { return check_golden_record(rec, a.threads, loader); });
      } catch (const InputError& e) {
        throw InputError(file + ": record " + std::to_string(i + 1) + ": " + e.what());
      }
      max_err = std::max(max_err, c.max_rel_err);
      if (a.breakdown) print_breakdown(rec, c);
      if (c.skipped) {
        ++skipped;
        continue;
      }
      if (c.mismatch.empty()) {
        ++passed;
      } else {
        ++failed;
        std::cout << c.mismatch << "\n";
      }
    }
  }
  std::cout << passed << " passed, " << failed << " failed";
  if (skipped) std::cout << " (" << skipped << " skipped: no reference result)";
  std::cout << ", largest relative error " << max_err << "\n";
  if (failed > 0) ctx.exit_code = 1;
}

}  // namespace

void register_check_golden(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<CheckArgs>();
  CLI::App* sub = app.add_subcommand(
      "check-golden",
      "Re-evaluate golden parity records (scheme_eval, layer_schedule, network_run)");
  sub->add_option("files", a->files, "Golden .jsonl files")->required();
  sub->add_option("--threads", a->threads, "OpenMP threads per layer search");
  sub->add_option("--kind", a->only_kind, "Only records of this kind");
  sub->add_flag("--breakdown", a->breakdown,
                "Print each record's priced cost and energy breakdown (op noc static dram gbuf "
                "itcn regf)");
  sub->callback([a, &ctx] { run_check(*a, ctx); });
}

}  // namespace kapla::cli
