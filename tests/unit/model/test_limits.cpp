// The input limits (model/limits.hpp): issue 17's numbers that validated and then overflowed in
// the cost model are refused with the field's name; everything shipped stays within them.
#include "model/limits.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "core/checked_math.hpp"
#include "core/errors.hpp"
#include "model/hardware.hpp"
#include "model/layer.hpp"
#include "model/options.hpp"

namespace kapla::model {
namespace {

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

TEST(Limits, CheckedProductReportsOverflow) {
  EXPECT_EQ(checked_product({3, 4, 5}), 60);
  EXPECT_EQ(checked_product({3037000500, 3037000500}), -1);
  EXPECT_EQ(checked_product({kInt64Max, 1}), kInt64Max);
  EXPECT_EQ(checked_product({kInt64Max, 2}), -1);
}

TEST(Limits, LayerDimensionsThatOverflowedAreRefused) {
  // nofm = 2^63-1 and an FC filter of 2^31 ended in "internal error" (pipeline_segment.cpp).
  EXPECT_EQ(error_of([] { make_fc(192, kInt64Max); }),
            "nofm: must be positive and at most 1048576, got 9223372036854775807");
  EXPECT_EQ(error_of([] {
              make_fc(3, 8, {std::int64_t{1} << 31, std::int64_t{1} << 31});
            }),
            "sfil: must be positive and at most 4096, got [2147483648, 2147483648]");
  EXPECT_EQ(error_of([] {
              make_conv(3, 8, {70000, 1}, {3, 3});
            }),
            "sofm: must be positive and at most 65536, got [70000, 1]");
  // Each dimension within its limit, the product of them not: checked, not wrapped.
  EXPECT_EQ(error_of([] {
              make_conv(65536, 65536, {64, 64}, {3, 3});
            }),
            "MACs: the layer's MACs per sample exceed the limit 68719476736 (model/limits.hpp)");
  EXPECT_EQ(error_of([] {
              make_fc(1 << 20, 1 << 20, {1, 1});
            }),
            "MACs: the layer's MACs per sample exceed the limit 68719476736 (model/limits.hpp)");
  // The derived sifm is bounded too (a large stride inflates it without MACs).
  EXPECT_EQ(error_of([] {
              make_conv(1, 1, {4096, 1}, {1, 1}, {4096, 1});
            }),
            "sifm: must be positive and at most 65536, got [16773121, 1]");
  EXPECT_EQ(error_of([] {
              make_local_region(1 << 20, {1, 1}, 1, {1, 1}, 2);
            }),
            "nifm: must be positive and at most 1048576, got 2097152");
  // At the limits, the sizes the cost model forms for the largest batch fit an int64.
  const Layer big = make_conv(1024, 1024, {256, 256}, {1, 1});
  EXPECT_EQ(big.total_ops(1), std::int64_t{1} << 36);
  EXPECT_EQ(big.total_ops(limits::kMaxBatch), std::int64_t{1} << 56);
}

Hardware valid_hardware() {
  Hardware hw;
  hw.name = "h";
  hw.gbuf_bytes = 1024;
  hw.regf_bytes = 64;
  return hw;
}

TEST(Limits, HardwareThatCrashedIsRefused) {
  Hardware hw = valid_hardware();
  EXPECT_NO_THROW(validate(hw));
  hw.pe_array = {3037000500, 3037000500};  // SIGFPE: the PE count overflowed to 0
  EXPECT_EQ(error_of([&] { validate(hw); }),
            "pe_array: must be positive and at most 1024, got [3037000500, 3037000500]");
  hw = valid_hardware();
  hw.nodes = {65536, 65536};  // std::bad_alloc in gen_pidx
  EXPECT_EQ(error_of([&] { validate(hw); }),
            "nodes: must be positive and at most 64, got [65536, 65536]");
  hw.nodes = {4294967296, 1};  // a hang
  EXPECT_NE(error_of([&] { validate(hw); }).find("nodes: "), std::string::npos);
  hw = valid_hardware();
  hw.word_bits = kInt64Max;  // word_bytes() overflowed
  EXPECT_EQ(error_of([&] { validate(hw); }).rfind("word_bits: ", 0), 0u);
  hw = valid_hardware();
  hw.name = "a\x1b[31m";
  EXPECT_EQ(error_of([&] { validate(hw); }), "name: must not contain control characters");
}

TEST(Limits, UnitCostsAreFiniteAndNonNegative) {
  UnitCosts c;
  EXPECT_NO_THROW(validate(c));
  c.mac_op = std::nan("");
  EXPECT_EQ(error_of([&] { validate(c); }),
            "costs.mac_op: must be a non-negative number at most 1e+30, got nan");
  c = UnitCosts{};
  c.mem_hier[MemLevel::Gbuf] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(error_of([&] { validate(c); }),
            "costs.mem_hier.GBUF: must be a non-negative number at most 1e+30, got inf");
  c = UnitCosts{};
  c.noc_hop = -1;
  EXPECT_EQ(error_of([&] { validate(c); }),
            "costs.noc_hop: must be a non-negative number at most 1e+30, got -1");
}

TEST(Limits, OptionsAreBounded) {
  SearchOptions o;
  EXPECT_NO_THROW(validate(o));  // inf is the default of both pipeline knobs
  EXPECT_NO_THROW(validate(kapla_option_preset("training")));  // 1e10, the KAPLA code's
  o.layer_pipeline_max_degree = 9223372036854775807.0;
  EXPECT_EQ(error_of([&] { validate(o); }),
            "layer_pipeline_max_degree: must be a non-negative number at most 1e+10 (or inf), "
            "got 9.22337e+18");
  o = SearchOptions{};
  o.ntops = 5000;
  EXPECT_EQ(error_of([&] { validate(o); }), "ntops: must be positive and at most 1024, got 5000");
}

TEST(Limits, DescribeListsEveryLimit) {
  const std::string text = limits::describe();
  for (const char* what : {"nifm",
                           "sofm",
                           "sfil",
                           "per sample",
                           "batch",
                           "nodes",
                           "pe_array",
                           "gbuf_bytes",
                           "word_bits",
                           "array_bus_width_bits",
                           "dram_bandwidth",
                           "unit costs",
                           "layer_pipeline_max_degree",
                           "ntops",
                           "tuple_time_limit_seconds",
                           "max_evaluations",
                           "threads",
                           "names",
                           "design-space axis",
                           "design points",
                           "tuples"}) {
    EXPECT_NE(text.find(what), std::string::npos) << what;
  }
  EXPECT_NE(text.find("1 .. 1048576"), std::string::npos);
  // Every row separates its label from its range (the --stop-grace row ran into it).
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);  // the title
  while (std::getline(lines, line)) {
    EXPECT_NE(line.find("  ", 2), std::string::npos) << line;
  }
  EXPECT_EQ(text.find("grace0"), std::string::npos);
}

}  // namespace
}  // namespace kapla::model
