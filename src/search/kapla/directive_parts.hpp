// Small constructors of directive parts, shared by the row-stationary and systolic writers
// (directive_builder.cpp, systolic_template.cpp).
#pragma once

#include <array>
#include <cstdint>

#include "search/kapla/directives.hpp"

namespace kapla::search::kapla {

inline Stack stack1(Dim d, std::int64_t step, std::int64_t repl) {
  return {{DimStep{d, step}, DimStep{}}, 1, repl};
}
inline Stack stack2(Dim d1, std::int64_t s1, Dim d2, std::int64_t s2, std::int64_t repl) {
  return {{DimStep{d1, s1}, DimStep{d2, s2}}, 2, repl};
}
inline Update update1(Dim d, std::int64_t step, std::int64_t count, bool base = false) {
  return {{DimStep{d, step}, DimStep{}}, 1, count, base};
}
inline Update update2(Dim d1, std::int64_t s1, Dim d2, std::int64_t s2, std::int64_t count,
                      bool base) {
  return {{DimStep{d1, s1}, DimStep{d2, s2}}, 2, count, base};
}

/// The three loops from innermost to outermost under a loop order (order value 0 = innermost).
inline std::array<LoopDim, 3> inner_to_outer(const PerLoopDim<int>& ord) {
  std::array<LoopDim, 3> out{};
  for (auto l : all_values<LoopDim>()) out[static_cast<std::size_t>(ord[l])] = l;
  return out;
}

}  // namespace kapla::search::kapla
