// Emitted layer programs (issue 21, first slice): for fixed schemes of the golden records
// (nn_dataflow and KAPLA fork; Conv, FC, Pooling, Eltwise; every partition kind, with and
// without buffer sharing and bypass), the emitted program compiles, runs every node's piece,
// its output equals the naive loop nest, and the words it counts per level and category equal
// the cost model's access counts, for the ceil node and, by the pieces formula, for the whole
// layer (docs/emit.md). The checks can fail: a scheme whose model figure is changed by one
// part in 10^6 makes its program report MISMATCH and exit 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "emit/layer_program.hpp"
#include "emit/node_pieces.hpp"
#include "io/golden_record.hpp"
#include "mapping/data_layout_ops.hpp"
#include "pricing/fixed_scheme.hpp"
#include "program_runner.hpp"

namespace kapla {
namespace {

namespace fs = std::filesystem;
namespace golden = io::golden;

using emit_test::compile_and_run;
using emit_test::program_dir;
using emit_test::ProgramRun;

struct Sample {
  std::string id;
  model::LayerType type = model::LayerType::Conv;
  emit::LayerScheme scheme;
  double macs = 0;
};

// The valid records of one golden file, as schemes; `refused` gets those the
// emitter refuses (kinds not emitted yet).
std::vector<Sample> valid_schemes(const std::string& file, std::vector<Sample>* refused = nullptr) {
  std::vector<Sample> out;
  for (const auto& rec : golden::read_jsonl(std::string(KAPLA_TEST_DATA_DIR) + "/golden/" + file)) {
    if (!rec.at("valid").get<bool>()) continue;
    auto problem = golden::parse_layer_problem(rec);
    const auto fsch = golden::parse_fixed_scheme(rec.at("inputs").at("scheme"));
    auto priced = pricing::price_fixed_scheme(problem, fsch.part,
                                              {fsch.nld_index, {fsch.bl_ts, fsch.bl_ords}});
    if (!priced.blocking || !priced.blocking->valid()) continue;
    Sample s;
    s.id = rec.at("id").get<std::string>();
    s.type = problem.layer.type;
    s.macs = priced.blocking->ops;  // the whole layer's: every node runs
    s.scheme = {s.id, std::move(problem), fsch.part, fsch.nld_index, *priced.blocking};
    bool emitted = true;
    try {
      emit::emit_layer_program(s.scheme);
    } catch (const InputError&) {
      emitted = false;
    }
    if (emitted)
      out.push_back(std::move(s));
    else if (refused)
      refused->push_back(std::move(s));
  }
  return out;
}

bool shares_gbuf(const Sample& s) {
  const auto& g = s.scheme.eval.bufshr.subgrp_size;
  return g[DataCategory::Fil] > 1 || g[DataCategory::Ifm] > 1 || g[DataCategory::Ofm] > 1;
}

// Whether some node's piece is smaller than the ceil piece the model prices every node as.
bool has_edge_piece(const Sample& s) {
  const auto& p = s.scheme.problem;
  const auto pl = mapping::part_layer(p.layer, p.batch, s.scheme.part);
  const auto split = emit::node_pieces(p.layer, p.batch, s.scheme.part, pl);
  const auto& ceil = split.nodes[split.ceil_node];
  for (const auto& n : split.nodes)
    if (n.n.size() < ceil.n.size() || n.c.size() < ceil.c.size() || n.m.size() < ceil.m.size() ||
        n.h.size() < ceil.h.size() || n.w.size() < ceil.w.size())
      return true;
  return false;
}

// Evenly spaced emittable records of both families: up to kPerKind of each layer kind, so that
// every kind the emitter takes is in the sample (the golden files hold far more Conv records),
// kShared more with GBUF sharing (rare in the files) and kEdge more whose nodes' pieces are not
// all the ceil piece.
constexpr std::size_t kPerKind = 10, kShared = 8, kEdge = 8;
std::vector<Sample> sampled() {
  std::map<model::LayerType, std::vector<Sample>> by_kind;
  std::vector<Sample> shared, edge;
  for (const char* file : {"nn_dataflow/scheme_evals.jsonl", "kapla/scheme_evals.jsonl"})
    for (auto& s : valid_schemes(file)) {
      if (shares_gbuf(s)) shared.push_back(s);
      if (has_edge_piece(s)) edge.push_back(s);
      by_kind[s.type].push_back(std::move(s));
    }
  std::vector<Sample> out;
  auto take = [&out](const std::vector<Sample>& all, std::size_t want) {
    const std::size_t step = all.size() > want ? all.size() / want : 1;
    for (std::size_t i = 0, n = 0; i < all.size() && n < want; i += step, ++n)
      out.push_back(all[i]);
  };
  for (const auto& [kind, all] : by_kind) take(all, kPerKind);
  take(shared, kShared);
  take(edge, kEdge);
  return out;
}

// Layers above this many MACs (all nodes) are counted without computing (the loop nests and
// their counters still run; the output check needs the MACs).
constexpr double kComputeLimit = 3e7;

// Whether a program's whole-layer lines scale some model figure by pieces a/b below 1 (a node's
// piece smaller than the ceil piece the model prices every node as).
bool has_smaller_piece(const std::string& output) {
  for (auto at = output.find("pieces="); at != std::string::npos;
       at = output.find("pieces=", at + 1)) {
    double a = 0, b = 0;
    if (std::sscanf(output.c_str() + at, "pieces=%lf/%lf", &a, &b) == 2 && a < b) return true;
  }
  return false;
}

// What a run of samples covered, and how long emission took.
struct SampleTally {
  int multi_node = 0, shared = 0, bypassed = 0, computed = 0;
  int larger_than_sized = 0;  // programs noting a GBUF tile above the model's (mean) size
  int uneven = 0;             // programs where some node's piece is smaller than the ceil piece
  int idle = 0;               // programs with a node whose piece is empty
  std::map<model::LayerType, int> kinds;
  double median_ms = 0, max_ms = 0;
};

// Emits each sample for `target` (timed), builds it with `flags` and runs it: exit 0, OK, the
// bus counted; when computed, the output equal to the naive loop nest and REGF counted.
SampleTally run_samples(const std::vector<Sample>& samples, emit::Target target,
                        const std::string& flags) {
  SampleTally t;
  std::vector<double> emit_seconds;
  for (const auto& s : samples) {
    const auto& ev = s.scheme.eval;
    ++t.kinds[s.type];
    t.multi_node += ev.num_nodes > 1;
    t.shared += shares_gbuf(s);
    t.bypassed += !ev.stored_in_gbuf[DataCategory::Ifm] || !ev.stored_in_gbuf[DataCategory::Fil] ||
                  !ev.stored_in_gbuf[DataCategory::Ofm];
    const bool count_only = s.macs > kComputeLimit;
    t.computed += !count_only;
    const std::clock_t t0 = std::clock();  // CPU time: the machine is shared
    const std::string source = emit::emit_layer_program(s.scheme, target);
    emit_seconds.push_back(static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC);
    const ProgramRun r = compile_and_run(source, "p", count_only, flags);
    EXPECT_EQ(r.exit_code, 0) << s.id << "\n" << r.output;
    EXPECT_NE(r.output.find("\nOK\n"), std::string::npos) << s.id << "\n" << r.output;
    EXPECT_NE(r.output.find("ITCN IFM counted="), std::string::npos) << s.id;
    t.larger_than_sized += r.output.find("NOTE GBUF") != std::string::npos;
    t.uneven += has_smaller_piece(r.output);
    t.idle += r.output.find(", 0 idle;") == std::string::npos;
    EXPECT_NE(r.output.find("TOTAL ITCN OFM counted="), std::string::npos) << s.id;
    if (!count_only) {
      EXPECT_NE(r.output.find("equals the naive loop nest"), std::string::npos) << s.id;
      EXPECT_NE(r.output.find("REGF OFM counted="), std::string::npos) << s.id;
    }
  }
  std::sort(emit_seconds.begin(), emit_seconds.end());
  t.median_ms = 1e3 * emit_seconds[emit_seconds.size() / 2];
  t.max_ms = 1e3 * emit_seconds.back();
  std::printf(
      "%zu schemes: %d multi-node (%d with a smaller edge piece, %d with an idle node), %d with "
      "GBUF sharing, %d with a bypass, %d computed, %d with a tile above the model's mean size; "
      "emission median %.3f ms, max %.3f ms (CPU)\n",
      samples.size(), t.multi_node, t.uneven, t.idle, t.shared, t.bypassed, t.computed,
      t.larger_than_sized, t.median_ms, t.max_ms);
  return t;
}

TEST(EmitLayerProgram, GoldenSchemesCountWhatTheModelCounts) {
  const auto samples = sampled();
  ASSERT_GE(samples.size(), 100u);
  const SampleTally t = run_samples(samples, emit::Target::Loops, "-w");
  // The sample covers what the issue asks for.
  EXPECT_GT(t.multi_node, 10);
  EXPECT_GT(t.uneven, 15);
  EXPECT_GT(t.shared, 5);
  EXPECT_GT(t.bypassed, 10);
  EXPECT_GT(t.computed, 50);
  for (auto k : {model::LayerType::Conv, model::LayerType::FC, model::LayerType::Pooling,
                 model::LayerType::Eltwise, model::LayerType::DWConv, model::LayerType::ConvBackAct,
                 model::LayerType::FCBackAct, model::LayerType::DWConvBackAct,
                 model::LayerType::PoolingBack})
    EXPECT_GE(t.kinds.at(k), static_cast<int>(kPerKind)) << model::type_name(k);
  EXPECT_LT(t.max_ms, 10.0);
}

// The HLS target on a fair share of the same sample (every kind, multi-node, GBUF sharing): the
// PE array's own counts of array-bus words and register-file accesses equal the model's, and
// its output the naive loop nest's; the program builds without a warning.
TEST(EmitLayerProgram, GoldenSchemesCountWhatTheModelCountsOnThePeArray) {
  const auto all = sampled();
  std::vector<Sample> samples;
  for (std::size_t i = 0; i < all.size(); i += 4) samples.push_back(all[i]);
  ASSERT_GE(samples.size(), 20u);
  const SampleTally t =
      run_samples(samples, emit::Target::Hls, "-Wall -Wextra -Wno-unknown-pragmas -Werror");
  EXPECT_GT(t.multi_node, 5);
  EXPECT_GT(t.shared, 1);
  EXPECT_GT(t.computed, 15);
  EXPECT_GE(t.kinds.size(), 9u);
  EXPECT_LT(t.max_ms, 10.0);
}

// The systolic mapping (the KAPLA fork's; inference presets on edge use it): evenly spaced
// records of each kind, through the same checks. The model sizes its GBUF tiles for the mean
// piece: some programs note a larger tile (the finding in docs/emit.md), none may overflow the
// mean.
TEST(EmitLayerProgram, SystolicSchemesCountWhatTheModelCounts) {
  constexpr std::size_t kSystolicPerKind = 5;
  std::map<model::LayerType, std::vector<Sample>> by_kind;
  for (auto& s : valid_schemes("kapla/scheme_evals_systolic.jsonl"))
    by_kind[s.type].push_back(std::move(s));
  std::vector<Sample> samples;
  for (const auto& [kind, all] : by_kind) {
    const std::size_t step = all.size() > kSystolicPerKind ? all.size() / kSystolicPerKind : 1;
    for (std::size_t i = 0, n = 0; i < all.size() && n < kSystolicPerKind; i += step, ++n)
      samples.push_back(all[i]);
  }
  ASSERT_GE(samples.size(), 25u);
  const SampleTally t = run_samples(samples, emit::Target::Loops, "-w");
  EXPECT_GT(t.computed, 15);
  EXPECT_GT(t.larger_than_sized, 0);
  EXPECT_GE(t.kinds.size(), 5u);
  EXPECT_LT(t.max_ms, 10.0);
  // The HLS target writes the row-stationary array only: a systolic scheme is refused by name.
  try {
    emit::emit_layer_program(samples.front().scheme, emit::Target::Hls);
    FAIL() << "a systolic scheme was emitted for the HLS target";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("systolic"), std::string::npos) << e.what();
  }
}

// The HLS target's pragmas sit on the loops they belong to: UNROLL on the replica and PE loops,
// ARRAY_PARTITION on each PE's register files, PIPELINE on the streaming of an ifmap row; the
// loop-nest target has none.
TEST(EmitLayerProgram, HlsPragmasSitOnThePeLoops) {
  const auto samples = valid_schemes("nn_dataflow/scheme_evals.jsonl");
  ASSERT_FALSE(samples.empty());
  const std::string hls = emit::emit_layer_program(samples.front().scheme, emit::Target::Hls);
  for (const char* loop :
       {"for (i64 ro = 0; ro < REPL_O; ++ro) {\n", "for (i64 ri = 0; ri < REPL_I; ++ri) {\n",
        "for (i64 ph = 0; ph < FLPE_H; ++ph) {\n", "for (i64 pw = 0; pw < FLPE_W; ++pw) {\n"}) {
    const auto at = hls.find(loop);
    ASSERT_NE(at, std::string::npos) << loop;
    EXPECT_EQ(hls.substr(at + std::string(loop).size(), 18), "#pragma HLS UNROLL") << loop;
  }
  for (const char* rf : {"int w_rf[RW];", "int i_rf[IFM_INPUTS][RW];"}) {
    const auto at = hls.find(rf);
    ASSERT_NE(at, std::string::npos) << rf;
    const std::string var = std::string(rf).substr(4, 4);
    EXPECT_NE(hls.find("#pragma HLS ARRAY_PARTITION variable=" + var + " complete", at),
              std::string::npos)
        << rf;
  }
  const std::string stream = "for (i64 x = 0; x < wi; ++x) {  // the ifmap row streams in";
  const auto at = hls.find(stream);
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(hls.substr(hls.find('\n', at) + 1, 25), "#pragma HLS PIPELINE II=1");
  EXPECT_NE(hls.find("pe_array(x2, "), std::string::npos);
  const std::string loops = emit::emit_layer_program(samples.front().scheme);
  EXPECT_EQ(loops.find("#pragma HLS"), std::string::npos);
  EXPECT_EQ(loops.find("pe_array"), std::string::npos);
}

// A record's problem on another partition, with the simplest blocking (every loop at the DRAM
// level: one unit in GBUF and in REGF), priced by the one fixed-scheme evaluator; nullopt when
// that scheme is not valid.
std::optional<emit::LayerScheme> on_partition(const pricing::LayerProblem& problem,
                                              const mapping::PartitionScheme& part) {
  const auto setup = pricing::setup_partition(problem, part);
  if (setup.map.nlds.empty()) return std::nullopt;
  cost::LoopBlocking b;
  b.bl_ts[0] = setup.map.nlds[0].loopcnt;
  b.bl_ts[1] = b.bl_ts[2] = PerLoopDim<std::int64_t>{{1, 1, 1}};
  b.bl_ords[0] = b.bl_ords[1] = PerLoopDim<int>{{0, 1, 2}};
  auto priced = pricing::price_fixed_scheme(problem, part, {0, b});
  if (!priced.blocking || !priced.blocking->valid()) return std::nullopt;
  return emit::LayerScheme{"hand", problem, part, 0, *priced.blocking};
}

// The pieces a/b of a program's whole-layer line "TOTAL LEVEL CATEGORY ...".
double pieces_of(const std::string& output, const std::string& line) {
  const auto at = output.find("TOTAL " + line + " counted=");
  if (at == std::string::npos) return -1;
  double a = 0, b = 0;
  if (std::sscanf(output.c_str() + output.find("pieces=", at), "pieces=%lf/%lf", &a, &b) != 2)
    return -1;
  return a / b;
}

// Hand-computed uneven partitions of a Conv layer of the golden records (every node priced as
// the ceil piece, the real pieces smaller): k nodes over a dimension of n that k does not divide
// hold n words where the model prices k * ceil(n / k), so the whole layer's counts are the
// model's times n / (k * ceil(n / k)) for the categories that dimension splits, and the model's
// for the others; the nodes' outputs together (INPP: partial sums added up) equal the naive
// layer. And an FC layer split over 2 ofmap columns: it has one, so one node idles and every
// whole-layer count is half the model's.
TEST(EmitLayerProgram, UnevenPiecesAreCountedByFormula) {
  using mapping::PartitionScheme;
  // The resource of a golden record on 4x4 nodes, with small layers of dimensions 3 and 4 do
  // not divide (and their ifmaps in DRAM as the network input layout puts them).
  std::optional<pricing::LayerProblem> base;
  for (const auto& rec : golden::read_jsonl(std::string(KAPLA_TEST_DATA_DIR) +
                                            "/golden/nn_dataflow/scheme_evals.jsonl")) {
    auto p = golden::parse_layer_problem(rec);
    if (p.resource.proc_region.dim == PhyDim2{4, 4} &&
        p.resource.src_data_region.type == mapping::RegionType::Dram &&
        p.resource.dst_data_region.type == mapping::RegionType::Dram) {
      base = p;
      break;
    }
  }
  ASSERT_TRUE(base);
  auto problem = [&base](const model::Layer& layer, std::int64_t batch) {
    pricing::LayerProblem p = *base;
    pricing::set_layer(p, layer, batch);
    p.ifmap_layout =
        mapping::input_layouts(layer.nifm, layer.sifm, batch, p.resource.src_data_region, p.options)
            .front();
    return p;
  };
  const auto conv = problem(model::make_conv(10, 14, {6, 5}, {3, 3}), 5);
  const auto fc = problem(model::make_fc(20, 12), 2);
  // A back kind computes the forward layer over its gradient input, channels swapped: its OUTP
  // nodes split that layer's input channels and add up their partial sums.
  const auto back = problem(model::make_conv_back_act(14, 10, {6, 5}, {3, 3}), 5);
  auto ratio = [](std::int64_t n, std::int64_t k) {
    return static_cast<double>(n) / static_cast<double>(k * ((n + k - 1) / k));
  };
  struct Case {
    const pricing::LayerProblem* problem;
    ParallelDim dim;
    std::int64_t k;
    double fil, ifm, ofm;  // the whole layer's counts over the model's
    int idle;
  };
  const std::vector<Case> cases = {
      {&conv, ParallelDim::Outp, 4, ratio(14, 4), 1.0, ratio(14, 4), 0},
      {&conv, ParallelDim::Inpp, 3, ratio(10, 3), ratio(10, 3), 1.0, 0},
      {&conv, ParallelDim::Batp, 3, 1.0, ratio(5, 3), ratio(5, 3), 0},
      {&back, ParallelDim::Outp, 4, ratio(10, 4), ratio(10, 4), 1.0, 0},
      {&fc, ParallelDim::Ofmp, 2, 0.5, 0.5, 0.5, 1},
  };
  for (const auto& c : cases) {
    PartitionScheme part;
    part.pdims[c.dim] = PhyDim2{1, c.k};
    const auto scheme = on_partition(*c.problem, part);
    ASSERT_TRUE(scheme) << static_cast<int>(c.dim);
    const ProgramRun r = compile_and_run(emit::emit_layer_program(*scheme), "uneven", false);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("equals the naive loop nest"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(", " + std::to_string(c.idle) + " idle;"), std::string::npos)
        << r.output;
    for (const char* level : {"DRAM", "GBUF"}) {
      const std::string l = level;
      EXPECT_DOUBLE_EQ(pieces_of(r.output, l + " FIL"), c.fil) << l << "\n" << r.output;
      EXPECT_DOUBLE_EQ(pieces_of(r.output, l + " IFM"), c.ifm) << l << "\n" << r.output;
      EXPECT_DOUBLE_EQ(pieces_of(r.output, l + " OFM"), c.ofm) << l << "\n" << r.output;
    }
  }
}

TEST(EmitLayerProgram, AWrongModelFigureFails) {
  auto samples = valid_schemes("nn_dataflow/scheme_evals.jsonl");
  ASSERT_FALSE(samples.empty());
  // The HLS target's PE-counted bus words are checked the same way.
  for (auto [level, target] : {std::pair{MemLevel::Dram, emit::Target::Loops},
                               std::pair{MemLevel::Itcn, emit::Target::Loops},
                               std::pair{MemLevel::Itcn, emit::Target::Hls}}) {
    auto s = samples.front();
    s.scheme.eval.access[level][DataCategory::Ifm] *= 1 + 1e-6;
    const ProgramRun r = compile_and_run(emit::emit_layer_program(s.scheme, target), "bad", true);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    const std::string line = std::string(name_of(level)) + " IFM";
    const auto at = r.output.find(line);
    ASSERT_NE(at, std::string::npos) << r.output;
    EXPECT_NE(r.output.substr(at, r.output.find('\n', at) - at).find("MISMATCH"), std::string::npos)
        << r.output;
  }
  fs::remove_all(program_dir());  // the failures were the point: nothing to keep
}

TEST(EmitLayerProgram, UnsupportedKindsAreRefusedByName) {
  std::vector<Sample> refused;
  auto samples = valid_schemes("kapla/scheme_evals.jsonl", &refused);
  ASSERT_FALSE(samples.empty());
  // Weight-gradient kinds and LRN-like regions are not emitted yet: refused with their kind's
  // name.
  ASSERT_FALSE(refused.empty());
  for (const auto& r : refused) {
    try {
      emit::emit_layer_program(r.scheme);
      FAIL() << r.id << " was emitted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("(got " + std::string(model::type_name(r.type)) + ")"),
                std::string::npos)
          << e.what();
    }
  }
  // An invalid scheme is refused with its reason.
  auto s = samples.front();
  s.scheme.eval.invalid = cost::InvalidReason::CapacityFinal;
  try {
    emit::emit_layer_program(s.scheme);
    FAIL() << "an invalid scheme was emitted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("invalid (capacity_final)"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kapla
