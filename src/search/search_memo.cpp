// The caller-owned search memo (see strategy.hpp).
#include "search/strategy.hpp"

namespace kapla::search {

std::shared_ptr<const void> SearchMemo::find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map_.find(key);
  if (it == map_.end()) return nullptr;
  ++hits_;
  return it->second;
}

void SearchMemo::put(const std::string& key, std::shared_ptr<const void> value) {
  std::lock_guard<std::mutex> lock(mu_);
  map_.emplace(key, std::move(value));
}

std::size_t SearchMemo::hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}

}  // namespace kapla::search
