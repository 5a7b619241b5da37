// Network files: every shipped zoo network equals the reference tables layer by layer
// (nn_zoo.json / nn_zoo_kapla.json, copied into tests/data), and bad files get errors that name
// the file and the key path.
#include "io/network_json.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "io/catalog.hpp"
#include "temp_files.hpp"

namespace kapla::io {
namespace {

using nlohmann::json;
using testing::input_error_of;
using testing::TempDir;

const json& zoo_tables() {
  static const json tables = [] {
    json merged;
    for (const char* file : {"nn_zoo.json", "nn_zoo_kapla.json"}) {
      std::ifstream in(std::string(KAPLA_TEST_DATA_DIR) + "/" + file);
      const json doc = json::parse(in);
      for (const auto& [name, record] : doc.at("networks").items()) merged[name] = record;
    }
    return merged;
  }();
  return tables;
}

json dim_json(PhyDim2 d) { return json::array({d.h, d.w}); }

// The reference's prevs/nexts encoding: names, null for the network input / no consumer.
json source_json(const model::Network& net, const model::LayerSource& s) {
  if (s.kind == model::LayerSource::Kind::NetworkInput) return nullptr;
  return net.source_name(s);
}

std::vector<std::string> layer_names(const model::Network& net,
                                     const std::vector<std::size_t>& indices) {
  std::vector<std::string> out;
  for (auto i : indices) out.push_back(net.layer_name(i));
  return out;
}

class ZooNetwork : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooNetwork, EqualsTheReferenceTable) {
  const std::string name = GetParam();
  ASSERT_TRUE(zoo_tables().contains(name)) << name;
  const json& ref = zoo_tables().at(name);
  const Catalog catalog(KAPLA_SOURCE_DATA_DIR);
  const model::Network net = catalog.load_network(name);

  EXPECT_EQ(net.name(), name);
  EXPECT_FALSE(net.source().empty());
  EXPECT_EQ(net.input().nofm, ref.at("input").at("nofm").get<std::int64_t>());
  EXPECT_EQ(dim_json(net.input().sofm), ref.at("input").at("sofm"));
  ASSERT_EQ(net.externals().size(), ref.at("ext_layers").size());
  for (std::size_t e = 0; e < net.externals().size(); ++e) {
    const json& r = ref.at("ext_layers")[e];
    EXPECT_EQ(net.externals()[e].name, r.at("name").get<std::string>());
    EXPECT_EQ(net.externals()[e].nofm, r.at("nofm").get<std::int64_t>());
    EXPECT_EQ(dim_json(net.externals()[e].sofm), r.at("sofm"));
  }

