// How far KAPLA's private estimator (estimator.hpp, kapla-spec.md §1.4) agrees with the one cost
// model on the SAME canonical schemes. For each layer, a deterministic sample of S's canonical
// space (every k-th candidate of its enumeration order, valid ones only) is priced twice:
//   (a) estimate(build_directives(scheme)).energy, and
//   (b) the one cost model's cost_op + cost_access (NoC hops and idle/static energy left out,
//       as the estimator does not model them).
// Per layer we measure the Spearman rank correlation of (a) and (b), the median and max of
// (a)/(b), and where the estimator's pick (argmin a) ranks under (b). The asserted bounds are
// the measured figures with a small margin, so a regression of the estimator or the directive
// builder fails the test; the measured figures are printed ("[est-vs-cost]") for the docs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/math.hpp"
#include "estimator.hpp"
#include "mapping/data_layout_ops.hpp"
#include "mapping/part_layer.hpp"
#include "schedule/resource_builder.hpp"
#include "search/kapla/cost_oracle.hpp"
#include "search/kapla/directive_builder.hpp"
#include "search/kapla/exhaustive.hpp"

namespace kapla::search::kapla {
namespace {

// kapla_quality's micro hardware: `nodes` of 8x8 PEs, 64 KB GBUF, 64 B REGF, batch 4, the
// training options (hybrid, batch and ifmap partitioning, GBUF sharing).
pricing::LayerProblem micro_problem(const model::Layer& layer, PhyDim2 nodes) {
  model::Hardware hw;
  hw.nodes = nodes;
  hw.pe_array = {8, 8};
  hw.gbuf_bytes = 65536;
  hw.regf_bytes = 64;
  hw.array_bus_width_bits = 128;
  hw.dram_bandwidth_bytes_per_cycle = 51.2;
  hw.costs = {9.984e-13,
              {{4.0189027539954336e-10, 2.832545e-12, 1.6416e-12, 9.40885e-14}},
              9.76e-12,
              1.2728688e-09};
  model::SearchOptions o;
  o.hw_gbuf_sharing = true;
  o.partition_hybrid = o.partition_batch = o.partition_ifmaps = true;
  pricing::LayerProblem p;
  p.layer = layer;
  p.batch = 4;
  p.resource = schedule::build_resource(hw);
  p.costs = hw.costs;
  p.options = o;
  p.ifmap_layout =
      mapping::input_layouts(layer.nifm, layer.sifm, 4, p.resource.src_data_region, o).front();
  return p;
}

// Visits every candidate of S's enumeration (search_partition in exhaustive.cpp: partitions x
// nests x 3-level factorizations that pass the capacity check x canonical order pairs), in
// S's order, without pricing it.
template <typename Visit>
void for_each_candidate(const CostOracle& o, Visit&& visit) {
  const auto orders = loop_orders();
  const auto top = o.top_constraint();
  auto factors = [](std::int64_t cnt, std::int64_t t) {
    auto all = factorize(cnt, 3);
    if (t > 0) std::erase_if(all, [t](const auto& f) { return f[0] != t; });
    return all;
  };
  for (const auto& part : o.partitions()) {
    const auto nests_ref = o.nests(part);
    const auto& nests = *nests_ref;
    for (std::size_t ni = 0; ni < nests.size(); ++ni) {
      const auto& n = nests[ni];
      const auto cap = o.capacity(part, static_cast<int>(ni));
      const auto fi = factors(n.loopcnt[LoopDim::Ifm], top[LoopDim::Ifm]);
      const auto fo = factors(n.loopcnt[LoopDim::Ofm], top[LoopDim::Ofm]);
      const auto fb = factors(n.loopcnt[LoopDim::Bat], top[LoopDim::Bat]);
      for (const auto& a : fi)
        for (const auto& b : fo)
          for (const auto& c : fb) {
            CanonicalScheme s;
            s.part = part;
            s.nest_index = static_cast<int>(ni);
            for (std::size_t k = 0; k < 3; ++k)
              s.blocking.bl_ts[k] = PerLoopDim<std::int64_t>{{a[k], b[k], c[k]}};
            if (!fits(n, s.blocking, cap)) continue;
            for (const auto& o0 : orders) {
              if (!is_canonical_order(s.blocking.bl_ts[0], o0)) continue;
              for (const auto& o1 : orders) {
                if (!is_canonical_order(s.blocking.bl_ts[1], o1)) continue;
                s.blocking.bl_ords = {o0, o1};
                visit(s, n);
              }
            }
          }
    }
  }
}

struct PricedPair {
  double estimator = 0;   // (a)
  double cost_model = 0;  // (b): dynamic energy without NoC hops
  double total = 0;       // the one cost model's full cost (what K and S minimize)
};

// Every k-th candidate (k chosen so that about `target` are visited), the valid ones priced.
std::vector<PricedPair> sample(const pricing::LayerProblem& p, std::int64_t target,
                               std::int64_t& candidates) {
  const CostOracle oracle(p);
  candidates = 0;
  for_each_candidate(oracle, [&](const CanonicalScheme&, const NodeNest&) { ++candidates; });
  const std::int64_t stride = std::max<std::int64_t>(1, candidates / target);
  std::vector<PricedPair> out;
  std::int64_t i = 0;
  for_each_candidate(oracle, [&](const CanonicalScheme& s, const NodeNest& n) {
    if (i++ % stride != 0) return;
    const auto sched = oracle.schedule(s);
    if (!sched) return;  // invalid under the one cost model (constraint, spilling)
    const auto pl = mapping::part_layer(p.layer, p.batch, s.part);
    const auto d = build_directives(p.layer, pl, s, n, p.resource.dim_array, "layer");
    out.push_back({estimate(d, p.costs).energy, sched->cost_op + sched->cost_access, sched->cost});
  });
  return out;
}

// Ranks 1..n with ties sharing their average rank.
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](auto a, auto b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < idx.size();) {
    std::size_t j = i;
    while (j < idx.size() && v[idx[j]] == v[idx[i]]) ++j;
    const double avg = (static_cast<double>(i + j - 1)) / 2 + 1;
    for (std::size_t k = i; k < j; ++k) r[idx[k]] = avg;
    i = j;
  }
  return r;
}

