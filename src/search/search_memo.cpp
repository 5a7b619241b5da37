// The caller-owned search memo (see strategy.hpp).
#include "search/strategy.hpp"

namespace kapla::search {

std::shared_ptr<SearchMemo::Slot> SearchMemo::find_slot(const std::string& key) const {
  const std::lock_guard<std::mutex> lock(mu_);
  auto it = slots_.find(key);
  return it != slots_.end() ? it->second : nullptr;
}

std::shared_ptr<SearchMemo::Slot> SearchMemo::slot(const std::string& key,
                                                   const std::string& scope) {
  const std::lock_guard<std::mutex> lock(mu_);
  auto it = slots_.find(key);
  if (it != slots_.end()) return it->second;
  scoped_.add(scope, key);
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
  const auto s = find_slot(key);
  if (!s) return nullptr;
  const std::lock_guard<std::mutex> lock(s->mu);
  return take(*s);
}

void SearchMemo::put(const std::string& key, std::shared_ptr<const void> value,
                     const std::string& scope) {
  const auto s = slot(key, scope);
  const std::lock_guard<std::mutex> lock(s->mu);
  if (!s->value) s->value = std::move(value);
}

std::shared_ptr<const void> SearchMemo::get_or_make(
    const std::string& key, const std::function<std::shared_ptr<const void>()>& make,
    const std::string& scope) {
  const auto s = slot(key, scope);
  const std::lock_guard<std::mutex> lock(s->mu);
  if (auto v = take(*s)) return v;
  s->value = make();
  return s->value;
}

void SearchMemo::release(const std::string& scope) {
  const std::lock_guard<std::mutex> lock(mu_);
  // A slot being made keeps its maker's reference; the value goes with the last holder.
  scoped_.erase_scope(scope, slots_);
}

std::size_t SearchMemo::hits() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}

}  // namespace kapla::search
