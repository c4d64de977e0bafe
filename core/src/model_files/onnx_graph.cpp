// ONNX nodes -> layer objects of schema version 1 (see onnx_graph.hpp). Each layer is read back
// with the schema's own reader and analysed with the engine's layer rules as it is emitted, so
// the shapes that later nodes see are the engine's: no shape formula is written twice.
#include "dlcost/model_files/onnx_graph.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>

#include "dlcost/base/checked.hpp"
#include "dlcost/base/error.hpp"
#include "graph/block_expander.hpp"
#include "graph/layer_analysis.hpp"
#include "graph/layer_json.hpp"
#include "model_files/onnx_batch_layout.hpp"
#include "model_files/onnx_constants.hpp"
#include "model_files/onnx_module_path.hpp"

namespace dlcost {

namespace {

using nlohmann::json;

/// A node the engine does not model, with the reason.
struct Unmodelled {
  std::string reason;
};

/// A tensor the layers compute: the layer that writes it (or the model input) and its shape
/// per sample.
struct Value {
  int layer = kModelInput;
  Shape shape;
  BatchLayout layout;  ///< where the ONNX tensor keeps the batch (axis 0 alone, mostly)
};

std::vector<int64_t> dimsOf(const Shape& s) {
  return std::vector<int64_t>(s.begin(), s.end());
}

/// The ONNX rank of a computed tensor.
int64_t onnxRank(const Value& v) {
  return static_cast<int64_t>(v.shape.size()) +
         (v.layout.merge == BatchLayout::Merge::kAlone ? 1 : 0);
}

/// The layers that may read a tensor whose batch is not axis 0 alone (inside
/// nn.MultiheadAttention's sequence-first region): each works on the sample's own axes, which
/// the importer maps (onnx_batch_layout.hpp); every other layer needs the batch first.
bool readsAnyBatchLayout(const std::string& type) {
  static const std::set<std::string> kTypes = {
      "linear", "matmul",  "softmax", "layernorm", "narrow",  "permute", "reshape", "multiply",
      "add",    "dropout", "gelu",    "relu",      "sigmoid", "tanh",    "silu"};
  return kTypes.count(type) > 0;
}

const OnnxAttribute* findAttr(const OnnxNode& n, const char* name) {
  for (const OnnxAttribute& a : n.attributes)
    if (a.name == name) return &a;
  return nullptr;
}

int64_t intAttr(const OnnxNode& n, const char* name, int64_t fallback) {
  const OnnxAttribute* a = findAttr(n, name);
  return a ? a->i : fallback;
}

double floatAttr(const OnnxNode& n, const char* name, double fallback) {
  const OnnxAttribute* a = findAttr(n, name);
  return a ? a->f : fallback;
}

std::vector<int64_t> intsAttr(const OnnxNode& n, const char* name) {
  const OnnxAttribute* a = findAttr(n, name);
  return a ? a->ints : std::vector<int64_t>{};
}

/// A 2-D attribute ([h, w]); `fallback` when absent.
json pairAttr(const OnnxNode& n, const char* name, int64_t fallback) {
  const std::vector<int64_t> v = intsAttr(n, name);
  if (v.empty()) return json::array({fallback, fallback});
  if (v.size() != 2) throw Unmodelled{std::string(name) + " is not 2-D: only 2-D windows"};
  return json::array({v[0], v[1]});
}

/// ONNX pads [top, left, bottom, right] as the schema's symmetric [h, w].
json padsAttr(const OnnxNode& n) {
  const std::string auto_pad = findAttr(n, "auto_pad") ? findAttr(n, "auto_pad")->s : "NOTSET";
  if (auto_pad == "VALID") return json::array({0, 0});
  if (auto_pad != "NOTSET" && !auto_pad.empty()) {
    throw Unmodelled{"auto_pad " + auto_pad + " (export with explicit pads)"};
  }
  const std::vector<int64_t> p = intsAttr(n, "pads");
  if (p.empty()) return json::array({0, 0});
  if (p.size() != 4) throw Unmodelled{"pads are not 2-D: only 2-D windows"};
  if (p[0] != p[2] || p[1] != p[3]) {
    throw Unmodelled{"asymmetric padding [" + std::to_string(p[0]) + ", " + std::to_string(p[1]) +
                     ", " + std::to_string(p[2]) + ", " + std::to_string(p[3]) + "]"};
  }
  return json::array({p[0], p[1]});
}

/// A tensor value read as an integer (shape amounts): whole and within 2^53, else not read.
int64_t wholeValue(double v, const std::string& op) {
  if (!(std::abs(v) <= 9007199254740992.0) || v != std::floor(v)) {
    throw Unmodelled{op + " by a value that is not a whole number"};
  }
  return static_cast<int64_t>(v);
}

/// "[a, b, ...]" of a list of integers (an ONNX tensor's dims may be longer than a Shape).
std::string shapeText(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string shapeText(const Shape& s) {
  return shapeToString(s);
}

/// What the model object says of the one thing about activations a graph does not record.
constexpr const char* kInPlaceNote =
    "Activations as the graph runs them, out of place: an ONNX graph does not record whether "
    "PyTorch ran one in place (inplace=True), which lowers the inference peak; the tensors "
    "training saves for backward are the same either way (docs/model-files.md).";

/// Why a graph whose BatchNorms an eval-mode export folded into its convolutions cannot be
/// trained as it is, and the export that keeps them.
std::string foldedBatchNormText(int64_t folded, int64_t convs, const std::string& first) {
  return "this ONNX graph was exported for inference: " + std::to_string(folded) + " of its " +
         std::to_string(convs) +
         " convolutions carry a BatchNorm that the eval-mode export folded into their weights "
         "and biases (computed by the exporter and named after the graph, e.g. " +
         first +
         "; no BatchNormalization node is left), and an eval-mode export also drops every "
         "Dropout. Trained, the model keeps BatchNorm's parameters, saved tensors and running "
         "statistics and Dropout's masks, which this graph no longer has, so dlcost gives no "
         "training estimate of it. Export it for training with "
         "torch.onnx.export(model, x, path, training=torch.onnx.TrainingMode.TRAINING, "
         "do_constant_folding=False), or estimate this graph for inference (mode infer): "
         "that is the model that runs.";
}

/// The batch size shape arithmetic is evaluated with when the graph's batch is symbolic.
constexpr int64_t kStandInBatch = 7919;

class Builder {
 public:
  explicit Builder(const OnnxModel& m) : m_(m) {
    for (const OnnxTensor& t : m.initializers) inits_[t.name] = &t;
    for (size_t i = 0; i < m.graph_nodes.size(); ++i) {
      const OnnxNode& n = m.graph_nodes[i];
      for (const std::string& in : n.inputs) {
        ++consumers_[in];
        reader_op_[in] = n.op_type;
        reader_node_[in] = i;
      }
      for (const std::string& out : n.outputs) producer_node_[out] = i;
    }
    for (const OnnxValueInfo& o : m.outputs) ++consumers_[o.name];
  }

  OnnxGraphImport run() {
    OnnxGraphImport r;
    r.nodes = static_cast<int64_t>(m_.graph_nodes.size());
    try {
      readInput();
      // Constant nodes depend on nothing: read them all first, so that a pattern read at its
      // first node (GELU's) sees the constants that the file lists after that node.
      for (const OnnxNode& n : m_.graph_nodes)
        if (n.op_type == "Constant" && n.domain.empty()) constant(n);
      for (size_t i = 0; i < m_.graph_nodes.size(); ++i) node(i, r);
      if (r.unmodelled.empty() && r.after_unmodelled == 0) {
        checkOutputs();
        r.model = json{{"name", m_.graph_name.empty() ? "onnx model" : m_.graph_name},
                       {"source", "ONNX file" + (m_.producer.empty() ? std::string()
                                                                     : " (" + m_.producer + ")")},
                       {"comment", kInPlaceNote},
                       {"input", input_},
                       {"layers", layers_}};
        if (folded_bn_ > 0) {
          r.folded_batchnorm = folded_bn_;
          r.folded_batchnorm_node = folded_bn_node_;
          r.model["inference_only"] = foldedBatchNormText(folded_bn_, convs_, folded_bn_node_);
        }
        totals(r);
      }
    } catch (const InputError& e) {
      r.model = nullptr;
      r.error = e.error().message;
      r.error_path = e.error().path;
    } catch (const ArithmeticOverflow&) {
      r.model = nullptr;
      r.error = "sizes overflow 64-bit arithmetic";
    }
    return r;
  }

 private:
  // --- the graph input ---------------------------------------------------------------------
  void readInput() {
    std::vector<const OnnxValueInfo*> data;
    for (const OnnxValueInfo& v : m_.inputs)
      if (!inits_.count(v.name)) data.push_back(&v);
    if (data.size() != 1) {
      std::string names;
      for (const auto* v : data) names += (names.empty() ? "" : ", ") + v->name;
      throw InputError(ErrorCode::kValue, "/graph/input",
                       "dlcost models graphs of one input; this one has " +
                           std::to_string(data.size()) + (names.empty() ? "" : ": " + names));
    }
    const OnnxValueInfo& in = *data[0];
    if (!in.has_shape || in.dims.size() < 2) {
      throw InputError(
          ErrorCode::kShape, "/graph/input",
          "input '" + in.name + "' has no shape of a batch and at least one more dimension");
    }
    // A symbolic batch (dynamic_axes) gets a stand-in size for the graph's shape arithmetic:
    // per-sample shapes do not depend on it, and a Reshape keeps the batch only where its
    // first dimension is exactly the stand-in (one that merges the batch into another
    // dimension gives a multiple of it and is refused). A prime no model's layer sizes use.
    batch_ = in.dims[0] > 0 ? in.dims[0] : kStandInBatch;
    if (in.dims.size() - 1 > kMaxRank) {
      throw InputError(ErrorCode::kShape, "/graph/input",
                       "input '" + in.name + "' has " + std::to_string(in.dims.size() - 1) +
                           " dimensions per sample; dlcost models at most " +
                           std::to_string(kMaxRank));
    }
    Shape sample(in.dims.begin() + 1, in.dims.end());
    for (size_t k = 0; k < sample.size(); ++k) {
      if (sample[k] <= 0) {
        throw InputError(ErrorCode::kShape, "/graph/input",
                         "dimension " + std::to_string(k + 1) + " of input '" + in.name +
                             "' is symbolic: export with a fixed size (only the batch, "
                             "dimension 0, may be symbolic)");
      }
    }
    // Token ids (int64/int32) are the input of an embedding; everything else is values.
    if (in.elem_type == 7 || in.elem_type == 6) {
      throw InputError(ErrorCode::kValue, "/graph/input",
                       "input '" + in.name +
                           "' holds integers (token ids): dlcost models ONNX "
                           "graphs of floating-point inputs");
    }
    input_ = sample;
    values_[in.name] = Value{kModelInput, sample, BatchLayout{}};
  }

  // --- one node ------------------------------------------------------------------------------
  void node(size_t i, OnnxGraphImport& r) {
    const OnnxNode& n = m_.graph_nodes[i];
    path_ = "/graph/node/" + std::to_string(i);
    index_ = i;
    if (n.op_type == "Constant" && n.domain.empty()) {
      ++r.understood;  // read before the first node
      return;
    }
    try {
      if (!n.domain.empty() && n.domain != "ai.onnx") {
        throw Unmodelled{"operator of domain '" + n.domain + "'"};
      }
      if (!knownOp(n.op_type))
        throw Unmodelled{"no layer of dlcost's schema computes " + n.op_type};
      for (const std::string& in : n.inputs) {
        if (unknown_.count(in)) {
          // An operator dlcost reads, after one it does not: its input's shape is unknown.
          for (const std::string& out : n.outputs) unknown_.insert(out);
          ++r.after_unmodelled;
          return;
        }
      }
      if (folded_.count(i)) {  // part of a pattern read as one layer at its first node
        ++r.understood;
        return;
      }
      if (!foldShapeArithmetic(n)) dispatch(n);
      ++r.understood;
    } catch (const Unmodelled& u) {
      auto& entry = r.unmodelled[n.domain.empty() ? n.op_type : n.domain + "." + n.op_type];
      if (entry.count++ == 0) {
        entry.reason = u.reason;
        entry.node = n.name;
      }
      for (const std::string& out : n.outputs) unknown_.insert(out);
    }
  }

  using Handler = void (Builder::*)(const OnnxNode&);

  /// The operators dispatch() reads, each with its handler (some read only the forms they
  /// name when they refuse the others). One table for what is read and how, so that the two
  /// cannot drift apart.
  static const std::map<std::string, Handler>& handlers() {
    static const std::map<std::string, Handler> kHandlers = {
        {"Conv", &Builder::conv},
        {"Gemm", &Builder::gemm},
        {"MatMul", &Builder::matmul},
        {"BatchNormalization", &Builder::batchnorm},
        {"LayerNormalization", &Builder::layernorm},
        {"MaxPool", &Builder::pool},
        {"AveragePool", &Builder::pool},
        {"GlobalAveragePool", &Builder::globalAveragePool},
        {"GlobalMaxPool", &Builder::globalMaxPool},
        {"ConvTranspose", &Builder::convTranspose},
        {"Resize", &Builder::resize},
        {"Upsample", &Builder::resize},
        {"InstanceNormalization", &Builder::instanceNorm},
        {"DepthToSpace", &Builder::depthToSpace},
        {"SpaceToDepth", &Builder::depthToSpace},
        {"LeakyRelu", &Builder::leakyRelu},
        {"Transpose", &Builder::transpose},
        {"ReduceMean", &Builder::reduceMean},
        {"Slice", &Builder::slice},
        {"Split", &Builder::split},
        {"Gather", &Builder::gather},
        {"Expand", &Builder::expand},
        {"Sub", &Builder::elementwise},
        {"Div", &Builder::elementwise},
        {"Erf", &Builder::erfOutsideGelu},
        {"Relu", &Builder::relu},
        {"Sigmoid", &Builder::sigmoid},
        {"Tanh", &Builder::tanhOp},
        {"HardSwish", &Builder::hardSwish},
        {"HardSigmoid", &Builder::hardSigmoid},
        {"Gelu", &Builder::gelu},
        {"Clip", &Builder::clip},
        {"Softmax", &Builder::softmax},
        {"Dropout", &Builder::dropout},
        {"Identity", &Builder::identity},
        {"Add", &Builder::elementwise},
        {"Mul", &Builder::elementwise},
        {"Concat", &Builder::concat},
        {"Flatten", &Builder::flatten},
        {"Reshape", &Builder::reshape},
        {"Pad", &Builder::pad},
    };
    return kHandlers;
  }

  /// Whether a node of this operator is read: by a handler, or as shape arithmetic (Shape,
  /// and the operators onnx_constants.hpp folds).
  static bool knownOp(const std::string& op) {
    return handlers().count(op) > 0 || op == "Shape" || foldableOp(op);
  }

  void dispatch(const OnnxNode& n) {
    const std::string& op = n.op_type;
    if (n.inputs.empty() || n.outputs.empty() || n.outputs[0].empty()) {
      throw Unmodelled{op + " without an input or an output"};
    }
    const auto handler = handlers().find(op);
    if (handler == handlers().end()) throw Unmodelled{"no layer of dlcost's schema computes " + op};
    (this->*handler->second)(n);
  }

  // --- operators read as one layer of the same kind ----------------------------------------
  void relu(const OnnxNode& n) { emit(n, {{"type", "relu"}}, {n.inputs[0]}); }
  void sigmoid(const OnnxNode& n) { emit(n, {{"type", "sigmoid"}}, {n.inputs[0]}); }
  void tanhOp(const OnnxNode& n) { emit(n, {{"type", "tanh"}}, {n.inputs[0]}); }
  void hardSwish(const OnnxNode& n) { emit(n, {{"type", "hardswish"}}, {n.inputs[0]}); }
  void hardSigmoid(const OnnxNode& n) { emit(n, {{"type", "hardsigmoid"}}, {n.inputs[0]}); }
  void gelu(const OnnxNode& n) { emit(n, {{"type", "gelu"}}, {n.inputs[0]}); }
  void globalAveragePool(const OnnxNode& n) {
    emit(n, {{"type", "global_avgpool2d"}}, {n.inputs[0]});
  }
  void globalMaxPool(const OnnxNode& n) {
    emit(n, {{"type", "adaptive_maxpool2d"}, {"output_size", 1}}, {n.inputs[0]});
  }
  void leakyRelu(const OnnxNode& n) {
    emit(n, {{"type", "leaky_relu"}, {"negative_slope", floatAttr(n, "alpha", 0.01)}},
         {n.inputs[0]});
  }
  void softmax(const OnnxNode& n) {
    emit(n, {{"type", "softmax"}, {"dim", sampleAxis(n, intAttr(n, "axis", -1))}}, {n.inputs[0]});
  }
  void erfOutsideGelu(const OnnxNode&) {
    throw Unmodelled{"Erf outside the pattern of GELU (x/sqrt2, erf, +1, *x, *0.5)"};
  }

  // --- operators -----------------------------------------------------------------------------
  void conv(const OnnxNode& n) {
    const Value& x = activation(n, 0);
    const OnnxTensor& w = weight(n, 1, "W");
    if (w.dims.size() != 4 || x.shape.size() != 3) {
      throw Unmodelled{"a " + std::to_string(w.dims.size() - 2) +
                       "-D convolution: only 2-D (Conv2d)"};
    }
    const int64_t groups = intAttr(n, "group", 1);
    const bool bias = hasInput(n, 2);
    ++convs_;
    if (bias) {
      useWeight(n, 2, "B", w.dims[0]);
      noteFoldedBatchNorm(n, constantInput(n, 2).name);
    }
    emit(n,
         {{"type", "conv2d"},
          {"out_channels", w.dims[0]},
          {"in_channels", checkedMul(w.dims[1], groups)},
          {"kernel", json::array({w.dims[2], w.dims[3]})},
          {"stride", pairAttr(n, "strides", 1)},
          {"padding", padsAttr(n)},
          {"dilation", pairAttr(n, "dilations", 1)},
          {"groups", groups},
          {"bias", bias}},
         {n.inputs[0]});
  }

  /// A convolution's bias that the exporter computed rather than stored: torch.onnx's eval
  /// export folds a BatchNorm into the Conv before it (fuseConvBatchNorm in
  /// _jit_pass_onnx_eval_peephole, whatever do_constant_folding says) and names the new
  /// weight and bias after the graph value ("onnx::Conv_194"; "194" before torch 1.11). A
  /// Conv's own bias keeps its parameter's name ("conv2.bias"), even when constant folding
  /// computes its weight (weight_norm); so a computed bias is a folded BatchNorm (checked on
  /// resnet18, mobilenet_v2 and a small net with torch 1.13.1: docs/model-files.md).
  void noteFoldedBatchNorm(const OnnxNode& n, const std::string& bias) {
    const bool digits = !bias.empty() && bias.find_first_not_of("0123456789") == std::string::npos;
    if (bias.rfind("onnx::", 0) != 0 && !digits) return;
    if (folded_bn_ == 0) folded_bn_node_ = n.name + " (bias '" + bias + "')";
    ++folded_bn_;
  }

  /// Gemm: Y = A B' + C with B a [K, N] (or transposed [N, K]) weight: nn.Linear.
  void gemm(const OnnxNode& n) {
    const Value& x = activation(n, 0);
    if (onnxRank(x) != 2 || x.layout.axis != 0)
      throw Unmodelled{"Gemm of a tensor whose batch is not in its rows"};
    if (intAttr(n, "transA", 0) != 0) throw Unmodelled{"Gemm with transA: the batch transposed"};
    const OnnxTensor& b = weight(n, 1, "B");
    if (b.dims.size() != 2) throw Unmodelled{"Gemm whose B is not a matrix"};
    const bool trans = intAttr(n, "transB", 0) != 0;
    const int64_t in = trans ? b.dims[1] : b.dims[0], out = trans ? b.dims[0] : b.dims[1];
    const bool bias = hasInput(n, 2);
    if (bias) useWeight(n, 2, "C", out);
    emit(n, {{"type", "linear"}, {"out_features", out}, {"in_features", in}, {"bias", bias}},
         {n.inputs[0]});
  }

  /// MatMul by a [K, N] weight: nn.Linear without bias (an Add of a [N] bias right after it
  /// is folded into the layer, as torch exports nn.Linear over sequences).
  void matmul(const OnnxNode& n) {
    const Value& x = activation(n, 0);
    if (!hasInput(n, 1)) throw Unmodelled{"MatMul without its second input"};
    const int64_t last = onnxRank(x) - 1;
    if (holdsBatch(x.layout, last) || (!isConstant(n.inputs[1]) && holdsBatch(x.layout, last - 1)))
      throw Unmodelled{"MatMul over the axis that holds the batch"};
    if (!isConstant(n.inputs[1])) {
      activation(n, 1);
      return emit(n, {{"type", "matmul"}}, {n.inputs[0], n.inputs[1]});
    }
    const OnnxTensor& b = weight(n, 1, "B");
    if (b.dims.size() != 2) throw Unmodelled{"MatMul by a weight that is not a matrix"};
    emit(n,
         {{"type", "linear"},
          {"out_features", b.dims[1]},
          {"in_features", b.dims[0]},
          {"bias", false}},
         {n.inputs[0]});
    matmul_layers_.insert(static_cast<int>(layers_.size()) - 1);
  }

  void batchnorm(const OnnxNode& n) {
    const Value& x = activation(n, 0);
    const int64_t c = x.shape.empty() ? 0 : x.shape[0];
    for (size_t k = 1; k <= 4; ++k) {
      static const char* const kNames[] = {"", "scale", "B", "input_mean", "input_var"};
      useWeight(n, k, kNames[k], c);
    }
    for (size_t k = 1; k < n.outputs.size(); ++k) {
      // Training-mode exports add the updated running statistics as outputs; a graph that
      // reads them computes something no layer models.
      if (!n.outputs[k].empty() && consumers_[n.outputs[k]] > 0)
        throw Unmodelled{"BatchNormalization whose running statistics are read"};
    }
    const double eps = floatAttr(n, "epsilon", 1e-5);
    emit(n, {{"type", "batchnorm2d"}, {"eps", eps >= 0 && eps <= 1 ? eps : 1e-5}}, {n.inputs[0]});
  }

  void layernorm(const OnnxNode& n) {
    const Value& x = activation(n, 0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    const int64_t onnx_axis = intAttr(n, "axis", -1);
    const int64_t axis = sampleAxis(n, onnx_axis);
    if (x.layout.axis >= (onnx_axis < 0 ? onnx_axis + onnxRank(x) : onnx_axis))
      throw Unmodelled{"LayerNormalization over the axis that holds the batch"};
    int64_t d = 1;
    for (int64_t k = axis; k < rank; ++k) d = checkedMul(d, x.shape[static_cast<size_t>(k)]);
    useWeight(n, 1, "Scale", d);
    const bool bias = hasInput(n, 2);
    if (bias) useWeight(n, 2, "B", d);
    const double eps = floatAttr(n, "epsilon", 1e-5);
    emit(n,
         {{"type", "layernorm"},
          {"normalized_dims", rank - axis},
          {"bias", bias},
          {"eps", eps >= 0 && eps <= 1 ? eps : 1e-5}},
         {n.inputs[0]});
  }

  void pool(const OnnxNode& n) {
    const bool max = n.op_type == "MaxPool";
    if (n.outputs.size() > 1 && !n.outputs[1].empty() && consumers_[n.outputs[1]] > 0) {
      throw Unmodelled{"MaxPool whose indices are read"};
    }
    json layer = {{"type", max ? "maxpool2d" : "avgpool2d"},
                  {"kernel", pairAttr(n, "kernel_shape", 0)},
                  {"stride", pairAttr(n, "strides", 1)},  // ONNX's default stride is 1
                  {"padding", max ? padsAttr(n) : padsWithFolded(n)},
                  {"ceil_mode", intAttr(n, "ceil_mode", 0) != 0}};
    if (intsAttr(n, "kernel_shape").empty()) throw Unmodelled{"a pool without kernel_shape"};
    if (max) layer["dilation"] = pairAttr(n, "dilations", 1);
    if (!max) {
      layer["count_include_pad"] =
          intAttr(n, "count_include_pad", 0) != 0 || extra_pad_.count(n.inputs.at(0)) > 0;
    }
    emit(n, layer, {n.inputs[0]});
  }

  /// Clip(0, 6) is ReLU6, Clip(0, none) ReLU; bounds are inputs (opset 11) or attributes.
  void clip(const OnnxNode& n) {
    const auto bound = [&](size_t k, const char* attr, double none) {
      if (hasInput(n, k)) {
        const OnnxTensor& t = constantInput(n, k);
        if (!t.has_values || t.values.size() != 1)
          throw Unmodelled{"Clip with a bound that is not a constant scalar"};
        return t.values[0];
      }
      return floatAttr(n, attr, none);
    };
    const double lo = bound(1, "min", -INFINITY), hi = bound(2, "max", INFINITY);
    if (lo == 0 && hi == 6) return emit(n, {{"type", "relu6"}}, {n.inputs[0]});
    if (lo == 0 && std::isinf(hi)) return emit(n, {{"type", "relu"}}, {n.inputs[0]});
    throw Unmodelled{"Clip to [" + std::to_string(lo) + ", " + std::to_string(hi) +
                     "]: only [0, 6] (ReLU6) and [0, inf) (ReLU)"};
  }

  void dropout(const OnnxNode& n) {
    if (n.outputs.size() > 1 && !n.outputs[1].empty() && consumers_[n.outputs[1]] > 0) {
      throw Unmodelled{"Dropout whose mask is read"};
    }
    double p = floatAttr(n, "ratio", 0.5);
    if (hasInput(n, 1)) {
      const OnnxTensor& t = constantInput(n, 1);
      if (!t.has_values || t.values.size() != 1) throw Unmodelled{"Dropout with a computed ratio"};
      p = t.values[0];
    }
    // p = 0 is the identity: F.dropout returns its input and keeps nothing (PyTorch 1.13's
    // aten/src/ATen/native/Dropout.cpp, `if (p == 0 || !train ...) return input`);
    // torchvision's ViT exports its Dropout(0.0) modules so.
    if (p == 0) {
      activation(n, 0);
      return alias(n, n.inputs[0]);
    }
    emit(n, {{"type", "dropout"}, {"p", p >= 0 && p <= 1 ? p : 0.5}}, {n.inputs[0]});
  }

  /// Add, Sub, Mul, Div: of two computed tensors (add, multiply), or of one and a stored
  /// tensor (a bias folded into the MatMul before it; else the tensor is an operand: learned
  /// where it is an initializer, as torch.onnx stores parameters, fixed where it is a
  /// Constant node). x - c costs as x + c, x / c as x * c.
  void elementwise(const OnnxNode& n) {
    const std::string& op = n.op_type;
    const bool add = op == "Add" || op == "Sub";
    if (n.inputs.size() != 2) throw Unmodelled{op + " of " + std::to_string(n.inputs.size())};
    const bool c0 = isConstant(n.inputs[0]), c1 = isConstant(n.inputs[1]);
    if (c0 && c1) throw Unmodelled{op + " of two stored tensors without values"};
    if (op == "Add" && (c0 != c1) && foldBias(n, c0 ? 1 : 0, c0 ? 0 : 1)) return;
    if (op == "Div" && !c0 && c1 && foldGelu(n)) return;
    if (c0 || c1) {
      if ((op == "Sub" || op == "Div") && c0) {
        throw Unmodelled{op +
                         " of a stored tensor by a computed one (its gradient is not a "
                         "pass-through or a product dlcost models)"};
      }
      const size_t x = c0 ? 1 : 0;
      const Value& v = activation(n, x);
      const OnnxTensor& t = constantInput(n, 1 - x);
      if (!v.layout.batchFirst() && t.elements != 1) {
        throw Unmodelled{op + " of a tensor whose batch is not axis 0 by a stored tensor of " +
                         std::to_string(t.elements) + " values (dlcost models a scalar there)"};
      }
      json operand = operandShape(t, v.shape.size());
      const bool learned = inits_.count(t.name) > 0;
      if (learned) used_.insert(t.name);
      return emit(
          n, {{"type", add ? "add" : "multiply"}, {learned ? "parameter" : "constant", operand}},
          {n.inputs[x]});
    }
    if (op == "Sub" || op == "Div") {
      throw Unmodelled{op + " of two computed tensors: no layer of dlcost's schema computes it"};
    }
    if (!add && foldGate(n)) return;
    emit(n, {{"type", add ? "add" : "multiply"}}, {n.inputs[0], n.inputs[1]});
  }

  /// A stored tensor's shape per sample: ONNX broadcasts over the whole tensor, batch first,
  /// so a leading dimension in the batch's place must be 1.
  json operandShape(const OnnxTensor& t, size_t sample_rank) {
    std::vector<int64_t> d = t.dims;
    if (d.size() > sample_rank + 1 || (d.size() == sample_rank + 1 && d[0] != 1)) {
      throw Unmodelled{"an operand '" + t.name + "' of shape " + shapeText(t.dims) +
                       " that varies along the batch"};
    }
    if (d.size() == sample_rank + 1) d.erase(d.begin());
    while (!d.empty() && d[0] == 1) d.erase(d.begin());  // leading 1s broadcast anyway
    return d;
  }

  /// GELU as torch.onnx writes it before opset 20: x / sqrt(2) -> Erf -> + 1 -> * x -> * 0.5
  /// (torch/onnx/symbolic_opset9.py, gelu), read as one gelu layer at the Div.
  bool foldGelu(const OnnxNode& div) {
    const OnnxTensor& c = constantInput(div, 1);
    if (!c.has_values || c.values.size() != 1 || std::abs(c.values[0] - std::sqrt(2.0)) > 1e-6)
      return false;
    const std::string& x = div.inputs[0];
    auto only = [&](const std::string& t, const char* op) -> const OnnxNode* {
      if (consumers_[t] != 1 || !reader_node_.count(t)) return nullptr;
      const OnnxNode& r = m_.graph_nodes[reader_node_[t]];
      return r.op_type == op && r.domain.empty() && !r.outputs.empty() ? &r : nullptr;
    };
    const OnnxNode* erf = only(div.outputs[0], "Erf");
    const OnnxNode* plus = erf ? only(erf->outputs[0], "Add") : nullptr;
    const OnnxNode* times = plus ? only(plus->outputs[0], "Mul") : nullptr;
    const OnnxNode* half = times ? only(times->outputs[0], "Mul") : nullptr;
    auto scalar = [&](const OnnxNode& n, const std::string& other, double value) {
      if (n.inputs.size() != 2) return false;
      const std::string& k = n.inputs[0] == other ? n.inputs[1] : n.inputs[0];
      auto it = constants_.find(k);
      const OnnxTensor* t = it != constants_.end() ? &it->second : nullptr;
      if (!t && inits_.count(k)) t = inits_[k];
      return t && t->has_values && t->values.size() == 1 && t->values[0] == value &&
             (n.inputs[0] == other || n.inputs[1] == other);
    };
    if (!half || !scalar(*plus, erf->outputs[0], 1) || !scalar(*half, times->outputs[0], 0.5) ||
        times->inputs.size() != 2 ||
        !((times->inputs[0] == x && times->inputs[1] == plus->outputs[0]) ||
          (times->inputs[1] == x && times->inputs[0] == plus->outputs[0]))) {
      return false;
    }
    OnnxNode gelu = div;
    gelu.outputs = {half->outputs[0]};
    emit(gelu, {{"type", "gelu"}}, {x});
    for (const std::string* t :
         {&div.outputs[0], &erf->outputs[0], &plus->outputs[0], &times->outputs[0]}) {
      folded_.insert(reader_node_[*t]);
    }
    return true;
  }

  /// The node that alone reads `t`, if it is of type `op`.
  const OnnxNode* onlyReader(const std::string& t, const char* op) {
    if (consumers_[t] != 1 || !reader_node_.count(t)) return nullptr;
    const OnnxNode& r = m_.graph_nodes[reader_node_[t]];
    return r.op_type == op && r.domain.empty() && !r.outputs.empty() ? &r : nullptr;
  }

  /// A stored tensor, seen through the Unsqueeze that alone reads it (the file may list that
  /// Unsqueeze after the node being read), with that Unsqueeze's node index; null otherwise.
  const OnnxTensor* throughUnsqueeze(const std::string& name, size_t& unsqueeze) {
    unsqueeze = SIZE_MAX;
    std::string stored = name;
    if (!isConstant(name)) {
      auto p = producer_node_.find(name);
      if (p == producer_node_.end()) return nullptr;
      const OnnxNode& u = m_.graph_nodes[p->second];
      if (u.op_type != "Unsqueeze" || u.inputs.empty() || !isConstant(u.inputs[0]) ||
          consumers_[name] != 1 || consumers_[u.inputs[0]] != 1) {
        return nullptr;
      }
      unsqueeze = p->second;
      stored = u.inputs[0];
    }
    if (auto it = inits_.find(stored); it != inits_.end()) return it->second;
    return &constants_.at(stored);
  }

  /// GroupNorm as torch exports it (torch/onnx/symbolic_opset9.py, group_norm): Reshape to
  /// [N, G, -1], InstanceNormalization by a Constant of G ones and one of G zeros, Reshape
  /// back to the input's shape, Mul by the weight and Add the bias, each Unsqueezed to
  /// [C, 1, 1] (for affine=False, Constant ones and zeros): one groupnorm layer, read at the
  /// first Reshape. Returns false where the nodes are not that pattern.
  bool foldGroupNorm(const OnnxNode& n) {
    const Value x = activation(n, 0);
    if (!hasInput(n, 1) || !isConstant(n.inputs[1]) || x.shape.size() < 2) return false;
    const OnnxTensor& to = constantInput(n, 1);
    const int64_t c = x.shape[0];
    if (!to.has_values || to.values.size() != 3 || to.values[2] != -1 ||
        !(to.values[1] >= 1 && to.values[1] <= static_cast<double>(c)) ||
        to.values[1] != std::floor(to.values[1])) {
      return false;
    }
    const auto g = static_cast<int64_t>(to.values[1]);
    const OnnxNode* norm = onlyReader(n.outputs[0], "InstanceNormalization");
    const OnnxNode* back = norm ? onlyReader(norm->outputs[0], "Reshape") : nullptr;
    const OnnxNode* mul = back ? onlyReader(back->outputs[0], "Mul") : nullptr;
    const OnnxNode* add = mul ? onlyReader(mul->outputs[0], "Add") : nullptr;
    if (c % g || !add || norm->inputs.size() != 3 || back->inputs.size() != 2 ||
        mul->inputs.size() != 2 || add->inputs.size() != 2) {
      return false;
    }
    // The normalisation proper has no weights: G ones and G zeros.
    for (size_t k = 1; k <= 2; ++k) {
      if (!constants_.count(norm->inputs[k])) return false;
      const OnnxTensor& t = constants_.at(norm->inputs[k]);
      if (t.elements != g ||
          (t.has_values && std::any_of(t.values.begin(), t.values.end(),
                                       [&](double v) { return v != (k == 1 ? 1 : 0); }))) {
        return false;
      }
    }
    // Back to [N, C, ...]: Shape of the input (folded later) or a stored shape.
    if (auto p = producer_node_.find(back->inputs[1]); p != producer_node_.end()) {
      const OnnxNode& sh = m_.graph_nodes[p->second];
      if (!(sh.op_type == "Shape" && sh.inputs.size() == 1 && sh.inputs[0] == n.inputs[0] &&
            sh.attributes.empty()) &&
          !constants_.count(back->inputs[1])) {
        return false;
      }
    }
    // The affine step: a learned weight and bias of C values, or the Constant 1 and 0.
    const std::string& w_name =
        mul->inputs[0] == back->outputs[0] ? mul->inputs[1] : mul->inputs[0];
    const std::string& b_name = add->inputs[0] == mul->outputs[0] ? add->inputs[1] : add->inputs[0];
    size_t w_unsqueeze = SIZE_MAX, b_unsqueeze = SIZE_MAX;
    const OnnxTensor* w = throughUnsqueeze(w_name, w_unsqueeze);
    const OnnxTensor* b = throughUnsqueeze(b_name, b_unsqueeze);
    if (!w || !b) return false;
    const bool learned = inits_.count(w->name) && inits_.count(b->name);
    if (learned) {
      if (w->elements != c || b->elements != c) return false;
    } else if (inits_.count(w->name) || inits_.count(b->name) || !w->has_values || !b->has_values ||
               w->values != std::vector<double>{1} || b->values != std::vector<double>{0}) {
      return false;
    }
    OnnxNode gn = n;
    gn.outputs = {add->outputs[0]};
    emit(gn, {{"type", "groupnorm"}, {"num_groups", g}, {"affine", learned}}, {n.inputs[0]});
    if (learned) {
      used_.insert(w->name);
      used_.insert(b->name);
    }
    for (const OnnxNode* f : {norm, back, mul, add}) folded_.insert(producer_node_[f->outputs[0]]);
    for (size_t u : {w_unsqueeze, b_unsqueeze})
      if (u != SIZE_MAX) folded_.insert(u);
    if (auto p = producer_node_.find(back->inputs[1]);
        p != producer_node_.end() && consumers_[back->inputs[1]] == 1) {
      folded_.insert(p->second);  // the Shape
    }
    return true;
  }

  /// x W + b after a MatMul: the MatMul's layer gets its bias.
  bool foldBias(const OnnxNode& n, size_t x, size_t b) {
    const Value& v = activation(n, x);
    if (v.layer < 0 || !matmul_layers_.count(v.layer) || consumers_[n.inputs[x]] != 1) return false;
    json& layer = layers_[static_cast<size_t>(v.layer)];
    const OnnxTensor& t = constantInput(n, b);
    if (t.elements != layer["out_features"].get<int64_t>() || !inits_.count(t.name)) return false;
    useWeight(n, b, "B", t.elements);
    layer["bias"] = true;
    matmul_layers_.erase(v.layer);
    alias(n, n.inputs[x]);
    return true;
  }

  /// x * sigmoid(x) is SiLU, x * hardsigmoid(x) (alpha 1/6, beta 1/2) is Hardswish: the
  /// patterns torch exports nn.SiLU and (before opset 14) nn.Hardswish as.
  bool foldGate(const OnnxNode& n) {
    for (size_t g = 0; g < 2; ++g) {
      const Value& gate = activation(n, g);
      if (gate.layer < 0 || consumers_[n.inputs[g]] != 1) continue;
      json& layer = layers_[static_cast<size_t>(gate.layer)];
      const std::string& read = layer_inputs_[static_cast<size_t>(gate.layer)];
      if (read != n.inputs[1 - g]) continue;
      if (layer["type"] == "sigmoid") {
        layer["type"] = "silu";
      } else if (layer["type"] == "hardsigmoid" && hardswish_gates_.count(gate.layer)) {
        layer["type"] = "hardswish";
      } else {
        continue;
      }
      alias(n, n.inputs[g]);
      return true;
    }
    return false;
  }

  /// Concat of computed tensors; a stored first one (a class token) is the layer's operand.
  void concat(const OnnxNode& n) {
    std::vector<std::string> computed(n.inputs.begin(), n.inputs.end());
    const OnnxTensor* token = nullptr;
    if (n.inputs.size() >= 2 && isConstant(n.inputs[0])) {
      token = &constantInput(n, 0);
      computed.erase(computed.begin());
    }
    OnnxNode reads = n;
    reads.inputs = computed;
    if (computed.size() < 2 && !token) {
      activation(reads, 0);
      return alias(n, n.inputs[0]);
    }
    const Value& first = activation(reads, 0);
    for (size_t k = 1; k < computed.size(); ++k) activation(reads, k);
    const int64_t axis = sampleAxis(reads, intAttr(n, "axis", 1), first.shape.size());
    json layer = {{"type", "concat"}, {"axis", axis}};
    if (token) {
      if (token->dims.size() != first.shape.size() + 1 || token->dims[0] != 1) {
        throw Unmodelled{"Concat of a stored tensor of shape " + shapeText(token->dims) +
                         " (dlcost models one of batch 1 first, a class token)"};
      }
      const bool learned = inits_.count(token->name) > 0;
      if (learned) used_.insert(token->name);
      layer[learned ? "parameter" : "constant"] =
          std::vector<int64_t>(token->dims.begin() + 1, token->dims.end());
    }
    emit(reads, layer, computed);
  }

  void flatten(const OnnxNode& n) {
    const Value& x = activation(n, 0);
    const int64_t axis = intAttr(n, "axis", 1);
    const int64_t rank = static_cast<int64_t>(x.shape.size()) + 1;
    if (axis != 1 && axis != 1 - rank) {
      throw Unmodelled{"Flatten at axis " + std::to_string(axis) + " merges the batch"};
    }
    emit(n, {{"type", "flatten"}}, {n.inputs[0]});
  }

  /// Reshape keeping the batch: to one dimension per sample (a flatten) or to the same shape.
  void reshape(const OnnxNode& n) {
    if (foldGroupNorm(n)) return;
    const Value x = activation(n, 0);
    const OnnxTensor& t = constantInput(n, 1);
    if (!t.has_values || t.values.empty()) throw Unmodelled{"Reshape to a computed shape"};
    std::vector<int64_t> to;
    for (double v : t.values) to.push_back(wholeValue(v, "Reshape"));
    if (!x.layout.batchFirst()) return reshapeBatch(n, x, to);
    const int64_t elements = elementCount(x.shape);
    const bool allowzero = intAttr(n, "allowzero", 0) != 0;
    const bool keeps_batch =
        (to[0] == 0 && !allowzero) || (batch_ > 0 && to[0] == batch_) ||
        (to[0] == -1 && std::count(to.begin(), to.end(), -1) == 1 && to.size() > 1);
    std::vector<int64_t> sample;  // may be longer than a Shape holds: the reshape layer refuses it
    int64_t known = 1, infer = -1;
    for (size_t k = 1; k < to.size(); ++k) {
      int64_t d = to[k];
      if (d == 0 && !allowzero) {
        if (k - 1 >= x.shape.size()) throw Unmodelled{"Reshape copying a missing dimension"};
        d = x.shape[k - 1];
      }
      if (d == -1 && to[0] != -1 && infer < 0) {
        infer = static_cast<int64_t>(sample.size());
        sample.push_back(1);
        continue;
      }
      if (d <= 0) throw Unmodelled{"Reshape to " + shapeText(to)};
      known = checkedMul(known, d);
      sample.push_back(d);
    }
    if (infer >= 0) {
      if (known == 0 || elements % known != 0) throw Unmodelled{"Reshape to " + shapeText(to)};
      sample[static_cast<size_t>(infer)] = elements / known;
    }
    int64_t sample_elements = 1;
    for (int64_t d : sample) sample_elements = checkedMul(sample_elements, d);
    if (!keeps_batch || sample.empty() || sample_elements != elements) {
      throw Unmodelled{"Reshape to " + shapeText(to) +
                       " (dlcost models a reshape that keeps "
                       "the batch and flattens or keeps the rest)"};
    }
    if (std::equal(sample.begin(), sample.end(), x.shape.begin(), x.shape.end())) {
      return alias(n, n.inputs[0]);  // a view of the same shape
    }
    if (sample.size() == 1) return emit(n, {{"type", "flatten"}}, {n.inputs[0]});
    emit(n, {{"type", "reshape"}, {"shape", sample}}, {n.inputs[0]});
  }

  /// Pad of H and W: a pad layer (F.pad: constant, reflect, replicate), except a zero padding
  /// that alone feeds an AveragePool, which is folded into it (torch exports nn.AvgPool2d with
  /// count_include_pad as Pad + AveragePool; ATen pads inside the pooling). A zero Pad is
  /// nothing. A Pad before a Conv stays a layer: torch exports a convolution's own padding as
  /// its pads, so a Pad node is an F.pad that PyTorch runs (and whose output the Conv keeps).
  void pad(const OnnxNode& n) {
    const Value& x = activation(n, 0);
    const std::string mode = findAttr(n, "mode") ? findAttr(n, "mode")->s : "constant";
    std::vector<int64_t> p = intsAttr(n, "pads");
    if (hasInput(n, 1)) {
      const OnnxTensor& t = constantInput(n, 1);
      if (!t.has_values) throw Unmodelled{"Pad by computed amounts"};
      p.clear();
      for (double v : t.values) p.push_back(wholeValue(v, "Pad"));
    }
    if (hasInput(n, 3)) throw Unmodelled{"Pad with axes (opset 18): give pads of every axis"};
    double value = floatAttr(n, "value", 0);  // the fill changes values, not cost
    if (hasInput(n, 2)) {
      const OnnxTensor& v = constantInput(n, 2);
      value = v.has_values && v.values.size() == 1 ? v.values[0] : 1;
    }
    if (std::all_of(p.begin(), p.end(), [](int64_t v) { return v == 0; }))
      return alias(n, n.inputs[0]);
    // ONNX orders pads [begin of each axis..., end of each axis...]: N, C, H, W.
    const bool spatial = x.shape.size() == 3 && p.size() == 8 && p[0] == 0 && p[1] == 0 &&
                         p[4] == 0 && p[5] == 0 &&
                         std::all_of(p.begin(), p.end(), [](int64_t v) { return v >= 0; });
    if (!spatial) {
      throw Unmodelled{"Pad other than of H and W by amounts >= 0 (pads " + shapeText(p) + ")"};
    }
    if (mode == "constant" && value == 0 && p[2] == p[6] && p[3] == p[7] &&
        consumers_[n.outputs[0]] == 1 && reader_op_[n.outputs[0]] == "AveragePool") {
      alias(n, n.inputs[0]);
      extra_pad_[n.outputs[0]] = {p[2], p[3]};
      return;
    }
    if (mode != "constant" && mode != "reflect" && mode != "edge") {
      throw Unmodelled{"Pad of mode " + mode + " (dlcost models constant, reflect and edge)"};
    }
    json layer = {{"type", "pad"},
                  {"padding", json::array({p[3], p[7], p[2], p[6]})},
                  {"mode", mode == "edge" ? "replicate" : mode}};
    emit(n, layer, {n.inputs[0]});
  }

  /// A node's pads with a folded Pad's added.
  json padsWithFolded(const OnnxNode& n) {
    json p = padsAttr(n);
    if (auto it = extra_pad_.find(n.inputs.at(0)); it != extra_pad_.end()) {
      p[0] = checkedAdd(p[0].get<int64_t>(), it->second.first);
      p[1] = checkedAdd(p[1].get<int64_t>(), it->second.second);
    }
    return p;
  }

  /// ConvTranspose: W is [C_in, C_out / group, kH, kW] (ONNX's layout, as PyTorch's).
  void convTranspose(const OnnxNode& n) {
    const Value& x = activation(n, 0);
    const OnnxTensor& w = weight(n, 1, "W");
    if (w.dims.size() != 4 || x.shape.size() != 3) {
      throw Unmodelled{"a " + std::to_string(w.dims.size() - 2) +
                       "-D transposed convolution: only 2-D (ConvTranspose2d)"};
    }
    const int64_t groups = intAttr(n, "group", 1);
    const int64_t out = checkedMul(w.dims[1], groups);
    const bool bias = hasInput(n, 2);
    if (bias) useWeight(n, 2, "B", out);
    json layer = {{"type", "conv_transpose2d"},
                  {"out_channels", out},
                  {"in_channels", w.dims[0]},
                  {"kernel", json::array({w.dims[2], w.dims[3]})},
                  {"stride", pairAttr(n, "strides", 1)},
                  {"padding", padsAttr(n)},
                  {"output_padding", pairAttr(n, "output_padding", 0)},
                  {"dilation", pairAttr(n, "dilations", 1)},
                  {"groups", groups},
                  {"bias", bias}};
    if (findAttr(n, "output_shape")) outputShape(n, x.shape, layer);
    emit(n, layer, {n.inputs[0]});
  }

  /// ConvTranspose's output_shape (the pads are derived from it, onnx/docs/Operators.md:
  /// total_padding = stride (in - 1) + output_padding + (kernel - 1) dilation + 1 - out,
  /// split between the two ends) as the nn.ConvTranspose2d of the same output: padding
  /// ceil(total / 2) on both sides and output_padding 1 where total is odd. The same MACs and
  /// saved input (the cost does not depend on which end the odd row is cut from).
  void outputShape(const OnnxNode& n, const Shape& in, json& layer) {
    std::vector<int64_t> o = intsAttr(n, "output_shape");
    if (o.size() == 4) o.erase(o.begin(), o.begin() + 2);  // [N, C, H, W]
    if (o.size() != 2) throw Unmodelled{"ConvTranspose whose output_shape is not [H, W]"};
    json padding = json::array(), output_padding = json::array();
    for (size_t k = 0; k < 2; ++k) {
      const int64_t s = layer["stride"][k], d = layer["dilation"][k];
      const int64_t kernel = layer["kernel"][k];
      const int64_t full =
          checkedAdd(checkedMul(s, in[k + 1] - 1), checkedAdd(checkedMul(kernel - 1, d), 1));
      const int64_t total = checkedSub(full, o[k]);
      const int64_t p = total > 0 ? total / 2 + total % 2 : 0;
      const int64_t op = 2 * p - total;
      if (o[k] <= 0 || (op >= s && op >= d)) {
        throw Unmodelled{"ConvTranspose to output_shape " + shapeText(o) +
                         ", which no nn.ConvTranspose2d of its kernel and stride gives (its "
                         "full output is " +
                         std::to_string(full) + ")"};
      }
      padding.push_back(p);
      output_padding.push_back(op);
    }
    layer["padding"] = padding;
    layer["output_padding"] = output_padding;
  }

  /// Resize (opset 11+: X, roi, scales, sizes; opset 10: X, scales) and Upsample (opset 7-9:
  /// X, scales) of H and W: nearest, (bi)linear or (bi)cubic, F.interpolate's three modes
  /// torch exports (nearest-exact it does not export; area it exports as AveragePool). How
  /// coordinates map (coordinate_transformation_mode, nearest_mode, cubic_coeff_a,
  /// exclude_outside) changes values, not cost; align_corners is kept for the record.
  void resize(const OnnxNode& n) {
    const Value& x = activation(n, 0);
    std::string mode = findAttr(n, "mode") ? findAttr(n, "mode")->s : "nearest";
    if (mode == "bilinear") mode = "linear";  // Upsample-7's spelling
    const std::string coords = findAttr(n, "coordinate_transformation_mode")
                                   ? findAttr(n, "coordinate_transformation_mode")->s
                                   : "half_pixel";
    if (x.shape.size() != 3 || (mode != "nearest" && mode != "linear" && mode != "cubic")) {
      throw Unmodelled{n.op_type + " other than nearest, linear or cubic of [C, H, W] (mode " +
                       mode + ")"};
    }
    if (coords == "tf_crop_and_resize") {
      throw Unmodelled{"Resize with tf_crop_and_resize: a crop, not an interpolation"};
    }
    if (intAttr(n, "antialias", 0) != 0) {
      throw Unmodelled{"Resize with antialias (F.interpolate(antialias=True) is another op)"};
    }
    static const std::map<std::string, std::string> kModes = {
        {"nearest", "nearest"}, {"linear", "bilinear"}, {"cubic", "bicubic"}};
    json layer = {{"type", "upsample"}, {"mode", kModes.at(mode)}};
    if (mode != "nearest" && coords == "align_corners") layer["align_corners"] = true;
    // The amounts of the last two axes: all four axes, or (opset 18) `axes` naming H and W.
    std::vector<int64_t> axes = intsAttr(n, "axes");
    for (int64_t& a : axes) a = a < 0 ? a + 4 : a;
    const bool hw_only = axes == std::vector<int64_t>{2, 3};
    if (!axes.empty() && !hw_only && axes != std::vector<int64_t>{0, 1, 2, 3}) {
      throw Unmodelled{"Resize along axes " + shapeText(intsAttr(n, "axes"))};
    }
    const size_t values = hw_only ? 2 : 4, h = values - 2;
    const bool sizes = n.op_type == "Resize" && hasInput(n, 3);
    const size_t scales_at = n.op_type == "Upsample" || n.inputs.size() == 2 ? 1 : 2;
    const OnnxTensor& t = constantInput(n, sizes ? 3 : scales_at);
    if (!t.has_values || t.values.size() != values) {
      throw Unmodelled{std::string("Resize by computed ") + (sizes ? "sizes" : "scales")};
    }
    if (sizes) {
      const OnnxAttribute* policy = findAttr(n, "keep_aspect_ratio_policy");
      if (policy && policy->s != "stretch") {
        throw Unmodelled{"Resize to sizes with keep_aspect_ratio_policy " + policy->s};
      }
      if (!hw_only && wholeValue(t.values[1], "Resize") != x.shape[0])
        throw Unmodelled{"Resize of the channels"};
      layer["size"] = {wholeValue(t.values[h], "Resize"), wholeValue(t.values[h + 1], "Resize")};
    } else {
      if (!hw_only && (t.values[0] != 1 || t.values[1] != 1))
        throw Unmodelled{"Resize of the batch or the channels"};
      if (!(t.values[h] > 0 && t.values[h] <= 1e6 && t.values[h + 1] > 0 &&
            t.values[h + 1] <= 1e6)) {
        throw Unmodelled{"Resize by scales outside (0, 1e6]"};
      }
      layer["scale_factor"] = {t.values[h], t.values[h + 1]};
    }
    emit(n, layer, {n.inputs[0]});
  }

  /// InstanceNormalization of [C, H, W]: nn.InstanceNorm2d. Scale and B as initializers are
  /// its learned weight and bias (affine); as Constant nodes (torch exports affine=False with
  /// a Constant of ones and one of zeros, torch/onnx/symbolic_opset9.py instance_norm) none.
  void instanceNorm(const OnnxNode& n) {
    const Value& x = activation(n, 0);
    if (x.shape.size() != 3) {
      throw Unmodelled{"InstanceNormalization of a " + std::to_string(x.shape.size()) +
                       "-D sample " + shapeText(x.shape) +
                       " (dlcost models [C, H, W], and GroupNorm as torch exports it: Reshape, "
                       "InstanceNormalization, Reshape, Mul, Add)"};
    }
    const int64_t c = x.shape[0];
    const bool learned =
        hasInput(n, 1) && hasInput(n, 2) && inits_.count(n.inputs[1]) && inits_.count(n.inputs[2]);
    if (learned) {
      useWeight(n, 1, "scale", c);
      useWeight(n, 2, "B", c);
    } else {
      for (size_t k = 1; k <= 2; ++k) {
        const OnnxTensor& t = constantInput(n, k);
        const double unit = k == 1 ? 1 : 0;
        if (t.elements != c || inits_.count(t.name) ||
            (t.has_values &&
             std::any_of(t.values.begin(), t.values.end(), [&](double v) { return v != unit; }))) {
          throw Unmodelled{
              "InstanceNormalization whose scale and B are neither both learned "
              "(initializers) nor ones and zeros (affine=False)"};
        }
      }
    }
    const double eps = floatAttr(n, "epsilon", 1e-5);
    emit(n,
         {{"type", "instancenorm2d"},
          {"affine", learned},
          {"eps", eps >= 0 && eps <= 1 ? eps : 1e-5}},
         {n.inputs[0]});
  }

  /// DepthToSpace is nn.PixelShuffle in mode CRD (torch's export) and TensorFlow's
  /// depth_to_space in mode DCR; SpaceToDepth is TensorFlow's space_to_depth, the inverse.
  /// The modes order the channels differently: the same copy, the same cost.
  void depthToSpace(const OnnxNode& n) {
    activation(n, 0);
    const int64_t r = intAttr(n, "blocksize", 0);
    if (r < 1 || r > (1 << 20)) throw Unmodelled{n.op_type + " without a blocksize in [1, 2^20]"};
    if (n.op_type == "DepthToSpace") {
      return emit(n, {{"type", "pixel_shuffle"}, {"upscale_factor", r}}, {n.inputs[0]});
    }
    emit(n, {{"type", "pixel_unshuffle"}, {"downscale_factor", r}}, {n.inputs[0]});
  }

  /// Transpose keeping the batch first: a permute of the sample's dimensions.
  void transpose(const OnnxNode& n) {
    if (inits_.count(n.inputs[0])) return transposeWeight(n);
    const Value x = activation(n, 0);
    std::vector<int64_t> perm = intsAttr(n, "perm");
    const int64_t rank = onnxRank(x);
    if (perm.empty())
      for (int64_t k = rank - 1; k >= 0; --k) perm.push_back(k);
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t k = 0; k < static_cast<int64_t>(sorted.size()); ++k) {
      if (sorted[static_cast<size_t>(k)] != k || sorted.size() != static_cast<size_t>(rank))
        throw Unmodelled{"Transpose by a perm that is not a permutation of its axes"};
    }
    if (perm[0] != 0 || !x.layout.batchFirst()) return transposeBatch(n, x, perm);
    std::vector<int64_t> dims;
    for (size_t k = 1; k < perm.size(); ++k) dims.push_back(perm[k] - 1);
    emit(n, {{"type", "permute"}, {"dims", dims}}, {n.inputs[0]});
  }

  /// Transpose of a stored weight (nn.Linear's weight.t() before its MatMul, in an export
  /// without constant folding): the same initializer with its dims permuted, so the layer
  /// that reads it owns the initializer's parameters.
  void transposeWeight(const OnnxNode& n) {
    const OnnxTensor& w = *inits_.at(n.inputs[0]);
    const size_t rank = w.dims.size();
    std::vector<int64_t> perm = intsAttr(n, "perm");
    if (perm.empty())
      for (size_t k = rank; k-- > 0;) perm.push_back(static_cast<int64_t>(k));
    std::vector<bool> seen(rank, false);
    OnnxTensor t = w;
    t.values.clear();
    t.has_values = false;
    for (size_t k = 0; k < perm.size(); ++k) {
      const int64_t p = perm[k];
      if (perm.size() != rank || p < 0 || p >= static_cast<int64_t>(rank) ||
          seen[static_cast<size_t>(p)]) {
        throw Unmodelled{"Transpose of a weight by a perm that is not a permutation of its axes"};
      }
      seen[static_cast<size_t>(p)] = true;
      t.dims[k] = w.dims[static_cast<size_t>(p)];
    }
    OnnxTensor& stored = derived_inits_[n.outputs[0]];
    stored = std::move(t);
    inits_[n.outputs[0]] = &stored;
  }

  /// Transpose that moves the batch, or of a tensor whose batch is not first
  /// (nn.MultiheadAttention's sequence-first region, onnx_batch_layout.hpp): the sample's
  /// axes permuted as the other axes move (nothing where only the batch moves, a view), and
  /// the batch's new place kept with the output.
  void transposeBatch(const OnnxNode& n, const Value& x, const std::vector<int64_t>& perm) {
    const TransposedLayout t = transposeLayout(x.layout, perm);
    bool identity = true;
    for (size_t k = 0; k < t.sample_perm.size(); ++k)
      identity = identity && t.sample_perm[k] == static_cast<int64_t>(k);
    if (identity) {
      alias(n, n.inputs[0]);
    } else {
      emit(n, {{"type", "permute"}, {"dims", t.sample_perm}}, {n.inputs[0]});
    }
    values_[n.outputs[0]].layout = t.layout;
  }

  /// Reshape of a tensor whose batch is not first, or that moves the batch off axis 0
  /// ([S, B*H, hd], [S*B, E]): the sample's reshape, the batch's new place kept with the output.
  void reshapeBatch(const OnnxNode& n, const Value& x, std::vector<int64_t> to) {
    const std::vector<int64_t> dims = onnxDims(x.layout, dimsOf(x.shape), batch_);
    const bool allowzero = intAttr(n, "allowzero", 0) != 0;
    int64_t known = 1, infer = -1;
    for (size_t k = 0; k < to.size(); ++k) {
      if (to[k] == 0 && !allowzero && k < dims.size()) to[k] = dims[k];
      if (to[k] == -1 && infer < 0) {
        infer = static_cast<int64_t>(k);
        continue;
      }
      if (to[k] <= 0) throw Unmodelled{"Reshape to " + shapeText(to)};
      known = checkedMul(known, to[k]);
    }
    const int64_t elements = checkedMul(elementCount(x.shape), batch_);
    if (infer >= 0 && known > 0 && elements % known == 0)
      to[static_cast<size_t>(infer)] = elements / known;
    const ReshapedLayout r = reshapeLayout(x.layout, dimsOf(x.shape), to, batch_);
    if (!r.error.empty() || r.sample.empty() || r.sample.size() > kMaxRank) {
      throw Unmodelled{
          "Reshape of " + shapeText(dims) + " to " + shapeText(to) + " (batch " +
          std::to_string(batch_) + " in axis " + std::to_string(x.layout.axis) +
          "): " + (r.error.empty() ? "too many dimensions" : r.error) +
          (batch_ == 1 ? "; export with a batch of 2 or more, or a dynamic batch" : "")};
    }
    if (std::equal(r.sample.begin(), r.sample.end(), x.shape.begin(), x.shape.end())) {
      alias(n, n.inputs[0]);
    } else {
      emit(n, {{"type", "reshape"}, {"shape", r.sample}}, {n.inputs[0]});
    }
    values_[n.outputs[0]].layout = r.layout;
  }

  /// Integers of constant input k, or of the attribute `attr` where the input is absent (the
  /// form of opsets before the attribute became an input); empty where neither is given.
  /// Values beyond +-2^53 (torch's INT64_MAX for "to the end") saturate there.
  std::vector<int64_t> intsInputOrAttr(const OnnxNode& n, size_t k, const char* attr) {
    constexpr int64_t kLimit = int64_t{1} << 53;
    std::vector<int64_t> out;
    if (!hasInput(n, k)) {
      for (int64_t v : intsAttr(n, attr)) out.push_back(std::clamp(v, -kLimit, kLimit));
      return out;
    }
    const OnnxTensor& t = constantInput(n, k);
    if (!t.has_values && t.elements != 0)
      throw Unmodelled{n.op_type + " whose input " + std::to_string(k) + " holds no values"};
    const auto limit = static_cast<double>(kLimit);
    for (double v : t.values) out.push_back(wholeValue(std::clamp(v, -limit, limit), n.op_type));
    return out;
  }

  /// ReduceMean over sample axes: torch.mean (MnasNet's x.mean([2, 3]); SE blocks'
  /// x.mean((2, 3), keepdim=True)), which keeps no tensor for backward. F.adaptive_avg_pool2d
  /// exports as GlobalAveragePool instead. Over the batch it is refused.
  void reduceMean(const OnnxNode& n) {
    const Value& x = activation(n, 0);
    const std::vector<int64_t> axes = intsInputOrAttr(n, 1, "axes");
    if (axes.empty() && intAttr(n, "noop_with_empty_axes", 0) != 0) return alias(n, n.inputs[0]);
    if (axes.empty()) throw Unmodelled{"ReduceMean over every axis, the batch included"};
    json dims = json::array();
    for (int64_t a : axes) dims.push_back(sampleAxis(n, a, x.shape.size()));
    emit(n, {{"type", "mean"}, {"dims", dims}, {"keepdim", intAttr(n, "keepdims", 1) != 0}},
         {n.inputs[0]});
  }

  /// Slice of a computed tensor with step 1 along one sample axis (x[:, a:b]; torch.chunk's
  /// pieces as torch exports them): a narrow, a view. The batch axis only whole.
  void slice(const OnnxNode& n) {
    const Value& x = activation(n, 0);
    const std::vector<int64_t> starts = intsInputOrAttr(n, 1, "starts"),
                               ends = intsInputOrAttr(n, 2, "ends");
    std::vector<int64_t> axes = intsInputOrAttr(n, 3, "axes");
    const std::vector<int64_t> steps = intsInputOrAttr(n, 4, "steps");
    if (axes.empty())
      for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
    if (starts.size() != ends.size() || axes.size() != starts.size() ||
        (!steps.empty() && steps.size() != starts.size())) {
      throw Unmodelled{"Slice whose starts, ends, axes and steps differ in length"};
    }
    json narrow;
    for (size_t k = 0; k < axes.size(); ++k) {
      if (!steps.empty() && steps[k] != 1) throw Unmodelled{"Slice with a step other than 1"};
      const int64_t rank = onnxRank(x);
      const int64_t a = axes[k] < 0 ? axes[k] + rank : axes[k];
      if (a < 0 || a >= rank) throw Unmodelled{"Slice along an axis outside the tensor"};
      const int64_t size = onnxDims(x.layout, dimsOf(x.shape), batch_)[static_cast<size_t>(a)];
      const auto bound = [size](int64_t v) {
        return std::clamp(v < 0 ? v + size : v, int64_t{0}, size);
      };
      const int64_t from = bound(starts[k]), length = bound(ends[k]) - from;
      if (length == size) continue;  // the whole axis
      if (holdsBatch(x.layout, a)) throw Unmodelled{"Slice of the batch"};
      if (length <= 0) throw Unmodelled{"Slice to an empty tensor"};
      if (!narrow.is_null()) throw Unmodelled{"Slice along more than one axis"};
      narrow = {{"type", "narrow"},
                {"dim", *sampleAxisOf(x.layout, a)},
                {"start", from},
                {"length", length}};
    }
    if (narrow.is_null()) return alias(n, n.inputs[0]);
    emit(n, narrow, {n.inputs[0]});
  }

  /// Split along a sample axis (torch.split, torch.chunk): one narrow, a view, per output.
  void split(const OnnxNode& n) {
    const Value& x = activation(n, 0);
    const int64_t d = sampleAxis(n, intAttr(n, "axis", 0), x.shape.size());
    const int64_t size = x.shape[static_cast<size_t>(d)];
    const auto pieces = static_cast<int64_t>(n.outputs.size());
    std::vector<int64_t> lengths = intsInputOrAttr(n, 1, "split");
    if (lengths.empty()) {  // equal pieces; opset 18's num_outputs lets the last be smaller
      const int64_t each = size / pieces + (size % pieces != 0 ? 1 : 0);
      for (int64_t k = 0, left = size; k < pieces; ++k, left -= lengths.back())
        lengths.push_back(std::min(each, left));
    }
    int64_t total = 0;
    for (int64_t l : lengths) {
      if (l <= 0) throw Unmodelled{"Split into an empty piece"};
      total = checkedAdd(total, l);
    }
    if (static_cast<int64_t>(lengths.size()) != pieces || total != size) {
      throw Unmodelled{"Split whose pieces do not make up axis " + std::to_string(d + 1) +
                       " of size " + std::to_string(size)};
    }
    int64_t from = 0;
    for (size_t k = 0; k < lengths.size(); ++k) {
      if (!n.outputs[k].empty()) {
        emit(n, {{"type", "narrow"}, {"dim", d}, {"start", from}, {"length", lengths[k]}},
             {n.inputs[0]}, k);
      }
      from += lengths[k];
    }
  }

  /// Gather of one index along a sample axis: x[:, i], a select.
  void gather(const OnnxNode& n) {
    const Value& x = activation(n, 0);
    const OnnxTensor& t = constantInput(n, 1);
    if (!t.has_values || t.values.size() != 1 || !t.dims.empty()) {
      throw Unmodelled{"Gather of more than one index (an embedding lookup or a slice)"};
    }
    emit(n,
         {{"type", "select"},
          {"dim", sampleAxis(n, intAttr(n, "axis", 0), x.shape.size())},
          {"index", wholeValue(t.values[0], "Gather")}},
         {n.inputs[0]});
  }

  /// Expand of a stored tensor over the batch (a class token's cls.expand(B, -1, -1)): the
  /// same tensor, broadcast where it is read.
  void expand(const OnnxNode& n) {
    const OnnxTensor& shape = constantInput(n, 1);
    if (!isConstant(n.inputs[0])) throw Unmodelled{"Expand of a computed tensor"};
    const OnnxTensor& t = constantInput(n, 0);
    if (!shape.has_values || shape.values.size() != t.dims.size() || t.dims.empty() ||
        t.dims[0] != 1) {
      throw Unmodelled{"Expand other than of a stored tensor over the batch"};
    }
    for (size_t k = 1; k < t.dims.size(); ++k) {
      const int64_t d = wholeValue(shape.values[k], "Expand");
      if (d != t.dims[k] && d != 1 && d != -1) {
        throw Unmodelled{"Expand of a stored tensor along a sample dimension"};
      }
    }
    if (auto it = inits_.find(n.inputs[0]); it != inits_.end()) {
      inits_[n.outputs[0]] = it->second;
    } else {
      const OnnxTensor copy = constants_.at(n.inputs[0]);
      constants_[n.outputs[0]] = copy;
    }
  }

  /// Shape arithmetic: Shape of a computed tensor (with the batch the graph input fixes),
  /// and the operators of onnx_constants.hpp when every input is a stored tensor. Returns
  /// false for a node that is not shape arithmetic.
  bool foldShapeArithmetic(const OnnxNode& n) {
    if (n.op_type == "Shape") {
      OnnxTensor t;
      t.data_type = 7;
      if (isConstant(n.inputs.at(0))) {  // a stored tensor's dims
        for (int64_t d : constantInput(n, 0).dims) t.values.push_back(static_cast<double>(d));
      } else {
        const Value& x = activation(n, 0);
        for (int64_t d : onnxDims(x.layout, dimsOf(x.shape), batch_))
          t.values.push_back(static_cast<double>(d));
      }
      if (t.values.size() > static_cast<size_t>(kOnnxMaxValues))
        throw Unmodelled{"Shape of a tensor of more than 64 dimensions"};
      int64_t from = intAttr(n, "start", 0),
              to = intAttr(n, "end", std::numeric_limits<int64_t>::max());
      const auto rank = static_cast<int64_t>(t.values.size());
      from = std::clamp(from < 0 ? from + rank : from, int64_t{0}, rank);
      to = std::clamp(to < 0 ? to + rank : to, int64_t{0}, rank);
      t.values =
          std::vector<double>(t.values.begin() + from, t.values.begin() + std::max(from, to));
      t.dims = {static_cast<int64_t>(t.values.size())};
      t.elements = static_cast<int64_t>(t.values.size());
      t.has_values = true;
      t.name = n.outputs[0];
      constants_[n.outputs[0]] = std::move(t);
      return true;
    }
    if (!foldableOp(n.op_type)) return false;
    // A weight transposed stays the initializer's parameters (transposeWeight), even one
    // small enough to hold values.
    if (n.op_type == "Transpose" && hasInput(n, 0) && inits_.count(n.inputs[0])) return false;
    std::vector<const OnnxTensor*> in;
    for (const std::string& name : n.inputs) {
      if (name.empty()) {
        in.push_back(nullptr);
        continue;
      }
      if (!isConstant(name)) return false;
      auto it = constants_.find(name);
      in.push_back(it != constants_.end() ? &it->second : inits_.at(name));
    }
    if (in.empty() || n.outputs.empty() || n.outputs[0].empty()) return false;
    // A stored tensor without values (a weight) in arithmetic is not shape arithmetic.
    for (const OnnxTensor* t : in)
      if (t && !t->has_values) return false;
    try {
      OnnxTensor t = foldConstant(n, in);
      t.name = n.outputs[0];
      constants_[n.outputs[0]] = std::move(t);
    } catch (const ConstantNotFolded& e) {
      throw Unmodelled{e.reason};
    }
    return true;
  }

  // --- constants, activations and weights ----------------------------------------------------
  void constant(const OnnxNode& n) {
    if (n.outputs.empty()) return;
    OnnxTensor t;
    if (const OnnxAttribute* a = findAttr(n, "value"); a && a->has_tensor) {
      t = a->t;
    } else if (const OnnxAttribute* f = findAttr(n, "value_float")) {
      t.data_type = 1;
      t.values = {f->f};
    } else if (const OnnxAttribute* i = findAttr(n, "value_int")) {
      t.data_type = 7;
      t.values = {static_cast<double>(i->i)};
    } else if (const OnnxAttribute* is = findAttr(n, "value_ints")) {
      t.data_type = 7;
      for (int64_t v : is->ints) t.values.push_back(static_cast<double>(v));
      t.dims = {static_cast<int64_t>(t.values.size())};
    }
    t.has_values = t.has_values || !t.values.empty();
    t.elements =
        t.has_values && t.elements == 0 ? static_cast<int64_t>(t.values.size()) : t.elements;
    t.name = n.outputs[0];
    constants_[n.outputs[0]] = std::move(t);
  }

  bool isConstant(const std::string& name) const {
    return inits_.count(name) || constants_.count(name);
  }

  bool hasInput(const OnnxNode& n, size_t k) const {
    return n.inputs.size() > k && !n.inputs[k].empty();
  }

  const OnnxTensor& constantInput(const OnnxNode& n, size_t k) {
    if (!hasInput(n, k)) throw Unmodelled{n.op_type + " without its input " + std::to_string(k)};
    const std::string& name = n.inputs[k];
    if (auto it = inits_.find(name); it != inits_.end()) return *it->second;
    if (auto it = constants_.find(name); it != constants_.end()) return it->second;
    throw Unmodelled{n.op_type + " whose input '" + name +
                     "' is computed in the graph, not a stored constant"};
  }

  /// A stored weight (an initializer) the layer owns.
  const OnnxTensor& weight(const OnnxNode& n, size_t k, const char* what) {
    const OnnxTensor& t = constantInput(n, k);
    if (!inits_.count(t.name)) {
      throw Unmodelled{n.op_type + " whose " + what + " is not an initializer"};
    }
    used_.insert(t.name);
    return t;
  }

  /// A weight that must hold `elements` values (a bias, batchnorm's per-channel tensors).
  void useWeight(const OnnxNode& n, size_t k, const char* what, int64_t elements) {
    const OnnxTensor& t = weight(n, k, what);
    if (t.elements != elements) {
      throw InputError(ErrorCode::kShape, path_,
                       "node '" + n.name + "' (" + n.op_type + "): " + what + " '" + t.name +
                           "' holds " + std::to_string(t.elements) + " values, not " +
                           std::to_string(elements));
    }
  }

  const Value& activation(const OnnxNode& n, size_t k) {
    if (!hasInput(n, k)) throw Unmodelled{n.op_type + " without its input " + std::to_string(k)};
    return activationNamed(n, n.inputs[k]);
  }

  /// The computed tensor `name` that node n reads.
  const Value& activationNamed(const OnnxNode& n, const std::string& name) {
    auto it = values_.find(name);
    if (it != values_.end()) return it->second;
    if (isConstant(name)) {
      throw Unmodelled{n.op_type + " of a constant where dlcost models a computed tensor"};
    }
    throw InputError(ErrorCode::kGraph, path_,
                     "node '" + n.name + "' reads '" + name +
                         "', which no earlier node computes (nodes must be in topological order)");
  }

  /// An ONNX axis (the batch is axis 0) as the schema's sample axis.
  int64_t sampleAxis(const OnnxNode& n, int64_t axis, size_t sample_rank = 0) {
    if (sample_rank == 0) sample_rank = activation(n, 0).shape.size();
    const BatchLayout layout = layoutOf(n);
    if (!layout.batchFirst()) return sampleAxisMoved(n, layout, axis, sample_rank);
    const int64_t rank = static_cast<int64_t>(sample_rank) + 1;
    if (axis < -rank || axis >= rank) {
      throw Unmodelled{n.op_type + " along an axis outside the tensor"};
    }
    const int64_t a = axis < 0 ? axis + rank : axis;
    if (a <= 0 || a >= rank) {
      throw Unmodelled{n.op_type + " along axis " + std::to_string(axis) +
                       (a == 0 ? ", the batch" : ", outside the tensor")};
    }
    return a - 1;
  }

  /// Where node n's first input keeps the batch: axis 0 alone, unless it is a computed tensor
  /// of the sequence-first region.
  BatchLayout layoutOf(const OnnxNode& n) const {
    if (n.inputs.empty()) return {};
    auto it = values_.find(n.inputs[0]);
    return it == values_.end() ? BatchLayout{} : it->second.layout;
  }

  /// sampleAxis of a tensor whose batch is not axis 0 alone.
  int64_t sampleAxisMoved(const OnnxNode& n, const BatchLayout& layout, int64_t axis,
                          size_t sample_rank) {
    const int64_t rank =
        static_cast<int64_t>(sample_rank) + (layout.merge == BatchLayout::Merge::kAlone ? 1 : 0);
    if (axis < -rank || axis >= rank) {
      throw Unmodelled{n.op_type + " along an axis outside the tensor"};
    }
    const int64_t a = axis < 0 ? axis + rank : axis;
    if (holdsBatch(layout, a)) {
      throw Unmodelled{n.op_type + " along axis " + std::to_string(axis) +
                       ", which holds the batch"};
    }
    return *sampleAxisOf(layout, a);
  }

  // --- layers ---------------------------------------------------------------------------------
  /// The node's output is the tensor `from` (an activation already looked up).
  void alias(const OnnxNode& n, const std::string& from) {
    const Value v = values_.at(from);
    values_[n.outputs[0]] = v;
  }

  /// Identity of an activation is the activation; of a stored tensor, the tensor (torch.onnx
  /// stores equal initializers once and makes the others Identity nodes of it).
  void identity(const OnnxNode& n) {
    if (auto it = inits_.find(n.inputs[0]); it != inits_.end()) {
      inits_[n.outputs[0]] = it->second;
      return;
    }
    if (auto it = constants_.find(n.inputs[0]); it != constants_.end()) {
      const OnnxTensor t = it->second;
      constants_[n.outputs[0]] = t;
      return;
    }
    activation(n, 0);
    alias(n, n.inputs[0]);
  }

  std::string layerName(const OnnxNode& n) {
    // PyTorch's exports name nodes after their module path: as dotted layer names, so that the
    // engine keeps each module's input alive until the module returns (eager PyTorch 1.13).
    std::string base = m_.producer.rfind("pytorch", 0) == 0 ? torchModulePath(n.name) : n.name;
    while (!base.empty() && base[0] == '/') base.erase(0, 1);
    if (base.empty()) base = n.outputs.empty() ? n.op_type : n.outputs[0];
    if (base.empty()) base = n.op_type + "_" + std::to_string(index_);
    // Each base counts its own suffixes, so a file of a million equal names stays linear.
    std::string name = base;
    int64_t& k = suffixes_[base];
    while (name == "input" || names_.count(name)) name = base + "#" + std::to_string(++k + 1);
    names_.insert(name);
    return name;
  }

  /// Adds the layer `layer` reading the tensors `inputs` (by name: a stored operand first,
  /// `layer_scale * x`, leaves the computed tensor second) as node n's output `output`: read
  /// back by the schema's reader and analysed by the engine's rules for its output shape.
  void emit(const OnnxNode& n, json layer, const std::vector<std::string>& inputs,
            size_t output = 0) {
    if (n.outputs.size() <= output || n.outputs[output].empty())
      throw Unmodelled{n.op_type + " without output"};
    Layer l;
    l.name = layerName(n);
    l.type = layer["type"].get<std::string>();
    l.path = "/layers/" + std::to_string(layers_.size());
    std::vector<Shape> shapes;
    json names = json::array();
    const BatchLayout layout = inputLayout(n, l.type, inputs);
    for (size_t k = 0; k < inputs.size(); ++k) {
      const Value& v = activationNamed(n, inputs[k]);
      l.inputs.push_back(v.layer);
      shapes.push_back(v.shape);
      names.push_back(v.layer == kModelInput ? json("input")
                                             : layers_[static_cast<size_t>(v.layer)]["name"]);
    }
    layer["name"] = l.name;
    layer["inputs"] = names;
    LayerAnalysis a;
    try {
      l.spec = parseLayerSpec(l.type, ObjectReader(layer, l.path));
      a = analyzeLayer(l, shapes, Mode::kTrain, DType::kFp32);
    } catch (const InputError& e) {
      throw InputError(e.error().code, path_,
                       "node '" + n.name + "' (" + n.op_type + "): " + e.error().message);
    }
    if (l.type == "hardsigmoid" && std::abs(floatAttr(n, "alpha", 0.2) - 1.0 / 6) < 1e-6 &&
        std::abs(floatAttr(n, "beta", 0.5) - 0.5) < 1e-6) {
      hardswish_gates_.insert(static_cast<int>(layers_.size()));
    }
    layers_.push_back(std::move(layer));
    layer_inputs_.push_back(inputs[0]);
    values_[n.outputs[output]] = Value{static_cast<int>(layers_.size()) - 1, a.output, layout};
  }

  /// The batch's place in the tensors a layer reads, which its output keeps: the same in
  /// every input, and other than axis 0 alone only for the layers that work on the sample's
  /// own axes wherever the batch is (readsAnyBatchLayout).
  BatchLayout inputLayout(const OnnxNode& n, const std::string& type,
                          const std::vector<std::string>& inputs) {
    if (inputs.empty()) return {};
    const BatchLayout first = activationNamed(n, inputs[0]).layout;
    for (const std::string& in : inputs) {
      const BatchLayout l = activationNamed(n, in).layout;
      if (l != first)
        throw Unmodelled{n.op_type + " of tensors that keep the batch in different axes"};
      if (!l.batchFirst() && !readsAnyBatchLayout(type)) {
        throw Unmodelled{n.op_type + " (a " + type + " layer) of a tensor whose batch is axis " +
                         std::to_string(l.axis) +
                         ", not axis 0: dlcost follows a moved batch through attention's "
                         "MatMul, Softmax, Reshape and Transpose only"};
      }
    }
    return first;
  }

  /// The graph's declared output shapes, where it declares them, against the layers'.
  void checkOutputs() {
    for (size_t k = 0; k < m_.outputs.size(); ++k) {
      const OnnxValueInfo& o = m_.outputs[k];
      auto it = values_.find(o.name);
      if (it == values_.end()) continue;
      if (!it->second.layout.batchFirst()) {
        throw InputError(ErrorCode::kShape, "/graph/output/" + std::to_string(k),
                         "output '" + o.name + "' keeps the batch in axis " +
                             std::to_string(it->second.layout.axis) +
                             ": dlcost models outputs whose batch is axis 0");
      }
      if (!o.has_shape || o.dims.size() < 2) continue;
      const std::vector<int64_t> declared(o.dims.begin() + 1, o.dims.end());
      const Shape& given = it->second.shape;
      bool known = true;
      for (int64_t d : declared) known = known && d > 0;
      if (known && !std::equal(declared.begin(), declared.end(), given.begin(), given.end())) {
        throw InputError(ErrorCode::kShape, "/graph/output/" + std::to_string(k),
                         "the graph declares output '" + o.name + "' as " + shapeText(declared) +
                             " per sample; dlcost's layers give " + shapeText(it->second.shape));
      }
    }
  }

  /// Parameters, buffers and MACs of the finished model, by the engine's rules.
  void totals(OnnxGraphImport& r) {
    const LayerGraph g = expandLayerGraph(r.model, "");
    std::vector<Shape> out;
    for (const Layer& l : g.layers) {
      std::vector<Shape> in;
      for (int i : l.inputs) in.push_back(i == kModelInput ? g.input : out[static_cast<size_t>(i)]);
      const LayerAnalysis a = analyzeLayer(l, in, Mode::kTrain, DType::kFp32);
      r.parameters = checkedAdd(r.parameters, a.params);
      r.buffer_values = checkedAdd(r.buffer_values, a.buffer_values);
      r.macs_per_sample = checkedAdd(r.macs_per_sample, a.macs_per_sample);
      out.push_back(a.output);
    }
    for (const OnnxTensor& t : m_.initializers) {
      const bool weights = t.data_type != 6 && t.data_type != 7 && t.data_type != 8 &&
                           t.data_type != 9 && t.data_type != 12 && t.data_type != 13;
      if (!weights || used_.count(t.name)) continue;
      if (r.unused_initializers.size() < 16) r.unused_initializers.push_back(t.name);
      r.unused_parameters = checkedAdd(r.unused_parameters, t.elements);
    }
  }

  const OnnxModel& m_;
  int64_t folded_bn_ = 0, convs_ = 0;
  std::string folded_bn_node_;
  std::map<std::string, const OnnxTensor*> inits_;
  std::map<std::string, OnnxTensor> constants_;
  std::map<std::string, OnnxTensor> derived_inits_;  ///< transposed weights, by output name
  std::map<std::string, int64_t> consumers_;
  std::map<std::string, std::string> reader_op_;  ///< tensor -> the op type of a node reading it
  std::map<std::string, size_t> reader_node_;     ///< tensor -> the last node reading it
  std::map<std::string, size_t> producer_node_;   ///< tensor -> the node writing it
  std::set<size_t> folded_;  ///< nodes read as part of a layer emitted at an earlier node
  std::map<std::string, std::pair<int64_t, int64_t>> extra_pad_;  ///< folded Pad: [h, w]
  std::map<std::string, Value> values_;
  std::set<std::string> unknown_;
  std::set<std::string> used_;
  std::set<std::string> names_;
  std::map<std::string, int64_t> suffixes_;
  std::set<int> matmul_layers_, hardswish_gates_;
  std::vector<std::string> layer_inputs_;
  json layers_ = json::array();
  Shape input_;
  int64_t batch_ = -1;
  std::string path_;
  size_t index_ = 0;
};

}  // namespace

OnnxGraphImport onnxLayerGraph(const OnnxModel& model) {
  return Builder(model).run();
}

json onnxGraphJson(const OnnxGraphImport& g) {
  json unmodelled = json::array();
  for (const auto& [op, u] : g.unmodelled) {
    unmodelled.push_back(
        {{"op_type", op}, {"count", u.count}, {"reason", u.reason}, {"first_node", u.node}});
  }
  json j = {{"model", g.model},
            {"nodes", g.nodes},
            {"understood_nodes", g.understood},
            {"share_understood",
             g.nodes > 0 ? static_cast<double>(g.understood) / static_cast<double>(g.nodes) : 1.0},
            {"after_unmodelled_nodes", g.after_unmodelled},
            {"unmodelled", std::move(unmodelled)}};
  if (!g.error.empty()) j["error"] = {{"path", g.error_path}, {"message", g.error}};
  if (!g.model.is_null()) {
    j["parameters"] = g.parameters;
    j["buffer_values"] = g.buffer_values;
    j["macs_per_sample"] = g.macs_per_sample;
    j["unused_initializers"] = {{"count", g.unused_initializers.size()},
                                {"parameters", g.unused_parameters},
                                {"names", g.unused_initializers}};
    if (g.folded_batchnorm > 0) {
      j["folded_batchnorm"] = {{"convolutions", g.folded_batchnorm},
                               {"first_node", g.folded_batchnorm_node}};
    }
  }
  return j;
}

json onnxModelOrError(const json& summary) {
  if (!summary.is_object() || summary.value("format", "") != "onnx" ||
      !summary.contains("layer_graph")) {
    throw InputError(ErrorCode::kValue, "", "not an ONNX file");
  }
  const json& g = summary["layer_graph"];
  if (g.contains("model") && g["model"].is_object()) return g["model"];
  if (g.contains("error")) {
    throw InputError(ErrorCode::kValue, g["error"].value("path", ""),
                     g["error"].value("message", ""));
  }
  std::string ops;
  for (const json& u : g["unmodelled"]) {
    ops += (ops.empty() ? "" : "; ") + u["op_type"].get<std::string>() + " x" +
           std::to_string(u["count"].get<int64_t>()) + " (" + u["reason"].get<std::string>() + ")";
  }
  throw InputError(ErrorCode::kValue, "/graph/node",
                   "dlcost models " + std::to_string(g["understood_nodes"].get<int64_t>()) +
                       " of the graph's " + std::to_string(g["nodes"].get<int64_t>()) +
                       " nodes; it does not model " + ops +
                       ". It gives no estimate rather than one that leaves them out.");
}

nlohmann::json onnxFileSummaryJson(const OnnxModel& model, int64_t file_size) {
  nlohmann::json summary = onnxSummaryJson(model, file_size);
  summary["layer_graph"] = onnxGraphJson(onnxLayerGraph(model));
  return summary;
}

}  // namespace dlcost
