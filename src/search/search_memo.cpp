// The caller-owned search memo (see strategy.hpp).
#include "search/strategy.hpp"

namespace kapla::search {

std::shared_ptr<SearchMemo::Slot> SearchMemo::slot(const std::string& key, bool create) const {
  const std::lock_guard<std::mutex> lock(mu_);
  auto it = slots_.find(key);
  if (it != slots_.end()) return it->second;
  if (!create) return nullptr;
  return slots_.emplace(key, std::make_shared<Slot>()).first->second;
}

std::shared_ptr<const void> SearchMemo::take(Slot& s) const {
  if (s.value) {
    const std::lock_guard<std::mutex> lock(mu_);
    ++hits_;
  }
  return s.value;
}

std::shared_ptr<const void> SearchMemo::find(const std::string& key) const {
  const auto s = slot(key, false);
  if (!s) return nullptr;
  const std::lock_guard<std::mutex> lock(s->mu);
  return take(*s);
}

void SearchMemo::put(const std::string& key, std::shared_ptr<const void> value) {
  const auto s = slot(key, true);
  const std::lock_guard<std::mutex> lock(s->mu);
  if (!s->value) s->value = std::move(value);
}

std::shared_ptr<const void> SearchMemo::get_or_make(
    const std::string& key, const std::function<std::shared_ptr<const void>()>& make) {
  const auto s = slot(key, true);
  const std::lock_guard<std::mutex> lock(s->mu);
  if (auto v = take(*s)) return v;
  s->value = make();
  return s->value;
}

std::size_t SearchMemo::hits() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}

}  // namespace kapla::search
