// What K's layer search finds without reading the ifmap layout, remembered per layer
// (CostOracle::Derived) for all its searches. K solves one layer under one constraint for
// several ifmap layouts (one per producer partition of the segments that end at it), and only
// the NoC placement of a price reads the layout. Two steps read no placement at all:
//  - the greedy's candidates per order pair (greedy_candidates: stackings, tensors, fits);
//  - the partition screen's ranking of the size groups by their on-chip price (step 7a).
// Each is keyed on what it reads besides the layer problem without its layout (the top
// constraint, the order pairs, the options); the fit failures they counted go with them, so a
// search that finds one counts what it would have. Thread-safe; pure values, so the answers
// do not depend on which search made them first.
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

namespace kapla::search::kapla {

/// Values under fixed-size integer keys, made once (core/remembered.hpp) and shared.
template <class Value, std::size_t N>
class KeyedMemo {
 public:
  using Key = std::array<std::int64_t, N>;
  template <class Make>
  std::shared_ptr<const Value> remembered(const Key& k, Make make) const {
    return ::kapla::remembered(mu_, values_, k,
                               [&] { return std::make_shared<const Value>(make()); });
  }
  std::size_t size() const {
    const std::lock_guard<std::mutex> lock(mu_);
    return values_.size();
  }

 private:
  mutable std::mutex mu_;
  mutable std::unordered_map<Key, std::shared_ptr<const Value>, WordsHash> values_;
};

/// The fit failures a remembered step counted.
struct FitFailures {
  std::int64_t capacity_fail = 0;
  std::int64_t constraint_fail = 0;
};

struct LayoutFreeMemo {
  /// A size group's best fit by the on-chip price.
  struct Ranked {
    Score score;
    std::size_t group = 0;  // position of the size group, in order of first appearance
    CanonicalScheme scheme;
  };
  /// The screen's groups with a fit, best first (stable).
  struct Ranking {
    std::vector<Ranked> ranked;
    FitFailures failures;
  };
  /// The greedy's candidates of one order pair.
  struct Candidates {
    std::vector<CanonicalScheme> schemes;
    FitFailures failures;
  };
  /// Key: the top constraint, the guide pairs used (packed, -1 past the last), the goal and
  /// the screen's options (partition_descent.cpp screen_key).
  KeyedMemo<Ranking, 12> screens;
  /// Key: the top constraint, the order pair's index, whether the top factors are reserved.
  KeyedMemo<Candidates, 5> candidates;
};

}  // namespace kapla::search::kapla
