// A list that keeps its first N elements inline and moves to the heap only beyond: for the
// short lists of divisors and tile factors that K's fills and the refetch floor build ~10^6
// times per network search, where a std::vector's allocation cost more than the work.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace kapla {

template <class T, std::size_t N>
class InlineVector {
 public:
  void push_back(const T& v) {
    if (n_ < small_.size()) {
      small_[n_] = v;
    } else {
      if (big_.empty()) big_.assign(small_.begin(), small_.end());
      big_.push_back(v);
    }
    ++n_;
  }
  /// Empties the list for reuse (what it had spilled to the heap is dropped).
  void clear() {
    n_ = 0;
    big_.clear();
  }
  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  T& operator[](std::size_t i) { return data()[i]; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + n_; }
  T* begin() { return data(); }
  T* end() { return data() + n_; }

 private:
  const T* data() const { return big_.empty() ? small_.data() : big_.data(); }
  T* data() { return big_.empty() ? small_.data() : big_.data(); }

  // Left uninitialised: only the first size() are read.
  std::array<T, N> small_;
  std::size_t n_ = 0;
  std::vector<T> big_;
};

}  // namespace kapla
