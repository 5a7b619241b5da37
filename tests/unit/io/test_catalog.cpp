// Catalog: names -> files, sorted listings, unknown names listing the known ones, and
// telling network files from hardware files.
#include "io/catalog.hpp"

#include <gtest/gtest.h>

#include <variant>

#include "core/errors.hpp"
#include "temp_files.hpp"

namespace kapla::io {
namespace {

using testing::input_error_of;
using testing::TempDir;

const std::string kTinyNetwork = R"({"name": "tiny", "source": "test",
    "input": {"nofm": 3, "sofm": 4},
    "layers": [{"name": "fc", "type": "FC", "nifm": 3, "nofm": 2, "sfil": 4}]})";

const std::string kTinyHardware = R"({"name": "one", "source": "test", "nodes": 1,
    "pe_array": 2, "gbuf_bytes": 64, "regf_bytes": 4,
    "costs": {"energy_unit": "relative", "mac_op": 1, "dram_access": 200, "gbuf_access": 6,
              "itcn_access": 2, "regf_access": 1, "noc_hop": 10, "idle_per_cycle": 0}})";

TEST(Catalog, ListsSortedStemsOfJsonFilesOnly) {
  TempDir dir;
  dir.write("networks/zeta.json", kTinyNetwork);
  dir.write("networks/alpha.json", kTinyNetwork);
  dir.write("networks/notes.txt", "not a network");
  dir.write("hardware/one.json", kTinyHardware);
  const Catalog catalog(dir.path());
  EXPECT_EQ(catalog.list_networks(), (std::vector<std::string>{"alpha", "zeta"}));
  EXPECT_EQ(catalog.list_hardware(), (std::vector<std::string>{"one"}));
  EXPECT_EQ(catalog.load_network("alpha").name(), "tiny");
  EXPECT_EQ(catalog.load_hardware("one").pe_array, (PhyDim2{2, 2}));
}

TEST(Catalog, UnknownNamesListTheKnownOnes) {
  TempDir dir;
  dir.write("networks/beta.json", kTinyNetwork);
  dir.write("networks/alpha.json", kTinyNetwork);
  const Catalog catalog(dir.path());
  EXPECT_EQ(input_error_of([&] { catalog.load_network("alphanet"); }),
            "unknown network 'alphanet'; known: alpha, beta");
  EXPECT_EQ(input_error_of([&] { catalog.load_hardware("cloud"); }),
            "unknown hardware 'cloud'; no hardware files in " + (dir.path() / "hardware").string());
}

TEST(Catalog, ShippedNetworkNames) {
  const Catalog catalog(KAPLA_SOURCE_DATA_DIR);
  const std::string msg = input_error_of([&] { catalog.load_network("alexnet"); });
  EXPECT_EQ(
      msg.rfind("unknown network 'alexnet'; known: alex_net, alex_net_bp, bert_base_s128, "
                "bert_base_s512, bert_base_s512_2d, deepbench_conv, deepbench_gemm, googlenet,",
                0),
      0u)
      << msg;
}

TEST(Catalog, PathsBypassTheNameLookup) {
  TempDir dir;
  const auto file = dir.write("elsewhere/my_net.json", kTinyNetwork);
  const Catalog catalog(dir.path());
  EXPECT_EQ(catalog.load_network(file.string()).size(), 1u);
  EXPECT_EQ(input_error_of([&] { catalog.load_network("missing.json"); }),
            "missing.json: cannot open file");
}

TEST(Catalog, MissingDataDirectoryIsEmpty) {
  const Catalog catalog("/nonexistent/kapla-data");
  EXPECT_TRUE(catalog.list_networks().empty());
  EXPECT_TRUE(catalog.list_hardware().empty());
}

TEST(LoadDataFile, TellsNetworksFromHardware) {
  TempDir dir;
  const DataFile net = load_data_file(dir.write("n.json", kTinyNetwork));
  ASSERT_TRUE(std::holds_alternative<model::Network>(net));
  EXPECT_EQ(std::get<model::Network>(net).name(), "tiny");
  const DataFile hw = load_data_file(dir.write("h.json", kTinyHardware));
  ASSERT_TRUE(std::holds_alternative<model::Hardware>(hw));
  EXPECT_EQ(std::get<model::Hardware>(hw).name, "one");
  const DataFile ref =
      load_data_file(std::string(KAPLA_TEST_DATA_DIR) + "/reference_hardware/multi_node.json");
  ASSERT_TRUE(std::holds_alternative<model::Hardware>(ref));
  EXPECT_EQ(std::get<model::Hardware>(ref).name, "multi_node");
  const auto neither = dir.write("x.json", R"({"batch": 4})");
  EXPECT_EQ(
      input_error_of([&] { load_data_file(neither); }).rfind(neither.string() + ": neither", 0),
      0u);
}

}  // namespace
}  // namespace kapla::io