// Pearson correlation of the ranks (Spearman's rho with ties).
double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  const auto rx = ranks(x);
  const auto ry = ranks(y);
  const double n = static_cast<double>(rx.size());
  const double mx = std::accumulate(rx.begin(), rx.end(), 0.0) / n;
  const double my = std::accumulate(ry.begin(), ry.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 1.0;
}

struct Agreement {
  std::int64_t candidates = 0;
  std::size_t valid = 0;
  double spearman = 0;
  double median_ratio = 0;  // median of (a)/(b)
  double min_ratio = 0;
  double max_ratio = 0;
  bool pick_is_best = false;   // the estimator's argmin is also (b)'s minimum
  double pick_percentile = 0;  // share of sampled schemes strictly better than the pick under (b)
  double pick_over_best = 0;   // (b) of the pick / min (b)
  double pick_total_percentile = 0;  // the same percentile under the full cost
  double pick_total_over_best = 0;   // full cost of the pick / min full cost
};

// Share (percent) of `v` strictly below v[i], and v[i] / min(v).
std::pair<double, double> rank_of(const std::vector<double>& v, std::size_t i) {
  const auto below = std::count_if(v.begin(), v.end(), [&](double x) { return x < v[i]; });
  return {100.0 * static_cast<double>(below) / static_cast<double>(v.size()),
          v[i] / *std::min_element(v.begin(), v.end())};
}

Agreement measure(const std::vector<PricedPair>& pairs, std::int64_t candidates) {
  Agreement a;
  a.candidates = candidates;
  a.valid = pairs.size();
  std::vector<double> est, cm, total, ratio;
  for (const auto& p : pairs) {
    est.push_back(p.estimator);
    cm.push_back(p.cost_model);
    total.push_back(p.total);
    ratio.push_back(p.estimator / p.cost_model);
  }
  a.spearman = spearman(est, cm);
  auto sorted = ratio;
  std::sort(sorted.begin(), sorted.end());
  a.median_ratio = sorted[sorted.size() / 2];
  a.min_ratio = sorted.front();
  a.max_ratio = sorted.back();
  const auto pick =
      static_cast<std::size_t>(std::min_element(est.begin(), est.end()) - est.begin());
  std::tie(a.pick_percentile, a.pick_over_best) = rank_of(cm, pick);
  a.pick_is_best = a.pick_over_best == 1;
  std::tie(a.pick_total_percentile, a.pick_total_over_best) = rank_of(total, pick);
  return a;
}

