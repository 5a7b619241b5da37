// Hardware design spaces in job files (docs/codesign.md): exact grid expansion (count, names,
// parameters), constraints on hand-computed areas, seeded random sampling, and one-line errors.
#include "sweep/design_space.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "io/job_json.hpp"

namespace kapla::io {
namespace {

using ::testing::HasSubstr;

// A job with one hardware entry `entry` (JSON text).
std::string job(const std::string& entry) {
  return R"({"name": "d", "networks": ["mlp_s"], "hardware": [)" + entry +
         R"(], "strategies": ["kapla"], "output": "d.h5"})";
}

sweep::SweepSpec parse(const std::string& entry) {
  return parse_job_text(job(entry), "jobs/d.json", search::builtin_strategies(),
                        std::filesystem::path(KAPLA_SOURCE_DATA_DIR));
}

std::string error_of(const std::string& entry) {
  try {
    parse(entry);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::vector<std::string> names(const sweep::SweepSpec& spec) {
  std::vector<std::string> out;
  for (const auto& h : spec.hardware) out.push_back(h.name);
  return out;
}

// Thistle's Eyeriss (data/hardware/eyeriss_45nm.json): 168 PEs, 512 register words, 65536
// SRAM words, 45 nm areas 1239.5 / 19.874 / 6.806 um^2.
const std::string kGrid = R"({"base": "eyeriss_45nm", "batch": 2, "axes": {
    "pe_array": [[14, 12], [16, 16]],
    "gbuf_bytes": {"from": 32768, "to": 131072, "ratio": 2},
    "regf_bytes": [512, 1024]}})";

TEST(DesignSpace, GridExpansionIsExact) {
  const auto spec = parse(kGrid);
  EXPECT_EQ(names(spec),
            (std::vector<std::string>{
                "eyeriss_45nm~pe14x12~gbuf32k~regf512", "eyeriss_45nm~pe14x12~gbuf32k~regf1k",
                "eyeriss_45nm~pe14x12~gbuf64k~regf512", "eyeriss_45nm~pe14x12~gbuf64k~regf1k",
                "eyeriss_45nm~pe14x12~gbuf128k~regf512", "eyeriss_45nm~pe14x12~gbuf128k~regf1k",
                "eyeriss_45nm~pe16x16~gbuf32k~regf512", "eyeriss_45nm~pe16x16~gbuf32k~regf1k",
                "eyeriss_45nm~pe16x16~gbuf64k~regf512", "eyeriss_45nm~pe16x16~gbuf64k~regf1k",
                "eyeriss_45nm~pe16x16~gbuf128k~regf512", "eyeriss_45nm~pe16x16~gbuf128k~regf1k"}));
  // Every point's hardware has its parameters, the base's other values, and costs re-derived
  // for its capacities; its parameters go with every tuple on it.
  const auto& p = spec.hardware[8];  // pe16x16, gbuf64k, regf512
  ASSERT_TRUE(p.design);
  EXPECT_EQ(p.design->name, p.name);
  EXPECT_EQ(p.design->pe_array, (PhyDim2{16, 16}));
  EXPECT_EQ(p.design->gbuf_bytes, 65536);
  EXPECT_EQ(p.design->regf_bytes, 512);
  EXPECT_EQ(p.design->nodes, (PhyDim2{1, 1}));
  EXPECT_EQ(p.batches, (std::vector<std::int64_t>{2}));
  // 256 register words: half of 4.64240128 pJ; 32768 SRAM words: sqrt(1/2) of 4.57728 pJ.
  EXPECT_DOUBLE_EQ(p.design->costs.mem_hier[MemLevel::Regf], 2.32120064e-12);
  EXPECT_DOUBLE_EQ(p.design->costs.mem_hier[MemLevel::Gbuf], 4.57728 * std::sqrt(0.5) / 1e12);
  const sweep::DesignParams want{"eyeriss_45nm", 1, 1, 16, 16, 65536, 512, 0,
                                 std::numeric_limits<double>::infinity(),
                                 // 256 x (1239.5 + 256 x 19.874) + 32768 x 6.806 um^2
                                 (256 * (1239.5 + 256 * 19.874) + 32768 * 6.806) * 1e-6};
  EXPECT_EQ(p.params.base, want.base);
  EXPECT_EQ(p.params.pe_h, 16);
  EXPECT_EQ(p.params.gbuf_bytes, 65536);
  EXPECT_DOUBLE_EQ(p.params.area_mm2, want.area_mm2);
  const auto tuples = sweep::expand_tuples(spec);
  ASSERT_EQ(tuples.size(), 12u);
  EXPECT_EQ(tuples[8].hardware, p.name);
  EXPECT_EQ(tuples[8].design, p.params);
  EXPECT_EQ(tuples[8].key(), "mlp_s:eyeriss_45nm~pe16x16~gbuf64k~regf512:kapla:b2:s1");
}

TEST(DesignSpace, ShapeAxesTakeARangePerSideAndStepRanges) {
  const auto spec = parse(R"({"base": "eyeriss_45nm", "batch": 1, "axes": {
      "nodes": {"h": [1, 2], "w": {"from": 1, "to": 3, "step": 2}},
      "dram_bandwidth_bytes_per_cycle": [12.8, 25.6], "array_bus_width_bits": ["unlimited", 64]}})");
  EXPECT_EQ(spec.hardware.size(), 2u * 2u * 2u * 2u);
  EXPECT_EQ(spec.hardware[0].name, "eyeriss_45nm~nodes1x1~businf~bw12.8");
  EXPECT_EQ(spec.hardware.back().name, "eyeriss_45nm~nodes2x3~bus64~bw25.6");
  EXPECT_EQ(spec.hardware.back().design->array_bus_width_bits, 64);
  EXPECT_EQ(spec.hardware.back().design->dram_bandwidth_bytes_per_cycle, 25.6);
}

