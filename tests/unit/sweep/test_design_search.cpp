// The local search over hardware designs (sweep/design_search.hpp, search_rounds.hpp): exact
// neighbours, Pareto fronts and front gaps on hand-made cases; on a synthetic landscape the
// search is deterministic under its seed and finds the grid's whole front with a fraction of its
// designs; run in rounds through the sweep (fake runner, in-memory sink) it records each
// design's round and resumes after a stop to the same records.
#include "sweep/design_search.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "fake_runner.hpp"
#include "io/job_json.hpp"
#include "memory_sink.hpp"
#include "sweep/search_rounds.hpp"

namespace kapla::sweep {
namespace {

SweepSpec parse(const std::string& hardware, const std::string& networks = R"(["mlp_s"])") {
  const std::string job = R"({"name": "s", "networks": )" + networks + R"(, "hardware": [)" +
                          hardware + R"(], "strategies": ["kapla"], "output": "s.h5"})";
  return io::parse_job_text(job, "jobs/s.json", search::builtin_strategies(),
                            std::filesystem::path(KAPLA_SOURCE_DATA_DIR));
}

std::string error_of(const std::string& hardware) {
  try {
    parse(hardware);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// 6 PE shapes ({"h", "w"}: h-major, 2 columns) x 3 REGF sizes = 18 designs, grid order
// index = shape * 3 + regf.
const std::string kSmall = R"({"base": "eyeriss_45nm", "batch": 1,
    "axes": {"pe_array": {"h": [8, 12, 16], "w": [8, 12]}, "regf_bytes": [256, 512, 1024]},
    "sampling": {"local_search": {"objective": "energy", "initial": 4, "seed": 3}}})";

TEST(DesignSearch, NeighboursAreOneStepAlongOneAxis) {
  const auto spec = parse(kSmall);
  ASSERT_EQ(spec.searches.size(), 1u);
  const auto& s = spec.searches[0];
  ASSERT_EQ(s.grid.size(), 18u);
  EXPECT_EQ(s.grid[7].hardware.name, "eyeriss_45nm~pe12x8~regf512");
  // 12x8 steps to 12x12 (w) and 8x8, 16x8 (h), not to 8x12 (the previous in list order);
  // 512 to 256 and 1024.
  EXPECT_EQ(neighbours(s, 7), (std::vector<std::size_t>{1, 6, 8, 10, 13}));
  EXPECT_EQ(neighbours(s, 0), (std::vector<std::size_t>{1, 3, 6}));  // a corner: 8x8, 256
  // Radius 2 adds two steps along one axis: 8x8 to 16x8, 256 to 1024.
  std::string wide = kSmall;
  wide.replace(wide.find(R"("seed": 3)"), 9, R"("seed": 3, "radius": 2)");
  EXPECT_EQ(neighbours(parse(wide).searches[0], 0), (std::vector<std::size_t>{1, 2, 3, 6, 12}));
  // Round 0 is the job's hardware: `initial` seeded designs in grid order.
  ASSERT_EQ(s.initial.size(), 4u);
  ASSERT_EQ(spec.hardware.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(spec.hardware[k].name, s.grid[s.initial[k]].hardware.name);
  }
  EXPECT_TRUE(std::is_sorted(s.initial.begin(), s.initial.end()));
}

TEST(DesignSearch, AConstraintCutsTheNeighbourhood) {
  // 16x12 with 1024 register words is 2.64 mm^2, over the budget: 16x8 and 12x12 at 1024 lose
  // that neighbour.
  const auto spec = parse(R"({"base": "eyeriss_45nm", "batch": 1,
      "axes": {"pe_array": {"h": [8, 12, 16], "w": [8, 12]}, "regf_bytes": [256, 512, 1024]},
      "constraints": {"area_budget_mm2": 2.6},
      "sampling": {"local_search": {"objective": "edp", "initial": 2, "seed": 1}}})");
  const auto& s = spec.searches[0];
  ASSERT_EQ(s.grid.size(), 17u);
  EXPECT_EQ(s.grid.back().hardware.name, "eyeriss_45nm~pe16x12~regf512");
  EXPECT_EQ(s.grid[14].hardware.name, "eyeriss_45nm~pe16x8~regf1k");
  EXPECT_EQ(neighbours(s, 14), (std::vector<std::size_t>{8, 13}));  // 12x8~regf1k, 16x8~regf512
}

TEST(DesignSearch, ParetoFrontKeepsTiesAndDropsTheDominated) {
  const std::vector<DesignScore> d = {{1, 5}, {2, 4}, {2, 3}, {3, 3}, {1, 5}, {4, 1}, {5, 2}};
  EXPECT_EQ(pareto_front(d), (std::vector<std::size_t>{0, 2, 4, 5}));
  // Without a technology every area is 0: the front is the optimum.
  const std::vector<DesignScore> flat = {{0, 5}, {0, 1}, {0, 3}, {0, 1}};
  EXPECT_EQ(pareto_front(flat), (std::vector<std::size_t>{1, 3}));
  EXPECT_TRUE(pareto_front({}).empty());
}

TEST(DesignSearch, FrontGapIsTheMultiplicativeEpsilon) {
  const std::vector<DesignScore> ref = {{1, 10}, {2, 5}};
  // (1, 10) is met by (1, 10.5) within 5 %, (2, 5) by (2.1, 5) within 5 %.
  EXPECT_NEAR(front_gap(ref, {{1, 10.5}, {2.1, 5}}), 0.05, 1e-15);
  EXPECT_EQ(front_gap(ref, ref), 0.0);
  EXPECT_EQ(front_gap(ref, {{0.5, 1}}), 0.0);  // a better design
  EXPECT_EQ(front_gap(ref, {}), std::numeric_limits<double>::infinity());
  EXPECT_EQ(front_gap({{0, 2}}, {{0, 3}}), 0.5);  // no areas
}

TEST(DesignSearch, BadSettingsAreOneLineErrors) {
  const std::string space = R"({"base": "eyeriss_45nm", "batch": 1,
      "axes": {"regf_bytes": [256, 512, 1024]}, "sampling": )";
  const std::string at = "jobs/s.json: hardware[0].sampling";
  EXPECT_EQ(
      error_of(space + R"({"local_search": {"objective": "area", "initial": 1, "seed": 1}}})"),
      at + ".local_search.objective: must be \"energy\", \"time\" or \"edp\", got \"area\"");
  EXPECT_EQ(error_of(space + R"({"local_search": {"objective": "energy", "seed": 1}}})"),
            at + ".local_search.initial: missing required key");
  EXPECT_EQ(
      error_of(space + R"({"local_search": {"objective": "energy", "initial": 0, "seed": 1}}})"),
      at + ".local_search.initial: must be positive, got 0");
  EXPECT_EQ(
      error_of(space + R"({"local_search": {"objective": "energy", "initial": 1, "seed": -1}}})"),
      at + ".local_search.seed: must be >= 0, got -1");
  EXPECT_EQ(error_of(space + R"({"local_search": {"objective": "energy", "initial": 2, "seed": 1,
                                                   "max_designs": 1}}})"),
            at + ".local_search.max_designs: must be >= initial (2), got 1");
  EXPECT_EQ(error_of(space + R"({"local_search": {"objective": "energy", "initial": 1, "seed": 1,
                                                   "max_rounds": 0}}})"),
            at + ".local_search.max_rounds: must be positive, got 0");
  EXPECT_EQ(error_of(space + R"({"local_search": {"objective": "energy", "initial": 1, "seed": 1,
                                                   "rounds": 3}}})"),
            at + ".local_search.rounds: unknown key; allowed: objective, initial, seed, "
                 "radius, max_rounds, max_designs");
  EXPECT_EQ(error_of(space + R"({"local_search": {"objective": "energy", "initial": 1, "seed": 1,
                                                   "radius": 5000}}})"),
            at + ".local_search.radius: must be at most 4096, got 5000");
  EXPECT_EQ(
      error_of(space + R"({"local_search": {"objective": "energy", "initial": 4, "seed": 1}}})"),
      at + ".local_search.initial: asks for 4 designs, but only 3 meet the constraints (use "
           "\"grid\" for all)");
  EXPECT_EQ(error_of(space + R"({"random": {"count": 1, "seed": 1},
                                 "local_search": {"objective": "energy", "initial": 1, "seed": 1}}})"),
            at + ": needs exactly one of \"random\" and \"local_search\"");
  // A searched grid may price any of its designs: none may be listed elsewhere in the job.
  EXPECT_EQ(error_of(R"({"name": "eyeriss_45nm~regf512", "batch": 1}, )" + space +
                     R"({"local_search": {"objective": "energy", "initial": 1, "seed": 1}}})"),
            "jobs/s.json: hardware[1]: design 'eyeriss_45nm~regf512' is listed twice");
}

