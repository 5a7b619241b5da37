// A fixed array indexed only by one enum: accesses[MemLevel::Gbuf] compiles,
// accesses[DataCategory::Ifm] does not (nn_dataflow's IFM==0 vs IFM==1 trap).
#pragma once

#include <array>

#include "core/enums.hpp"

namespace kapla {

template <class E, class T>
struct EnumArray {
  std::array<T, enum_size<E>> values{};

  constexpr T& operator[](E e) { return values[index_of(e)]; }
  constexpr const T& operator[](E e) const { return values[index_of(e)]; }
  constexpr auto begin() { return values.begin(); }
  constexpr auto end() { return values.end(); }
  constexpr auto begin() const { return values.begin(); }
  constexpr auto end() const { return values.end(); }
  static constexpr std::size_t size() { return enum_size<E>; }

  friend constexpr bool operator==(const EnumArray&, const EnumArray&) = default;
};

template <class T>
using PerDataCategory = EnumArray<DataCategory, T>;
template <class T>
using PerLoopDim = EnumArray<LoopDim, T>;
template <class T>
using PerMemLevel = EnumArray<MemLevel, T>;
template <class T>
using PerParallelDim = EnumArray<ParallelDim, T>;
template <class T>
using PerBlockLevel = EnumArray<BlockLevel, T>;

}  // namespace kapla
