// Which keys of a memo belong to which scope, so that a scope's entries can be dropped at once
// (the network search drops a layer shape's entries once no segment left holds it). Each memo
// keeps its own entries; this only remembers their keys. Not thread-safe: callers lock.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

namespace kapla {

class ScopedKeys {
 public:
  /// Records that `key` was made under `scope` (nothing for the empty scope).
  void add(const std::string& scope, const std::string& key) {
    if (!scope.empty()) keys_[scope].push_back(key);
  }
  /// Erases from `memo` every key recorded under `scope`, and forgets them.
  template <class Memo>
  void erase_scope(const std::string& scope, Memo& memo) {
    const auto it = keys_.find(scope);
    if (it == keys_.end()) return;
    for (const auto& key : it->second) memo.erase(key);
    keys_.erase(it);
  }

 private:
  std::unordered_map<std::string, std::vector<std::string>> keys_;
};

}  // namespace kapla