  const json& layers = ref.at("layers");
  ASSERT_EQ(net.size(), layers.size());
  ASSERT_EQ(net.size(), ref.at("totals").at("num_layers").get<std::size_t>());
  std::map<std::string, int> type_counts;
  for (std::size_t i = 0; i < net.size(); ++i) {
    const json& r = layers[i];
    const model::Layer& l = net.layer(i);
    SCOPED_TRACE(name + " layer " + std::to_string(i) + " " + r.at("name").get<std::string>());
    EXPECT_EQ(net.layer_name(i), r.at("name").get<std::string>());
    EXPECT_EQ(model::type_name(l.type), r.at("type").get<std::string>());
    ++type_counts[std::string(model::type_name(l.type))];
    EXPECT_EQ(l.nifm, r.at("nifm").get<std::int64_t>());
    EXPECT_EQ(l.nofm, r.at("nofm").get<std::int64_t>());
    EXPECT_EQ(dim_json(l.sofm), r.at("sofm"));
    EXPECT_EQ(dim_json(l.strd), r.at("strd"));
    EXPECT_EQ(dim_json(l.sifm), r.at("sifm"));
    EXPECT_EQ(l.total_ops(1), r.at("ops").get<std::int64_t>());
    if (r.contains("sfil")) {
      EXPECT_TRUE(l.has_filter());
      EXPECT_EQ(dim_json(l.sfil), r.at("sfil"));
      EXPECT_EQ(l.total_filter_size(), r.at("filter_size_total").get<std::int64_t>());
    } else {
      EXPECT_TRUE(l.is_local_region());
      EXPECT_EQ(l.total_filter_size(), 0);
      EXPECT_EQ(l.nreg, r.at("nreg").get<std::int64_t>());
      EXPECT_EQ(dim_json(l.sreg), r.at("sreg"));
      EXPECT_EQ(l.ntrd, r.at("ntrd").get<std::int64_t>());
    }
    // Upstream tables have no rw_data; upstream layers all write OFM.
    EXPECT_EQ(name_of(l.rw_data), r.value("rw_data", std::string("OFM")));
    EXPECT_EQ(l.is_back(), r.contains("crop"));
    EXPECT_FALSE(l.crop);

    json prevs = json::array();
    for (const auto& s : net.prevs(i)) prevs.push_back(source_json(net, s));
    EXPECT_EQ(prevs, r.at("prevs"));
    json nexts = json::array();
    for (auto n : net.nexts(i)) nexts.push_back(net.layer_name(n));
    if (nexts.empty()) nexts.push_back(nullptr);
    EXPECT_EQ(nexts, r.at("nexts"));
  }
  EXPECT_EQ(json(layer_names(net, net.firsts())), ref.at("firsts"));
  EXPECT_EQ(json(layer_names(net, net.lasts())), ref.at("lasts"));
  EXPECT_EQ(net.total_ops(1), ref.at("totals").at("total_ops_b1").get<std::int64_t>());
  EXPECT_EQ(net.total_ops(64), 64 * ref.at("totals").at("total_ops_b1").get<std::int64_t>());
  if (ref.at("totals").contains("type_counts")) {
    EXPECT_EQ(json(type_counts), ref.at("totals").at("type_counts"));
  }
}

const std::vector<std::string> kZooNames{
    "alex_net",     "zfnet",         "vgg_net",      "vgg19_net",  "googlenet",    "resnet50",
    "resnet152",    "mobilenet",     "mlp_s",        "mlp_m",      "mlp_l",        "lstm_gnmt",
    "lstm_phoneme", "lstm_showtell", "alex_net_bp",  "vgg_net_bp", "googlenet_bp", "resnet50_bp",
    "mobilenet_bp", "mlp_l_bp",      "lstm_gnmt_bp", "zfnet_bp"};

INSTANTIATE_TEST_SUITE_P(Zoo, ZooNetwork, ::testing::ValuesIn(kZooNames),
                         [](const auto& test_info) { return test_info.param; });

// kapla's transformer zoo (scripts/dev/gen_transformer_zoo.py; no reference tables: their
// MACs are checked against the published formulas below).
const std::vector<std::string> kTransformerNames{"bert_base_s128",
                                                 "bert_base_s512",
                                                 "gpt2_small_prefill1024",
                                                 "gpt2_small_decode1024",
                                                 "vit_b16",
                                                 "llama2_7b_block_prefill2048",
                                                 "llama2_7b_block_decode2048",
                                                 "llama2_70b_block_decode4096",
                                                 "bert_base_s512_2d",
                                                 "gpt2_small_prefill1024_2d",
                                                 "llama2_7b_block_prefill2048_2d"};

// The co-design zoo (docs/codesign_results.md): Thistle's workloads, MACs checked below.
const std::vector<std::string> kCodesignNames{"resnet18", "yolo9000"};

// DeepBench layers for imperfect factorisation (docs/imperfect.md), shapes checked below.
const std::vector<std::string> kDeepBenchNames{"deepbench_conv", "deepbench_gemm"};

TEST(ZooNetwork, TablesCoverExactlyTheShippedNetworks) {
  std::vector<std::string> tables;
  for (const auto& [name, record] : zoo_tables().items()) tables.push_back(name);
  std::vector<std::string> expected = kZooNames;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(tables, expected);
  expected.insert(expected.end(), kTransformerNames.begin(), kTransformerNames.end());
  expected.insert(expected.end(), kCodesignNames.begin(), kCodesignNames.end());
  expected.insert(expected.end(), kDeepBenchNames.begin(), kDeepBenchNames.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(Catalog(KAPLA_SOURCE_DATA_DIR).list_networks(), expected);
}

// MACs of the MAC kinds (Conv, FC, MatMul) and ops of the others, per network sample.
struct OpsSplit {
  std::int64_t macs = 0;
  std::map<std::string, std::int64_t> other;  // by kind
};
OpsSplit ops_split(const model::Network& net) {
  OpsSplit o;
  for (std::size_t i = 0; i < net.size(); ++i) {
    const auto& l = net.layer(i);
    if (l.has_filter())
      o.macs += l.total_ops(1);
    else
      o.other[std::string(model::type_name(l.type))] += l.total_ops(1);
  }
  return o;
}

// The published per-block MACs of a transformer block over s tokens of width d (FLOPs are
// twice these): the four projections 4*s*d^2, a 4d-wide FFN 8*s*d^2, Q.K^T and P.V s^2*d
// each; biases, norms and softmax are not MACs.
std::int64_t encoder_block_macs(std::int64_t s, std::int64_t d) {
  return 12 * s * d * d + 2 * s * s * d;
}

TEST(TransformerZoo, MacsEqualThePublishedFormulas) {
  const Catalog catalog(KAPLA_SOURCE_DATA_DIR);
  const std::int64_t d = 768;
  for (std::int64_t s : {128, 512}) {
    const auto net = catalog.load_network("bert_base_s" + std::to_string(s));
    const auto o = ops_split(net);
    EXPECT_EQ(o.macs, 12 * encoder_block_macs(s, d)) << s;
    // Non-MAC ops as documented: softmax 5 per score, layer norm 5 per element, GELU 1,
    // residual adds 2 inputs per output (Eltwise's nn_dataflow count).
    EXPECT_EQ(o.other.at("Softmax"), 12 * 5 * 12 * s * s);
    EXPECT_EQ(o.other.at("LayerNorm"), 12 * 2 * 5 * s * d);
    EXPECT_EQ(o.other.at("GELU"), 12 * 4 * s * d);
    EXPECT_EQ(o.other.at("Eltwise"), 12 * 2 * 2 * s * d);
  }
  EXPECT_EQ(catalog.load_network("bert_base_s128").total_ops(1),
            12 * encoder_block_macs(128, d) + 12 * (5 * 12 * 128 * 128 + (10 + 4 + 4) * 128 * d));
  // GPT-2 small prefill: the same blocks (dense Q.K^T, as a causal-masked kernel computes it).
  EXPECT_EQ(ops_split(catalog.load_network("gpt2_small_prefill1024")).macs,
            12 * encoder_block_macs(1024, d));
  // Decode of one token over a 1024-token cache: 12*d^2 per block plus Q.K^T and P.V over the
  // context, 2*ctx*d.
  EXPECT_EQ(ops_split(catalog.load_network("gpt2_small_decode1024")).macs,
            12 * (12 * d * d + 2 * 1024 * d));
  // The `_2d` variants lay the tokens out as an h x w fmap: the same layers, ops and MACs.
  for (const std::string name :
       {"bert_base_s512", "gpt2_small_prefill1024", "llama2_7b_block_prefill2048"}) {
    const auto flat = catalog.load_network(name);
    const auto square = catalog.load_network(name + "_2d");
    ASSERT_EQ(square.size(), flat.size()) << name;
    EXPECT_EQ(square.total_ops(1), flat.total_ops(1)) << name;
    EXPECT_EQ(ops_split(square).macs, ops_split(flat).macs) << name;
    for (std::size_t i = 0; i < flat.size(); ++i) {
      const auto& f = flat.layer(i);
      const auto& q = square.layer(i);
      EXPECT_EQ(q.sofm.size(), f.sofm.size()) << name << " " << flat.layer_name(i);
      EXPECT_EQ(q.sofm.h == 1, f.is_matmul() || f.sofm.size() == 1)
          << name << " " << flat.layer_name(i);
    }
  }
  // ViT-B/16: the patch embedding 196 x 768 x (3*16*16), then 12 blocks over 196 tokens.
  EXPECT_EQ(ops_split(catalog.load_network("vit_b16")).macs,
            196LL * 768 * 3 * 16 * 16 + 12 * encoder_block_macs(196, d));
  // LLaMA-2-7B block, d 4096, SwiGLU hidden 11008 (three d x f matrices).
  const std::int64_t ld = 4096, f = 11008;
  auto llama = [&](std::int64_t s, std::int64_t ctx) {
    return 4 * s * ld * ld + 3 * s * ld * f + 2 * s * ctx * ld;
  };
  EXPECT_EQ(ops_split(catalog.load_network("llama2_7b_block_prefill2048")).macs, llama(2048, 2048));
  EXPECT_EQ(ops_split(catalog.load_network("llama2_7b_block_decode2048")).macs, llama(1, 2048));
  // LLaMA-2-70B block with grouped-query attention: d 8192, 64 query heads sharing 8 key/value
  // heads of 128, SwiGLU hidden 28672; K and V projections are d x d/8, attention is unchanged.
  const std::int64_t gd = 8192, gf = 28672, kv = 8 * 128, gctx = 4096;
  EXPECT_EQ(ops_split(catalog.load_network("llama2_70b_block_decode4096")).macs,
            2 * gd * gd + 2 * gd * kv + 3 * gd * gf + 2 * gctx * gd);
}

// MACs of a K x C conv with an R x R filter and an H x H output (Thistle's K x C x H x R).
std::int64_t conv_macs(std::int64_t k, std::int64_t c, std::int64_t h, std::int64_t r) {
  return k * c * h * h * r * r;
}

TEST(CodesignZoo, Resnet18MacsEqualTheFormula) {
  const auto o = ops_split(Catalog(KAPLA_SOURCE_DATA_DIR).load_network("resnet18"));
  // Stem 7x7/2 to 112x112; four stages of two basic blocks (two 3x3 convs each) at 56, 28, 14
  // and 7 with 64, 128, 256, 512 channels; stages 3-5 open with a stride-2 3x3 conv from half
  // the channels and a 1x1 stride-2 projection shortcut; FC 512 -> 1000.
  std::int64_t expected = conv_macs(64, 3, 112, 7) + 4 * conv_macs(64, 64, 56, 3) + 512 * 1000;
  for (auto [k, h] : {std::pair{128, 28}, {256, 14}, {512, 7}}) {
    expected += conv_macs(k, k / 2, h, 3) + 3 * conv_macs(k, k, h, 3) + conv_macs(k, k / 2, h, 1);
  }
  EXPECT_EQ(o.macs, expected);
  EXPECT_EQ(o.macs, 1814073344);  // the published "1.8 GFLOPs" (multiply-adds) of He et al.
  EXPECT_EQ(o.other.at("Pooling"), 64LL * 56 * 56 * 9 + 512 * 49);  // max 3x3, avg 7x7
  EXPECT_EQ(o.other.at("Eltwise"), 2 * 2 *
                                       (64LL * 56 * 56 + 128 * 28 * 28 + 256 * 14 * 14 +
                                        512 * 7 * 7));  // 8 residual adds, 2 inputs each
}

TEST(CodesignZoo, Yolo9000HasThistlesElevenStagesAndTheirMacs) {
  const auto net = Catalog(KAPLA_SOURCE_DATA_DIR).load_network("yolo9000");
  // Thistle's Table II stages, K x C x H x R, and how often each occurs in Darknet-19.
  struct Stage {
    std::int64_t k, c, h, r, count;
  };
  const std::vector<Stage> stages{
      {32, 3, 544, 3, 1},    {64, 32, 272, 3, 1},   {128, 64, 136, 3, 2},   {64, 128, 136, 1, 1},
      {256, 128, 68, 3, 2},  {128, 256, 68, 1, 1},  {512, 256, 34, 3, 3},   {256, 512, 34, 1, 2},
      {1024, 512, 17, 3, 3}, {512, 1024, 17, 1, 2}, {28269, 1024, 17, 1, 1}};
  std::map<std::array<std::int64_t, 4>, std::int64_t> found;
  for (std::size_t i = 0; i < net.size(); ++i) {
    const auto& l = net.layer(i);
    if (l.type != model::LayerType::Conv) continue;
    EXPECT_EQ(l.sofm.h, l.sofm.w);
    found[{l.nofm, l.nifm, l.sofm.h, l.sfil.h}] += 1;
  }
  std::map<std::array<std::int64_t, 4>, std::int64_t> want;
  std::int64_t macs = 0;
  for (const auto& s : stages) {
    want[{s.k, s.c, s.h, s.r}] = s.count;
    macs += s.count * conv_macs(s.k, s.c, s.h, s.r);
  }
  EXPECT_EQ(found, want);
  EXPECT_EQ(ops_split(net).macs, macs);
  EXPECT_EQ(macs, 24531022848);  // 24.5 G multiply-adds at 544x544, a third of them in conv19
}

TEST(DeepBench, ConvLayersAreTheInferenceServerTuplesAtBatchOne) {
  // DeepBench code/kernels/conv_problems.h, inference_server_set, n = 1: (w, h, c, k, filter
  // w, filter h, pad w, pad h, stride w, stride h). Each layer reads an external of its own.
  struct Tuple {
    std::int64_t w, h, c, k, s, r, pw, ph, sw, sh;
  };
  const std::vector<Tuple> tuples{
      {700, 161, 1, 32, 20, 5, 0, 0, 2, 2},  {341, 79, 32, 32, 10, 5, 0, 0, 2, 2},
      {700, 161, 1, 64, 5, 5, 1, 1, 2, 2},   {350, 80, 64, 128, 5, 5, 1, 1, 2, 2},
      {175, 40, 128, 128, 3, 3, 1, 1, 1, 1}, {84, 20, 256, 512, 5, 5, 1, 1, 2, 2},
      {480, 48, 1, 16, 3, 3, 1, 1, 1, 1},    {108, 108, 3, 64, 3, 3, 1, 1, 2, 2},
      {27, 27, 128, 128, 3, 3, 1, 1, 1, 1}};
  const auto net = Catalog(KAPLA_SOURCE_DATA_DIR).load_network("deepbench_conv");
  ASSERT_EQ(net.size(), tuples.size());
  ASSERT_EQ(net.externals().size(), tuples.size());
  std::int64_t macs = 0;
  for (std::size_t i = 0; i < tuples.size(); ++i) {
    const auto& t = tuples[i];
    const auto& l = net.layer(i);
    const PhyDim2 ofm{(t.h + 2 * t.ph - t.r) / t.sh + 1, (t.w + 2 * t.pw - t.s) / t.sw + 1};
    EXPECT_EQ(l.type, model::LayerType::Conv) << i;
    EXPECT_EQ(l.nifm, t.c) << i;
    EXPECT_EQ(l.nofm, t.k) << i;
    EXPECT_EQ(l.sofm, ofm) << i;
    EXPECT_EQ(l.sfil, (PhyDim2{t.r, t.s})) << i;
    EXPECT_EQ(l.strd, (PhyDim2{t.sh, t.sw})) << i;
    macs += t.k * t.c * ofm.h * ofm.w * t.r * t.s;
  }
  // Ruby's DeepSpeech layer: 341x79x32 input, 5x10 filter, 38x166 output.
  EXPECT_EQ(net.layer(1).sofm, (PhyDim2{38, 166}));
  EXPECT_EQ(ops_split(net).macs, macs);
  EXPECT_EQ(macs, 4200802432);
}

TEST(DeepBench, GemmsAreOneByOneConvsOverNPositions) {
  // gemm_problems.h, inference_server_set: (M, N, K) as nofm M, nifm K, sofm 1 x N.
  const std::vector<std::array<std::int64_t, 3>> mnk{
      {35, 700, 2048}, {1024, 700, 512}, {5124, 700, 2048}, {7680, 1, 2560}};
  const auto net = Catalog(KAPLA_SOURCE_DATA_DIR).load_network("deepbench_gemm");
  ASSERT_EQ(net.size(), mnk.size());
  std::int64_t macs = 0;
  for (std::size_t i = 0; i < mnk.size(); ++i) {
    const auto [m, n, k] = mnk[i];
    const auto& l = net.layer(i);
    EXPECT_EQ(l.nofm, m) << i;
    EXPECT_EQ(l.nifm, k) << i;
    EXPECT_EQ(l.sofm, (PhyDim2{1, n})) << i;
    EXPECT_EQ(l.sfil, (PhyDim2{1, 1})) << i;
    macs += m * n * k;
  }
  EXPECT_EQ(ops_split(net).macs, macs);
}

TEST(TransformerZoo, GroupedQueryAttentionSharesEachKvHeadAcrossItsQueryHeads) {
  // docs/transformers.md §2: the 8 query heads of a group are stacked into the positions of
  // their key/value head, which is read once for all 8 (a 1024-channel cache, not 8192).
  const auto net = Catalog(KAPLA_SOURCE_DATA_DIR).load_network("llama2_70b_block_decode4096");
  ASSERT_EQ(net.externals().size(), 2u);
  const auto qk = *net.find("qk");
  EXPECT_EQ(net.source_name(net.prevs(qk)[1]), "k_cache");
  EXPECT_EQ(net.layer(qk), model::make_matmul(8, 128, 4096, 8));
  EXPECT_EQ(net.layer(*net.find("av")), model::make_matmul(8, 4096, 128, 8));
  EXPECT_EQ(net.layer(*net.find("k")).nofm, 1024);
}

TEST(TransformerZoo, DecodeReadsItsKvCacheAsExternals) {
  const auto net = Catalog(KAPLA_SOURCE_DATA_DIR).load_network("gpt2_small_decode1024");
  ASSERT_EQ(net.externals().size(), 24u);
  const auto qk = *net.find("b0_qk");
  EXPECT_EQ(net.source_name(net.prevs(qk)[1]), "b0_k_cache");
  EXPECT_EQ(net.layer(qk), model::make_matmul(1, 64, 1024, 12));
}

TEST(ZooNetwork, KnownTotals) {
  const Catalog catalog(KAPLA_SOURCE_DATA_DIR);
  EXPECT_EQ(catalog.load_network("alex_net").total_ops(1), 725508992);
  EXPECT_EQ(catalog.load_network("resnet50").total_ops(1), 3870918656);
  EXPECT_EQ(catalog.load_network("mobilenet_bp").total_ops(1), 1701388608);
  EXPECT_EQ(catalog.load_network("lstm_gnmt_bp").size(), 102u);
}

// --- Bad files ------------------------------------------------------------------------------

// A one-layer network whose layer list is `layers` (JSON text).
std::string network_text(const std::string& layers, const std::string& extra = "") {
  return R"({"name": "tiny", "source": "test", "input": {"nofm": 3, "sofm": 8},)" + extra +
         R"( "layers": [)" + layers + "]}";
}

std::string load_error(const TempDir& dir, const std::string& text) {
  const auto file = dir.write("net.json", text);
  return input_error_of([&] { load_network_file(file); });
}

TEST(NetworkJson, ZeroSizeNamesFileLayerAndField) {
  TempDir dir;
  const std::string msg = load_error(
      dir, network_text(R"({"name": "c1", "type": "Conv", "nifm": 3, "nofm": 4, "sofm": 8,
                            "sfil": 3},
                           {"name": "c2", "type": "Conv", "nifm": 4, "nofm": 4, "sofm": [0, 7],
                            "sfil": 3})"));
  EXPECT_EQ(msg, (dir.path() / "net.json").string() +
                     ": layers[1].sofm: must be positive, got [0, 7] (layer 'c2')");
}

TEST(NetworkJson, NegativeCountIsRejected) {
  TempDir dir;
  const std::string msg = load_error(
      dir, network_text(R"({"name": "c1", "type": "FC", "nifm": 3, "nofm": -4, "sfil": 8})"));
  EXPECT_EQ(msg, (dir.path() / "net.json").string() +
                     ": layers[0].nofm: must be positive, got -4 (layer 'c1')");
}

TEST(NetworkJson, ChannelMismatchNamesTheLayerField) {
  TempDir dir;
  const std::string msg = load_error(
      dir, network_text(R"({"name": "c1", "type": "Conv", "nifm": 3, "nofm": 4, "sofm": 8,
                            "sfil": 3},
                           {"name": "c2", "type": "Conv", "nifm": 5, "nofm": 4, "sofm": 8,
                            "sfil": 3})"));
  EXPECT_EQ(msg, (dir.path() / "net.json").string() +
                     ": layers[1].nifm: 5 does not equal the predecessors' total nofm 4 "
                     "(layer 'c2')");
}

TEST(NetworkJson, FactoryErrorsGetThePath) {
  TempDir dir;
  // A back-propagation window larger than its output (PoolingBack's sifm would be empty).
  const std::string msg =
      load_error(dir, network_text(R"({"name": "pb", "type": "PoolingBack", "nofm": 3, "sofm": 2,
                            "sreg": 3})"));
  EXPECT_NE(msg.find("net.json: layers[0].sreg: window [3, 3] is larger than sofm [2, 2]"),
            std::string::npos)
      << msg;
}

TEST(NetworkJson, UnknownKeyListsTheKeysOfTheType) {
  TempDir dir;
  const std::string msg = load_error(
      dir, network_text(R"({"name": "c1", "type": "Conv", "nifm": 3, "nofm": 4, "sofm": 8,
                            "sfill": 3})"));
  EXPECT_NE(msg.find("net.json: layers[0].sfill: unknown key; allowed: name, type, nifm, nofm, "
                     "sofm, sfil, strd, prevs"),
            std::string::npos)
      << msg;
}

TEST(NetworkJson, DerivedValuesAreNotAccepted) {
  TempDir dir;
  const std::string msg = load_error(
      dir, network_text(R"({"name": "p", "type": "Pooling", "nifm": 3, "nofm": 3, "sofm": 4,
                            "sreg": 2})"));
  EXPECT_NE(msg.find("layers[0].nifm: unknown key"), std::string::npos) << msg;
}

TEST(NetworkJson, UnknownTopLevelKey) {
  TempDir dir;
  const std::string msg = load_error(
      dir, network_text(R"({"name": "f", "type": "FC", "nifm": 3, "nofm": 4, "sfil": 8})",
                        R"( "batch": 4,)"));
  EXPECT_EQ(msg, (dir.path() / "net.json").string() +
                     ": batch: unknown key; allowed: name, source, input, externals, layers");
}

TEST(NetworkJson, WrongTypes) {
  TempDir dir;
  EXPECT_NE(load_error(dir, network_text(R"({"name": "f", "type": "FC", "nifm": 3,
                                            "nofm": "4"})"))
                .find(": layers[0].nofm: must be an integer, got \"4\""),
            std::string::npos);
  EXPECT_NE(load_error(dir, network_text(R"({"name": "f", "type": "FC", "nifm": 3.5,
                                            "nofm": 4})"))
                .find(": layers[0].nifm: must be an integer, got 3.5"),
            std::string::npos);
  EXPECT_NE(load_error(dir, network_text(R"({"name": "c", "type": "Conv", "nifm": 3, "nofm": 4,
                                            "sofm": [8, 8, 8], "sfil": 3})"))
                .find(": layers[0].sofm: must be a positive integer or [h, w], got [8,8,8]"),
            std::string::npos);
  EXPECT_NE(load_error(dir, network_text(R"(7)"))
                .find(": layers[0]: must be an object, got an "
                      "integer"),
            std::string::npos);
  EXPECT_NE(load_error(dir, R"({"name": "x", "source": "s", "input": {"nofm": 3, "sofm": 8},
                               "layers": {}})")
                .find(": layers: must be an array"),
            std::string::npos);
}

TEST(NetworkJson, MissingKeys) {
  TempDir dir;
  EXPECT_NE(load_error(dir, network_text(R"({"name": "c", "type": "Conv", "nifm": 3,
                                            "nofm": 4, "sofm": 8})"))
                .find(": layers[0].sfil: missing required key (layer 'c')"),
            std::string::npos);
  EXPECT_NE(load_error(dir, R"({"name": "x", "input": {"nofm": 3, "sofm": 8}, "layers": []})")
                .find(": source: missing required key"),
            std::string::npos);
  EXPECT_NE(load_error(dir, R"({"name": "x", "source": "s", "input": {"nofm": 3, "sofm": 8},
                               "layers": []})")
                .find(": layers: a network needs at least one layer"),
            std::string::npos);
}