// One layer and the bounds its agreement must keep: the measured figures (printed below) with a
// small margin.
struct Case {
  std::string name;
  model::Layer layer;
  PhyDim2 nodes;
  double min_spearman;
  double max_pick_percentile;   // the estimator's pick among the best this % under (b)
  double median_lo, median_hi;  // bounds on the median of (a)/(b)
  double ratio_lo, ratio_hi;    // bounds on every (a)/(b)
};

class EstimatorVsCostModel : public ::testing::TestWithParam<int> {};

// pool and dwconv: a channelwise layer's K steps move C too (the builder's channel_update);
// before, they moved K alone, the estimator reused the IFM block across them and undercounted
// DRAM/GBUF IFM (min ratio 0.31 / 0.46, dwconv Spearman 0.10, its pick 10.5 % above the best).
// Measured with the fix: dwconv Spearman 0.904, pick the best, ratios 0.95-1.008; pool 1.0-1.003.
// conv_small and conv_back_w: partitions that split 3 channels into ceil pieces of 2 pad the
// per-node layer; the estimator now counts only the real MACs (DirectiveSchedule::occupancy,
// as the cost model's p_occupancy), which moved the medians from 1.015 / 1.011 to 1.005 /
// 1.001. Their max ratios (1.16, 1.32) did not move, so they come from elsewhere (not traced).
std::vector<Case> cases() {
  const PhyDim2 grid{4, 4}, one{1, 1};
  return {
      {"fc", model::make_fc(64, 32), grid, 0.99, 1, 0.999, 1.002, 0.999, 1.05},
      {"fc_back_act", model::make_fc_back_act(32, 64), grid, 0.995, 1, 0.999, 1.002, 0.999, 1.05},
      {"conv_small", model::make_conv(3, 8, {16, 16}, {3, 3}), grid, 0.98, 1, 1.0, 1.01, 0.94,
       1.18},
      {"conv_large", model::make_conv(32, 64, {28, 28}, {3, 3}), grid, 0.995, 0.1, 0.995, 1.006,
       0.86, 1.1},
      {"conv_large_1node", model::make_conv(32, 64, {28, 28}, {3, 3}), one, 0.995, 1, 0.985, 1.0,
       0.93, 1.02},
      {"pool", model::make_pooling(32, {14, 14}, {2, 2}), grid, 0.99, 1, 0.995, 1.005, 0.99, 1.01},
      {"dwconv", model::make_dwconv(32, {14, 14}, {3, 3}), grid, 0.89, 1, 0.98, 1.0, 0.94, 1.02},
      {"conv_back_w", model::make_conv_back_weight(8, 3, {18, 18}, {3, 3}), grid, 0.99, 1, 0.995,
       1.006, 0.94, 1.35},
  };
}

TEST_P(EstimatorVsCostModel, RanksAndRatiosStayWhereMeasured) {
  const auto c = cases().at(static_cast<std::size_t>(GetParam()));
  std::int64_t candidates = 0;
  const auto pairs = sample(micro_problem(c.layer, c.nodes), 20000, candidates);
  ASSERT_GE(pairs.size(), 20u) << c.name;
  const auto a = measure(pairs, candidates);
  std::cout << std::setprecision(6) << "[est-vs-cost] " << c.name << ": candidates " << a.candidates
            << ", sampled valid " << a.valid << ", spearman " << a.spearman << ", (a)/(b) median "
            << a.median_ratio << " min " << a.min_ratio << " max " << a.max_ratio << ", pick best "
            << (a.pick_is_best ? "yes" : "no") << ", pick percentile " << a.pick_percentile
            << "%, pick/best " << a.pick_over_best << "; full cost: pick percentile "
            << a.pick_total_percentile << "%, pick/best " << a.pick_total_over_best << "\n";
  EXPECT_GE(a.spearman, c.min_spearman) << c.name;
  EXPECT_LE(a.pick_percentile, c.max_pick_percentile) << c.name;
  EXPECT_GE(a.median_ratio, c.median_lo) << c.name;
  EXPECT_LE(a.median_ratio, c.median_hi) << c.name;
  EXPECT_GE(a.min_ratio, c.ratio_lo) << c.name;
  EXPECT_LE(a.max_ratio, c.ratio_hi) << c.name;
}

INSTANTIATE_TEST_SUITE_P(Layers, EstimatorVsCostModel,
                         ::testing::Range(0, static_cast<int>(cases().size())), [](const auto& p) {
                           return cases().at(static_cast<std::size_t>(p.param)).name;
                         });

}  // namespace
}  // namespace kapla::search::kapla
