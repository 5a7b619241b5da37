// NodeRegion geometry. Spec: nn_dataflow-spec.md §2.2.
#include "mapping/node_region.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

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

namespace {

// Coordinates first + i * step, 0 <= i < count, on one axis.
struct Progression {
  std::int64_t first = 0;
  std::int64_t step = 1;
  std::int64_t count = 0;
};

// The same coordinates with step > 0, or a single one (a zero spacing stacks the nodes).
Progression normalized(Progression p) {
  if (p.step == 0 || p.count <= 1) return {p.first, 1, std::min<std::int64_t>(p.count, 1)};
  if (p.step < 0) return {p.first + (p.count - 1) * p.step, -p.step, p.count};
  return p;
}

// The least |x - y| over x in a, y in b: for each x of the shorter, the nearest y of the
// other is one of the two around it.
std::int64_t min_gap(Progression a, Progression b) {
  a = normalized(a);
  b = normalized(b);
  if (a.count > b.count) std::swap(a, b);
  std::int64_t best = std::numeric_limits<std::int64_t>::max();
  const std::int64_t lo = b.first;
  const std::int64_t hi = b.first + (b.count - 1) * b.step;
  for (std::int64_t i = 0; i < a.count && best > 0; ++i) {
    const std::int64_t x = a.first + i * a.step;
    std::int64_t gap;
    if (x <= lo) {
      gap = lo - x;
    } else if (x >= hi) {
      gap = x - hi;
    } else {
      const std::int64_t below = (x - lo) % b.step;
      gap = std::min(below, b.step - below);
    }
    best = std::min(best, gap);
  }
  return best;
}

// Calls visit(rows, cols) for each band of a region: the nodes of one fold, a product of a
// row progression and a column progression (a band's columns are contiguous in relative
// width, in either direction).
template <class Visit>
void for_each_band(const NodeRegion& r, Visit visit) {
  if (r.dim.h <= 0 || r.dim.w <= 0) return;
  PhyDim2 first = r.rel2abs({0, 0});
  std::int64_t lo = first.w, hi = first.w;
  auto emit = [&] {
    visit(Progression{first.h, r.dist.h, r.dim.h},
          Progression{lo, r.dist.w, r.dist.w == 0 ? 1 : (hi - lo) / r.dist.w + 1});
  };
  for (std::int64_t w = 1; w < r.dim.w; ++w) {
    const PhyDim2 a = r.rel2abs({0, w});
    if (a.h != first.h) {
      emit();
      first = a;
      lo = hi = a.w;
    } else {
      lo = std::min(lo, a.w);
      hi = std::max(hi, a.w);
    }
  }
  emit();
}

}  // namespace

std::int64_t NodeRegion::min_hops_to(const NodeRegion& other) const {
  std::int64_t best = std::numeric_limits<std::int64_t>::max();
  for_each_band(*this, [&](Progression rows, Progression cols) {
    for_each_band(other, [&](Progression orows, Progression ocols) {
      best = std::min(best, min_gap(rows, orows) + min_gap(cols, ocols));
    });
  });
  return best;
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
