// What K's layer search finds without reading the ifmap layout, remembered per layer
// (CostOracle::Derived) for all its searches. K solves one layer under one constraint for
// several ifmap layouts (one per producer partition of the segments that end at it), and only
// the NoC placement of a price reads the layout. Two steps read no placement at all:
//  - the greedy's candidates per order pair (greedy_candidates: stackings, tensors, fits);
//  - the partition screen's ranking of the size groups by their on-chip price (step 7a).
// Each is keyed on what it reads besides the layer problem without its layout (the top
// constraint, the order pairs, the options); the fit failures they counted go with them
// (CountedMemo), so a search that finds one counts what it would have. Thread-safe; pure values, so
// the answers do not depend on which search made them first.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/remembered.hpp"
#include "core/words_hash.hpp"
#include "search/kapla/canonical.hpp"
#include "search/kapla/layer_oracle.hpp"
#include "search/kapla/layer_solver.hpp"

namespace kapla::search::kapla {

/// Values of a step of K's search under fixed-size integer keys, made once
/// (core/remembered.hpp) and shared, with the fit failures the step counted: every search that
/// uses a value adds them to its own counts, as if it had made the value itself.
template <class Value, std::size_t N>
class CountedMemo {
 public:
  using Key = std::array<std::int64_t, N>;
  /// The value under `k`, else make(counts)'s; either way `stats` gets its fit failures.
  template <class Make>
  std::shared_ptr<const Value> remembered(const Key& k, SolveStats& stats, Make make) const {
    const auto made = ::kapla::remembered(mu_, values_, k, [&] {
      SolveStats counts;
      auto value = make(counts);
      return std::make_shared<const Made>(
          Made{std::move(value), counts.capacity_fail, counts.constraint_fail});
    });
    stats.capacity_fail += made->capacity_fail;
    stats.constraint_fail += made->constraint_fail;
    return {made, &made->value};  // shares ownership of the entry
  }
  std::size_t size() const {
    const std::lock_guard<std::mutex> lock(mu_);
    return values_.size();
  }

 private:
  struct Made {
    Value value;
    std::int64_t capacity_fail = 0;
    std::int64_t constraint_fail = 0;
  };
  mutable std::mutex mu_;
  mutable std::unordered_map<Key, std::shared_ptr<const Made>, WordsHash> values_;
};

struct LayoutFreeMemo {
  /// A size group's best fit by the on-chip price.
  struct Ranked {
    Score score;
    std::size_t group = 0;  // position of the size group, in order of first appearance
    CanonicalScheme scheme;
  };
  /// The screen's groups with a fit, best first (stable). Key: the top constraint, the guide
  /// pairs used (packed, -1 past the last), the goal and the screen's options
  /// (partition_descent.cpp screen_key).
  using Screens = CountedMemo<std::vector<Ranked>, 12>;
  Screens screens;
  /// The greedy's candidates of one order pair. Key: the top constraint, the order pair's
  /// index, whether the top factors are reserved.
  CountedMemo<std::vector<CanonicalScheme>, 5> candidates;
};

}  // namespace kapla::search::kapla
