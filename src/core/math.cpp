// Integer helpers (nn_dataflow util.py semantics).
#include "core/math.hpp"

#include <algorithm>
#include <cmath>

namespace kapla {
namespace {

void factorize_into(std::int64_t value, int num, std::vector<std::int64_t>& prefix,
                    std::vector<std::vector<std::int64_t>>& out) {
  if (num == 1) {
    prefix.push_back(value);
    out.push_back(prefix);
    prefix.pop_back();
    return;
  }
  // The divisors in ascending order (the reference tries every f <= value: the same tuples in
  // the same order, in O(sqrt(value)) per level instead of O(value)).
  for (const std::int64_t f : divisors(value)) {
    prefix.push_back(f);
    factorize_into(value / f, num - 1, prefix, out);
    prefix.pop_back();
  }
}

}  // namespace

std::vector<std::vector<std::int64_t>> factorize(std::int64_t value, int num) {
  std::vector<std::vector<std::int64_t>> out;
  std::vector<std::int64_t> prefix;
  if (value >= 1 && num >= 1) factorize_into(value, num, prefix, out);
  return out;
}

std::vector<std::int64_t> divisors(std::int64_t value) {
  std::vector<std::int64_t> out;
  for_each_divisor(value, [&](std::int64_t f) {
    out.push_back(f);
    return true;
  });
  return out;
}

bool approx_dividable(std::int64_t total, std::int64_t num, double rel_overhead,
                      double abs_overhead) {
  if (total < num) return false;
  const std::int64_t padded = ceil_div(total, num) * num;
  const double diff = static_cast<double>(padded - total);
  const double bound =
      std::max(rel_overhead * static_cast<double>(std::max(padded, total)), abs_overhead);
  return diff <= bound;
}

}  // namespace kapla