TEST(NetworkJson, UnknownLayerType) {
  TempDir dir;
  const std::string msg =
      load_error(dir, network_text(R"({"name": "c", "type": "Convolution", "nifm": 3})"));
  EXPECT_NE(msg.find(": layers[0].type: unknown layer type 'Convolution'; known: Conv, FC,"),
            std::string::npos)
      << msg;
}

TEST(NetworkJson, PrevsErrors) {
  TempDir dir;
  const std::string conv = R"({"name": "c", "type": "Conv", "nifm": 3, "nofm": 4, "sofm": 8,
                               "sfil": 1)";
  EXPECT_NE(load_error(dir, network_text(conv + R"(, "prevs": ["nope"]})"))
                .find(": layers[0].prevs: unknown layer 'nope'"),
            std::string::npos);
  EXPECT_NE(load_error(dir, network_text(conv + R"(, "prevs": []})"))
                .find(": layers[0].prevs: must be null (the network input) or a non-empty list"),
            std::string::npos);
  EXPECT_NE(load_error(dir, network_text(conv + R"(, "prevs": ["__INPUT__"]})"))
                .find(": layers[0].prevs[0]: must be a layer or external name"),
            std::string::npos);
  EXPECT_NE(load_error(dir, network_text(conv + R"(, "prevs": [3]})"))
                .find(": layers[0].prevs[0]: must be a string, got 3"),
            std::string::npos);
}

