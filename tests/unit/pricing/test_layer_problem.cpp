// The problem key (memo and cache keys of every search): equal for equal problems, different
// when any input a search reads differs, blind to sched_seq, and to the ifmap layout only
// when asked. A key that merged two problems would hand one problem's schedules to another.
#include "pricing/layer_problem.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mapping/data_layout_ops.hpp"
#include "model/layer.hpp"
#include "schedule/resource_builder.hpp"

namespace kapla::pricing {
namespace {

LayerProblem base_problem() {
  model::Hardware hw;
  hw.name = "test";
  hw.nodes = {4, 4};
  hw.pe_array = {4, 4};
  hw.gbuf_bytes = 4096;
  hw.regf_bytes = 64;
  hw.word_bits = 16;
  hw.array_bus_width_bits = 64;
  hw.dram_bandwidth_bytes_per_cycle = 16;
  LayerProblem p;
  p.layer = model::make_conv(8, 16, {6, 6}, {3, 3});
  p.batch = 4;
  p.resource = schedule::build_resource(hw);
  p.costs = hw.costs;
  p.options.partition_hybrid = true;
  p.ifmap_layout = mapping::input_layouts(p.layer.nifm, p.layer.sifm, p.batch,
                                          p.resource.src_data_region, p.options)
                       .front();
  return p;
}

TEST(ProblemKey, TellsApartEveryInputButSchedSeq) {
  const LayerProblem base = base_problem();
  using Change = std::pair<std::string, std::function<void(LayerProblem&)>>;
  const std::vector<Change> changes = {
      {"layer nofm", [](LayerProblem& p) { p.layer.nofm = 32; }},
      {"layer stride",
       [](LayerProblem& p) {
         p.layer.strd = {2, 2};
       }},
      {"layer kind",
       [](LayerProblem& p) {
         p.layer = model::make_fc(8, 16, {6, 6});
       }},
      {"batch", [](LayerProblem& p) { p.batch = 8; }},
      {"proc origin", [](LayerProblem& p) { p.resource.proc_region.origin.w += 1; }},
      {"dst region", [](LayerProblem& p) { p.resource.dst_data_region.dim.h += 1; }},
      {"array mapping",
       [](LayerProblem& p) { p.resource.array_mapping = model::ArrayMapping::Systolic; }},
      {"gbuf", [](LayerProblem& p) { p.resource.size_gbuf += 1; }},
      {"bus width", [](LayerProblem& p) { p.resource.array_bus_width = 5; }},
      // Doubles one ulp apart, and infinity against the largest finite value.
      {"dram bandwidth ulp",
       [](LayerProblem& p) {
         p.resource.dram_bandwidth = std::nextafter(p.resource.dram_bandwidth, 0.0);
       }},
      {"dram bandwidth inf",
       [](LayerProblem& p) {
         p.resource.dram_bandwidth = std::numeric_limits<double>::infinity();
       }},
      {"dram bandwidth max",
       [](LayerProblem& p) { p.resource.dram_bandwidth = std::numeric_limits<double>::max(); }},
      {"no time mux", [](LayerProblem& p) { p.resource.no_time_mux = true; }},
      {"topbat", [](LayerProblem& p) { p.constraint.topbat = 2; }},
      {"fbofm", [](LayerProblem& p) { p.constraint.fbofm = true; }},
      {"bypass", [](LayerProblem& p) { p.options.sw_gbuf_bypass[DataCategory::Ofm] = true; }},
      {"goal", [](LayerProblem& p) { p.options.opt_goal = model::Goal::Delay; }},
      {"ntops", [](LayerProblem& p) { p.options.ntops = 2; }},
      {"imperfect", [](LayerProblem& p) { p.options.imperfect = model::Imperfect::Spatial; }},
      {"hop cost", [](LayerProblem& p) { p.costs.noc_hop *= 1.0 + 1e-15; }},
      {"idle cost", [](LayerProblem& p) { p.costs.idl_unit += 1; }},
  };
  for (const bool with_layout : {false, true}) {
    const std::string key = problem_key(base, with_layout);
    EXPECT_EQ(problem_key(base_problem(), with_layout), key);
    auto seq = base;
    seq.sched_seq = {3, 1, 2};
    EXPECT_EQ(problem_key(seq, with_layout), key);
    std::set<std::string> keys{key};
    for (const auto& [what, change] : changes) {
      auto p = base;
      change(p);
      EXPECT_TRUE(keys.insert(problem_key(p, with_layout)).second)
          << what << (with_layout ? " (with layout)" : "");
    }
  }
  // The layout counts only when asked for.
  const auto layouts = mapping::input_layouts(base.layer.nifm, base.layer.sifm, base.batch,
                                              base.resource.src_data_region, base.options);
  ASSERT_GE(layouts.size(), 2u);
  auto other = base;
  other.ifmap_layout = layouts.back();
  EXPECT_EQ(problem_key(other, false), problem_key(base, false));
  EXPECT_NE(problem_key(other, true), problem_key(base, true));
}

}  // namespace
}  // namespace kapla::pricing
