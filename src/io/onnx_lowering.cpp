// ONNX graph -> network document. One pass over the nodes in their (topological) order keeps,
// for every activation tensor, which kapla layers it is made of (a channel concatenation of
// sources, the form of a network file's `prevs`) and how it is viewed (channels x fmap). A
// compute node turns its inputs' sources into a layer's prevs; an element-wise node on one
// activation leaves the sources as they are (fused into the producer, the convention of
// accelerator models); a view node re-labels the shape.
#include "io/onnx_lowering.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "core/checked_math.hpp"
#include "core/errors.hpp"
#include "core/phy_dim2.hpp"

namespace kapla::io {
namespace {

using nlohmann::json;

// Ops whose only data input is one activation and whose output is element-wise in it (with
// constants): fused into the producer. Exp and the reductions are tracked separately because
// a reduction followed by element-wise ops is a normalisation, not a free epilogue.
const std::set<std::string> kFusedUnary = {"Relu",
                                           "Clip",
                                           "Sigmoid",
                                           "Tanh",
                                           "Erf",
                                           "Sqrt",
                                           "Log",
                                           "Neg",
                                           "Abs",
                                           "Reciprocal",
                                           "LeakyRelu",
                                           "HardSigmoid",
                                           "HardSwish",
                                           "Gelu",
                                           "Softplus",
                                           "Elu",
                                           "Selu",
                                           "PRelu",
                                           "BatchNormalization",
                                           "Cast",
                                           "Floor",
                                           "Ceil",
                                           "Round",
                                           "Sign",
                                           "Exp",
                                           "Celu",
                                           "Mish"};
const std::set<std::string> kBinary = {"Add", "Sub", "Mul", "Div", "Pow",
                                       "Max", "Min", "Sum", "Mean"};
const std::set<std::string> kReductions = {"ReduceMean", "ReduceSum", "ReduceMax",
                                           "ReduceMin",  "ReduceL2",  "ReduceSumSquare"};
// Ops that only re-label an activation's shape (the data is unchanged in memory order or the
// model has no layout: a transpose costs nothing in kapla's model, as in nn_dataflow).
const std::set<std::string> kViews = {"Reshape",  "Flatten", "Squeeze",   "Unsqueeze",
                                      "Identity", "Dropout", "Transpose", "Expand"};
// Ops that only compute shapes: their outputs are constants once shapes are static.
const std::set<std::string> kShapeOps = {"Shape", "Size",    "ConstantOfShape", "Constant",
                                         "Range", "NonZero", "EyeLike"};

// How an activation's dimensions map onto kapla's channels x fmap: an image [N, C, H, W] (C
// channels of H x W), or rows whose last dimension is the channels and all others are
// positions (a token sequence [N, S, D] is D channels of 1 x S; [N, K] is K channels of 1 x 1;
// attention's [N, heads, S, d] is d channels of 1 x S, heads times).
enum class Layout : std::uint8_t { Image, Rows };

// Elements of one tensor, batch included: the per-sample limit (2^36) times the batch limit
// (2^20); every product of its dimensions then fits an int64.
constexpr std::int64_t kMaxTensorWords = std::int64_t{1} << 56;

// An activation tensor as kapla sees it.
struct Activation {
  std::vector<std::string> sources;  // layer or external names; "" = the network input
  std::vector<std::int64_t> dims;    // empty: unknown (a slice whose bounds are computed)
  Layout layout = Layout::Image;
  std::int64_t heads = 1;  // Rows: independent row groups (attention heads) of its producer
  // A 2-D [N, C*H*W] tensor flattened from [N, C, H, W]: a fully connected consumer reads it
  // as C channels of an H x W fmap (nn_dataflow's FCLayer(nifm, nofm, sfil)).
  std::optional<std::pair<std::int64_t, PhyDim2>> flattened;
  // A slice of the channels of `sliced_from` whose size shape inference did not give: the
  // next view with a known shape tells it (docs/onnx.md, "slices").
  std::optional<std::string> sliced_from;
  // A cut (below) whose shape inference left dimensions symbolic (ViT's class token
  // concatenated to the patches): the next element-wise node with a static shape gives it.
  bool cut_pending = false;
  bool pending_reduce = false;  // a row reduction waits to be combined back (a normalisation)
  bool pending_exp = false;     // ... with an exponential: a softmax
  friend bool same_root(const Activation& a, const Activation& b) { return a.sources == b.sources; }
};

class Lowering {
 public:
  Lowering(const OnnxGraph& g, std::string name) : g_(g), name_(std::move(name)) {}

