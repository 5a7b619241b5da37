// Emitted programs of blockings with a remainder (imperfect: full, issue 18 with issue 21,
// docs/emit.md "Blocks with a remainder"): the nest runs the last block of each level over
// what is left (trips1, trips2), its output equals the naive loop nest, and its counts are
// checked against the cost model's. Hand-built blockings on a small conv (7 = 4 + 3 at one
// level, a remainder at each of two levels) count exactly what the model counts; so do the
// sampled schemes, B's best under `full` among them, except where the model re-fetches a tile
// the nest keeps (a finding, docs/emit.md): there the program says MISMATCH for exactly the
// predicted categories and counts fewer words than the model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "cost/loop_blocking_search.hpp"
#include "emit/layer_program.hpp"
#include "io/golden_record.hpp"
#include "mapping/data_layout_ops.hpp"
#include "pricing/fixed_scheme.hpp"
#include "program_runner.hpp"
#include "search/exhaustive.hpp"

namespace kapla {
namespace {

namespace golden = io::golden;
using cost::LoopBlocking;
using emit_test::compile_and_run;
using emit_test::ProgramRun;

// `layer` at `batch` on the first one-node resource of the golden records (14x12 PEs, 64 REGF
// and 32768 GBUF words, fmaps in DRAM), with imperfect: full.
pricing::LayerProblem one_node_problem(const model::Layer& layer, std::int64_t batch) {
  for (const auto& rec : golden::read_jsonl(std::string(KAPLA_TEST_DATA_DIR) +
                                            "/golden/nn_dataflow/scheme_evals.jsonl")) {
    auto p = golden::parse_layer_problem(rec);
    if (p.resource.proc_region.dim != PhyDim2{1, 1} ||
        p.resource.src_data_region.type != mapping::RegionType::Dram ||
        p.resource.dst_data_region.type != mapping::RegionType::Dram)
      continue;
    pricing::set_layer(p, layer, batch);
    p.ifmap_layout =
        mapping::input_layouts(layer.nifm, layer.sifm, batch, p.resource.src_data_region, p.options)
            .front();
    p.options.imperfect = model::Imperfect::Full;
    return p;
  }
  throw InternalError("no one-node golden record");
}

// The scheme of NLD 0 of `p` on one node with blocking `b`, priced by the one cost model.
emit::LayerScheme one_node_scheme(const pricing::LayerProblem& p, const LoopBlocking& b) {
  const mapping::PartitionScheme part;
  const auto setup = pricing::setup_partition(p, part);
  const auto ev = pricing::evaluate_blocking(p, setup, {0, b});
  if (!ev) throw InternalError("the hand-built blocking is not valid");
  return {"hand", p, part, 0, *ev};
}

bool has_remainder(const cost::NestedLoopDesc& nld, const LoopBlocking& b) {
  for (auto l : all_values<LoopDim>())
    if (b.bl_ts[0][l] * b.bl_ts[1][l] * b.bl_ts[2][l] != nld.loopcnt[l]) return true;
  return false;
}

// The line of `output` that starts with `head` ("GBUF FIL counted="), or "".
std::string line_of(const std::string& output, const std::string& head) {
  const std::string text = "\n" + output;
  const auto at = text.find("\n" + head);
  if (at == std::string::npos) return "";
  return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

// The counted and model figures of a line "... counted=A model=B ...".
std::pair<double, double> figures(const std::string& line) {
  double counted = -1, model = -1;
  const auto at = line.find("counted=");
  if (at != std::string::npos)
    std::sscanf(line.c_str() + at, "counted=%lf model=%lf", &counted, &model);
  return {counted, model};
}

int mismatches(const std::string& output) {
  int n = 0;
  for (auto at = output.find("MISMATCH"); at != std::string::npos;
       at = output.find("MISMATCH", at + 1))
    ++n;
  return n;
}

// The conv of the hand-built cases: 7 input channels, 5 output channels, a 3x3 filter over a
// 6x6 ofmap, 3 samples: 7 x 5 x 3 x 36 x 9 = 34,020 MACs. NLD 0 on the 14x12 array has 7
// input-channel units, one output-channel unit (the 5 channels replicated on the array) and 3
// samples: loop counts (7, 1, 3).
pricing::LayerProblem seven_channel_conv() {
  return one_node_problem(model::make_conv(7, 5, {6, 6}, {3, 3}), 3);
}

TEST(EmitRemainder, HandBuiltRemaindersCountWhatTheModelCounts) {
  const auto p = seven_channel_conv();
  struct Case {
    const char* what;
    LoopBlocking b;
    std::vector<std::string> guards;  // loops of the emitted nest that stop at the remainder
  };
  std::vector<Case> cases(3);
  // 7 = 4 + 3 at the GBUF level: input channels in GBUF blocks of 4 units (trip counts 2, 4, 1).
  cases[0].what = "IFM 7 = 4 + 3 in GBUF";
  cases[0].b.bl_ts = {{{{2, 1, 3}}, {{4, 1, 1}}, {{1, 1, 1}}}};  // [level][IFM, OFM, BAT]
  cases[0].b.bl_ords = {{{{0, 1, 2}}, {{1, 0, 2}}}};
  cases[0].guards = {"x1[0] < trips1(0, x0[0])"};
  // A remainder at each of two levels: input channels 4 + 3 in GBUF, samples 2 + 1 in REGF
  // (trip counts 1, 2, 2).
  cases[1].what = "IFM 4 + 3 in GBUF, BAT 2 + 1 in REGF";
  cases[1].b.bl_ts = {{{{2, 1, 1}}, {{4, 1, 2}}, {{1, 1, 2}}}};
  cases[1].b.bl_ords = {{{{0, 1, 2}}, {{2, 0, 1}}}};
  cases[1].guards = {"x1[0] < trips1(0, x0[0])", "x2[2] < trips2(2, x0[2] * T[1][2] + x1[2])"};
  // Both levels of one loop: input channels (2 + 2 + 2) + (1), three REGF blocks of 2 in a
  // GBUF block (trip counts 2, 3, 2): the last GBUF block runs one REGF block, of one unit.
  cases[2].what = "IFM (2 + 2 + 2) + (1)";
  cases[2].b.bl_ts = {{{{2, 1, 3}}, {{3, 1, 1}}, {{2, 1, 1}}}};
  cases[2].b.bl_ords = {{{{0, 1, 2}}, {{0, 1, 2}}}};
  cases[2].guards = {"x1[0] < trips1(0, x0[0])", "x2[0] < trips2(0, x0[0] * T[1][0] + x1[0])"};
  for (const auto& c : cases) {
    const auto s = one_node_scheme(p, c.b);
    ASSERT_TRUE(s.eval.valid()) << c.what;
    const std::string source = emit::emit_layer_program(s);
    for (const auto& g : c.guards) EXPECT_NE(source.find(g), std::string::npos) << c.what << g;
    // The loop-nest target, and the PE array (warning-free): the model's counts, the output
    // of the naive nest, and the layer's MACs by hand.
    for (auto [target, flags] :
         {std::pair{emit::Target::Loops, "-w"}, std::pair{emit::Target::Hls,
                                                          "-Wall -Wextra -Werror "
                                                          "-Wno-unknown-pragmas"}}) {
      const ProgramRun r =
          compile_and_run(emit::emit_layer_program(s, target), "hand", false, flags);
      EXPECT_EQ(r.exit_code, 0) << c.what << "\n" << r.output;
      EXPECT_NE(r.output.find("\nOK\n"), std::string::npos) << c.what << "\n" << r.output;
      EXPECT_NE(r.output.find("equals the naive loop nest"), std::string::npos) << c.what;
      EXPECT_NE(line_of(r.output, "TOTAL MACS counted=34020 "), "") << c.what << "\n" << r.output;
    }
  }
}

// The finding: the model re-fetches a tile the nest keeps. Input channels 3 + 3 + 1 in GBUF
// (trip counts 3, 3, 1), the samples outside them in REGF: a step of the sample loop brings
// new filters into REGF when the input-channel loop inside it runs, but in the last GBUF block
// it runs one trip and the REGF filters stay. The model counts 3 fetches of all 7 channels'
// filters (fetch[1][FIL] = 3 sample blocks), 7 x 5 x 9 x 3 = 945 GBUF words; the nest moves
// 6 x 5 x 9 x 3 + 1 x 5 x 9 x 1 = 855 (and the array bus in the same ratio): it says MISMATCH
// for FIL at GBUF and ITCN only, and its output is still the naive nest's. When the model learns
// this rule, this test fails and becomes a case of the one above.
TEST(EmitRemainder, ModelRefetchesATileTheNestKeeps) {
  const auto p = seven_channel_conv();
  LoopBlocking b;
  b.bl_ts = {{{{3, 1, 1}}, {{3, 1, 3}}, {{1, 1, 1}}}};
  b.bl_ords = {{{{0, 1, 2}}, {{0, 1, 2}}}};  // level 1: BAT outer of IFM
  const auto s = one_node_scheme(p, b);
  ASSERT_TRUE(s.eval.valid());
  EXPECT_EQ(s.eval.fetch[1][DataCategory::Fil], 3);
  EXPECT_DOUBLE_EQ(s.eval.access[MemLevel::Gbuf][DataCategory::Fil], 945);
  const ProgramRun r = compile_and_run(emit::emit_layer_program(s), "keeps", false);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(line_of(r.output, "GBUF FIL counted="), "GBUF FIL counted=855 model=945  MISMATCH")
      << r.output;
  // The array bus moves the filters' words the same way: 855 / 945 of the model's.
  const auto [itcn, itcn_model] = figures(line_of(r.output, "ITCN FIL counted="));
  EXPECT_DOUBLE_EQ(itcn_model, s.eval.access[MemLevel::Itcn][DataCategory::Fil]);
  EXPECT_DOUBLE_EQ(itcn * 945, itcn_model * 855) << r.output;
  EXPECT_EQ(mismatches(r.output), 4) << r.output;  // GBUF and ITCN FIL, for the node and layer
  EXPECT_NE(r.output.find("equals the naive loop nest"), std::string::npos) << r.output;
  std::filesystem::remove_all(emit_test::program_dir());  // the mismatch was the point
}

// Whether the model counts a re-fetch of category d into REGF that the nest does not make: a
// step of a loop d does not depend on, inside which every loop d depends on with more than one
// REGF block per GBUF block runs a single trip, which happens in the last GBUF block of a loop
// whose last block holds one REGF block (the nest keeps the tile; the model's fetch count
// multiplies the steps of every such loop). Level-0 fetches are exact: the DRAM-level trip
// counts are the same in every block.
bool model_refetches_a_kept_tile(const cost::NestedLoopDesc& nld, const LoopBlocking& b,
                                 DataCategory d) {
  if (!nld.regf_reusable[d]) return false;  // refilled at every step anyway (the fork's rule)
  const auto& t = b.bl_ts;
  const auto& ord = b.bl_ords;
  auto related = [&](LoopDim l) { return nld.data_loops[d].contains(l); };
  auto single_last = [&](LoopDim l) {  // REGF blocks in the last GBUF block == 1
    const std::int64_t m = (nld.loopcnt[l] + t[2][l] - 1) / t[2][l];
    return m - (t[0][l] - 1) * t[1][l] == 1;
  };
  // Every related loop with several REGF blocks per GBUF block inside the step (level 1: those
  // inner of l at level 1; level 0: all of them) must run a single trip; at least one must
  // exist (else the model counts no step either), and at level 0 no related DRAM-level loop
  // inside the step may move.
  auto all_single = [&](LoopDim l, int level) {
    bool any = false;
    for (auto r : all_values<LoopDim>()) {
      if (!related(r)) continue;
      if (level == 0 && ord[0][r] < ord[0][l] && t[0][r] > 1) return false;
      if (t[1][r] <= 1 || (level == 1 && ord[1][r] > ord[1][l])) continue;
      if (!single_last(r)) return false;
      any = true;
    }
    return any;
  };
  for (auto l : all_values<LoopDim>()) {
    if (related(l)) continue;
    if (t[1][l] > 1 && all_single(l, 1)) return true;
    if (t[0][l] > 1 && all_single(l, 0)) return true;
  }
  return false;
}

struct Tally {
  int programs = 0, from_b = 0, exact = 0, b_exact = 0, computed = 0;
  double lowest_ratio = 1;  // counted / model over the mismatched lines
};

// Emits the scheme, builds and runs it: the output is the naive nest's, MACs and REGF and the
// GBUF tiles are the model's, and each category's DRAM (bypassed), GBUF and ITCN counts equal
// the model's unless model_refetches_a_kept_tile says the model counts more, and then are
// below it.
void check_sample(const emit::LayerScheme& s, const cost::NestedLoopDesc& nld, bool from_b,
                  Tally& tally) {
  std::string what = s.name + " bl_ts";  // [level][IFM, OFM, BAT], for the failure messages
  for (const auto& level : s.eval.blocking.bl_ts)
    for (auto l : all_values<LoopDim>()) what += " " + std::to_string(level[l]);
  const bool count_only = s.eval.ops > 2e6;
  const ProgramRun r = compile_and_run(emit::emit_layer_program(s), "sample", count_only);
  ++tally.programs;
  tally.from_b += from_b;
  tally.computed += !count_only;
  if (!count_only) {
    EXPECT_NE(r.output.find("equals the naive loop nest"), std::string::npos) << what << r.output;
  }
  bool exact = true;
  int fewer = 0;  // node lines where the nest moves fewer words than the model counts
  for (auto d : all_values<DataCategory>()) {
    const std::string cat(name_of(d));
    const bool keeps = model_refetches_a_kept_tile(nld, s.eval.blocking, d);
    exact = exact && !keeps;
    for (const std::string level : {"DRAM", "GBUF", "ITCN", "FIT GBUF", "REGF", "TOTAL REGF"}) {
      const std::string line = line_of(r.output, level + " " + cat + " ");
      if (line.empty()) continue;  // REGF: counted only when computed
      EXPECT_EQ(line.find("OVERFLOW"), std::string::npos) << what << " " << line;
      // The level-1 fills: GBUF reads, the array bus, and DRAM reads of a bypassed category.
      const bool level1 = level == "GBUF" || level == "ITCN" ||
                          (level == "DRAM" && !s.eval.stored_in_gbuf[d] &&
                           !(d == DataCategory::Fil && s.eval.filter_pinned));
      const auto [counted, model] = figures(line);
      if (keeps && level1 && model > 0) {
        ++fewer;
        EXPECT_LT(counted, model) << what << " " << line;
        tally.lowest_ratio = std::min(tally.lowest_ratio, counted / model);
      } else {
        EXPECT_EQ(line.find("MISMATCH"), std::string::npos) << what << " " << line << r.output;
      }
    }
  }
  // Each node line below the model has its whole-layer line (one node), nothing else differs.
  EXPECT_EQ(mismatches(r.output), 2 * fewer) << what << "\n" << r.output;
  EXPECT_NE(line_of(r.output, "TOTAL MACS counted="), "") << what << r.output;
  if (!count_only) {
    EXPECT_EQ(line_of(r.output, "TOTAL MACS counted=").find("MISMATCH"), std::string::npos);
  }
  EXPECT_EQ(r.exit_code, exact ? 0 : 1) << what << "\n" << r.output;
  tally.exact += exact;
  tally.b_exact += exact && from_b;
}

// Sampled schemes with a remainder on a few small misaligned layers (conv, FC, depthwise,
// pooling) on one 14x12 node: every 80th valid one the loop-blocking search enumerates under
// `full` for NLD 0, and those of B's best ten (its search under `full`, goal e) that have one.
TEST(EmitRemainder, SampledRemaindersCountWhatTheModelCounts) {
  const std::vector<std::pair<model::Layer, std::int64_t>> layers{
      {model::make_conv(13, 10, {7, 7}, {3, 3}), 3},
      {model::make_fc(20, 12), 3},
      {model::make_dwconv(7, {7, 7}, {3, 3}), 3},
      {model::make_pooling(7, {5, 5}, {3, 3}, {2, 2}), 3},
  };
  Tally tally;
  for (const auto& [layer, batch] : layers) {
    auto p = one_node_problem(layer, batch);
    const mapping::PartitionScheme part;
    const auto setup = pricing::setup_partition(p, part);
    ASSERT_FALSE(setup.map.nlds.empty());
    const auto& nld = setup.map.nlds[0];
    const std::string name(model::type_name(layer.type));
    int k = 0;
    cost::for_each_loop_blocking(
        nld, {},
        [&](const LoopBlocking& b) {
          if (!has_remainder(nld, b)) return;
          const auto ev = pricing::evaluate_blocking(p, setup, {0, b});
          if (!ev || k++ % 80 != 0) return;
          check_sample({name, p, part, 0, *ev}, nld, false, tally);
        },
        true);
    p.options.ntops = 10;
    const auto best = search::ExhaustiveStrategy().search(p, {});
    for (const auto& sch : best) {
      const auto& ev = *sch.detail;
      const auto b_setup = pricing::setup_partition(p, sch.part);
      const auto& bn = b_setup.map.nlds[static_cast<std::size_t>(sch.nld_index)];
      if (!has_remainder(bn, ev.blocking)) continue;
      check_sample({name + " (B)", p, sch.part, sch.nld_index, ev}, bn, true, tally);
    }
  }
  std::printf(
      "%d programs (%d of B's best), %d computed: %d count what the model counts (%d of B's); "
      "where the model re-fetches a kept tile, the nest moves down to %.3f of its words\n",
      tally.programs, tally.from_b, tally.computed, tally.exact, tally.b_exact, tally.lowest_ratio);
  // The programs that differ where the rule says are kept by the harness: not needed unless
  // something else failed.
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(emit_test::program_dir());
  EXPECT_GE(tally.programs, 20);
  EXPECT_GE(tally.from_b, 6);
  EXPECT_GT(tally.exact, tally.programs / 3);
}

}  // namespace
}  // namespace kapla