// Areas by hand (gbuf fixed at 65536 words = 446038.016 um^2):
//   14x12, 256 words: 168 x (1239.5 + 256 x 19.874) + 446038.016 = 1509015.008 um^2
//   14x12, 512 words: 168 x (1239.5 + 512 x 19.874) + 446038.016 = 2363756.000
//   16x16, 256 words: 256 x (1239.5 + 256 x 19.874) + 446038.016 = 2065812.480
//   16x16, 512 words: 256 x (1239.5 + 512 x 19.874) + 446038.016 = 3368274.944
const std::string kSmall = R"("base": "eyeriss_45nm", "batch": 1, "axes": {
    "pe_array": [[14, 12], [16, 16]], "regf_bytes": [512, 1024]})";

TEST(DesignSpace, AreaBudgetKeepsTheDesignsWithinIt) {
  EXPECT_EQ(names(parse("{" + kSmall + R"(, "constraints": {"area_budget_mm2": 2.4}})")),
            (std::vector<std::string>{"eyeriss_45nm~pe14x12~regf512", "eyeriss_45nm~pe14x12~regf1k",
                                      "eyeriss_45nm~pe16x16~regf512"}));
  EXPECT_EQ(names(parse("{" + kSmall + R"(, "constraints": {"area_budget_mm2": 2.0}})")),
            (std::vector<std::string>{"eyeriss_45nm~pe14x12~regf512"}));
  const auto spec = parse("{" + kSmall + R"(, "constraints": {"area_budget_mm2": 2.4}})");
  EXPECT_DOUBLE_EQ(spec.hardware[1].params.area_mm2, 2.363756);
  EXPECT_DOUBLE_EQ(spec.hardware[2].params.area_mm2, 2.06581248);
}

TEST(DesignSpace, SameAreaAsKeepsTheDesignsWithinTheTolerance) {
  // Reference eyeriss_45nm = 2.363756 mm^2; 15 % keeps [2.0092, 2.7183].
  EXPECT_EQ(
      names(parse("{" + kSmall +
                  R"(, "constraints": {"same_area_as": {"design": "eyeriss_45nm",
                                                           "tolerance": 0.15}}})")),
      (std::vector<std::string>{"eyeriss_45nm~pe14x12~regf1k", "eyeriss_45nm~pe16x16~regf512"}));
  // A reference without a technology is priced with the space's: the eyeriss preset (256
  // register words, 55296 SRAM words) = 1062976.992 + 376344.576 um^2 = 1.439321568 mm^2.
  EXPECT_EQ(names(parse("{" + kSmall +
                        R"(, "constraints": {"same_area_as": {"design": "eyeriss",
                                                           "tolerance": 0.05}}})")),
            (std::vector<std::string>{"eyeriss_45nm~pe14x12~regf512"}));
}

