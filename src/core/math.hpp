// Integer helpers with the reference's exact semantics (nn_dataflow util.py).
// Spec: nn_dataflow-spec.md §1.3.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace kapla {

/// ceil(x / y) for positive integers.
constexpr std::int64_t ceil_div(std::int64_t x, std::int64_t y) { return (x + y - 1) / y; }

/// All `num`-tuples of positive integers whose product is `value`, in lexicographic order of
/// the first num-1 entries (nn_dataflow util.factorize). E.g. factorize(4, 3) gives
/// (1,1,4),(1,2,2),(1,4,1),(2,1,2),(2,2,1),(4,1,1).
std::vector<std::vector<std::int64_t>> factorize(std::int64_t value, int num);

/// All divisors of `value` in ascending order.
std::vector<std::int64_t> divisors(std::int64_t value);

/// Calls `visit(f)` for the divisors f of `value` in ascending order (those of divisors())
/// until it returns false; allocates nothing, for hot loops that stop at the first misfit.
template <class Visit>
void for_each_divisor(std::int64_t value, Visit&& visit) {
  // f <= value / f, not f * f <= value: the square overflows for value near INT64_MAX.
  std::int64_t f = 1;
  for (; f <= value / f; ++f)
    if (value % f == 0 && !visit(f)) return;
  // The large divisors value / g, for the small ones g descending (the root only once).
  for (std::int64_t g = f - 1; g >= 1; --g)
    if (value % g == 0 && g != value / g && !visit(value / g)) return;
}

/// The same in descending order (the large divisors value / f for f ascending, then the small
/// ones): a downward scan over the divisors of `value` for the price of ~2 sqrt(value) modulos.
template <class Visit>
void for_each_divisor_desc(std::int64_t value, Visit&& visit) {
  std::int64_t f = 1;
  for (; f <= value / f; ++f)
    if (value % f == 0 && !visit(value / f)) return;
  for (std::int64_t g = f - 1; g >= 1; --g)
    if (value % g == 0 && g != value / g && !visit(g)) return;
}

/// nn_dataflow util.approx_dividable(total, num, rel_overhead=0.1, abs_overhead=1).
bool approx_dividable(std::int64_t total, std::int64_t num, double rel_overhead = 0.1,
                      double abs_overhead = 1);

/// Whether splitting `total` into `num` ceil-sized pieces (ceil_div(total, num) each, the
/// last one smaller) leaves every piece non-empty: 100 on 6 (17 x 5 + 15) yes, 7 on 6
/// (2 x 3 + 1, then two empty) no. Imperfect factorization (docs/imperfect.md).
constexpr bool nonempty_split(std::int64_t total, std::int64_t num) {
  return num >= 1 && num <= total && ceil_div(total, num) * (num - 1) < total;
}

/// The i-th of n even pieces of [beg, end): (beg + i*L//n, beg + (i+1)*L//n) (floor).
constexpr std::pair<std::int64_t, std::int64_t> ith_range(std::int64_t beg, std::int64_t end,
                                                          std::int64_t i, std::int64_t n) {
  const std::int64_t len = end - beg;
  return {beg + i * len / n, beg + (i + 1) * len / n};
}

}  // namespace kapla
