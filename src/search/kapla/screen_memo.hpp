// K's partition screen (step 7a, detail::screen_partition_sizes) first ranks every size group
// of B's partition list by its best on-chip price. That ranking reads the layer problem but
// not its ifmap layout (the on-chip price leaves out the NoC placement, the one part of a
// price that depends on the layout), the guide pairs and the solver's options; and K solves
// one layer under one constraint for several ifmap layouts (one per producer partition in the
// segments that end at it). So the ranking is remembered per layer (CostOracle::Derived) for
// every search of it, keyed on the rest. Thread-safe; pure values, so the answers do not
// depend on which search made them first.
#pragma once

#include <array>
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

class ScreenMemo {
 public:
  /// A group's best fit by the on-chip price.
  struct Ranked {
    Score score;
    std::size_t group = 0;  // position of the size group, in order of first appearance
    CanonicalScheme scheme;
  };
  /// The groups with a fit, best first (stable), and the fit failures the ranking counted,
  /// which a search that finds the entry adds to its own counts.
  struct Entry {
    std::vector<Ranked> ranked;
    std::int64_t capacity_fail = 0;
    std::int64_t constraint_fail = 0;
  };
  /// The top constraint, the guide pairs used (packed, -1 past the last), the goal and the
  /// screen's options (detail::screen_key).
  using Key = std::array<std::int64_t, 12>;

  /// The entry under `k`, else make()'s, remembered (core/remembered.hpp).
  template <class Make>
  std::shared_ptr<const Entry> remembered(const Key& k, Make make) const {
    return ::kapla::remembered(mu_, entries_, k,
                               [&] { return std::make_shared<const Entry>(make()); });
  }
  /// Rankings remembered so far.
  std::size_t size() const {
    const std::lock_guard<std::mutex> lock(mu_);
    return entries_.size();
  }

 private:
  mutable std::mutex mu_;
  mutable std::unordered_map<Key, std::shared_ptr<const Entry>, WordsHash> entries_;
};

}  // namespace kapla::search::kapla
