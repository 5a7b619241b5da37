// Strong enums of the problem vocabulary. Integer values equal nn_dataflow's (they fix
// iteration orders and index the golden data); spec: nn_dataflow-spec.md §1.1.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kapla {

/// Data categories (nn_dataflow DataCategoryEnum).
enum class DataCategory : std::uint8_t { Fil = 0, Ifm = 1, Ofm = 2 };
/// Loop dimensions of a nested-loop description (nn_dataflow LoopEnum):
/// input channels C, output channels M (K), batch N.
enum class LoopDim : std::uint8_t { Ifm = 0, Ofm = 1, Bat = 2 };
/// Memory hierarchy levels (nn_dataflow MemHierEnum).
enum class MemLevel : std::uint8_t { Dram = 0, Gbuf = 1, Itcn = 2, Regf = 3 };
/// Node-parallelism kinds (nn_dataflow ParallelEnum).
enum class ParallelDim : std::uint8_t { Outp = 0, Ofmp = 1, Batp = 2, Inpp = 3 };
/// Loop-blocking levels (nn_dataflow BL).
enum class BlockLevel : std::uint8_t { Gbuf = 0, Regf = 1 };

template <class E>
struct EnumTraits;
template <>
struct EnumTraits<DataCategory> {
  static constexpr std::size_t size = 3;
  static constexpr std::array<std::string_view, size> names{"FIL", "IFM", "OFM"};
};
template <>
struct EnumTraits<LoopDim> {
  static constexpr std::size_t size = 3;
  static constexpr std::array<std::string_view, size> names{"IFM", "OFM", "BAT"};
};
template <>
struct EnumTraits<MemLevel> {
  static constexpr std::size_t size = 4;
  static constexpr std::array<std::string_view, size> names{"DRAM", "GBUF", "ITCN", "REGF"};
};
template <>
struct EnumTraits<ParallelDim> {
  static constexpr std::size_t size = 4;
  static constexpr std::array<std::string_view, size> names{"OUTP", "OFMP", "BATP", "INPP"};
};
template <>
struct EnumTraits<BlockLevel> {
  static constexpr std::size_t size = 2;
  static constexpr std::array<std::string_view, size> names{"GBUF", "REGF"};
};

template <class E>
constexpr std::size_t enum_size = EnumTraits<E>::size;

template <class E>
constexpr std::size_t index_of(E e) {
  return static_cast<std::size_t>(e);
}

template <class E>
constexpr std::string_view name_of(E e) {
  return EnumTraits<E>::names[index_of(e)];
}

/// All values of an enum in integer order, for range-for loops.
template <class E>
constexpr std::array<E, enum_size<E>> all_values() {
  std::array<E, enum_size<E>> out{};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<E>(i);
  return out;
}

}  // namespace kapla
