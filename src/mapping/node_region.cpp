// NodeRegion geometry. Spec: nn_dataflow-spec.md §2.2.
#include "mapping/node_region.hpp"

#include <algorithm>
#include <numeric>

namespace kapla::mapping {

NodeRegion NodeRegion::rectangle(PhyDim2 dim, PhyDim2 origin, RegionType type, PhyDim2 dist) {
  NodeRegion r;
  r.dim = dim;
  r.origin = origin;
  r.dist = dist;
  r.type = type;
  r.wtot = dim.w;
  r.wbeg = dim.w;
  return r;
}

PhyDim2 NodeRegion::rel2abs(PhyDim2 rel) const {
  const std::int64_t tot = effective_wtot();
  const std::int64_t beg = effective_wbeg();
  const std::int64_t abs_beg = beg < 0 ? -beg : beg;
  // Python divmod on non-negative operands: (w + wtot - |wbeg|) >= 0 always here.
  const std::int64_t x = rel.w + tot - abs_beg;
  const std::int64_t q = x / tot;
  const std::int64_t r = x % tot;
  const int direction = (beg < 0 ? -1 : 1) * (q % 2 == 1 ? -1 : 1);
  const std::int64_t r2 = direction > 0 ? r : tot - 1 - r;
  const std::int64_t shift = beg > 0 ? tot - beg : -beg - 1;
  const PhyDim2 folded{q * dim.h + rel.h, r2 - shift};
  return origin + folded * dist;
}

std::vector<PhyDim2> NodeRegion::nodes() const {
  std::vector<PhyDim2> out;
  out.reserve(static_cast<std::size_t>(std::max<std::int64_t>(dim.size(), 0)));
  for (std::int64_t h = 0; h < dim.h; ++h) {
    for (std::int64_t w = 0; w < dim.w; ++w) out.push_back(rel2abs({h, w}));
  }
  return out;
}

bool NodeRegion::contains_node(PhyDim2 abs) const {
  const auto all = nodes();
  return std::find(all.begin(), all.end(), abs) != all.end();
}

std::vector<NodeRegion> NodeRegion::allocate(const std::vector<std::int64_t>& requests) const {
  const std::int64_t total = std::accumulate(requests.begin(), requests.end(), std::int64_t{0});
  if (total > dim.size()) return {};
  std::int64_t hstrp = dim.h;
  for (auto r : requests) hstrp = std::gcd(hstrp, r);
  std::vector<NodeRegion> out;
  std::int64_t ofs_h = 0;
  std::int64_t ofs_w = 0;
  bool move_right = true;
  for (auto req : requests) {
    const std::int64_t width = req / hstrp;
    PhyDim2 start;
    std::int64_t beg = 0;
    if (move_right) {
      start = {ofs_h, ofs_w};
      beg = std::min(dim.w - ofs_w, width);
    } else {
      start = {ofs_h, dim.w - ofs_w - 1};
      beg = -std::min(dim.w - ofs_w, width);
    }
    NodeRegion r;
    r.dim = {hstrp, width};
    r.origin = origin + start * dist;
    r.dist = dist;
    r.type = type;
    r.wtot = dim.w;
    r.wbeg = beg;
    out.push_back(r);
    ofs_w += width;
    while (ofs_w >= dim.w) {
      ofs_w -= dim.w;
      ofs_h += hstrp;
      move_right = !move_right;
    }
  }
  return out;
}

}  // namespace kapla::mapping
