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

/// The least of `fetch`, level by level and category by category (fetch is not empty).
cost::FetchCounts least_fetch(const InlineVector<cost::FetchCounts, 36>& fetch);

/// A floor of the bounds of blocking `s` (of nest `n`) under `pairs`, whose fetch counts are
/// `fetch`: the bound at their least. No pair's bound is better under any goal (energy and
/// time are at most each pair's); nullopt only if every pair's bound is.
std::optional<Score> blocking_floor(const BoundPricer& bounds, const CanonicalScheme& s,
                                    const InlineVector<cost::FetchCounts, 36>& fetch, bool on_chip);

/// A floor of the on-chip bounds of every blocking of nest `n` with `s`'s top-level factors,
/// under order pairs whose top-level orders are those of `pairs` (the enumerator's top-level
/// orders depend on the top-level factors only): the bound of `s` at the least top-level fetch
/// counts over those orders, taken as the GBUF level's too. The fetch counts into GBUF depend
/// on the top level alone, and those into REGF are at least them (the loop trips above the
/// REGF level include the top level's). nullopt where `s` itself is rejected (its buffer
/// occupancy may be another blocking's undoing, not its own): no floor is known then.
std::optional<Score> top_level_floor(const BoundPricer& bounds, const NodeNest& n,
                                     CanonicalScheme s, const OrderPairs& pairs);

}  // namespace kapla::search::kapla
