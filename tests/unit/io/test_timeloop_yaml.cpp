// Timeloop problem files: a layer goes out and comes back the same (shapes, MACs as Timeloop
// counts them: C*M*R*S*N*P*Q, GEMM M*N*K), and bad files get one line naming the key.
#include "io/timeloop_yaml.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "io/catalog.hpp"
#include "io/network_json.hpp"
#include "temp_files.hpp"

namespace kapla::io {
namespace {

using nlohmann::json;
using testing::input_error_of;
using testing::TempDir;

TEST(TimeloopYaml, AlexNetConv1GoesOutAndComesBackTheSame) {
  const model::Network zoo = Catalog(KAPLA_SOURCE_DATA_DIR).load_network("alex_net");
  const model::Layer& conv1 = zoo.layer(*zoo.find("conv1_a"));
  const std::string text = export_timeloop_problem(conv1, "conv1_a", 64);
  EXPECT_EQ(text,
            "# conv1_a (kapla: ConvLayer(3, 48, 55, 11, 4))\n"
            "problem:\n  shape:\n    name: CNN-Layer\n  instance:\n    C: 3\n    M: 48\n"
            "    R: 11\n    S: 11\n    N: 64\n    P: 55\n    Q: 55\n    Wstride: 4\n"
            "    Hstride: 4\n");
  TempDir dir;
  const model::Network back = load_network_file(dir.write("conv1_a.yaml", text));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back.layer(0), conv1);
  // Timeloop's MACs: C*M*R*S*N*P*Q.
  EXPECT_EQ(back.layer(0).total_ops(64), std::int64_t{3} * 48 * 11 * 11 * 64 * 55 * 55);
}

TEST(TimeloopYaml, RectangularStridedConvAndGemm) {
  TempDir dir;
  const auto conv = dir.write("c.yaml", R"(problem:
  shape: {name: CNN-Layer}
  instance: {C: 16, M: 32, R: 3, S: 5, N: 1, P: 10, Q: 8, Wstride: 2, Hstride: 1})");
  EXPECT_EQ(import_timeloop_problem(conv, "c")["layers"][0], json::parse(R"({"name": "c",
      "type": "Conv", "nifm": 16, "nofm": 32, "sofm": [8, 10], "sfil": [5, 3],
      "strd": [1, 2], "prevs": [null]})"));
  EXPECT_EQ(load_network_file(conv).total_ops(), 16 * 32 * 3 * 5 * 10 * 8);

  const auto gemm = dir.write("g.yml", R"(problem:
  shape:
    name: GEMM
  instance:
    M: 128
    N: 3072
    K: 768
)");
  const model::Network g = load_network_file(gemm);
  EXPECT_EQ(g.total_ops(), std::int64_t{128} * 3072 * 768);
  EXPECT_EQ(g.layer(0).sofm, (PhyDim2{1, 128}));
}

TEST(TimeloopYaml, BadFilesGetOneLineNamingTheKey) {
  TempDir dir;
  auto err = [&](const std::string& text) {
    const auto f = dir.write("p.yaml", text);
    return input_error_of([&] { import_timeloop_problem(f, "p"); });
  };
  const std::string f = (dir.path() / "p.yaml").string();
  EXPECT_EQ(err("problem: [1, 2"), f + ": line 1: malformed YAML: end of sequence flow not found");
  EXPECT_EQ(err("layers: []"), f + ": problem: missing");
  EXPECT_EQ(err("problem: {shape: {name: CNN-Layer}}"), f + ": problem.instance: missing");
  EXPECT_EQ(err("problem: {instance: {C: -3}}"),
            f + ": problem.instance.C: must be positive, got -3");
  EXPECT_EQ(err("problem: {instance: {C: many}}"), f + ": problem.instance.C: must be an integer");
  // Bounded before the derived input (Q - 1) * Hstride + S is computed: 2^62 wrapped before.
  EXPECT_EQ(err("problem: {instance: {C: 3, Q: 4611686018427387904, Hstride: 4}}"),
            f + ": problem.instance.Q: must be at most 65536, got 4611686018427387904");
  EXPECT_EQ(err("problem: {instance: {C: 3, N: 9223372036854775807}}"),
            f + ": problem.instance.N: must be at most 1048576, got 9223372036854775807");
  EXPECT_EQ(err("problem: {instance: {C: 3, Wdilation: 2}}"),
            f + ": problem.instance.Wdilation: only 1 is supported");
  EXPECT_EQ(err("problem: {shape: {name: Depthwise}, instance: {C: 3}}"),
            f + ": problem.shape.name: 'Depthwise' is not supported (CNN-Layer or GEMM)");
  const model::Layer pool = model::make_pooling(4, {2, 2}, {2, 2});
  EXPECT_EQ(input_error_of([&] { export_timeloop_problem(pool, "pool", 1); }),
            "layer 'pool': Pooling has no Timeloop problem shape here (CNN-Layer: Conv, FC; "
            "GEMM: a one-head MatMul at batch 1)");
}

}  // namespace
}  // namespace kapla::io
