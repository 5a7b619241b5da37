// KAPLA's bottom-up greedy fillers (kapla-spec.md §3.3 fill_stack, §3.4 fill_tensor), on
// nested-loop coordinates: spatial stacking over a replication budget, and temporal tensor
// growth under a capacity predicate. Pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/function_ref.hpp"
#include "search/kapla/canonical.hpp"

namespace kapla::search::kapla {

/// Smallest divisor > 1 of n (its smallest prime), or 1 for n = 1.
std::int64_t min_factor(std::int64_t n);

/// The data of the refetch estimates: total volume of each category (D[d] of §3.1).
using DataTotals = PerDataCategory<double>;

/// One stackable dimension: which loop it belongs to, in which directions (0 = w, 1 = h) it
/// may be stacked, and how many iterations remain.
struct StackItem {
  LoopDim loop = LoopDim::Bat;
  std::array<bool, 2> allowed{true, true};
  std::int64_t remaining = 1;
};

/// Result of fill_stack: per item and direction the replication placed on it, and the
/// replication left unused per direction.
struct StackFill {
  std::vector<std::array<std::int64_t, 2>> factor;  // [item][dir]
  std::array<std::int64_t, 2> unused{1, 1};
  std::vector<std::int64_t> remaining;  // per item, after ceil-division by its factors
};

/// §3.3: fill the spatial budget `hw` (w, h) bottom-up with factors of the items' loops,
/// guided by the refetch estimate of the data irrelevant to the level's innermost loop.
StackFill fill_stack(const std::vector<StackItem>& items, std::array<std::int64_t, 2> hw,
                     const PerLoopDim<int>& order, const PerDataCategory<mapping::LoopSet>& loops,
                     DataCategory rw, const DataTotals& totals);

/// §3.4: grow the level's factors `t` (starting value, already fitting) within `remaining`
/// (factors are divisors of it) under `fits`: first the joint best over the loops irrelevant
/// to the data that the innermost loop touches, then the innermost loop alone. Returns nullopt
/// if the starting factors do not fit. The joint search does not ask `fits` again about a
/// point with at most one knob moved (the candidates' own test), and with FitsOrder::Monotone
/// only where a row of points stops fitting (the same answer, fewer calls).
std::optional<PerLoopDim<std::int64_t>> fill_tensor(
    PerLoopDim<std::int64_t> t, const PerLoopDim<std::int64_t>& remaining,
    const PerLoopDim<int>& order, const PerDataCategory<mapping::LoopSet>& loops, DataCategory rw,
    const DataTotals& totals, FunctionRef<bool(const PerLoopDim<std::int64_t>&)> fits,
    FitsOrder fits_order = FitsOrder::Any);

}  // namespace kapla::search::kapla
