// An insert-only hash map for K's memos: fixed-size integer-word keys, looked up millions of
// times per network. std::unordered_map spends those lookups on cache misses (a bucket array,
// then a heap node per entry) and on an integer division per bucket visited (its prime bucket
// counts): 6-19 % of K's CPU samples on the inference networks (perf, 2026-11-30). Here the
// entries live in one vector in insertion order, and a power-of-two table of 8-byte slots
// (a hash tag and the entry's position) finds them by linear probing: one slot read and one
// key comparison per hit, no division, no node allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "core/words_hash.hpp"

namespace kapla {

template <class Key, class Value, class Hash = WordsHash>
class FlatMap {
 public:
  using key_type = Key;
  using mapped_type = Value;
  using value_type = std::pair<Key, Value>;
  using iterator = value_type*;
  using const_iterator = const value_type*;

  /// The entry under `k`, else end(). Pointers stay valid until the next insertion.
  iterator find(const Key& k) { return items_.data() + position(k, mixed(k)); }
  const_iterator find(const Key& k) const { return items_.data() + position(k, mixed(k)); }
  /// Inserts (k, v) unless k is present (as std::unordered_map::emplace); the entry under k
  /// and whether it is new.
  std::pair<iterator, bool> emplace(const Key& k, Value v) {
    const std::uint64_t h = mixed(k);
    if (const std::size_t at = position(k, h); at != items_.size())
      return {items_.data() + at, false};
    KAPLA_ASSERT(items_.size() < 0xffffffffULL, "FlatMap: more than 2^32 - 1 entries");
    if (2 * (items_.size() + 1) > slots_.size()) grow(2 * (items_.size() + 1));
    items_.emplace_back(k, std::move(v));
    place(h, items_.size() - 1);
    return {&items_.back(), true};
  }
  /// Room for n entries without rehashing.
  void reserve(std::size_t n) {
    items_.reserve(n);
    if (2 * n > slots_.size()) grow(2 * n);
  }
  iterator begin() { return items_.data(); }
  iterator end() { return items_.data() + items_.size(); }
  const_iterator begin() const { return items_.data(); }
  const_iterator end() const { return items_.data() + items_.size(); }
  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }

 private:
  // Words hashes (FNV-1a) carry low input bits into low output bits only: a finalizer
  // (MurmurHash3's) spreads every bit before the table takes the low ones.
  static std::uint64_t mixed(const Key& k) {
    auto h = static_cast<std::uint64_t>(Hash{}(k));
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
  }
  // A slot: the hash's high 32 bits, then the entry's position + 1 (0: empty).
  static std::uint64_t slot_of(std::uint64_t h, std::size_t at) {
    return (h & 0xffffffff00000000ULL) | (static_cast<std::uint64_t>(at) + 1);
  }
  std::size_t position(const Key& k, std::uint64_t h) const {
    if (slots_.empty()) return items_.size();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = static_cast<std::size_t>(h) & mask;; i = (i + 1) & mask) {
      const std::uint64_t s = slots_[i];
      if (s == 0) return items_.size();
      const std::size_t at = static_cast<std::size_t>(s & 0xffffffffULL) - 1;
      if ((s >> 32) == (h >> 32) && items_[at].first == k) return at;
    }
  }
  void place(std::uint64_t h, std::size_t at) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = static_cast<std::size_t>(h) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = slot_of(h, at);
  }
  // Rehash into the least power of two (at least 16) not below `least` slots.
  void grow(std::size_t least) {
    std::size_t n = 16;
    while (n < least) n *= 2;
    slots_.assign(n, 0);
    for (std::size_t at = 0; at < items_.size(); ++at) place(mixed(items_[at].first), at);
  }

  std::vector<value_type> items_;     // insertion order
  std::vector<std::uint64_t> slots_;  // power of two, at most half full
};

}  // namespace kapla
