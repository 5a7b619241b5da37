// A hash for fixed-size arrays of integer words (flat keys of schemes and partitions in
// unordered maps and FlatMaps): FNV-1a over the words, in four interleaved lanes. One lane's
// multiply waits for the last, so a 28-word key cost a chain of 28 multiplies; four lanes run
// side by side and are folded at the end (FlatMap mixes the result further).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace kapla {

struct WordsHash {
  template <std::size_t N>
  std::size_t operator()(const std::array<std::int64_t, N>& words) const {
    constexpr std::uint64_t kPrime = 1099511628211ULL;
    std::array<std::uint64_t, 4> h{1469598103934665603ULL, 0x9e3779b97f4a7c15ULL,
                                   0xc2b2ae3d27d4eb4fULL, 0x165667b19e3779f9ULL};
    std::size_t i = 0;
    for (; i + 4 <= N; i += 4)
      for (std::size_t j = 0; j < 4; ++j)
        h[j] = (h[j] ^ static_cast<std::uint64_t>(words[i + j])) * kPrime;
    for (; i < N; ++i) h[0] = (h[0] ^ static_cast<std::uint64_t>(words[i])) * kPrime;
    return static_cast<std::size_t>(h[0] ^ std::rotl(h[1], 16) ^ std::rotl(h[2], 32) ^
                                    std::rotl(h[3], 48));
  }
};

}  // namespace kapla
