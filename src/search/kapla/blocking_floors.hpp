// Floors of the exhaustive search's bound (BoundPricer) over many schemes at once, so that the
// search (exhaustive.cpp) can skip a blocking, or every blocking with the same top-level
// factors, without bounding its schemes one by one. They hold where the bound grows with the
// fetch counts (BoundPricer::bound_grows_with_fetch: no category may bypass GBUF), and rest on
// two facts of the cost model (cost::evaluate_loop_blocking_at_fetch): the bound reads a
// scheme's loop orders only through its fetch counts, and its other factors only through the
// buffer occupancy, that is its validity.
#pragma once

#include <array>
#include <optional>

#include "core/inline_vector.hpp"
#include "search/kapla/bound_pricer.hpp"
#include "search/kapla/canonical.hpp"

namespace kapla::search::kapla {

/// The loop-order pairs (top level, GBUF level) a blocking is priced with: at most 6 x 6.
using OrderPairs = InlineVector<std::array<PerLoopDim<int>, 2>, 36>;

/// The fetch counts of nest `n`'s blocking `b` (its own orders).
cost::FetchCounts fetch_counts_of(const NodeNest& n, const Blocking& b);

/// The least of `fetch`, level by level and category by category (fetch is not empty): where
/// `fetch` are a blocking's counts under some order pairs, the bound at them
/// (BoundPricer::evaluate_bound_at_fetch) is a floor of those pairs' bounds. No pair's bound
/// is better under any goal (energy and time are at most each pair's), and it is nullopt only
/// if every pair's bound is.
cost::FetchCounts least_fetch(const InlineVector<cost::FetchCounts, 36>& fetch);

/// The least top-level fetch counts of nest `n`'s blocking `s` under the top-level orders of
/// `pairs`: those of every blocking with the same top-level factors, since the fetch counts
/// into GBUF depend on the top level alone and so do the enumerator's top-level orders.
PerDataCategory<std::int64_t> least_top_fetch(const NodeNest& n, const CanonicalScheme& s,
                                              const OrderPairs& pairs);

/// Which loops of a level's factors are non-trivial (> 1), as bits by LoopDim (0-7).
std::size_t nontrivial_loops(const PerLoopDim<std::int64_t>& t);

/// A floor of the bounds (on chip, or with the hops) of every blocking of nest `n` with `s`'s
/// top-level factors (and, with `same_gbuf_loops`, the same nontrivial_loops at the GBUF level),
/// whose least top-level fetch counts are `top` (least_top_fetch): the bound of `s` at them, with
/// the GBUF level's at least them, or with `same_gbuf_loops` at cost::least_gbuf_fetch. nullopt
/// where `s` itself is rejected (its buffer occupancy may be another blocking's undoing, not its
/// own): no floor is known then.
std::optional<Score> top_level_floor(const BoundPricer& bounds, const NodeNest& n,
                                     const CanonicalScheme& s,
                                     const PerDataCategory<std::int64_t>& top, bool same_gbuf_loops,
                                     bool on_chip);

}  // namespace kapla::search::kapla