// --- A synthetic landscape ----------------------------------------------------------------

// 7 x 7 PE shapes x 3 REGF sizes x 4 GBUF sizes = 588 designs of Thistle's Eyeriss.
const std::string kLandscape = R"({"base": "eyeriss_45nm", "batch": 1, "axes": {
    "pe_array": {"h": {"from": 4, "to": 16, "step": 2}, "w": {"from": 4, "to": 16, "step": 2}},
    "gbuf_bytes": {"from": 32768, "to": 262144, "ratio": 2}, "regf_bytes": [256, 512, 1024]},
    "sampling": {"local_search": {"objective": "energy", "initial": 8, "seed": SEED}}})";

// `constraints`: a "constraints" object's text, or "" for none.
SweepSpec landscape(int seed, const std::string& constraints = "") {
  std::string text = kLandscape;
  text.replace(text.find("SEED"), 4, std::to_string(seed));
  if (!constraints.empty()) {
    text.replace(text.find(R"("sampling")"), 0, R"("constraints": )" + constraints + ", ");
  }
  return parse(text);
}

// Energy falls with the PEs (more reuse) and the GBUF and rises with the REGF: the front over
// area trades PEs against GBUF at the smallest REGF.
double synthetic_energy(const DesignParams& p) {
  return 1000.0 / static_cast<double>(p.pe_h * p.pe_w) + static_cast<double>(p.regf_bytes) / 512 +
         65536.0 / static_cast<double>(p.gbuf_bytes) + 0.01 * std::abs(p.pe_h - p.pe_w);
}