  OnnxImport run() {
    start_inputs();
    for (const OnnxNode& n : g_.nodes) lower(n);
    const OnnxNode output_node{"output", "Output", {}, {}, {}};
    for (const auto& out : g_.outputs) {
      if (acts_.contains(out)) finish_pending(output_node, out);
    }
    drop_emptied_layers();
    if (layers_.empty()) fail_graph("no compute node (Conv, Gemm, MatMul, ...) to schedule");
    json doc;
    doc["name"] = name_;
    doc["source"] = "ONNX import of " + g_.origin +
                    (g_.producer.empty() ? std::string() : " (" + g_.producer + ")");
    doc["input"] = input_;
    doc["externals"] = externals_;
    doc["layers"] = layers_;
    return {std::move(doc), summary_};
  }

 private:
  [[noreturn]] void fail_graph(const std::string& reason) const {
    throw InputError(g_.origin + ": " + reason);
  }
  [[noreturn]] void fail(const OnnxNode& n, const std::string& reason) const {
    throw InputError(g_.origin + ": node '" + n.name + "' (" + n.op_type + "): " + reason);
  }

  const std::vector<std::int64_t>& shape(const OnnxNode& n, const std::string& tensor) const {
    const auto it = g_.shapes.find(tensor);
    if (it == g_.shapes.end() || it->second.empty()) {
      fail(n, "the shape of '" + tensor + "' is unknown after shape inference");
    }
    for (std::size_t i = 1; i < it->second.size(); ++i) {
      if (it->second[i] <= 0) fail(n, "the shape of '" + tensor + "' is not static");
    }
    // Products of dimensions (rows, words, a flattened size) are taken below: a tensor larger
    // than any batch of any layer kapla accepts is refused before one can overflow.
    std::int64_t words = 1;
    for (std::int64_t d : it->second) {
      if (d > 0 && (!checked_mul(words, d, words) || words > kMaxTensorWords)) {
        fail(n, "tensor '" + tensor + "' has more than 2^56 elements");
      }
    }
    return it->second;
  }

  // Rows of a Rows tensor per sample: all dimensions but the last, without the batch.
  std::int64_t rows_of(const std::vector<std::int64_t>& d) const {
    std::int64_t rows = 1;
    for (std::size_t i = 0; i + 1 < d.size(); ++i) rows *= d[i];
    return batch_ > 1 && rows % batch_ == 0 ? rows / batch_ : rows;
  }

  // Channels and fmap of an activation (see Layout).
  std::pair<std::int64_t, PhyDim2> view(const OnnxNode& n, const Activation& a,
                                        const std::string& tensor) const {
    if (a.dims.empty()) fail(n, "the shape of '" + tensor + "' is unknown after shape inference");
    if (a.layout == Layout::Image) {
      if (a.dims.size() != 4) {
        fail(n, "tensor '" + tensor + "' has rank " + std::to_string(a.dims.size()) +
                    " where an image [N, C, H, W] is expected");
      }
      return {a.dims[1], {a.dims[2], a.dims[3]}};
    }
    return {a.dims.back(), {1, rows_of(a.dims)}};
  }

  void check_batch(const OnnxNode& n, const std::vector<std::int64_t>& d,
                   const std::string& tensor) const {
    if (batch_ > 0 && d[0] > 0 && d[0] != batch_) {
      fail(n, "tensor '" + tensor + "' has batch " + std::to_string(d[0]) + " but the input has " +
                  std::to_string(batch_) +
                  " (kapla takes the batch from the schedule, not the model)");
    }
  }

  void start_inputs() {
    if (g_.inputs.empty()) fail_graph("the graph has no input that is not an initializer");
    OnnxNode pseudo{"input", "Input", {}, {}, {}};
    for (std::size_t i = 0; i < g_.inputs.size(); ++i) {
      const std::string& t = g_.inputs[i];
      const auto& d = shape(pseudo, t);
      if (i == 0) batch_ = d[0];
      Activation a;
      a.dims = d;
      a.layout = d.size() == 4 ? Layout::Image : Layout::Rows;
      const auto [c, fmap] = view(pseudo, a, t);
      if (i == 0) {
        a.sources = {""};
        input_ = {{"nofm", c}, {"sofm", dim_json(fmap)}};
      } else {
        a.sources = {add_external(t, c, fmap)};
      }
      acts_[t] = std::move(a);
    }
  }

