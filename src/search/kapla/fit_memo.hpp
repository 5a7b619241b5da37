// K's fits (detail::fit_on_partition) remembered for the length of one layer search. A fit
// depends only on the partition, the nest, the two loop orders and whether the constraint's
// top factors are reserved (the layer, batch, constraint and capacities are the search's), and
// the partition descents and the nest-and-order sweep ask again for about a quarter of the fits
// the steps before them made (GoogLeNet inference on cloud: 0.98 M of 4.0 M). Thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "core/remembered.hpp"
#include "core/words_hash.hpp"
#include "search/kapla/canonical.hpp"

namespace kapla::search::kapla {

class FitMemo {
 public:
  /// How a fit ended; the failures are replayed into the caller's SolveStats on a hit, so the
  /// counts do not depend on the memo.
  enum class Outcome : std::uint8_t { Fit, ConstraintFail, CapacityFail, NoGbufFill };
  struct Entry {
    std::optional<CanonicalScheme> scheme;
    Outcome outcome = Outcome::Fit;
  };
  /// The two loop orders in one word.
  static std::int64_t packed_orders(const PerLoopDim<int>& ord_gbuf,
                                    const PerLoopDim<int>& ord_regf) {
    std::int64_t orders = 0;
    for (auto l : all_values<LoopDim>()) orders = orders * 16 + ord_gbuf[l] * 4 + ord_regf[l];
    return orders;
  }
  /// Partition position in the oracle's list, nest index, the two orders packed, reserve flag.
  using Key = std::array<std::int64_t, 4>;
  static Key key(std::size_t part_index, int nest_index, const PerLoopDim<int>& ord_gbuf,
                 const PerLoopDim<int>& ord_regf, bool reserve_top) {
    return {static_cast<std::int64_t>(part_index), nest_index, packed_orders(ord_gbuf, ord_regf),
            reserve_top ? 1 : 0};
  }

  /// The entry under `k`, else fit()'s, remembered (core/remembered.hpp).
  template <class Fit>
  Entry remembered(const Key& k, Fit fit) const {
    return ::kapla::remembered(mu_, fits_, k, fit);
  }

 private:
  mutable std::mutex mu_;
  mutable std::unordered_map<Key, Entry, WordsHash> fits_;
};

}  // namespace kapla::search::kapla