// The PE-utilisation floor is known only after scheduling: it keeps every grid point, and each
// point carries it into its params (the results' design_min_pe_utilisation column).
TEST(DesignSpace, UtilisationFloorKeepsThePointsAndNeedsNoTechnology) {
  const auto spec = parse(
      "{" + kSmall + R"(, "constraints": {"area_budget_mm2": 2.4, "min_pe_utilisation": 0.5}})");
  EXPECT_EQ(names(spec),
            (std::vector<std::string>{"eyeriss_45nm~pe14x12~regf512", "eyeriss_45nm~pe14x12~regf1k",
                                      "eyeriss_45nm~pe16x16~regf512"}));
  for (const auto& h : spec.hardware) EXPECT_EQ(h.params.min_pe_utilisation, 0.5) << h.name;
  // Only the floor: the eyeriss preset has no technology section, and needs none.
  const auto plain = parse(R"({"base": "eyeriss", "batch": 1, "axes": {"regf_bytes": [512, 1024]},
                               "constraints": {"min_pe_utilisation": 1}})");
  EXPECT_EQ(names(plain), (std::vector<std::string>{"eyeriss~regf512", "eyeriss~regf1k"}));
  EXPECT_EQ(plain.hardware[0].params.min_pe_utilisation, 1.0);
  EXPECT_EQ(plain.hardware[0].params.area_mm2, 0.0);
  // Without a floor the column reads 0 (none).
  EXPECT_EQ(parse(kGrid).hardware[0].params.min_pe_utilisation, 0.0);
  // An area constraint still needs the technology, with or without a floor.
  EXPECT_EQ(error_of(R"({"base": "eyeriss", "batch": 1, "axes": {"regf_bytes": [512]},
                         "constraints": {"min_pe_utilisation": 0.5, "area_budget_mm2": 2}})"),
            "jobs/d.json: hardware[0].constraints: need a \"technology\" section in the base "
            "hardware 'eyeriss' (areas come from it)");
}

TEST(DesignSpace, BadUtilisationFloorsAreOneLineErrors) {
  const std::string at = "jobs/d.json: hardware[0].constraints";
  auto floor = [](const std::string& value) {
    return error_of("{" + kSmall + R"(, "constraints": {"min_pe_utilisation": )" + value + "}}");
  };
  const std::string range =
      ".min_pe_utilisation: must be in (0, 1] (a fraction of the PE-cycles), got ";
  EXPECT_EQ(floor("0"), at + range + "0");
  EXPECT_EQ(floor("-0.25"), at + range + "-0.25");
  EXPECT_EQ(floor("1.5"), at + range + "1.5");
  EXPECT_EQ(floor(R"("half")"), at + ".min_pe_utilisation: must be a number, got \"half\"");
  EXPECT_EQ(floor("null"), at + ".min_pe_utilisation: must be a number, got null");
  EXPECT_EQ(error_of("{" + kSmall + R"(, "constraints": {}})"),
            at + ": must give area_budget_mm2, same_area_as or min_pe_utilisation");
}

TEST(DesignSpace, RandomSamplingIsDeterministicUnderItsSeed) {
  auto sample = [](int count, int seed) {
    return names(parse(R"({"base": "eyeriss_45nm", "batch": 1, "axes": {
        "pe_array": {"h": {"from": 2, "to": 16, "step": 2}, "w": [7, 12, 14, 16]},
        "regf_bytes": [256, 512, 1024]},
        "sampling": {"random": {"count": )" +
                       std::to_string(count) + R"(, "seed": )" + std::to_string(seed) + "}}}"));
  };
  const auto a = sample(10, 7);
  EXPECT_EQ(a.size(), 10u);
  EXPECT_EQ(sample(10, 7), a);
  EXPECT_NE(sample(10, 8), a);
  // Distinct points, in grid order, all from the grid of 8 x 4 x 3 = 96.
  const auto grid = sample(96, 1);
  EXPECT_EQ(grid.size(), 96u);
  std::size_t at = 0;
  for (const auto& n : a) {
    while (at < grid.size() && grid[at] != n) ++at;
    ASSERT_LT(at, grid.size()) << n << " is not in grid order";
    ++at;
  }
  EXPECT_EQ(a.front(), sample(10, 7).front());
}

