// pricing::layer_cost_bound, with the refetch floor of pricing/refetch_bound.hpp, against the
// one cost model: on every golden per-layer problem
// (nn_dataflow and the KAPLA fork) and on variants of them (KAPLA's inference options, where no
// category may bypass GBUF; the systolic array; a multi-node region away from the memory
// corners writing to another region), the bound is <= the price of every scheme B's space
// holds that the test draws, and <= the reference's optimum. The bound's terms and why each
// holds: src/pricing/cost_bound.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/math.hpp"
#include "io/golden_record.hpp"
#include "mapping/data_layout_ops.hpp"
#include "mapping/gen_partition.hpp"
#include "mapping/part_layer.hpp"
#include "pricing/cost_bound.hpp"
#include "pricing/fixed_scheme.hpp"
#include "pricing/refetch_bound.hpp"
#include "sampling_fixtures.hpp"
#include "search/scheme_space.hpp"

namespace kapla::search {
namespace {

using mapping::NodeRegion;
using mapping::RegionType;

// The bound and the price add the same products in different orders (the segment bound
// lowers its sums by 1e-9 relative for that, segment_bound.hpp).
constexpr double kRounding = 1 + 1e-12;

struct Checked {
  std::size_t schemes = 0;
  double tightest = 0;  // the largest bound / price
  // The refetch floor (pricing/refetch_bound.hpp) against the terms it bounds.
  std::size_t raised = 0;       // problems where it is above the one-pass terms
  double refetch_tightest = 0;  // the largest floor / (ITCN + stored GBUF + NoC energy)
  std::size_t time_met = 0;     // schemes whose processing time is the time floor
};

// The energy the refetch floor bounds: ITCN, GBUF of the categories that may not bypass it,
// NoC.
double refetch_terms(const pricing::LayerProblem& p, const pricing::LayerSchedule& s) {
  double e = s.cost_noc;
  for (auto d : all_values<DataCategory>()) {
    e += p.costs.mem_hier[MemLevel::Itcn] * s.access[MemLevel::Itcn][d];
    if (!p.options.sw_gbuf_bypass[d])
      e += p.costs.mem_hier[MemLevel::Gbuf] * s.access[MemLevel::Gbuf][d];
  }
  return e;
}

// Draws `draws` points of B's space and checks the bound, with the refetch floor, on each
// valid one.
void check_sampled(const pricing::LayerProblem& p, std::uint64_t seed, int draws, Checked& out) {
  const SchemeSpace space = SchemeSpace::of_problem(p);
  if (space.empty()) return;
  const auto evaluate = cost_model_evaluator(p, space);
  const auto floor = pricing::refetch_bound(p);
  const auto bound = pricing::layer_cost_bound(p, floor);
  if (bound.energy > pricing::layer_cost_bound(p).energy) ++out.raised;
  Rng rng(seed);
  for (int i = 0; i < draws; ++i) {
    const auto s = evaluate(space.sample(rng));
    if (!s) continue;
    ++out.schemes;
    const double energy = s->cost - s->cost_static;
    EXPECT_LE(bound.energy, energy * kRounding) << std::setprecision(17) << bound.energy << " > "
                                                << energy << ", " << model::describe(p.layer);
    EXPECT_LE(bound.time, s->time) << model::describe(p.layer);
    EXPECT_LE(bound.dram_time, s->dram_time) << model::describe(p.layer);
    const double terms = refetch_terms(p, *s);
    EXPECT_LE(floor.energy, terms * kRounding) << std::setprecision(17) << floor.energy << " > "
                                               << terms << ", " << model::describe(p.layer);
    EXPECT_LE(floor.time, s->proc_time) << model::describe(p.layer);
    if (floor.time > 0 && floor.time == s->proc_time) ++out.time_met;
    out.tightest = std::max(out.tightest, bound.energy / energy);
    if (terms > 0) out.refetch_tightest = std::max(out.refetch_tightest, floor.energy / terms);
  }
}

std::vector<pricing::LayerProblem> golden_problems() {
  std::vector<pricing::LayerProblem> out;
  for (const char* file :
       {"/golden/nn_dataflow/layer_schedules.jsonl", "/golden/kapla/layer_schedules.jsonl"}) {
    for (const auto& r : io::golden::read_jsonl(std::string(KAPLA_TEST_DATA_DIR) + file))
      out.push_back(testing::problem_of(r));
  }
  return out;
}

// The reference's optimum (B's cost, static part included) is at least the bound plus the
// static energy of the bound's time.
TEST(LayerCostBound, BelowTheReferenceOptimum) {
  std::size_t n = 0;
  for (const char* file :
       {"/golden/nn_dataflow/layer_schedules.jsonl", "/golden/kapla/layer_schedules.jsonl"}) {
    for (const auto& r : io::golden::read_jsonl(std::string(KAPLA_TEST_DATA_DIR) + file)) {
      if (r.at("tops").empty()) continue;
      const auto p = testing::problem_of(r);
      const auto& top = r.at("tops").at(0);
      const double cost = io::golden::to_double(top.at("cost"));
      const double time = io::golden::to_double(top.at("time"));
      const auto b = pricing::layer_cost_bound(p);
      EXPECT_LE(b.energy + p.costs.idl_unit * b.time, cost * kRounding) << r.at("id");
      EXPECT_LE(b.time, time) << r.at("id");
      ++n;
    }
  }
  EXPECT_GT(n, 150u);
}

TEST(LayerCostBound, BelowSampledSchemesOfGoldenProblems) {
  Checked c;
  std::uint64_t seed = 1;
  for (const auto& p : golden_problems()) check_sampled(p, ++seed, 300, c);
  EXPECT_GT(c.schemes, 2000u);
  // The refetch floor lifts the bound on most problems and meets some scheme's terms.
  std::cout << "[refetch] raised on " << c.raised << " problems, floor / terms up to "
            << c.refetch_tightest << ", time floor met by " << c.time_met << " schemes\n";
  EXPECT_GT(c.time_met, 1000u);  // the processing time of many schemes is the floor itself
  EXPECT_GT(c.raised, 50u);
  EXPECT_GT(c.refetch_tightest, 0.6);
  EXPECT_GT(c.tightest, 0.5);  // not vacuous
}

// KAPLA's presets keep every category in GBUF, so the bound adds the GBUF words too.
TEST(LayerCostBound, BelowSampledSchemesWithKaplaOptions) {
  Checked c;
  std::uint64_t seed = 1000;
  for (auto p : golden_problems()) {
    if (p.options.sw_solve_loopblocking) continue;
    p.options = model::kapla_option_preset(++seed % 2 ? "inference" : "training");
    p.options.rs_fold_variants = seed % 3 == 0;  // K's and S's space: the fold variants too
    check_sampled(p, seed, 300, c);
  }
  EXPECT_GT(c.schemes, 2000u);
  // The refetch floor lifts the bound on most problems and meets some scheme's terms.
  std::cout << "[refetch] raised on " << c.raised << " problems, floor / terms up to "
            << c.refetch_tightest << "\n";
  EXPECT_GT(c.raised, 50u);
  EXPECT_GT(c.refetch_tightest, 0.6);
  EXPECT_GT(c.tightest, 0.5);
}

TEST(LayerCostBound, BelowSampledSchemesOnTheSystolicArray) {
  Checked c;
  std::uint64_t seed = 2000;
  for (auto p : golden_problems()) {
    if (p.layer.is_back() || p.layer.is_matmul()) continue;
    p.resource.array_mapping = model::ArrayMapping::Systolic;
    p.options.cost_model = model::CostModelVariant::Kapla;  // the fork's mapping
    check_sampled(p, ++seed, 300, c);
  }
  EXPECT_GT(c.schemes, 1000u);
  // The refetch floor lifts the bound on most problems and meets some scheme's terms.
  std::cout << "[refetch] raised on " << c.raised << " problems, floor / terms up to "
            << c.refetch_tightest << "\n";
  EXPECT_GT(c.raised, 50u);
  EXPECT_GT(c.refetch_tightest, 0.6);
}

// A 2x2 region in the middle of a 4x4 chip whose memory sits at the four corners (the cloud's
// 2-D memory): filters come from two hops away at least; the ofmaps go to the region to its
// right (one hop), or to the corners; with forwarding and without.
TEST(LayerCostBound, BelowSampledSchemesAwayFromTheMemory) {
  Checked c;
  std::uint64_t seed = 3000;
  const NodeRegion corners = NodeRegion::rectangle({2, 2}, {0, 0}, RegionType::Dram, {3, 3});
  const NodeRegion middle = NodeRegion::rectangle({2, 2}, {1, 1}, RegionType::Proc);
  const NodeRegion right = NodeRegion::rectangle({2, 1}, {1, 3}, RegionType::Proc);
  int k = 0;
  for (auto p : golden_problems()) {
    if (p.options.sw_solve_loopblocking || p.layer.is_back()) continue;
    ++k;
    if (k % 2 == 0) p.options = model::kapla_option_preset("inference");
    p.options.hw_access_forwarding = k % 3 != 0;
    p.resource.proc_region = middle;
    p.resource.dram_region = corners;
    p.resource.src_data_region = corners;
    p.resource.dst_data_region = k % 4 < 2 ? right : corners;
    p.ifmap_layout =
        mapping::input_layouts(p.layer.nifm, p.layer.sifm, p.batch, corners, p.options).front();
    check_sampled(p, ++seed, 200, c);
  }
  EXPECT_GT(c.schemes, 1000u);
  // The refetch floor lifts the bound on most problems and meets some scheme's terms.
  std::cout << "[refetch] raised on " << c.raised << " problems, floor / terms up to "
            << c.refetch_tightest << "\n";
  EXPECT_GT(c.raised, 50u);
  EXPECT_GT(c.refetch_tightest, 0.6);
  EXPECT_GT(c.tightest, 0.5);
}

// The refetch floor's nests are layout-free and place-free, and it reads the constraint and
// the data places apart, so the network search remembers its nests by refetch_bound_key and
// applies each constraint and places: problems with equal keys, constraints and places must
// have equal floors (computed apart here), the
// memo must give refetch_bound's floor under any constraint, and what the floor reads must
// change the key.
// The floor's least nest energy, from its definition (docs/kapla_inter_layer.md §6, the
// refetch floor row) over every REGF tile: each X, each tile within loopcnt / top that fits
// the REGF, each category's fetches (the unrelated loops' trips down to the tile where it
// counts them under X, else 1) at least the forced ones, priced by the floor's own fit test
// and energy sum. refetch_bound.cpp walks only the staircase of those tiles.
double least_nest_energy_by_every_tile(const cost::NestedLoopDesc& n, double size_regf,
                                       double nodes, const model::UnitCosts& c,
                                       const PerDataCategory<bool>& stored,
                                       const PerLoopDim<std::int64_t>& top,
                                       const PerDataCategory<double>& forced) {
  std::array<std::vector<std::int64_t>, 3> divs;
  for (auto u : all_values<LoopDim>()) divs[index_of(u)] = divisors(n.loopcnt[u] / top[u]);
  double best = std::numeric_limits<double>::infinity();
  for (auto x : all_values<LoopDim>())
    for (auto ti : divs[0])
      for (auto to : divs[1])
        for (auto tb : divs[2]) {
          const PerLoopDim<std::int64_t> t2{{ti, to, tb}};
          if (!pricing::detail::may_fit_regf(n, t2, size_regf)) continue;
          PerDataCategory<double> fetch{};
          for (auto d : all_values<DataCategory>()) {
            double f = 1;
            if (!n.regf_reusable[d] || n.data_loops[d].contains(x))
              for (auto u : all_values<LoopDim>())
                if (!n.data_loops[d].contains(u)) f *= static_cast<double>(n.loopcnt[u] / t2[u]);
            fetch[d] = std::max(f, forced[d]);
          }
          best = std::min(best, pricing::detail::nest_energy_at(n, fetch, nodes, c, stored));
        }
  return best;
}

// The staircase walk gives the minimum over every tile, to the last bit, on the nests of every
// partition of the golden problems (forward kinds), free and under top factors, with and
// without forced fetches.
TEST(RefetchBound, LeastNestEnergyIsTheMinimumOverEveryTile) {
  std::int64_t nests = 0, differ = 0;
  for (const auto& p : golden_problems()) {
    if (p.layer.is_back()) continue;
    PerDataCategory<bool> stored{};
    for (auto d : all_values<DataCategory>()) stored[d] = !p.options.sw_gbuf_bypass[d];
    const auto size_regf = static_cast<double>(p.resource.size_regf);
    const auto parts =
        mapping::gen_partition(p.layer, p.batch, p.resource.proc_region.dim, p.options, true);
    for (std::size_t pi = 0; pi < parts.size(); ++pi) {
      const auto& part = parts[pi];
      const auto map =
          pricing::map_partitioned_layer(p, mapping::part_layer(p.layer, p.batch, part));
      const auto nodes = static_cast<double>(part.size());
      for (const auto& n : map.nlds)
        for (const PerLoopDim<std::int64_t> top :
             {PerLoopDim<std::int64_t>{{1, 1, 1}}, PerLoopDim<std::int64_t>{{1, 2, 2}}}) {
          bool divides = true;
          for (auto l : all_values<LoopDim>()) divides = divides && n.loopcnt[l] % top[l] == 0;
          const PerLoopDim<std::int64_t> one{{1, 1, 1}};
          if (!divides || least_nest_energy_by_every_tile(n, size_regf, nodes, p.costs, stored, one,
                                                          {{1, 1, 1}}) ==
                              std::numeric_limits<double>::infinity())
            continue;  // the smallest tile must fit
          for (const PerDataCategory<double> forced :
               {PerDataCategory<double>{{1, 1, 1}}, PerDataCategory<double>{{2, 3, 1}}}) {
            const double walk = pricing::detail::least_nest_energy(n, size_regf, nodes, p.costs,
                                                                   stored, top, forced);
            const double every =
                least_nest_energy_by_every_tile(n, size_regf, nodes, p.costs, stored, top, forced);
            EXPECT_EQ(walk, every) << model::describe(p.layer);
            differ += walk != every;
            ++nests;
          }
        }
    }
  }
  std::cout << "[least nest energy] " << nests << " nests, tops and forced fetches, " << differ
            << " off\n";
  EXPECT_EQ(nests, 2326);
}

// RefetchBounds::release drops the nests of one layer shape (pricing::layer_scope) and keeps
// the others': a floor asked for again is collected again, to the same values.
TEST(RefetchBound, ReleaseDropsOneLayerShape) {
  const auto problems = golden_problems();
  std::size_t released = 0;
  for (std::size_t i = 0; i + 1 < problems.size(); i += 11) {
    auto p = problems[i];
    auto q = problems[i + 1];
    if (p.layer.is_back() || pricing::layer_scope(p) == pricing::layer_scope(q)) continue;
    pricing::RefetchBounds memo;
    auto* qn = memo.nests(q);
    const auto before = memo(p);
    ASSERT_EQ(memo.held(), 2u);
    memo.release(pricing::layer_scope(p));
    EXPECT_EQ(memo.held(), 1u);
    EXPECT_EQ(memo.nests(q), qn) << model::describe(q.layer);  // q's kept
    const auto after = memo(p);
    EXPECT_EQ(after.energy, before.energy) << model::describe(p.layer);
    EXPECT_EQ(after.time, before.time) << model::describe(p.layer);
    EXPECT_EQ(after.filters_may_stay, before.filters_may_stay);
    ++released;
  }
  EXPECT_GT(released, 5u);
}

TEST(RefetchBound, KeyHoldsWhatTheFloorReads) {
  const auto problems = golden_problems();
  std::size_t compared = 0, constrained = 0;
  for (std::size_t i = 0; i < problems.size(); i += 7) {
    auto p = problems[i];
    if (p.layer.is_back()) continue;
    p.options = model::kapla_option_preset("inference");
    auto q = p;  // another place and another layout
    q.resource.proc_region.origin = {q.resource.proc_region.origin.h + 1, 0};
    q.ifmap_layout = {};
    ASSERT_EQ(pricing::refetch_bound_key(p), pricing::refetch_bound_key(q));
    // The nests are the key's: p's floor from q's nests, at p's data places.
    const auto fp = pricing::refetch_bound(p);
    pricing::RefetchBounds memo;
    const auto fq = memo.floor(memo.nests(q), p, memo.places(pricing::data_places(p)));
    EXPECT_EQ(fp.energy, fq.energy) << model::describe(p.layer);
    EXPECT_EQ(fp.time, fq.time) << model::describe(p.layer);
    EXPECT_EQ(fp.filters_may_stay, fq.filters_may_stay) << model::describe(p.layer);
    EXPECT_EQ(memo(p).energy, fp.energy);
    // Elsewhere and without a layout the first reads differ: the memo keeps them apart.
    EXPECT_NE(pricing::data_places(p), pricing::data_places(q));
    EXPECT_EQ(memo(q).energy, pricing::refetch_bound(q).energy) << model::describe(p.layer);
    EXPECT_EQ(memo(q).time, fp.time);
    // Another constraint: same key, the memo's nests, the constraint's floor.
    for (const pricing::LayerConstraint c : {pricing::LayerConstraint{2, 0, 1, false, true},
                                             pricing::LayerConstraint{0, 0, 2, false, false}}) {
      auto r = p;
      r.constraint = c;
      ASSERT_EQ(pricing::refetch_bound_key(r), pricing::refetch_bound_key(p));
      const auto fr = pricing::refetch_bound(r);
      EXPECT_EQ(memo(r).energy, fr.energy) << model::describe(p.layer);
      EXPECT_EQ(memo(r).time, fr.time) << model::describe(p.layer);
      constrained += fr.energy != fp.energy ? 1 : 0;
    }
    auto r = p;  // what it reads: the REGF and GBUF sizes, the batch, pinning
    r.resource.size_regf += 1;
    EXPECT_NE(pricing::refetch_bound_key(r), pricing::refetch_bound_key(p));
    r = p;
    r.batch += 1;
    EXPECT_NE(pricing::refetch_bound_key(r), pricing::refetch_bound_key(p));
    r = p;
    r.resource.size_gbuf += 1;
    EXPECT_NE(pricing::refetch_bound_key(r), pricing::refetch_bound_key(p));
    r = p;
    r.resource.no_time_mux = !r.resource.no_time_mux;
    EXPECT_NE(pricing::refetch_bound_key(r), pricing::refetch_bound_key(p));
    ++compared;
  }
  EXPECT_GT(compared, 15u);
  EXPECT_GT(constrained, 5u);  // the constraint moves some floors
}

// nearest_source_hops by hand: a 4x4 chip with memory at its corners (the cloud's 2-D memory
// on a small chip), and a region two rows below another.
TEST(RefetchBound, NearestSourceHopsByHand) {
  const NodeRegion chip = NodeRegion::rectangle({4, 4}, {0, 0}, RegionType::Proc);
  const NodeRegion corners = NodeRegion::rectangle({2, 2}, {0, 0}, RegionType::Dram, {3, 3});
  // 4 corner nodes at 0 hops, 8 edge nodes at 1, the 4 middle ones at 2.
  EXPECT_EQ(pricing::nearest_source_hops(chip, {corners}),
            (std::vector<std::int64_t>{0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16}));
  const NodeRegion top = NodeRegion::rectangle({2, 2}, {0, 0}, RegionType::Proc);
  const NodeRegion below = NodeRegion::rectangle({2, 2}, {2, 0}, RegionType::Proc);
  EXPECT_EQ(pricing::nearest_source_hops(below, {top}), (std::vector<std::int64_t>{0, 1, 2, 4, 6}));
  // Two places: the nearest of either; a region on the places themselves.
  EXPECT_EQ(pricing::nearest_source_hops(below, {top, below}),
            (std::vector<std::int64_t>{0, 0, 0, 0, 0}));
  EXPECT_TRUE(pricing::nearest_source_hops(below, {}).empty());
}

// The same against every node of the places, on the stripes a 16 x 16 chip is cut into for
// pipelining (folded ones among them) and the cloud's memory corners.
TEST(RefetchBound, NearestSourceHopsAgainstEveryNode) {
  const NodeRegion chip = NodeRegion::rectangle({16, 16}, {0, 0}, RegionType::Proc);
  const NodeRegion corners = NodeRegion::rectangle({2, 2}, {0, 0}, RegionType::Dram, {15, 15});
  std::vector<NodeRegion> regions{chip, corners};
  std::size_t folded = 0;
  for (const auto& req : std::vector<std::vector<std::int64_t>>{
           {40, 100, 116}, {64, 64, 128}, {24, 72, 160}, {8, 8, 240}}) {
    for (const auto& r : chip.allocate(req)) {
      regions.push_back(r);
      folded += r.effective_wtot() != r.dim.w || r.effective_wbeg() != r.effective_wtot() ? 1 : 0;
    }
  }
  EXPECT_GT(folded, 2u);
  for (const auto& proc : regions) {
    for (const auto& a : regions) {
      for (const auto& b : regions) {
        std::vector<std::int64_t> hops;
        for (const auto& n : proc.nodes()) {
          std::int64_t d = std::numeric_limits<std::int64_t>::max();
          for (const auto& r : {a, b})
            for (const auto& m : r.nodes()) d = std::min(d, n.hop_dist(m));
          hops.push_back(d);
        }
        std::sort(hops.begin(), hops.end());
        std::vector<std::int64_t> want{0};
        for (auto h : hops) want.push_back(want.back() + h);
        EXPECT_EQ(pricing::nearest_source_hops(proc, {a, b}), want);
      }
    }
  }
}

// The first reads (each distinct ifmap range read once from the nearest place its pieces may
// lie, each ofmap range's read and accumulation at the nearest of its nodes), and then each
// partition's own ofmap reads (from where it stores them), raise the floor of layers on a chip
// whose memory sits at its corners, where most nodes are away from it; the floor stays below
// every drawn scheme's terms.
TEST(RefetchBound, FirstReadsRaiseTheFloorAwayFromTheMemory) {
  const NodeRegion corners = NodeRegion::rectangle({2, 2}, {0, 0}, RegionType::Dram, {3, 3});
  const NodeRegion chip = NodeRegion::rectangle({4, 4}, {0, 0}, RegionType::Proc);
  std::size_t raised_ifm = 0, raised_ofm = 0, raised_reads = 0, n = 0;
  Checked c;
  for (auto p : golden_problems()) {
    if (p.layer.is_back()) continue;
    p.options = model::kapla_option_preset("inference");
    p.resource.proc_region = chip;
    p.resource.dram_region = corners;
    p.resource.src_data_region = corners;
    p.resource.dst_data_region = corners;
    p.ifmap_layout =
        mapping::input_layouts(p.layer.nifm, p.layer.sifm, p.batch, corners, p.options).front();
    pricing::RefetchBounds memo;
    auto* nests = memo.nests(p);
    const auto places = pricing::data_places(p);
    // Without the partitions' own ofmap reads (which do not read the places) first.
    const double none = memo.floor(nests, p, memo.places({}), false).energy;
    const double ifm = memo.floor(nests, p, memo.places({places.ifmap_hops, {}}), false).energy;
    const double both = memo.floor(nests, p, memo.places(places), false).energy;
    const double reads = memo.floor(nests, p, memo.places(places)).energy;
    EXPECT_EQ(reads, pricing::refetch_bound(p).energy);
    EXPECT_LE(none, ifm);
    EXPECT_LE(ifm, both);
    EXPECT_LE(both, reads);
    raised_ifm += ifm > none ? 1 : 0;
    raised_ofm += both > ifm ? 1 : 0;
    raised_reads += reads > both ? 1 : 0;
    ++n;
    check_sampled(p, 4000 + n, 100, c);
  }
  EXPECT_GT(c.schemes, 1000u);
  std::cout << "[first reads] " << n << " problems: the ifmaps' raise the floor on " << raised_ifm
            << ", the ofmaps' on " << raised_ofm << ", the partitions' ofmap reads on "
            << raised_reads << "\n";
  EXPECT_GT(raised_ifm, n / 4);
  EXPECT_GT(raised_ofm, n / 4);
  EXPECT_GT(raised_reads, n / 4);
}

// The partitions' ofmap reads are remembered by the regions' shapes and the shift between
// them (hops are distances): the golden problems on a chip and memory corners moved together
// get the same floor, from a memo that found the first placement's reads and afresh, and the
// floor with the reads is at least the one without.
TEST(RefetchBound, OfmapReadsMoveWithTheRegions) {
  std::size_t n = 0, raised = 0;
  for (auto p : golden_problems()) {
    if (p.layer.is_back()) continue;
    p.options = model::kapla_option_preset("inference");
    pricing::RefetchBounds memo;
    std::optional<double> first;
    for (const PhyDim2 at : {PhyDim2{0, 0}, PhyDim2{3, 5}}) {
      const NodeRegion corners = NodeRegion::rectangle({2, 2}, at, RegionType::Dram, {3, 3});
      p.resource.proc_region = NodeRegion::rectangle({4, 4}, at, RegionType::Proc);
      p.resource.dram_region = corners;
      p.resource.src_data_region = corners;
      p.resource.dst_data_region = corners;
      p.ifmap_layout =
          mapping::input_layouts(p.layer.nifm, p.layer.sifm, p.batch, corners, p.options).front();
      const auto places = memo.places(pricing::data_places(p));
      const double remembered = memo.floor(memo.nests(p), p, places).energy;
      EXPECT_EQ(remembered, pricing::refetch_bound(p).energy) << model::describe(p.layer);
      if (first) EXPECT_EQ(remembered, *first) << model::describe(p.layer);
      first = remembered;
      const double without = memo.floor(memo.nests(p), p, places, false).energy;
      EXPECT_LE(without, remembered);
      raised += remembered > without ? 1 : 0;
    }
    ++n;
  }
  EXPECT_GT(n, 50u);
  EXPECT_GT(raised, n / 2);
}

// min_filter_fetches and min_ifmap_fetches with the refetch floor claim top-level fetch
// counts the capacities force: no partition and nest keeps a node's filter slice on chip
// across a constrained BAT loop (RefetchFloor::filters_may_stay), or a BAT block of its ifmaps
// across a constrained OFM loop (least_ifmap_gbuf, least_ifmap_regf). The golden problems
// under topbat = 2, topofm = 2 or both, with their options and KAPLA's inference ones (buffer
// sharing) and smaller GBUFs (so that the claims are made), each against the schemes B's
// space holds: every valid scheme fetches at least the claimed counts, and its ITCN, stored
// GBUF and NoC energy and its processing time are at least the floor under the constraint.
TEST(RefetchBound, ClaimedTopLevelFetchesHold) {
  PerDataCategory<std::size_t> claimed{}, met{}, once{};
  std::size_t raised = 0;  // problems whose refetch floor the constraint raises
  std::uint64_t seed = 5000;
  for (auto p : golden_problems()) {
    if (p.layer.is_back() || !p.layer.has_filter() || p.layer.is_matmul() || p.batch % 2 != 0)
      continue;
    for (const pricing::LayerConstraint c : {pricing::LayerConstraint{2, 0, 0, false, false},
                                             pricing::LayerConstraint{0, 0, 2, false, false},
                                             pricing::LayerConstraint{2, 0, 2, false, false}}) {
      for (const std::int64_t shrink : {1, 8, 64, -8, -64}) {
        auto q = p;
        q.constraint = c;
        // Negative: KAPLA's inference options, with buffer sharing.
        if (shrink < 0) q.options = model::kapla_option_preset("inference");
        q.resource.size_gbuf = std::max<std::int64_t>(1, p.resource.size_gbuf / std::abs(shrink));
        const auto floor = pricing::refetch_bound(q);
        auto free = q;
        free.constraint = {};
        raised += floor.energy > pricing::refetch_bound(free).energy ? 1 : 0;
        PerDataCategory<double> least{}, unclaimed{};
        least[DataCategory::Fil] = pricing::min_filter_fetches(q, floor);
        least[DataCategory::Ifm] = pricing::min_ifmap_fetches(q, floor);
        unclaimed[DataCategory::Fil] = pricing::min_filter_fetches(q);
        unclaimed[DataCategory::Ifm] = pricing::min_ifmap_fetches(q);
        const SchemeSpace space = SchemeSpace::of_problem(q);
        if (space.empty()) continue;
        const auto evaluate = cost_model_evaluator(q, space);
        Rng rng(++seed);
        for (auto d : {DataCategory::Fil, DataCategory::Ifm})
          claimed[d] += least[d] > unclaimed[d] ? 1 : 0;
        for (int i = 0; i < 150; ++i) {
          const auto s = evaluate(space.sample(rng));
          if (!s) continue;
          // The floor under the constraint, against the terms it bounds.
          EXPECT_LE(floor.energy, refetch_terms(q, *s) * kRounding)
              << model::describe(q.layer) << ", GBUF " << q.resource.size_gbuf;
          EXPECT_LE(floor.time, s->proc_time) << model::describe(q.layer);
          for (auto d : {DataCategory::Fil, DataCategory::Ifm}) {
            EXPECT_GE(s->fetch[0][d], least[d])
                << model::describe(q.layer) << ", GBUF " << q.resource.size_gbuf << ", category "
                << static_cast<int>(d);
            met[d] += least[d] > unclaimed[d] ? 1 : 0;
            once[d] += s->fetch[0][d] <= 1 ? 1 : 0;
          }
        }
      }
    }
  }
  std::cout << "[fetches] filters: claimed on " << claimed[DataCategory::Fil] << " problems, "
            << met[DataCategory::Fil] << " schemes there, " << once[DataCategory::Fil]
            << " fetch at most once; ifmaps: " << claimed[DataCategory::Ifm] << ", "
            << met[DataCategory::Ifm] << ", " << once[DataCategory::Ifm]
            << "; the constraint raises the refetch floor on " << raised << "\n";
  EXPECT_GT(raised, 100u);
  for (auto d : {DataCategory::Fil, DataCategory::Ifm}) {
    EXPECT_GT(claimed[d], 20u);
    EXPECT_GT(met[d], 200u);
    EXPECT_GT(once[d], 200u);
  }
}

}  // namespace
}  // namespace kapla::search