  static json dim_json(PhyDim2 d) { return d.h == d.w ? json(d.h) : json::array({d.h, d.w}); }

  std::string unique_name(std::string base) {
    if (!base.empty() && base.front() == '/') base.erase(0, 1);
    if (base.empty()) base = "layer";
    std::string name = base;
    for (int k = 2; used_names_.contains(name); ++k) name = base + "_" + std::to_string(k);
    used_names_.insert(name);
    return name;
  }

  std::string add_external(const std::string& tensor, std::int64_t c, PhyDim2 fmap) {
    const std::string name = unique_name(tensor);
    externals_.push_back({{"name", name}, {"nofm", c}, {"sofm", dim_json(fmap)}});
    return name;
  }

  json prevs_json(const std::vector<std::string>& sources) const {
    json prevs = json::array();
    for (const auto& s : sources) prevs.push_back(s.empty() ? json(nullptr) : json(s));
    return prevs;
  }

  // Adds a layer reading `inputs` (concatenated) and records its output activation.
  void add_layer(const OnnxNode& n, json layer, const std::vector<const Activation*>& inputs,
                 const std::string& output, Layout layout, std::int64_t heads = 1) {
    std::vector<std::string> sources;
    for (const Activation* a : inputs) {
      sources.insert(sources.end(), a->sources.begin(), a->sources.end());
    }
    Activation out;
    out.sources = {push_layer(n.name, std::move(layer), sources)};
    out.dims = shape(n, output);
    out.layout = layout;
    out.heads = heads;
    if (layout == Layout::Image) check_batch(n, out.dims, output);
    acts_[output] = std::move(out);
  }

  std::string push_layer(const std::string& base, json layer,
                         const std::vector<std::string>& sources) {
    const std::string name = unique_name(base);
    for (const auto& s : sources) ++reads_[s];
    layer["name"] = name;
    layer["prevs"] = prevs_json(sources);
    ++summary_.layers_by_type[layer["type"].get<std::string>()];
    index_[name] = layers_.size();
    layers_.push_back(std::move(layer));
    return name;
  }

  // The activation feeding a compute node: a pending reduction becomes its own layer first.
  const Activation& input(const OnnxNode& n, std::size_t i) {
    if (i >= n.inputs.size() || n.inputs[i].empty()) fail(n, "missing input " + std::to_string(i));
    const std::string& t = n.inputs[i];
    if (!acts_.contains(t)) {
      if (g_.constants.contains(t) || constants_.contains(t)) {
        fail(n, "input '" + t + "' is a constant where kapla expects an activation");
      }
      fail(n, "input '" + t + "' is produced by no node kapla followed");
    }
    if (acts_.at(t).sliced_from || acts_.at(t).cut_pending) {
      fail(n, "the shape of '" + t + "' is unknown (a computed slice or concatenation)");
    }
    finish_pending(n, t);
    return acts_.at(t);
  }

  bool is_constant(const std::string& t) const {
    return t.empty() || g_.constants.contains(t) || constants_.contains(t);
  }

  // A normalisation written as a subgraph (older opsets: ReduceMean / Sub / Pow / Sqrt / Div
  // for a layer norm, Exp / ReduceSum / Div for a softmax) becomes one LayerNorm or Softmax
  // layer over the tensor when something reads the result.
  void finish_pending(const OnnxNode& n, const std::string& tensor) {
    Activation& a = acts_.at(tensor);
    if (!a.pending_reduce) return;
    if (a.layout != Layout::Rows) fail(n, "a row reduction over an image tensor is not supported");
    const auto [c, fmap] = view(n, a, tensor);
    const std::int64_t heads = fmap.w % a.heads == 0 ? a.heads : 1;
    json layer = {{"type", a.pending_exp ? "Softmax" : "LayerNorm"},
                  {"nofm", c},
                  {"sofm", dim_json({1, fmap.w / heads})}};
    if (heads != 1) layer["heads"] = heads;
    a.sources = {push_layer(tensor, std::move(layer), a.sources)};
    a.heads = heads;
    a.pending_reduce = a.pending_exp = false;
  }

