// KAPLA's own analytical model of a directive schedule (kapla-spec.md §1.4, KaplaCostModel):
// kept beside its tests, outside the library: K and S rank candidates by the one cost model,
// so nothing in src/ calls it; the tests measure how far it agrees with the one cost model.
// Steps A (unit accesses with halo reuse), B (refetch), C (DRAM), D (GBUF/ITCN with PE
// multicast groups), E (REGF, ops) and J (energy); buffer-sharing NoC hops and memory hops
// (steps F-G, I) are left out: they need the partition geometry that the one cost model prices
// exactly.
#pragma once

#include "model/hardware.hpp"
#include "search/kapla/directives.hpp"

namespace kapla::search::kapla {

struct Estimate {
  PerMemLevel<PerDataCategory<double>> access{};
  double ops = 0;
  double proc_time = 0;
  double energy = 0;
};

/// Step A: words of data `d` moved into `level` during one sweep of its updates.
double unit_access(const DirectiveSchedule& s, const LevelDirectives& level, DataCategory d);
/// Step B: re-sweeps of `d` at `level` caused by irrelevant updates outside its innermost
/// non-trivial relevant one.
double refetch(const DirectiveSchedule& s, const LevelDirectives& level, DataCategory d);
/// Step F (REGF): distinct copies of `d` among the PEs (one fetch per multicast group).
double distinct_copies(const DirectiveSchedule& s, DataCategory d);

Estimate estimate(const DirectiveSchedule& s, const model::UnitCosts& costs);

}  // namespace kapla::search::kapla