TEST(DesignSpace, BadSpacesAreOneLineErrors) {
  const std::string at = "jobs/d.json: hardware[0].";
  EXPECT_EQ(error_of(R"({"base": "eyeriss_45nm", "batch": 1, "axes": {"pe": [8]}})"),
            at + "axes.pe: unknown key; allowed: nodes, pe_array, gbuf_bytes, regf_bytes, "
                 "array_bus_width_bits, dram_bandwidth_bytes_per_cycle");
  EXPECT_EQ(error_of(R"({"base": "eyeriss_45nm", "batch": 1, "axes": {"regf_bytes": []}})"),
            at + "axes.regf_bytes: must not be empty");
  EXPECT_EQ(error_of(R"({"base": "eyeriss_45nm", "batch": 1, "axes": {"regf_bytes": [512, 512]}})"),
            at + "axes.regf_bytes[1]: 512 is listed twice");
  EXPECT_EQ(error_of(R"({"base": "eyeriss_45nm", "batch": 1,
                         "axes": {"gbuf_bytes": {"from": 1024, "to": 4096, "step": 1, "ratio": 2}}})"),
            at + "axes.gbuf_bytes: needs exactly one of \"step\" and \"ratio\"");
  EXPECT_EQ(error_of(R"({"base": "eyeriss_45nm", "batch": 1,
                         "axes": {"gbuf_bytes": {"from": 1024, "to": 4096, "ratio": 1}}})"),
            at + "axes.gbuf_bytes.ratio: must be > 1, got 1");
  EXPECT_EQ(error_of(R"({"base": "eyeriss_45nm", "batch": 1,
                         "axes": {"gbuf_bytes": {"from": 4096, "to": 1024, "step": 1024}}})"),
            at + "axes.gbuf_bytes.to: must be >= from, got 1024");
  EXPECT_EQ(error_of(R"({"base": "eyeriss_45nm", "batch": 1,
                         "axes": {"gbuf_bytes": {"from": 1024.5, "to": 4096, "step": 1024}}})"),
            at + "axes.gbuf_bytes.from: must be an integer, got 1024.5");
  EXPECT_EQ(error_of(R"({"base": "eyeriss", "batch": 1, "axes": {"regf_bytes": [512]},
                         "constraints": {"area_budget_mm2": 2}})"),
            "jobs/d.json: hardware[0].constraints: need a \"technology\" section in the base "
            "hardware 'eyeriss' (areas come from it)");
  EXPECT_EQ(error_of("{" + kSmall + R"(, "constraints": {"area_budget_mm2": 1.0}})"),
            "jobs/d.json: hardware[0].constraints: none of the 4 designs meets them (smallest "
            "area 1.509015008 mm^2)");
  EXPECT_EQ(error_of("{" + kSmall + R"(, "constraints": {"pe_utilisation_floor": 0.5}})"),
            at + "constraints.pe_utilisation_floor: unknown key; allowed: area_budget_mm2, "
                 "same_area_as, min_pe_utilisation");
  EXPECT_EQ(error_of("{" + kSmall + R"(, "sampling": {"random": {"count": 5, "seed": 1}}})"),
            "jobs/d.json: hardware[0].sampling.random.count: asks for 5 designs, but only 4 "
            "meet the constraints (use \"grid\" for all)");
  EXPECT_EQ(error_of("{" + kSmall + R"(, "sampling": "full"})"),
            at + "sampling: must be \"grid\", {\"random\": {...}} or {\"local_search\": "
                 "{...}}, got \"full\"");
  EXPECT_EQ(error_of(R"({"base": "eyeriss_45nm", "batch": 1, "axes": {"regf_bytes": [1]}})"),
            "jobs/d.json: hardware[0]: design 'eyeriss_45nm~regf1': regf_bytes: must hold at "
            "least one word (2 bytes), got 1");
  EXPECT_EQ(error_of(R"({"base": "eyeriss_45nm", "batch": 1, "axes": {"pe_array":
                         {"h": {"from": 1, "to": 64, "step": 1}, "w": {"from": 1, "to": 64, "step": 1}},
                         "regf_bytes": {"from": 2, "to": 64, "step": 2}}})"),
            at + "axes: the grid has 131072 designs, more than 100000");
  EXPECT_THAT(error_of(R"({"base": "nope", "batch": 1, "axes": {"regf_bytes": [512]}})"),
              HasSubstr("hardware[0].base: unknown hardware 'nope'"));
  EXPECT_EQ(error_of(R"({"base": "eyeriss_45nm", "batch": 1, "axes": {"pe_array": [[2000, 1]]}})"),
            "jobs/d.json: hardware[0]: design 'eyeriss_45nm~pe2000x1': pe_array: must be positive "
            "and at most 1024, got [2000, 1]");
}

