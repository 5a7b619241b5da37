// Readable scheme strings (see layer_text.hpp).
#include "schedule/layer_text.hpp"

#include <algorithm>
#include <sstream>
#include <utility>
#include <vector>

namespace kapla::schedule {

std::string partition_text(const mapping::PartitionScheme& p) {
  std::ostringstream os;
  for (std::size_t i = 0; i < p.order.size(); ++i) {
    const auto& d = p.pdims[p.order[i]];
    os << (i ? " " : "") << name_of(p.order[i]) << '=' << d.h << 'x' << d.w;
  }
  return os.str();
}

std::string blocking_text(const pricing::LayerSchedule& s) {
  std::ostringstream os;
  for (std::size_t level = 0; level < s.tvals.size(); ++level) {
    if (level) os << '/';
    bool first = true;
    for (auto d : all_values<LoopDim>()) {
      os << (first ? "" : ",") << s.tvals[level][d];
      first = false;
    }
  }
  return os.str();
}

std::string orders_text(const pricing::LayerSchedule& s) {
  std::ostringstream os;
  for (std::size_t level = 0; level < s.orders.size(); ++level) {
    if (level) os << '/';
    std::vector<std::pair<int, LoopDim>> by_rank;
    for (auto d : all_values<LoopDim>()) by_rank.emplace_back(s.orders[level][d], d);
    std::sort(by_rank.rbegin(), by_rank.rend());  // 0 = innermost: outer first
    bool first = true;
    for (const auto& [rank, d] : by_rank) {
      os << (first ? "" : ",") << name_of(d);
      first = false;
    }
  }
  return os.str();
}

}  // namespace kapla::schedule