// The PE utilisation falls with the PEs: 48 / PEs, at most 1. A floor of 0.25 makes the
// arrays of more than 192 PEs (14x14, 14x16, 16x14, 16x16) infeasible: the lowest energies.
double synthetic_utilisation(const DesignParams& p) {
  return std::min(1.0, 48.0 / static_cast<double>(p.pe_h * p.pe_w));
}

std::vector<std::optional<DesignScore>> synthetic_scores(const DesignSearch& s,
                                                         const std::vector<bool>& priced) {
  std::vector<std::optional<DesignScore>> out(s.grid.size());
  for (std::size_t i = 0; i < s.grid.size(); ++i) {
    if (priced[i])
      out[i] = DesignScore{s.grid[i].params.area_mm2, synthetic_energy(s.grid[i].params)};
  }
  return out;
}

// The search's rounds on the synthetic scores: the designs priced, by round.
std::vector<std::vector<std::size_t>> search_rounds(const DesignSearch& s) {
  std::vector<bool> priced(s.grid.size(), false);
  std::vector<std::vector<std::size_t>> rounds{s.initial};
  for (const auto i : s.initial) priced[i] = true;
  for (std::size_t round = 1;; ++round) {
    const auto next = next_designs(s, synthetic_scores(s, priced), priced, round);
    if (next.empty()) return rounds;
    for (const auto i : next) priced[i] = true;
    rounds.push_back(next);
  }
}

std::vector<DesignScore> scores_of(const DesignSearch& s, const std::vector<std::size_t>& designs) {
  std::vector<DesignScore> out;
  for (const auto i : designs) {
    out.push_back({s.grid[i].params.area_mm2, synthetic_energy(s.grid[i].params)});
  }
  return out;
}

TEST(DesignSearch, FindsTheGridsFrontWithAFractionOfItsDesigns) {
  const auto spec = landscape(1);
  const auto& s = spec.searches[0];
  ASSERT_EQ(s.grid.size(), 588u);
  std::vector<std::size_t> all(s.grid.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const auto grid = scores_of(s, all);
  const auto rounds = search_rounds(s);
  std::vector<std::size_t> priced;
  for (const auto& r : rounds) priced.insert(priced.end(), r.begin(), r.end());
  const auto found = scores_of(s, priced);
  std::vector<DesignScore> grid_front;
  for (const auto i : pareto_front(grid)) grid_front.push_back(grid[i]);
  EXPECT_EQ(front_gap(grid_front, found), 0.0);
  // The optimum among them.
  double best = std::numeric_limits<double>::infinity();
  for (const auto& g : grid) best = std::min(best, g.value);
  double found_best = std::numeric_limits<double>::infinity();
  for (const auto& f : found) found_best = std::min(found_best, f.value);
  EXPECT_EQ(found_best, best);
  EXPECT_EQ(std::set<std::size_t>(priced.begin(), priced.end()).size(), priced.size());
  // 205 of 588 designs in 9 rounds, for the 55 designs of the grid's front.
  EXPECT_EQ(grid_front.size(), 55u);
  EXPECT_EQ(priced.size(), 205u);
  EXPECT_EQ(rounds.size(), 9u);
}

TEST(DesignSearch, IsDeterministicUnderItsSeed) {
  const auto a = search_rounds(landscape(1).searches[0]);
  EXPECT_EQ(search_rounds(landscape(1).searches[0]), a);
  const auto b = search_rounds(landscape(2).searches[0]);
  EXPECT_NE(b.front(), a.front());  // another round 0
}

TEST(DesignSearch, LimitsEndTheSearch) {
  auto spec = landscape(1);
  auto& s = spec.searches[0];
  const auto free = search_rounds(s);
  s.settings.max_rounds = 2;
  const auto two = search_rounds(s);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[1], free[1]);
  s.settings.max_rounds.reset();
  s.settings.max_designs = 20;
  std::size_t n = 0;
  for (const auto& r : search_rounds(s)) n += r.size();
  EXPECT_EQ(n, 20u);
}