  void lower(const OnnxNode& n) {
    const std::string& op = n.op_type;
    // Constant folding: a node that reads only constants makes constants (shape arithmetic).
    const bool all_constant = std::all_of(n.inputs.begin(), n.inputs.end(),
                                          [&](const std::string& t) { return is_constant(t); });
    if (kShapeOps.contains(op) || all_constant) {
      for (const auto& o : n.outputs) constants_.insert(o);
      ++summary_.dropped_by_op[op];
      return;
    }
    if (op == "Conv") return lower_conv(n);
    if (op == "Gemm" || op == "MatMul") return lower_matmul(n);
    if (op == "MaxPool" || op == "AveragePool") return lower_pool(n);
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool" || is_spatial_reduction(n)) {
      return lower_global_pool(n);
    }
    if (op == "Concat") return lower_concat(n);
    if (op == "Softmax" || op == "LayerNormalization") return lower_normalisation(n);
    if (op == "Slice" || op == "Split" || op == "Gather") return lower_slice(n);
    if (kViews.contains(op)) return lower_view(n);
    if (kFusedUnary.contains(op) || kReductions.contains(op) || kBinary.contains(op)) {
      return lower_elementwise(n);
    }
    fail(n, "unsupported operator (docs/onnx.md lists what kapla imports)");
  }

  PhyDim2 pair_attr(const OnnxNode& n, const std::string& key, PhyDim2 fallback) const {
    const auto v = n.ints_attr(key, {});
    if (v.empty()) return fallback;
    if (v.size() != 2) fail(n, key + " must have 2 values for a 2-D operator");
    return {v[0], v[1]};
  }

  void lower_conv(const OnnxNode& n) {
    const Activation& x = input(n, 0);
    const auto& w = shape(n, n.inputs.at(1));
    if (x.layout != Layout::Image || w.size() != 4) fail(n, "only 2-D convolutions are supported");
    const PhyDim2 dil = pair_attr(n, "dilations", {1, 1});
    if (dil.h != 1 || dil.w != 1) fail(n, "dilation is not supported (nn_dataflow's model)");
    const PhyDim2 sfil = pair_attr(n, "kernel_shape", {w[2], w[3]});
    const PhyDim2 strd = pair_attr(n, "strides", {1, 1});
    const auto& y = shape(n, n.outputs.at(0));
    const std::int64_t group = n.int_attr("group", 1);
    const std::int64_t nifm = view(n, x, n.inputs[0]).first;
    const std::int64_t nofm = y[1];
    const PhyDim2 sofm{y[2], y[3]};
    json layer;
    if (group == 1) {
      layer = {{"type", "Conv"},
               {"nifm", nifm},
               {"nofm", nofm},
               {"sofm", dim_json(sofm)},
               {"sfil", dim_json(sfil)}};
    } else if (group == nifm && group == nofm) {
      layer = {
          {"type", "DWConv"}, {"nofm", nofm}, {"sofm", dim_json(sofm)}, {"sfil", dim_json(sfil)}};
    } else {
      fail(n, "group " + std::to_string(group) +
                  " is not supported (1, or depthwise: group = "
                  "input channels = output channels)");
    }
    if (strd != PhyDim2{1, 1}) layer["strd"] = dim_json(strd);  // the format's default: 1
    add_layer(n, std::move(layer), {&x}, n.outputs.at(0), Layout::Image);
  }

  // Gemm / MatMul. A constant right operand is a weight: a fully connected layer over one row
  // per sample ([N, K], or a flattened image), a 1x1 convolution over the rows of a sequence
  // (D channels of 1 x S). Two activations: the MatMul kind, A[heads, m, k] x B[heads, k, n]
  // (docs/transformers.md).
  void lower_matmul(const OnnxNode& n) {
    const Activation& a = input(n, 0);
    if (!is_constant(n.inputs.at(1))) return lower_activation_matmul(n, a);
    if (n.op_type == "Gemm" && n.int_attr("transA", 0) != 0) fail(n, "transA is not supported");
    if (a.layout == Layout::Image) fail(n, "the left operand is an image; flatten it first");
    const auto& y = shape(n, n.outputs.at(0));
    const std::int64_t nofm = y.back();
    const auto [channels, fmap] = view(n, a, n.inputs[0]);
    json layer;
    if (fmap.w == 1) {
      const auto [nifm, sfil] = a.flattened.value_or(std::pair{channels, PhyDim2{1, 1}});
      layer = {{"type", "FC"}, {"nifm", nifm}, {"nofm", nofm}};
      if (sfil != PhyDim2{1, 1}) layer["sfil"] = dim_json(sfil);
    } else {
      layer = {{"type", "Conv"},
               {"nifm", channels},
               {"nofm", nofm},
               {"sofm", dim_json(fmap)},
               {"sfil", 1}};
    }
    add_layer(n, std::move(layer), {&a}, n.outputs.at(0), Layout::Rows);
  }

