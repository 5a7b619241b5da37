// Overflow-checked integer arithmetic for the few places that multiply user numbers before
// model/limits.hpp has bounded them (the limits' own checks, readers of untrusted files).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

namespace kapla {

/// a * b, or false when it does not fit an int64 (for the few places that multiply user numbers
/// before a limit has been checked; model/limits.hpp bounds the rest).
constexpr bool checked_mul(std::int64_t a, std::int64_t b, std::int64_t& out) {
  return !__builtin_mul_overflow(a, b, &out);
}

/// The product of `factors`, or -1 when it overflows an int64 (factors are non-negative).
constexpr std::int64_t checked_product(std::initializer_list<std::int64_t> factors) {
  std::int64_t p = 1;
  for (std::int64_t f : factors) {
    if (!checked_mul(p, f, p)) return -1;
  }
  return p;
}

/// A count from checked_product for a message: the number, or "more than 2^63" for -1.
inline std::string count_text(std::int64_t count) {
  return count < 0 ? "more than 2^63" : std::to_string(count);
}

}  // namespace kapla