// --- Through the sweep ----------------------------------------------------------------------

// Prices a tuple by its design's synthetic energy; "nosol..." networks find no schedule on
// designs with 256-byte register files.
class LandscapeRunner final : public TupleRunner {
 public:
  void check(const Tuple&) const override {}
  double estimate_cost(const Tuple&) const override { return 1; }
  TupleResult run(const Tuple& t, const RunContext&) const override {
    TupleResult r;
    if (t.network.rfind("nosol", 0) == 0 && t.design.regf_bytes == 256) {
      r.status = TupleStatus::NoSolution;
      return r;
    }
    r.energy = synthetic_energy(t.design);
    r.pe_utilisation = synthetic_utilisation(t.design);
    r.time = static_cast<double>(t.batch);
    r.edp = r.energy * r.time;
    r.total_cost = r.energy;
    return r;
  }
};

// Every round's sink writes to one in-memory store, as every round's Hdf5Sink to one file.
class SharedSink final : public ResultSink {
 public:
  explicit SharedSink(testing::MemorySink& store) : store_(store) {}
  std::set<std::string> existing_keys() override { return store_.existing_keys(); }
  void write(const TupleRecord& r) override { store_.write(r); }
  void finish() override { store_.finish(); }
  std::vector<TupleRecord> recorded() override { return store_.recorded(); }

 private:
  testing::MemorySink& store_;
};

RunSummary run_rounds(const SweepSpec& spec, const TupleRunner& runner,
                      testing::MemorySink& store) {
  auto comm = make_local_communicator();
  NullProgress progress;
  return run_search_rounds(
      spec, runner, *comm,
      [&store](const SweepSpec&) { return std::make_unique<SharedSink>(store); }, progress,
      RunOptions{});
}

std::string row(const TupleRecord& r, const std::string& name) {
  for (const auto& [k, v] : r.result.resolved) {
    if (k == name) return v;
  }
  return "(none)";
}

TEST(SearchRounds, PricesTheSearchsDesignsRoundByRound) {
  stop_flag().store(false);
  const auto spec = landscape(1);
  const auto rounds = search_rounds(spec.searches[0]);
  testing::MemorySink store;
  LandscapeRunner runner;
  const auto summary = run_rounds(spec, runner, store);
  EXPECT_FALSE(summary.interrupted);
  std::size_t designs = 0;
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    for (const auto i : rounds[r]) {
      const std::string key = "mlp_s:" + spec.searches[0].grid[i].hardware.name + ":kapla:b1:s1";
      ASSERT_TRUE(store.records.count(key)) << key;
      const auto& rec = store.records.at(key);
      EXPECT_EQ(row(rec, "search.round"), std::to_string(r));
      EXPECT_EQ(row(rec, "search.seed"), "1");
      EXPECT_EQ(row(rec, "search.objective"), "energy");
      EXPECT_EQ(row(rec, "search.max_rounds"), "none");
      ++designs;
    }
  }
  EXPECT_EQ(store.records.size(), designs);  // the same designs as the search on its own
  EXPECT_EQ(summary.done, designs);
  EXPECT_EQ(summary.total, designs);
  EXPECT_EQ(summary.skipped, 0u);
  EXPECT_EQ(store.finishes, static_cast<int>(rounds.size()));
}

