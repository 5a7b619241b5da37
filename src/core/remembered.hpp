// A memo shared by threads: the value under a key, else a maker's, remembered. The maker runs
// outside the lock, so two threads may make the same value; the memos here hold values of pure
// functions of the key, so both get the same answer and results do not depend on the threads.
#pragma once

#include <mutex>

namespace kapla {

template <class Map, class Make>
typename Map::mapped_type remembered(std::mutex& mu, Map& memo, const typename Map::key_type& key,
                                     Make make) {
  {
    const std::lock_guard<std::mutex> lock(mu);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
  }
  auto v = make();
  const std::lock_guard<std::mutex> lock(mu);
  memo.emplace(key, v);
  return v;
}

}  // namespace kapla