  void lower_activation_matmul(const OnnxNode& n, const Activation& a) {
    const Activation& b = input(n, 1);
    const auto& y = shape(n, n.outputs.at(0));
    if (n.op_type == "Gemm" || y.size() < 2 || a.dims.size() < 2 || b.dims.size() < 2) {
      fail(n, "a product of two activations must be a MatMul of [.., m, k] and [.., k, n]");
    }
    if (a.sources.size() != 1 || b.sources.size() != 1) {
      fail(n, "an operand of a product of two activations is a concatenation");
    }
    std::int64_t heads = 1;
    for (std::size_t i = 0; i + 2 < y.size(); ++i) heads *= y[i];
    if (batch_ > 1 && heads % batch_ == 0) heads /= batch_;
    json layer = {
        {"type", "MatMul"}, {"m", y[y.size() - 2]}, {"k", a.dims.back()}, {"n", y.back()}};
    if (heads != 1) layer["heads"] = heads;
    add_layer(n, std::move(layer), {&a, &b}, n.outputs.at(0), Layout::Rows, heads);
  }

  // Softmax / LayerNormalization along the last axis: one row-reduction layer.
  void lower_normalisation(const OnnxNode& n) {
    const Activation& x = input(n, 0);
    if (x.layout != Layout::Rows) fail(n, "only over the last axis of a sequence is supported");
    const auto& d = x.dims;
    std::int64_t axis = n.int_attr("axis", -1);
    if (axis < 0) axis += static_cast<std::int64_t>(d.size());
    if (axis != static_cast<std::int64_t>(d.size()) - 1) {
      fail(n, "only a normalisation over the last axis is supported");
    }
    const auto [c, fmap] = view(n, x, n.inputs[0]);
    const std::int64_t heads = fmap.w % x.heads == 0 ? x.heads : 1;
    json layer = {{"type", n.op_type == "Softmax" ? "Softmax" : "LayerNorm"},
                  {"nofm", c},
                  {"sofm", dim_json({1, fmap.w / heads})}};
    if (heads != 1) layer["heads"] = heads;
    add_layer(n, std::move(layer), {&x}, n.outputs.at(0), Layout::Rows, heads);
  }

  void lower_pool(const OnnxNode& n) {
    const Activation& x = input(n, 0);
    if (x.layout != Layout::Image) fail(n, "only 2-D pooling is supported");
    const PhyDim2 sreg = pair_attr(n, "kernel_shape", {0, 0});
    if (sreg.h <= 0 || sreg.w <= 0) fail(n, "kernel_shape is required");
    const PhyDim2 strd = pair_attr(n, "strides", {1, 1});
    const PhyDim2 dil = pair_attr(n, "dilations", {1, 1});
    if (dil.h != 1 || dil.w != 1) fail(n, "dilation is not supported");
    const auto [c, fmap] = view(n, x, n.inputs[0]);
    const auto& y = shape(n, n.outputs.at(0));
    const PhyDim2 sofm{y[2], y[3]};
    // A 1x1 window with stride 1 (an adaptive pool onto the size it already has) is a copy.
    if (sreg.h == 1 && sreg.w == 1 && strd.h == 1 && strd.w == 1 && sofm == fmap) {
      return alias(n, x);
    }
    json layer = {
        {"type", "Pooling"}, {"nofm", c}, {"sofm", dim_json(sofm)}, {"sreg", dim_json(sreg)}};
    if (strd != sreg) layer["strd"] = dim_json(strd);  // the format's default: the window
    add_layer(n, std::move(layer), {&x}, n.outputs.at(0), Layout::Image);
  }

  // GlobalAveragePool, or a ReduceMean / ReduceMax of an image over its fmap (x.mean([2, 3])).
  void lower_global_pool(const OnnxNode& n) {
    const Activation& x = input(n, 0);
    if (x.layout != Layout::Image) fail(n, "only 2-D pooling is supported");
    const auto [c, fmap] = view(n, x, n.inputs[0]);
    if (fmap == PhyDim2{1, 1}) return alias(n, x);
    const Layout out = shape(n, n.outputs.at(0)).size() == 4 ? Layout::Image : Layout::Rows;
    add_layer(n, {{"type", "Pooling"}, {"nofm", c}, {"sofm", 1}, {"sreg", dim_json(fmap)}}, {&x},
              n.outputs.at(0), out);
  }

