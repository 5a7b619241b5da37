// Hardware files: the shipped presets carry exactly the numbers of kapla-spec.md §7.1, the
// reference's own hardware files load as is and equal the presets, and bad files are rejected
// naming the file and the key.
#include "io/hardware_json.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>

#include "core/errors.hpp"
#include "io/catalog.hpp"
#include "temp_files.hpp"

namespace kapla::io {
namespace {

using testing::input_error_of;
using testing::TempDir;

const std::string kReferenceDir = std::string(KAPLA_TEST_DATA_DIR) + "/reference_hardware/";

model::Hardware preset(const std::string& name) {
  return Catalog(KAPLA_SOURCE_DATA_DIR).load_hardware(name);
}

model::UnitCosts kapla_costs(double gbuf, double itcn, double regf, double idle) {
  model::UnitCosts c;
  c.mac_op = 9.984e-13;
  c.mem_hier[MemLevel::Dram] = 4.0189027539954336e-10;
  c.mem_hier[MemLevel::Gbuf] = gbuf;
  c.mem_hier[MemLevel::Itcn] = itcn;
  c.mem_hier[MemLevel::Regf] = regf;
  c.noc_hop = 9.76e-12;
  c.idl_unit = idle;
  return c;
}

const model::UnitCosts kMultiNodeCosts =
    kapla_costs(2.8325450000000004e-12, 1.6416e-12, 9.408850000000001e-14, 1.2728688055044508e-09);
const model::UnitCosts kSingleNodeCosts =
    kapla_costs(7.483700000000001e-12, 3.2832e-12, 2.507285e-13, 5.410220055044509e-10);

TEST(HardwarePresets, CatalogListsThem) {
  EXPECT_EQ(Catalog(KAPLA_SOURCE_DATA_DIR).list_hardware(),
            (std::vector<std::string>{"cloud", "cloud4x4", "edge", "edge_systolic", "eyeriss",
                                      "eyeriss_45nm", "eyeriss_45nm_nobus"}));
}

TEST(HardwarePresets, Cloud) {
  const model::Hardware hw = preset("cloud");
  EXPECT_EQ(hw.name, "cloud");
  EXPECT_NE(hw.source.find("multi_node.json"), std::string::npos);
  EXPECT_EQ(hw.nodes, (PhyDim2{16, 16}));
  EXPECT_EQ(hw.pe_array, (PhyDim2{8, 8}));
  EXPECT_EQ(hw.gbuf_bytes, 32768);
  EXPECT_EQ(hw.regf_bytes, 64);
  EXPECT_EQ(hw.word_bits, 16);
  EXPECT_EQ(hw.gbuf_words(), 16384);
  EXPECT_EQ(hw.regf_words(), 32);
  EXPECT_EQ(hw.array_bus_width_bits, 128);
  EXPECT_EQ(hw.dram_bandwidth_bytes_per_cycle, 51.2);
  EXPECT_EQ(hw.mem_type, model::MemoryType::TwoD);
  EXPECT_TRUE(hw.energy_in_joules);  // "energy_unit": "joule"
  EXPECT_FALSE(preset("eyeriss").energy_in_joules);
  EXPECT_EQ(hw.costs, kMultiNodeCosts);
  EXPECT_EQ(hw.features, (model::HardwareFeatures{true, true, true}));
}

TEST(HardwarePresets, Edge) {
  const model::Hardware hw = preset("edge");
  EXPECT_EQ(hw.nodes, (PhyDim2{1, 1}));
  EXPECT_EQ(hw.pe_array, (PhyDim2{16, 16}));
  EXPECT_EQ(hw.gbuf_bytes, 262144);
  EXPECT_EQ(hw.regf_bytes, 512);
  EXPECT_EQ(hw.word_bits, 16);
  EXPECT_EQ(hw.array_bus_width_bits, 256);
  EXPECT_EQ(hw.dram_bandwidth_bytes_per_cycle, 12.8);
  EXPECT_EQ(hw.mem_type, model::MemoryType::TwoD);
  EXPECT_EQ(hw.costs, kSingleNodeCosts);
}

TEST(HardwarePresets, Cloud4x4) {
  const model::Hardware hw = preset("cloud4x4");
  EXPECT_EQ(hw.nodes, (PhyDim2{4, 4}));
  EXPECT_EQ(hw.pe_array, (PhyDim2{8, 8}));
  EXPECT_EQ(hw.gbuf_bytes, 65536);
  EXPECT_EQ(hw.regf_bytes, 64);
  EXPECT_EQ(hw.array_bus_width_bits, 128);
  EXPECT_EQ(hw.dram_bandwidth_bytes_per_cycle, 51.2);
  EXPECT_EQ(hw.costs, kMultiNodeCosts);
}

TEST(HardwarePresets, Eyeriss) {
  const model::Hardware hw = preset("eyeriss");
  EXPECT_EQ(hw.nodes, (PhyDim2{1, 1}));
  EXPECT_EQ(hw.pe_array, (PhyDim2{14, 12}));
  EXPECT_EQ(hw.gbuf_bytes, 110592);
  EXPECT_EQ(hw.regf_bytes, 512);
  EXPECT_EQ(hw.word_bits, 16);
  EXPECT_EQ(hw.array_bus_width_bits, 0);  // unlimited
  EXPECT_TRUE(std::isinf(hw.dram_bandwidth_bytes_per_cycle));
  EXPECT_EQ(hw.mem_type, model::MemoryType::TwoD);
  model::UnitCosts cli_defaults;
  cli_defaults.mac_op = 1;
  cli_defaults.mem_hier = {{200, 6, 2, 1}};
  cli_defaults.noc_hop = 10;
  cli_defaults.idl_unit = 0;
  EXPECT_EQ(hw.costs, cli_defaults);
  EXPECT_NE(hw.source.find("unlimited"), std::string::npos);
  EXPECT_FALSE(hw.technology);  // opt-in: its costs are the file's, bit for bit (above)
}

// Thistle's Eyeriss under Thistle's 45 nm figures: the costs are derived from the technology
// at the file's own capacities (512 register words, 65536 SRAM words = the reference points).
TEST(HardwarePresets, Eyeriss45nmCostsComeFromItsTechnology) {
  const model::Hardware hw = preset("eyeriss_45nm");
  ASSERT_TRUE(hw.technology);
  EXPECT_TRUE(hw.energy_in_joules);
  EXPECT_EQ(hw.regf_words(), 512);
  EXPECT_EQ(hw.gbuf_words(), 65536);
  EXPECT_EQ(hw.costs.mac_op, 2.2 / 1e12);
  EXPECT_EQ(hw.costs.mem_hier[MemLevel::Dram], 128 / 1e12);
  EXPECT_EQ(hw.costs.mem_hier[MemLevel::Regf], 4.64240128 / 1e12);
  EXPECT_EQ(hw.costs.mem_hier[MemLevel::Gbuf], 4.57728 / 1e12);
  EXPECT_EQ(hw.costs.mem_hier[MemLevel::Itcn], 4.4 / 1e12);
  EXPECT_EQ(hw.costs.noc_hop, 22 / 1e12);
  EXPECT_EQ(hw.costs.idl_unit, 0);
}

// Thistle's energy model in kapla (docs/codesign_results.md): eyeriss_45nm without the
// array-bus energy, nothing else changed (sizes, areas, every other energy).
TEST(HardwarePresets, Eyeriss45nmNobusIsEyeriss45nmWithoutTheArrayBus) {
  const model::Hardware with_bus = preset("eyeriss_45nm");
  model::Hardware nobus = preset("eyeriss_45nm_nobus");
  ASSERT_TRUE(nobus.technology);
  EXPECT_EQ(nobus.costs.mem_hier[MemLevel::Itcn], 0);
  EXPECT_EQ(nobus.technology->energy.itcn_pj, 0);
  nobus.costs.mem_hier[MemLevel::Itcn] = with_bus.costs.mem_hier[MemLevel::Itcn];
  nobus.technology->energy.itcn_pj = with_bus.technology->energy.itcn_pj;
  nobus.technology->source = with_bus.technology->source;
  nobus.name = with_bus.name;
  nobus.source = with_bus.source;
  EXPECT_EQ(nobus, with_bus);
}

// A reference file and its preset differ only in name and source.
void expect_same_machine(model::Hardware reference, model::Hardware own) {
  reference.name = own.name;
  reference.source = own.source;
  EXPECT_EQ(reference, own);
}

TEST(ReferenceHardware, LoadsAsIsAndEqualsThePresets) {
  const model::Hardware multi = load_hardware_file(kReferenceDir + "multi_node.json");
  EXPECT_EQ(multi.name, "multi_node");
  EXPECT_NE(multi.source.find("multi_node.json"), std::string::npos);
  expect_same_machine(multi, preset("cloud"));
  expect_same_machine(load_hardware_file(kReferenceDir + "single_node.json"), preset("edge"));
  expect_same_machine(load_hardware_file(kReferenceDir + "multi_node_4x4.json"),
                      preset("cloud4x4"));
}

TEST(ReferenceHardware, SingleNodeVariantHasCloudDram) {
  const model::Hardware hw = load_hardware_file(kReferenceDir + "_single_node.json");
  EXPECT_EQ(hw.nodes, (PhyDim2{1, 1}));
  EXPECT_EQ(hw.pe_array, (PhyDim2{16, 16}));
  EXPECT_EQ(hw.gbuf_bytes, 262144);
  EXPECT_EQ(hw.regf_bytes, 512);
  EXPECT_EQ(hw.array_bus_width_bits, 128);
  EXPECT_EQ(hw.dram_bandwidth_bytes_per_cycle, 51.2);
  EXPECT_EQ(hw.costs, kSingleNodeCosts);
}

TEST(ReferenceHardware, CatalogLoadsItByPath) {
  const model::Hardware hw =
      Catalog(KAPLA_SOURCE_DATA_DIR).load_hardware(kReferenceDir + "multi_node.json");
  EXPECT_EQ(hw.nodes, (PhyDim2{16, 16}));
}

// --- Bad files ------------------------------------------------------------------------------

std::string read_text(const std::string& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The text of `file` with the first `from` replaced by `to`.
std::string edited(const std::string& file, const std::string& from, const std::string& to) {
  std::string text = read_text(file);
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

std::string cloud_with(const std::string& from, const std::string& to) {
  return edited(std::string(KAPLA_SOURCE_DATA_DIR) + "/hardware/cloud.json", from, to);
}

std::string reference_with(const std::string& from, const std::string& to) {
  return edited(kReferenceDir + "multi_node.json", from, to);
}

std::string hardware_error(const TempDir& dir, const std::string& text) {
  const auto file = dir.write("hw.json", text);
  return input_error_of([&] { load_hardware_file(file); });
}

TEST(HardwareJson, ZeroAndNegativeSizes) {
  TempDir dir;
  const std::string file = (dir.path() / "hw.json").string();
  EXPECT_EQ(hardware_error(dir, cloud_with("\"gbuf_bytes\": 32768", "\"gbuf_bytes\": 0")),
            file + ": gbuf_bytes: must be positive, got 0");
  EXPECT_EQ(hardware_error(dir, cloud_with("\"nodes\": [16, 16]", "\"nodes\": [16, -1]")),
            file + ": nodes: must be positive, got [16, -1]");
  EXPECT_EQ(hardware_error(dir, cloud_with("\"gbuf_bytes\": 32768", "\"gbuf_bytes\": 1")),
            file + ": gbuf_bytes: must hold at least one word (2 bytes), got 1");
  EXPECT_EQ(hardware_error(dir, cloud_with("\"dram_bandwidth_bytes_per_cycle\": 51.2",
                                           "\"dram_bandwidth_bytes_per_cycle\": 0")),
            file + ": dram_bandwidth_bytes_per_cycle: must be positive, got 0");
  EXPECT_EQ(hardware_error(dir, cloud_with("\"mac_op\": 9.984e-13", "\"mac_op\": -1")),
            file + ": costs.mac_op: must be non-negative, got -1");
}

std::string eyeriss_45nm_with(const std::string& from, const std::string& to) {
  return edited(std::string(KAPLA_SOURCE_DATA_DIR) + "/hardware/eyeriss_45nm.json", from, to);
}

TEST(HardwareJson, TechnologyErrorsAreOneLineNamingTheKey) {
  TempDir dir;
  const std::string file = (dir.path() / "hw.json").string();
  EXPECT_EQ(
      hardware_error(dir, eyeriss_45nm_with("\"mac\": 1239.5", "\"mac\": -1")),
      file + ": technology.area_um2.mac: must be a non-negative number at most 1e+30, got -1");
  EXPECT_EQ(hardware_error(dir, eyeriss_45nm_with("\"router\": 0", "\"routers\": 0")),
            file +
                ": technology.area_um2.routers: unknown key; allowed: mac, regf_word, gbuf_word, "
                "router");
  EXPECT_EQ(hardware_error(dir, eyeriss_45nm_with(", \"router\": 0", "")),
            file + ": technology.area_um2.router: missing required key");
  EXPECT_EQ(hardware_error(dir, eyeriss_45nm_with("\"at_words\": 512", "\"at_words\": 0")),
            file + ": technology.energy_pj.regf.at_words: must be positive, got 0");
  EXPECT_EQ(hardware_error(dir, eyeriss_45nm_with("\"dram\": 128", "\"dram\": \"128\"")),
            file + ": technology.energy_pj.dram: must be a number, got \"128\"");
  EXPECT_EQ(hardware_error(
                dir, eyeriss_45nm_with("\"technology\": {", "\"costs\": {}, \"technology\": {")),
            file + ": costs: must be absent when \"technology\" is given (it derives the costs)");
}

TEST(HardwareJson, UnknownKeysAndWrongTypes) {
  TempDir dir;
  const std::string file = (dir.path() / "hw.json").string();
  EXPECT_EQ(hardware_error(dir, cloud_with("\"regf_bytes\"", "\"regf_size\"")),
            file +
                ": regf_size: unknown key; allowed: name, source, nodes, pe_array, "
                "gbuf_bytes, regf_bytes, word_bits, array_bus_width_bits, "
                "dram_bandwidth_bytes_per_cycle, mem_type, array_mapping, costs, technology, "
                "features");
  EXPECT_EQ(hardware_error(dir, cloud_with("\"noc_hop\"", "\"hop\"")),
            file +
                ": costs.hop: unknown key; allowed: energy_unit, mac_op, dram_access, "
                "gbuf_access, itcn_access, regf_access, noc_hop, idle_per_cycle");
  EXPECT_EQ(hardware_error(dir, cloud_with("\"mem_type\": \"2D\"", "\"mem_type\": \"2.5D\"")),
            file +
                ": mem_type: must be \"2D\" (DRAM at the four corners) or \"3D\" (DRAM above "
                "every node), got \"2.5D\"");
  EXPECT_EQ(hardware_error(dir, cloud_with("\"array_bus_width_bits\": 128",
                                           "\"array_bus_width_bits\": \"wide\"")),
            file +
                ": array_bus_width_bits: must be a positive integer or \"unlimited\", got "
                "\"wide\"");
  EXPECT_EQ(hardware_error(dir, cloud_with("\"gbuf_sharing\": true", "\"gbuf_sharing\": 1")),
            file + ": features.gbuf_sharing: must be true or false, got 1");
  EXPECT_EQ(
      hardware_error(dir, cloud_with("\"energy_unit\": \"joule\"", "\"energy_unit\": \"pJ\"")),
      file + ": costs.energy_unit: must be \"joule\" or \"relative\", got \"pJ\"");
  EXPECT_EQ(hardware_error(dir, cloud_with("\"regf_bytes\": 64,", "")),
            file + ": regf_bytes: missing required key");
}

TEST(HardwareJson, ReferenceFormatErrorsUseItsKeys) {
  TempDir dir;
  const std::string file = (dir.path() / "hw.json").string();
  EXPECT_EQ(hardware_error(dir, reference_with("\"size\": 32768", "\"size\": 0")),
            file + ": GBUF.size: must be positive, got 0");
  EXPECT_EQ(hardware_error(dir, reference_with("\"array\": [8, 8]", "\"array\": 8")),
            file + ": REGF.array: must be [h, w] (two integers), got 8");
  EXPECT_EQ(hardware_error(dir, reference_with("\"op_cost\": 9.984e-13", "\"op_cost\": -1")),
            file + ": op_cost: must be a non-negative number at most 1e+30, got -1");
  EXPECT_EQ(hardware_error(dir, reference_with("\"bus_width\": 128", "\"bus_width\": -8")),
            file + ": DRAM.bus_width: must be >= 0 and at most 1048576, got -8");
  EXPECT_EQ(hardware_error(dir, reference_with("\"hop_cost\"", "\"hops_cost\"")),
            file +
                ": GBUF.hops_cost: unknown key; allowed: size, array, access_cost, hop_cost, "
                "idle_cost, mem_type");
  EXPECT_EQ(hardware_error(dir, reference_with("\"ITCN\": {", "\"ITCN\": {\"x\": 1, ")),
            file + ": ITCN.x: unknown key; allowed: access_cost");
}

TEST(HardwareJson, ReferenceBusWidthZeroMeansUnlimited) {
  TempDir dir;
  const auto file = dir.write("hw.json", reference_with("\"bus_width\": 128", "\"bus_width\": 0"));
  EXPECT_EQ(load_hardware_file(file).array_bus_width_bits, 0);
}

TEST(HardwareJson, OptionalKeysTakeTheModelDefaults) {
  TempDir dir;
  const auto file = dir.write("hw.json", R"({"name": "m", "source": "test", "nodes": 2,
      "pe_array": [4, 2], "gbuf_bytes": 1024, "regf_bytes": 16,
      "costs": {"energy_unit": "relative", "mac_op": 1, "dram_access": 200, "gbuf_access": 6,
                "itcn_access": 2, "regf_access": 1, "noc_hop": 10, "idle_per_cycle": 0}})");
  const model::Hardware hw = load_hardware_file(file);
  const model::Hardware defaults;
  EXPECT_EQ(hw.nodes, (PhyDim2{2, 2}));
  EXPECT_EQ(hw.pe_array, (PhyDim2{4, 2}));
  EXPECT_EQ(hw.word_bits, defaults.word_bits);
  EXPECT_EQ(hw.array_bus_width_bits, defaults.array_bus_width_bits);
  EXPECT_EQ(hw.dram_bandwidth_bytes_per_cycle, defaults.dram_bandwidth_bytes_per_cycle);
  EXPECT_EQ(hw.mem_type, defaults.mem_type);
  EXPECT_EQ(hw.features, defaults.features);
  EXPECT_EQ(hw.costs, defaults.costs);
}

}  // namespace
}  // namespace kapla::io
