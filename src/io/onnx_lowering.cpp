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

// An activation tensor as kapla sees it.
struct Activation {
  std::vector<std::string> sources;  // layer or external names; "" = the network input
  std::int64_t channels = 0;
  PhyDim2 fmap{1, 1};
  std::vector<std::int64_t> dims;
  // A 2-D [N, C*H*W] tensor flattened from [N, C, H, W]: a fully connected consumer reads it
  // as C channels of an H x W fmap (nn_dataflow's FCLayer(nifm, nofm, sfil)).
  std::optional<std::pair<std::int64_t, PhyDim2>> flattened;
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
    for (const auto& out : g_.outputs) {
      if (acts_.contains(out)) finish_pending(out, "graph output '" + out + "'");
    }
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
    return it->second;
  }

  // Channels and fmap of an ONNX shape: [N, C, H, W]; [N, S, D] (a token sequence: D channels
  // over a 1 x S fmap); [N, K].
  std::pair<std::int64_t, PhyDim2> view(const OnnxNode& n, const std::vector<std::int64_t>& d,
                                        const std::string& tensor) const {
    switch (d.size()) {
      case 4:
        return {d[1], {d[2], d[3]}};
      case 3:
        return {d[2], {1, d[1]}};
      case 2:
        return {d[1], {1, 1}};
      default:
        fail(n, "tensor '" + tensor + "' has rank " + std::to_string(d.size()) +
                    " (kapla reads [N, C, H, W], [N, S, D] or [N, K])");
    }
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
      const auto [c, fmap] = view(pseudo, d, t);
      Activation a{{}, c, fmap, d, std::nullopt};
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
                 const std::string& output) {
    const std::string name = unique_name(n.name);
    std::vector<std::string> sources;
    for (const Activation* a : inputs)
      sources.insert(sources.end(), a->sources.begin(), a->sources.end());
    layer["name"] = name;
    layer["prevs"] = prevs_json(sources);
    ++summary_.layers_by_type[layer["type"].get<std::string>()];
    layers_.push_back(std::move(layer));
    const auto& d = shape(n, output);
    check_batch(n, d, output);
    const auto [c, fmap] = view(n, d, output);
    acts_[output] = Activation{{name}, c, fmap, d, std::nullopt};
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
    finish_pending(t, "node '" + n.name + "'");
    return acts_.at(t);
  }

  bool is_constant(const std::string& t) const {
    return t.empty() || g_.constants.contains(t) || constants_.contains(t);
  }

  void finish_pending(const std::string& tensor, const std::string& where) {
    Activation& a = acts_.at(tensor);
    if (!a.pending_reduce) return;
    // A normalisation written as a subgraph (older opsets): ReduceMean / Sub / Pow / Sqrt /
    // Div for a layer norm, Exp / ReduceSum / Div for a softmax. Priced as one element-wise
    // layer over the tensor: see docs/onnx.md.
    throw InputError(g_.origin + ": " + where + ": a row reduction (" +
                     (a.pending_exp ? std::string("softmax") : std::string("layer norm")) +
                     " written as a subgraph) on '" + tensor +
                     "' is not supported yet; export with a newer opset (Softmax, "
                     "LayerNormalization)");
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
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool") return lower_global_pool(n);
    if (op == "Concat") return lower_concat(n);
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
    if (x.dims.size() != 4 || w.size() != 4) fail(n, "only 2-D convolutions are supported");
    const PhyDim2 dil = pair_attr(n, "dilations", {1, 1});
    if (dil.h != 1 || dil.w != 1) fail(n, "dilation is not supported (nn_dataflow's model)");
    const PhyDim2 sfil = pair_attr(n, "kernel_shape", {w[2], w[3]});
    const PhyDim2 strd = pair_attr(n, "strides", {1, 1});
    const auto& y = shape(n, n.outputs.at(0));
    const std::int64_t group = n.int_attr("group", 1);
    const std::int64_t nifm = x.channels;
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
    add_layer(n, std::move(layer), {&x}, n.outputs.at(0));
  }

  // Gemm, or MatMul with a constant right operand: a fully connected layer over [N, K], or a
  // 1x1 convolution over a token sequence [N, S, D].
  void lower_matmul(const OnnxNode& n) {
    const Activation& a = input(n, 0);
    const std::string& b = n.inputs.at(1);
    if (!is_constant(b)) {
      fail(n, "a product of two activations (attention) needs the MatMul layer kind");
    }
    const auto& y = shape(n, n.outputs.at(0));
    if (n.op_type == "Gemm" && n.int_attr("transA", 0) != 0) fail(n, "transA is not supported");
    const std::int64_t nofm = y.back();
    json layer;
    if (a.dims.size() == 2) {
      const auto [nifm, sfil] = a.flattened.value_or(std::pair{a.channels, PhyDim2{1, 1}});
      layer = {{"type", "FC"}, {"nifm", nifm}, {"nofm", nofm}};
      if (sfil != PhyDim2{1, 1}) layer["sfil"] = dim_json(sfil);
    } else if (a.dims.size() == 3) {
      layer = {{"type", "Conv"},
               {"nifm", a.channels},
               {"nofm", nofm},
               {"sofm", dim_json(a.fmap)},
               {"sfil", 1}};
    } else {
      fail(n, "the left operand must be [N, K] or [N, S, D]");
    }
    add_layer(n, std::move(layer), {&a}, n.outputs.at(0));
  }

  void lower_pool(const OnnxNode& n) {
    const Activation& x = input(n, 0);
    if (x.dims.size() != 4) fail(n, "only 2-D pooling is supported");
    const PhyDim2 sreg = pair_attr(n, "kernel_shape", {0, 0});
    if (sreg.h <= 0 || sreg.w <= 0) fail(n, "kernel_shape is required");
    const PhyDim2 strd = pair_attr(n, "strides", {1, 1});
    const PhyDim2 dil = pair_attr(n, "dilations", {1, 1});
    if (dil.h != 1 || dil.w != 1) fail(n, "dilation is not supported");
    const auto& y = shape(n, n.outputs.at(0));
    const PhyDim2 sofm{y[2], y[3]};
    // A 1x1 window with stride 1 (an adaptive pool onto the size it already has) is a copy.
    if (sreg.h == 1 && sreg.w == 1 && strd.h == 1 && strd.w == 1 && sofm == x.fmap) {
      return alias(n, x);
    }
    json layer = {{"type", "Pooling"},
                  {"nofm", x.channels},
                  {"sofm", dim_json(sofm)},
                  {"sreg", dim_json(sreg)}};
    if (strd != sreg) layer["strd"] = dim_json(strd);  // the format's default: the window
    add_layer(n, std::move(layer), {&x}, n.outputs.at(0));
  }

  void lower_global_pool(const OnnxNode& n) {
    const Activation& x = input(n, 0);
    if (x.dims.size() != 4) fail(n, "only 2-D pooling is supported");
    if (x.fmap == PhyDim2{1, 1}) return alias(n, x);
    add_layer(n,
              {{"type", "Pooling"}, {"nofm", x.channels}, {"sofm", 1}, {"sreg", dim_json(x.fmap)}},
              {&x}, n.outputs.at(0));
  }

  // Concatenation along channels is a list of prevs (nn_dataflow's form). Along any other
  // axis kapla cannot follow it: the result is re-read from DRAM as an external input.
  void lower_concat(const OnnxNode& n) {
    const auto& y = shape(n, n.outputs.at(0));
    std::int64_t axis = n.int_attr("axis", 1);
    if (axis < 0) axis += static_cast<std::int64_t>(y.size());
    const std::int64_t channel_axis = y.size() == 4 || y.size() == 2 ? 1 : 2;
    std::vector<const Activation*> parts;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      if (is_constant(n.inputs[i]) || axis != channel_axis) continue;
      parts.push_back(&input(n, i));
    }
    if (axis != channel_axis || parts.size() != n.inputs.size()) return cut(n);
    Activation out = *parts.front();
    out.sources.clear();
    out.channels = 0;
    out.flattened.reset();
    for (const Activation* p : parts) {
      if (p->fmap != parts.front()->fmap) fail(n, "concatenated inputs differ in fmap size");
      out.sources.insert(out.sources.end(), p->sources.begin(), p->sources.end());
      out.channels += p->channels;
    }
    out.dims = y;
    ++summary_.dropped_by_op[n.op_type];
    acts_[n.outputs.at(0)] = std::move(out);
  }

  // The output is a new external input: what a reshape kapla cannot follow leaves on DRAM.
  void cut(const OnnxNode& n) {
    const std::string& t = n.outputs.at(0);
    const auto& d = shape(n, t);
    check_batch(n, d, t);
    const auto [c, fmap] = view(n, d, t);
    acts_[t] = Activation{{add_external(t, c, fmap)}, c, fmap, d, std::nullopt};
    ++summary_.cuts;
  }

  void alias(const OnnxNode& n, const Activation& x) {
    Activation out = x;
    out.dims = shape(n, n.outputs.at(0));
    ++summary_.dropped_by_op[n.op_type];
    acts_[n.outputs.at(0)] = std::move(out);
  }

  // Views: a flatten of [N, C, H, W] is remembered for the FC that reads it; a view that
  // keeps the channels and fmap is free; any other re-shaping cuts the graph.
  void lower_view(const OnnxNode& n) {
    const Activation& x = acts_.contains(n.inputs.at(0)) ? acts_.at(n.inputs.at(0)) : input(n, 0);
    const auto& d = shape(n, n.outputs.at(0));
    check_batch(n, d, n.outputs.at(0));
    if (d.size() == 2 && x.dims.size() == 4 && d[1] == x.dims[1] * x.dims[2] * x.dims[3]) {
      Activation out = x;
      out.dims = d;
      out.channels = d[1];
      out.fmap = {1, 1};
      out.flattened = std::pair{x.channels, x.fmap};
      ++summary_.dropped_by_op[n.op_type];
      acts_[n.outputs.at(0)] = std::move(out);
      return;
    }
    if (d.size() >= 2 && d.size() <= 4) {
      const auto [c, fmap] = view(n, d, n.outputs.at(0));
      if (c == x.channels && fmap == x.fmap) return alias(n, x);
      if (x.flattened && d.size() == 2 && c == x.channels) return alias(n, x);
    }
    cut(n);
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
    const Activation& first = acts_.contains(n.inputs[act_inputs[0]])
                                  ? acts_.at(n.inputs[act_inputs[0]])
                                  : input(n, act_inputs[0]);
    const bool one_root = std::all_of(act_inputs.begin(), act_inputs.end(), [&](std::size_t i) {
      return acts_.contains(n.inputs[i]) && same_root(acts_.at(n.inputs[i]), first);
    });
    if (one_root) {
      Activation out = first;
      for (std::size_t i : act_inputs) {
        out.pending_reduce = out.pending_reduce || acts_.at(n.inputs[i]).pending_reduce;
        out.pending_exp = out.pending_exp || acts_.at(n.inputs[i]).pending_exp;
      }
      if (kReductions.contains(n.op_type)) out.pending_reduce = true;
      if (n.op_type == "Exp") out.pending_exp = true;
      out.dims = shape(n, out_name);
      // A reduction changes the shape; its result keeps the operand's view until it is
      // combined back with the operand.
      if (!kReductions.contains(n.op_type)) {
        const auto [c, fmap] = view(n, out.dims, out_name);
        if (c != first.channels || fmap != first.fmap) {
          if (!(first.flattened && c == first.channels)) {
            fail(n,
                 "the result's shape differs from its operand's (broadcasting an "
                 "activation is not supported)");
          }
        }
      }
      ++summary_.fused_by_op[n.op_type];
      acts_[out_name] = std::move(out);
      return;
    }
    std::vector<const Activation*> parts;
    for (std::size_t i : act_inputs) parts.push_back(&input(n, i));
    const auto& y = shape(n, out_name);
    const auto [c, fmap] = view(n, y, out_name);
    for (const Activation* p : parts) {
      if (p->channels != c || p->fmap != fmap) {
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
              parts, out_name);
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
  OnnxImportSummary summary_;
};

}  // namespace

OnnxImport lower_onnx_graph(const OnnxGraph& graph, const std::string& name) {
  return Lowering(graph, name).run();
}

}  // namespace kapla::io