TEST(NetworkJson, DuplicateLayerName) {
  TempDir dir;
  const std::string msg =
      load_error(dir, network_text(R"({"name": "c", "type": "Conv", "nifm": 3, "nofm": 3, "sofm": 8,
                            "sfil": 1},
                           {"name": "c", "type": "Conv", "nifm": 3, "nofm": 3, "sofm": 8,
                            "sfil": 1})"));
  EXPECT_NE(msg.find(": layers[1].name: duplicate or reserved (layer 'c')"), std::string::npos)
      << msg;
}

TEST(NetworkJson, BadInputAndExternals) {
  TempDir dir;
  EXPECT_NE(load_error(dir, R"({"name": "x", "source": "s", "input": {"nofm": 0, "sofm": 8},
                               "layers": []})")
                .find(": input.nofm: must be positive, got 0"),
            std::string::npos);
  const std::string fc = R"({"name": "f", "type": "FC", "nifm": 3, "nofm": 4, "sfil": 8})";
  EXPECT_NE(load_error(dir, network_text(fc, R"( "externals": [{"name": "h", "nofm": 2,
                                                "sofm": -1}],)"))
                .find(": externals[0].sofm: must be positive, got -1"),
            std::string::npos);
  EXPECT_NE(load_error(dir, network_text(fc, R"( "externals": [{"name": "h", "nofm": 2,
                                                "sofm": 1}, {"name": "h", "nofm": 2,
                                                "sofm": 1}],)"))
                .find(": externals[1].name: duplicate"),
            std::string::npos);
}

