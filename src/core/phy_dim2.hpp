// A 2D extent or coordinate (h, w): PE arrays, node arrays, fmap sizes (nn_dataflow PhyDim2).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <ostream>

namespace kapla {

struct PhyDim2 {
  std::int64_t h = 0;
  std::int64_t w = 0;

  constexpr std::int64_t size() const { return h * w; }
  constexpr std::int64_t hop_dist(const PhyDim2& o) const {
    return (h > o.h ? h - o.h : o.h - h) + (w > o.w ? w - o.w : o.w - w);
  }
  friend constexpr PhyDim2 operator+(PhyDim2 a, PhyDim2 b) { return {a.h + b.h, a.w + b.w}; }
  friend constexpr PhyDim2 operator-(PhyDim2 a, PhyDim2 b) { return {a.h - b.h, a.w - b.w}; }
  friend constexpr PhyDim2 operator*(PhyDim2 a, PhyDim2 b) { return {a.h * b.h, a.w * b.w}; }
  friend constexpr PhyDim2 operator*(PhyDim2 a, std::int64_t s) { return {a.h * s, a.w * s}; }
  friend constexpr bool operator==(const PhyDim2&, const PhyDim2&) = default;
  friend constexpr auto operator<=>(const PhyDim2&, const PhyDim2&) = default;
  friend std::ostream& operator<<(std::ostream& os, const PhyDim2& d) {
    return os << d.h << 'x' << d.w;
  }
};

}  // namespace kapla