// Numbers of a space that a hostile job can make huge (issue 17 for issue 19's spaces): the
// grid's size is checked, without overflow, before a point is built; integer ranges are
// computed in integers (they went through double: 2^63 - 1 became 2^63, an undefined cast).
TEST(DesignSpace, HostileSpacesAreRefusedBeforeTheGridIsBuilt) {
  const std::string at = "jobs/d.json: hardware[0].";
  const std::string r4096 = R"({"from": 1, "to": 4096, "step": 1})";
  // Six axes of 4096 values: 2^72 points. The count wrapped to 0 in int64, passed the 10^5
  // check and the expansion started on 2^72 points.
  EXPECT_EQ(
      error_of(R"({"base": "eyeriss_45nm", "batch": 1, "axes": {"nodes": {"h": )" + r4096 +
               R"(, "w": [1]}, "pe_array": {"h": )" + r4096 + R"(, "w": [1]}, "gbuf_bytes": )" +
               r4096 + R"(, "regf_bytes": )" + r4096 + R"(, "array_bus_width_bits": )" + r4096 +
               R"(, "dram_bandwidth_bytes_per_cycle": )" + r4096 + "}}"),
      at + "axes: the grid has more than 2^63 designs, more than 100000");
  // A shape axis is one axis: at most 4096 shapes, refused before 2^24 shapes are built.
  EXPECT_EQ(error_of(R"({"base": "eyeriss_45nm", "batch": 1, "axes": {"pe_array": {"h": )" + r4096 +
                     R"(, "w": )" + r4096 + "}}}"),
            at + "axes.pe_array: gives 16777216 shapes, more than 4096");
  // Integer bounds beyond a double's 53 bits keep their value (the limit then refuses it).
  EXPECT_THAT(error_of(R"({"base": "eyeriss_45nm", "batch": 1, "axes": {"gbuf_bytes":
                          {"from": 9223372036854775807, "to": 9223372036854775807, "step": 1}}})"),
              HasSubstr("gbuf_bytes: must be positive and at most 1099511627776, got "
                        "9223372036854775807"));
  EXPECT_THAT(error_of(R"({"base": "eyeriss_45nm", "batch": 1, "axes": {"gbuf_bytes":
                          {"from": 9007199254740993, "to": 9223372036854775807, "ratio": 2}}})"),
              HasSubstr("got 9007199254740993"));
  // A step past int64 ends the range instead of wrapping around.
  EXPECT_EQ(error_of(R"({"base": "eyeriss_45nm", "batch": 1, "axes": {"gbuf_bytes":
                        {"from": 65536, "to": 9223372036854775807, "step": 9223372036854775807}}})"),
            "(no error)");
  // A real range ends at the largest double instead of stepping on into inf.
  EXPECT_EQ(
      error_of(R"({"base": "eyeriss_45nm", "batch": 1, "axes": {"dram_bandwidth_bytes_per_cycle":
                        {"from": 1e308, "to": 1.7976931348623157e308, "ratio": 1.5}}})"),
      "jobs/d.json: hardware[0]: design 'eyeriss_45nm~bw1e+308': "
      "dram_bandwidth_bytes_per_cycle: must be a non-negative number at most 1e+18 (or "
      "inf), got 1e+308");
  // Every space within 10^5 designs, the job's spaces together not: refused before the second
  // is expanded (a job could list thousands of spaces; each 10^5 took seconds to expand).
  const std::string space_of_100000 =
      R"({"base": "eyeriss_45nm", "batch": 1, "axes": {
          "gbuf_bytes": {"from": 65536, "to": 67534, "step": 2},
          "regf_bytes": {"from": 512, "to": 710, "step": 2}}})";
  EXPECT_EQ(error_of("{" + kSmall + "}, " + space_of_100000),
            "jobs/d.json: hardware[1].axes: the job's spaces have 100004 designs in all, more "
            "than 100000");
}

TEST(DesignSpace, AShippedPresetNextToItsSpaceIsNotADesign) {
  const auto spec =
      parse(R"({"name": "eyeriss_45nm", "batch": 1}, )" + std::string("{") + kSmall + "}");
  ASSERT_EQ(spec.hardware.size(), 5u);
  EXPECT_FALSE(spec.hardware[0].design);
  EXPECT_EQ(sweep::expand_tuples(spec)[0].design, sweep::DesignParams{});
}

}  // namespace
}  // namespace kapla::io