  bool is_spatial_reduction(const OnnxNode& n) const {
    if (n.op_type != "ReduceMean" && n.op_type != "ReduceMax") return false;
    const auto it = acts_.find(n.inputs.at(0));
    const auto out = g_.shapes.find(n.outputs.at(0));
    if (it == acts_.end() || it->second.layout != Layout::Image || out == g_.shapes.end()) {
      return false;
    }
    const auto& d = out->second;
    return (d.size() == 4 && d[2] == 1 && d[3] == 1) || d.size() == 2;
  }

  // Concatenation along channels is a list of prevs (nn_dataflow's form). Along any other
  // axis kapla cannot follow it: the result is re-read from DRAM as an external input.
  void lower_concat(const OnnxNode& n) {
    const auto known = g_.shapes.find(n.outputs.at(0));
    if (known == g_.shapes.end() || known->second.empty()) shape(n, n.outputs.at(0));  // error
    const std::size_t rank = known->second.size();
    std::int64_t axis = n.int_attr("axis", 1);
    if (axis < 0) axis += static_cast<std::int64_t>(rank);
    std::vector<const Activation*> parts;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      if (!is_constant(n.inputs[i])) parts.push_back(&input(n, i));
    }
    const Layout layout = parts.front()->layout;
    const std::int64_t channel_axis =
        layout == Layout::Image ? 1 : static_cast<std::int64_t>(rank) - 1;
    if (axis != channel_axis || parts.size() != n.inputs.size()) return cut(n, layout);
    Activation out = *parts.front();
    out.sources.clear();
    out.flattened.reset();
    out.dims = shape(n, n.outputs.at(0));
    const PhyDim2 fmap = view(n, out, n.outputs[0]).second;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (parts[i]->layout != layout || view(n, *parts[i], n.inputs[i]).second != fmap) {
        fail(n, "concatenated inputs differ in fmap size");
      }
      out.sources.insert(out.sources.end(), parts[i]->sources.begin(), parts[i]->sources.end());
    }
    ++summary_.dropped_by_op[n.op_type];
    acts_[n.outputs.at(0)] = std::move(out);
  }

  // The output is a new external input: what a reshape kapla cannot follow leaves on DRAM.
  void cut(const OnnxNode& n, Layout layout) {
    const std::string& t = n.outputs.at(0);
    Activation out;
    const auto it = g_.shapes.find(t);
    const bool symbolic = it != g_.shapes.end() && it->second.size() >= 2 &&
                          std::any_of(it->second.begin() + 1, it->second.end(),
                                      [](std::int64_t d) { return d <= 0; });
    if (symbolic) {
      out.layout = layout;
      out.cut_pending = true;
      acts_[t] = std::move(out);
      return;
    }
    external_activation(n, t, layout);
  }

  // The tensor `t` (with a static shape) as a new external input of the network.
  void external_activation(const OnnxNode& n, const std::string& t, Layout layout) {
    Activation out;
    out.dims = shape(n, t);
    out.layout = out.dims.size() == 4 ? layout : Layout::Rows;
    if (out.layout == Layout::Image) check_batch(n, out.dims, t);
    const auto [c, fmap] = view(n, out, t);
    out.sources = {add_external(t, c, fmap)};
    acts_[t] = std::move(out);
    ++summary_.cuts;
  }

  // An element-wise op with constants on a pending cut: its output's static shape is the
  // cut's (the op itself is fused, as any bias add).
  void finish_cut(const OnnxNode& n, const Activation& pending) {
    external_activation(n, n.outputs.at(0), pending.layout);
    ++summary_.fused_by_op[n.op_type];
  }

  void alias(const OnnxNode& n, const Activation& x) {
    Activation out = x;
    out.dims = shape(n, n.outputs.at(0));
    ++summary_.dropped_by_op[n.op_type];
    acts_[n.outputs.at(0)] = std::move(out);
  }

  // Views. An image: a flatten is remembered for the FC that reads it, a view that keeps
  // channels and fmap is free, anything else cuts. Rows: any view keeps the data where it is
  // (kapla's model has no on-chip layout; the consumers' checks compare word counts where the
  // heads change, docs/transformers.md). A computed slice gets its size here.
  void lower_view(const OnnxNode& n) {
    const std::string& in = n.inputs.at(0);
    if (acts_.contains(in) && acts_.at(in).sliced_from) return resolve_slice(n);
    const Activation& x = input(n, 0);
    const auto& d = shape(n, n.outputs.at(0));
    if (x.layout == Layout::Rows) {
      if (d.size() == 4 && !x.flattened && n.op_type == "Reshape" && x.heads == 1 &&
          d.back() != x.dims.back()) {
        return cut(n, Layout::Image);  // rows back into an image
      }
      return alias(n, x);
    }
    check_batch(n, d, n.outputs.at(0));
    const auto [c, fmap] = view(n, x, in);
    if (d.size() == 2 && d[1] == c * fmap.h * fmap.w) {
      Activation out = x;
      out.dims = d;
      out.layout = Layout::Rows;
      out.flattened = std::pair{c, fmap};
      ++summary_.dropped_by_op[n.op_type];
      acts_[n.outputs.at(0)] = std::move(out);
      return;
    }
    if (d.size() == 4 && d[1] == c && d[2] == fmap.h && d[3] == fmap.w) return alias(n, x);
    cut(n, Layout::Rows);
  }

  // Slice / Split / Gather of an activation. Along the channels of rows made by one weight
  // layer (a fused Q/K/V projection): that layer is split into one layer per slice, the same
  // MACs in total. Anything else re-reads the slice from DRAM (a cut).
  void lower_slice(const OnnxNode& n) {
    const Activation& x = input(n, 0);
    for (std::size_t o = 0; o < n.outputs.size(); ++o) {
      const std::string& t = n.outputs[o];
      const auto it = g_.shapes.find(t);
      const bool known = it != g_.shapes.end() && !it->second.empty();
      if (!known && x.layout == Layout::Rows) {
        Activation pending = x;
        pending.sliced_from = n.inputs[0];
        pending.dims.clear();
        acts_[t] = std::move(pending);
        continue;
      }
      OnnxNode one = n;
      one.outputs = {t};
      const auto& d = shape(one, t);
      if (x.layout == Layout::Rows && d.size() == x.dims.size() && d.back() < x.dims.back() &&
          std::equal(d.begin(), d.end() - 1, x.dims.begin())) {
        split_producer(one, x, d.back(), t, d);
      } else {
        cut(one, x.layout);
      }
    }
  }

  void resolve_slice(const OnnxNode& n) {
    const Activation& pending = acts_.at(n.inputs[0]);
    const Activation& whole = acts_.at(*pending.sliced_from);
    const auto& d = shape(n, n.outputs.at(0));
    std::int64_t words = 1;
    for (auto v : d) words *= v;
    if (batch_ > 1 && words % batch_ == 0) words /= batch_;
    const std::int64_t rows = rows_of(whole.dims);
    if (words % rows != 0 || words / rows >= whole.dims.back()) {
      fail(n, "cannot tell how '" + n.inputs[0] + "' slices '" + *pending.sliced_from + "'");
    }
    split_producer(n, whole, words / rows, n.outputs.at(0), d);
  }

  void split_producer(const OnnxNode& n, const Activation& whole, std::int64_t channels,
                      const std::string& output, const std::vector<std::int64_t>& dims) {
    const auto it = whole.sources.size() == 1 ? index_.find(whole.sources[0]) : index_.end();
    const bool splittable =
        it != index_.end() && reads_[whole.sources[0]] == 0 &&
        (layers_[it->second]["type"] == "FC" ||
         (layers_[it->second]["type"] == "Conv" && layers_[it->second]["sfil"] == 1));
    if (!splittable) {
      fail(n,
           "a slice of the channels of something other than one weight layer (or of a layer "
           "also read whole) is not supported");
    }
    json& producer = layers_[it->second];
    json part = producer;
    part.erase("name");
    part.erase("prevs");
    part["nofm"] = channels;
    const std::int64_t left = producer["nofm"].get<std::int64_t>() - channels;
    if (left < 0) fail(n, "the slices of '" + whole.sources[0] + "' exceed its channels");
    producer["nofm"] = left;  // 0 once all slices are taken: dropped at the end
    // Parts are named by their channel range, in the order the graph takes them.
    const std::int64_t begin = sliced_[whole.sources[0]];
    sliced_[whole.sources[0]] += channels;
    const std::string part_name = whole.sources[0] + "[" + std::to_string(begin) + ":" +
                                  std::to_string(begin + channels) + "]";
    std::vector<std::string> sources;
    for (const auto& p : producer["prevs"])
      sources.push_back(p.is_null() ? "" : p.get<std::string>());
    ++summary_.dropped_by_op[n.op_type];
    Activation out = whole;
    out.sources = {push_layer(part_name, std::move(part), sources)};
    out.dims = dims;
    out.sliced_from.reset();
    acts_[output] = std::move(out);
  }

  // Layers whose every channel went to slices (a fused projection split up) are removed.
  void drop_emptied_layers() {
    json kept = json::array();
    for (auto& l : layers_) {
      if (l.contains("nofm") && l.at("nofm").get<std::int64_t>() == 0) {
        if (reads_[l["name"].get<std::string>()] > 0) {
          fail_graph("layer '" + l["name"].get<std::string>() + "' is read whole and in slices");
        }
        --summary_.layers_by_type[l["type"].get<std::string>()];
        continue;
      }
      kept.push_back(std::move(l));
    }
    layers_ = std::move(kept);
  }

  // Element-wise nodes. One activation operand (the others constants), or several with the
  // same sources (x * sigmoid(x), a GELU's x * erf(x)): fused into the producer. Activations
  // of different sources: an Eltwise layer (nn_dataflow's residual sum).
  void lower_elementwise(const OnnxNode& n) {
    std::vector<std::size_t> act_inputs;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      if (!is_constant(n.inputs[i])) act_inputs.push_back(i);
    }
    const std::string& out_name = n.outputs.at(0);
    for (std::size_t i : act_inputs) {
      if (!acts_.contains(n.inputs[i])) input(n, i);  // the error for an unknown tensor
    }
    if (acts_.at(n.inputs[act_inputs[0]]).cut_pending && act_inputs.size() == 1) {
      return finish_cut(n, acts_.at(n.inputs[act_inputs[0]]));
    }
    const Activation& first = acts_.at(n.inputs[act_inputs[0]]);
    const bool one_root = std::all_of(act_inputs.begin(), act_inputs.end(), [&](std::size_t i) {
      return same_root(acts_.at(n.inputs[i]), first);
    });
    if (one_root) {
      Activation out = first;
      for (std::size_t i : act_inputs) {
        out.pending_reduce = out.pending_reduce || acts_.at(n.inputs[i]).pending_reduce;
        out.pending_exp = out.pending_exp || acts_.at(n.inputs[i]).pending_exp;
      }
      if (kReductions.contains(n.op_type)) out.pending_reduce = true;
      if (n.op_type == "Exp") out.pending_exp = true;
      // A reduction changes the shape; its result keeps the operand's until it is combined
      // back with the operand (and the normalisation is complete).
      if (!kReductions.contains(n.op_type)) {
        out.dims = shape(n, out_name);
        if (!out.pending_reduce && view(n, out, out_name) != view(n, first, n.inputs[0])) {
          fail(n,
               "the result's shape differs from its operand's (broadcasting an activation "
               "is not supported)");
        }
      }
      ++summary_.fused_by_op[n.op_type];
      acts_[out_name] = std::move(out);
      return;
    }
    std::vector<const Activation*> parts;
    for (std::size_t i : act_inputs) parts.push_back(&input(n, i));
    Activation result = *parts.front();
    result.dims = shape(n, out_name);
    const auto [c, fmap] = view(n, result, out_name);
    for (std::size_t k = 0; k < parts.size(); ++k) {
      if (view(n, *parts[k], n.inputs[act_inputs[k]]) != std::pair{c, fmap}) {
        fail(n,
             "operands of different shapes (broadcasting between activations is not "
             "supported)");
      }
    }
    if (n.op_type != "Add" && n.op_type != "Sum" && n.op_type != "Mul" && n.op_type != "Sub" &&
        n.op_type != "Max" && n.op_type != "Min" && n.op_type != "Mean") {
      fail(n, "element-wise " + n.op_type + " of two activations is not supported");
    }
    add_layer(n,
              {{"type", "Eltwise"},
               {"nofm", c},
               {"sofm", dim_json(fmap)},
               {"nreg", static_cast<std::int64_t>(parts.size())}},
              parts, out_name, result.layout, 1);
  }

  const OnnxGraph& g_;
  std::string name_;
  std::int64_t batch_ = -1;
  json input_;
  json externals_ = json::array();
  json layers_ = json::array();
  std::map<std::string, Activation> acts_;
  std::set<std::string> constants_;
  std::set<std::string> used_names_;
  std::map<std::string, std::size_t> index_;    // layer name -> position in layers_
  std::map<std::string, int> reads_;            // source name -> layers reading it
  std::map<std::string, std::int64_t> sliced_;  // split layer -> channels given to parts
  OnnxImportSummary summary_;
};

}  // namespace

OnnxImport lower_onnx_graph(const OnnxGraph& graph, const std::string& name) {
  return Lowering(graph, name).run();
}

}  // namespace kapla::io