TEST(SearchRounds, AStoppedSearchResumesToTheSameRecords) {
  const auto spec = landscape(1);
  LandscapeRunner runner;
  testing::MemorySink reference;
  stop_flag().store(false);
  run_rounds(spec, runner, reference);
  for (const int after : {3, 8, 20, 41}) {  // inside round 0 (8 designs), at its end, later
    testing::MemorySink store;
    stop_flag().store(false);
    testing::StoppingRunner stopping(runner, after);
    EXPECT_TRUE(run_rounds(spec, stopping, store).interrupted);
    EXPECT_EQ(store.records.size(), static_cast<std::size_t>(after));
    stop_flag().store(false);
    const auto resumed = run_rounds(spec, runner, store);
    EXPECT_FALSE(resumed.interrupted);
    EXPECT_EQ(resumed.skipped, static_cast<std::size_t>(after));
    EXPECT_EQ(store.writes, static_cast<int>(reference.records.size()));
    EXPECT_EQ(first_difference(reference.recorded(), store.recorded()), std::nullopt);
  }
}

// A design below the PE-utilisation floor is priced (its tuples are recorded) but infeasible:
// no score, so never on the front that steers the next round. Without the floor the grid's
// front holds the largest arrays; with it the search finds the front of the feasible designs.
TEST(SearchRounds, DesignsBelowTheUtilisationFloorAreOffTheFront) {
  stop_flag().store(false);
  auto pes = [](const DesignPoint& d) { return d.params.pe_h * d.params.pe_w; };
  const auto free = landscape(1);
  const auto& g = free.searches[0];
  std::vector<DesignScore> grid, feasible;
  std::vector<std::size_t> feasible_index;
  for (std::size_t i = 0; i < g.grid.size(); ++i) {
    grid.push_back({g.grid[i].params.area_mm2, synthetic_energy(g.grid[i].params)});
    if (synthetic_utilisation(g.grid[i].params) >= 0.25) {
      feasible.push_back(grid.back());
      feasible_index.push_back(i);
    }
  }
  ASSERT_EQ(feasible.size(), 588u - 4 * 12);  // 4 shapes over 192 PEs x 3 REGF x 4 GBUF
  std::size_t large_on_front = 0;
  for (const auto i : pareto_front(grid)) large_on_front += pes(g.grid[i]) > 192 ? 1 : 0;
  EXPECT_GT(large_on_front, 0u);  // what the floor will exclude
  std::vector<DesignScore> feasible_front;
  for (const auto i : pareto_front(feasible)) feasible_front.push_back(feasible[i]);

  const auto spec = landscape(1, R"({"min_pe_utilisation": 0.25})");
  testing::MemorySink store;
  LandscapeRunner runner;
  run_rounds(spec, runner, store);
  std::vector<const TupleRecord*> all;
  std::size_t below = 0;
  for (const auto& [key, r] : store.records) {
    all.push_back(&r);
    EXPECT_EQ(r.tuple.design.min_pe_utilisation, 0.25) << key;
    EXPECT_EQ(meets_utilisation_floor(r), r.tuple.design.pe_h * r.tuple.design.pe_w <= 192) << key;
    below += meets_utilisation_floor(r) ? 0 : 1;
  }
  EXPECT_GT(below, 0u);  // the search priced some infeasible designs, as neighbours
  std::vector<DesignScore> found;
  for (const auto& [hw, score] : score_records(all, SearchObjective::Energy)) {
    const auto& d = store.records.at("mlp_s:" + hw + ":kapla:b1:s1").tuple.design;
    EXPECT_EQ(score.has_value(), d.pe_h * d.pe_w <= 192) << hw;
    if (score) found.push_back(*score);
  }
  EXPECT_EQ(front_gap(feasible_front, found), 0.0);
  for (const auto i : pareto_front(found)) {
    EXPECT_NE(std::find(feasible_front.begin(), feasible_front.end(), found[i]),
              feasible_front.end());
  }
}

TEST(SearchRounds, ADesignWithoutAScheduleIsPricedWithoutAScore) {
  stop_flag().store(false);
  const auto spec = landscape(1);
  SweepSpec two = spec;
  two.networks = {"mlp_s", "nosol_net"};
  testing::MemorySink store;
  LandscapeRunner runner;
  run_rounds(two, runner, store);
  // Every design the search priced has both tuples; those with 256-byte registers have no
  // score, so they are never on the front the next round grows from.
  std::map<std::string, int> tuples_of;
  for (const auto& [key, r] : store.records) ++tuples_of[r.tuple.hardware];
  for (const auto& [hw, n] : tuples_of) EXPECT_EQ(n, 2) << hw;
  std::vector<const TupleRecord*> all;
  for (const auto& [key, r] : store.records) all.push_back(&r);
  const auto scores = score_records(all, SearchObjective::Energy);
  for (const auto& [hw, score] : scores) {
    EXPECT_EQ(score.has_value(), hw.find("regf256") == std::string::npos) << hw;
  }
}

}  // namespace
}  // namespace kapla::sweep