TEST(NetworkJson, PrevsDefaultsAndInputMarker) {
  TempDir dir;
  // conv_b reads the network input (null) although it is not first; cat concatenates both.
  const auto file = dir.write("net.json", network_text(R"(
      {"name": "conv_a", "type": "Conv", "nifm": 3, "nofm": 4, "sofm": 8, "sfil": 1},
      {"name": "conv_b", "type": "Conv", "nifm": 3, "nofm": 5, "sofm": 8, "sfil": 1,
       "prevs": null},
      {"name": "cat", "type": "Conv", "nifm": 12, "nofm": 2, "sofm": 8, "sfil": 1,
       "prevs": ["conv_a", "conv_b", null]},
      {"name": "pool", "type": "Pooling", "nofm": 2, "sofm": 4, "sreg": 2})"));
  const model::Network net = load_network_file(file);
  using Kind = model::LayerSource::Kind;
  ASSERT_EQ(net.size(), 4u);
  EXPECT_EQ(net.prevs(0), (std::vector<model::LayerSource>{{Kind::NetworkInput, 0}}));
  EXPECT_EQ(net.prevs(1), (std::vector<model::LayerSource>{{Kind::NetworkInput, 0}}));
  EXPECT_EQ(net.prevs(2), (std::vector<model::LayerSource>{
                              {Kind::Layer, 0}, {Kind::Layer, 1}, {Kind::NetworkInput, 0}}));
  EXPECT_EQ(net.prevs(3), (std::vector<model::LayerSource>{{Kind::Layer, 2}}));
  // Pooling's stride defaults to its window.
  EXPECT_EQ(net.layer(3).strd, (PhyDim2{2, 2}));
  EXPECT_EQ(net.layer(3).sifm, (PhyDim2{8, 8}));
}

TEST(NetworkJson, TransformerKindsAndTheirKeys) {
  TempDir dir;
  const auto file = dir.write("attn.json", R"({"name": "attn", "source": "test",
      "input": {"nofm": 16, "sofm": [1, 8]},
      "externals": [{"name": "k_cache", "nofm": 16, "sofm": [1, 8]}],
      "layers": [
        {"name": "ln", "type": "LayerNorm", "nofm": 16, "sofm": [1, 8]},
        {"name": "qk", "type": "MatMul", "m": 8, "k": 4, "n": 8, "heads": 4,
         "prevs": ["ln", "k_cache"]},
        {"name": "sm", "type": "Softmax", "nofm": 8, "sofm": [1, 8], "heads": 4},
        {"name": "g", "type": "GELU", "nofm": 8, "sofm": [1, 8], "heads": 4}]})");
  const model::Network net = load_network_file(file);
  ASSERT_EQ(net.size(), 4u);
  EXPECT_EQ(net.layer(0).type, model::LayerType::LayerNorm);
  EXPECT_EQ(net.layer(1), model::make_matmul(8, 4, 8, 4));
  EXPECT_EQ(net.layer(2), model::make_softmax(8, {1, 8}, 4));
  EXPECT_EQ(net.layer(3).nhead, 4);
  // MatMul takes m, k, n and heads, not the filter kinds' keys.
  EXPECT_NE(load_error(dir, network_text(R"({"name": "mm", "type": "MatMul", "m": 8, "k": 3,
                                              "n": 8, "nifm": 3})"))
                .find("layers[0].nifm: unknown key; allowed: name, type, m, k, n, heads, prevs"),
            std::string::npos);
  EXPECT_NE(load_error(dir, network_text(R"({"name": "sm", "type": "Softmax", "nofm": 3,
                                              "sofm": 8, "heads": 0})"))
                .find("layers[0].heads: must be positive, got 0"),
            std::string::npos);
}

TEST(NetworkJson, DocumentKind) {
  EXPECT_TRUE(is_network_document(json::parse(R"({"layers": []})")));
  EXPECT_FALSE(is_network_document(json::parse(R"({"nodes": [1, 1]})")));
  EXPECT_FALSE(is_network_document(json::parse("[]")));
}

}  // namespace
}  // namespace kapla::io
