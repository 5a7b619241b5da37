// Overflow-checked integer arithmetic for the few places that multiply user numbers before
// model/limits.hpp has bounded them (the limits' own checks, readers of untrusted files).
#pragma once

#include <cstdint>
#include <initializer_list>

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

}  // namespace kapla
