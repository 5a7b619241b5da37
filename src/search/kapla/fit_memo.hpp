// K's fits (detail::fit_on_partition) remembered for the length of one layer search. A fit
// reads only the node's nest, the capacities, the constraint's top factors, the two loop
// orders and whether the top factors are reserved, never the partition itself: it is keyed on
// those, so partitions with equal nests (the same per-node work) share their fits. The
// partition descents and the nest-and-order sweep ask again for about a quarter of the fits
// the steps before them made (GoogLeNet inference on cloud: 0.98 M of 4.0 M); of the rest,
// 30-42 % repeat a key fitted before in this search or another of the layer (ResNet-50,
// BERT-base and GPT-2 inference at cloud; ResNet-50: 4.64 M fits, 3.21 M distinct), and this
// per-search memo catches part of that. Thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>

#include "core/flat_map.hpp"
#include "core/remembered.hpp"
#include "search/kapla/canonical.hpp"

namespace kapla::search::kapla {

class FitMemo {
 public:
  /// How a fit ended; the failures are replayed into the caller's SolveStats on a hit, so the
  /// counts do not depend on the memo.
  enum class Outcome : std::uint8_t { Fit, ConstraintFail, CapacityFail, NoGbufFill };
  /// The fitted blocking (the scheme is the partition, the nest and it), and how it ended.
  struct Entry {
    std::optional<Blocking> blocking;
    Outcome outcome = Outcome::Fit;
  };
  /// The two loop orders in one word.
  static std::int64_t packed_orders(const PerLoopDim<int>& ord_gbuf,
                                    const PerLoopDim<int>& ord_regf) {
    std::int64_t orders = 0;
    for (auto l : all_values<LoopDim>()) orders = orders * 16 + ord_gbuf[l] * 4 + ord_regf[l];
    return orders;
  }
  /// The two orders' innermost loops (innermost(), as fill_tensor reads them) in one word,
  /// below 0 (packed_orders never is).
  static std::int64_t packed_innermost(const PerLoopDim<int>& ord_gbuf,
                                       const PerLoopDim<int>& ord_regf) {
    return -1 - 4 * static_cast<std::int64_t>(index_of(innermost(ord_gbuf))) -
           static_cast<std::int64_t>(index_of(innermost(ord_regf)));
  }
  /// Everything a fit reads: the nest (every field), the capacity, the top factors, the two
  /// orders packed, the reserve flag. Where every category stays in GBUF (cap.all_in_gbuf(),
  /// no bypass: the inference and training presets), a fit reads of each order only its
  /// innermost loop (fill_tensor's knobs; the capacity check then never builds the blocking,
  /// fits_tiles), so the 36 order pairs make 9 fits: the key holds the innermost loops, and
  /// the caller puts its own orders in the blocking.
  using Key = std::array<std::int64_t, 22>;
  static Key key(const NodeNest& n, const Capacity& cap, const PerLoopDim<std::int64_t>& top,
                 const PerLoopDim<int>& ord_gbuf, const PerLoopDim<int>& ord_regf,
                 bool reserve_top) {
    // A guard, not a proof (a bool may fit in padding): most fields added to either struct
    // change its size (LP64), and a new field must join the key, or fits that differ in it
    // would share an entry.
    static_assert(sizeof(NodeNest) == 104 && sizeof(Capacity) == 48,
                  "FitMemo::key: put the new NodeNest or Capacity field in the key");
    Key k{};
    std::size_t i = 0;
    std::int64_t flags = n.fold_variant ? 1 : 0;
    flags = flags * 4 + static_cast<std::int64_t>(n.rw_data);
    for (auto d : all_values<DataCategory>()) {
      k[i++] = n.usize_gbuf[d];
      k[i++] = n.usize_regf[d];
      k[i++] = cap.gbuf_share[d];
      for (auto l : all_values<LoopDim>())
        flags = flags * 2 + (n.data_loops[d].contains(l) ? 1 : 0);
      flags = flags * 2 + (n.regf_reusable[d] ? 1 : 0);
      flags = flags * 2 + (cap.always_in_gbuf[d] ? 1 : 0);
    }
    for (auto l : all_values<LoopDim>()) {
      k[i++] = n.loopcnt[l];
      k[i++] = top[l];
    }
    k[i++] = n.repl_ifm;
    k[i++] = n.repl_ofm;
    k[i++] = cap.regf_words;
    k[i++] = cap.gbuf_words;
    k[i++] = flags;
    k[i++] = cap.all_in_gbuf() ? packed_innermost(ord_gbuf, ord_regf)
                               : packed_orders(ord_gbuf, ord_regf);
    k[i++] = reserve_top ? 1 : 0;
    return k;
  }

  /// The entry under `k`, else fit()'s, remembered (core/remembered.hpp).
  template <class Fit>
  Entry remembered(const Key& k, Fit fit) const {
    return ::kapla::remembered(mu_, fits_, k, fit);
  }

 private:
  mutable std::mutex mu_;
  mutable FlatMap<Key, Entry> fits_;
};

}  // namespace kapla::search::kapla
