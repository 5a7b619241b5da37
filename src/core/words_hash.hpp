// A hash for fixed-size arrays of integer words (flat keys of schemes and partitions in
// unordered maps): FNV-1a over the words.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace kapla {

struct WordsHash {
  template <std::size_t N>
  std::size_t operator()(const std::array<std::int64_t, N>& words) const {
    std::uint64_t h = 1469598103934665603ULL;
    for (auto v : words) h = (h ^ static_cast<std::uint64_t>(v)) * 1099511628211ULL;
    return static_cast<std::size_t>(h);
  }
};

}  // namespace kapla
