#include "layer_analysis.hpp"

#include <algorithm>
#include <type_traits>

#include "dlcost/checked.hpp"
#include "dlcost/error.hpp"

namespace dlcost {

std::string fieldPath(const Layer& layer, const std::string& field) {
  auto it = layer.field_paths.find(field);
  return it != layer.field_paths.end() ? it->second : childPath(layer.path, field);
}

namespace {

constexpr int64_t kStatBytes = 4;   // normalisation statistics are fp32 whatever the precision
constexpr int64_t kIndexBytes = 8;  // int64 indices (max pooling, embedding ids)
constexpr int64_t kMaskBytes = 1;   // torch.bool

/// Throws `message` about `layer` (at `field`, or the layer), in both languages where the
/// message is written in both.
[[noreturn]] void fail(const Layer& layer, const std::string& field, ErrorCode code,
                       const Text& message) {
  throw InputError(code, field.empty() ? layer.path : fieldPath(layer, field),
                   Text{"layer '" + layer.name + "': " + message.en,
                        message.zh.empty() ? "" : "层 '" + layer.name + "'：" + message.zh});
}

[[noreturn]] void fail(const Layer& layer, const std::string& field, ErrorCode code,
                       const std::string& message) {
  fail(layer, field, code, Text{message, ""});
}

void requireRank(const Layer& layer, const Shape& in, size_t rank, const char* layout) {
  if (in.size() != rank) {
    const std::string r = std::to_string(rank), got = shapeToString(in);
    fail(layer, "", ErrorCode::kShape,
         Text{layer.type + " needs a " + r + "-D input " + layout + ", got " + got,
              layer.type + " 需要 " + r + " 维输入 " + layout + "，实际为 " + got});
  }
}

/// PyTorch's output size for convolution and pooling, with ceil_mode's rule that the last
/// window must start inside the (left-padded) input.
int64_t windowOutput(const Layer& layer, const char* axis, int64_t size, int64_t kernel,
                     int64_t stride, int64_t pad, int64_t dilation, bool ceil_mode) {
  const int64_t span = checkedAdd(checkedMul(dilation, kernel - 1), 1);
  const int64_t room = checkedSub(checkedAdd(size, checkedMul(2, pad)), span);
  if (room < 0) {
    const std::string zh_axis = std::string(axis) == "height" ? "高度" : "宽度";
    fail(layer, "kernel", ErrorCode::kShape,
         Text{std::string("output ") + axis + " would be <= 0: input " + axis + " " +
                  std::to_string(size) + " + 2 x padding " + std::to_string(pad) +
                  " is smaller than the kernel's extent " + std::to_string(span),
              "输出" + zh_axis + "将 <= 0：输入" + zh_axis + " " + std::to_string(size) +
                  " + 2 × padding " + std::to_string(pad) + " 小于卷积核的跨度 " +
                  std::to_string(span)});
  }
  int64_t out = (ceil_mode ? (room + stride - 1) / stride : room / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= size + pad) --out;
  return out;
}

Shape broadcast(const Layer& layer, const std::vector<Shape>& inputs) {
  size_t rank = 0;
  for (const Shape& s : inputs) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Shape& s = inputs[k];
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[rank - s.size() + i];
      const int64_t d = s[i];
      if (d == o || d == 1) continue;
      if (o == 1) {
        o = d;
        continue;
      }
      const std::string a = shapeToString(inputs[0]), b = shapeToString(s);
      fail(layer, "inputs", ErrorCode::kShape,
           Text{layer.type + " of incompatible shapes " + a + " and " + b +
                    " (dimensions must be equal or 1)",
                layer.type + " 的形状 " + a + " 与 " + b + " 不兼容（各维必须相等或为 1）"});
    }
  }
  return out;
}

int64_t normalizeAxis(const Layer& layer, const char* field, int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  const int64_t a = axis < 0 ? axis + r : axis;
  if (a < 0 || a >= r) {
    fail(layer, field, ErrorCode::kValue,
         std::string(field) + " " + std::to_string(axis) + " is out of range for a " +
             std::to_string(rank) + "-D sample shape");
  }
  return a;
}

struct Analyzer {
  const Layer& layer;
  const std::vector<Shape>& in;
  Mode mode;
  int64_t act_bytes;
  LayerAnalysis r;

  bool training() const { return mode == Mode::kTrain; }
  int64_t inElements(size_t k = 0) const { return elementCount(in[k]); }
  void saveInputs() { r.saved.inputs.assign(in.size(), true); }

  void operator()(const Conv2d& c) {
    requireRank(layer, in[0], 3, "[C, H, W]");
    const int64_t cin = in[0][0];
    if (c.in_channels && c.in_channels != cin) {
      const std::string given = std::to_string(c.in_channels), has = std::to_string(cin);
      fail(layer, "in_channels", ErrorCode::kShape,
           Text{"in_channels is " + given + " but the input has " + has + " channels",
                "in_channels 为 " + given + "，但输入有 " + has + " 个通道"});
    }
    if (cin % c.groups || c.out_channels % c.groups) {
      const std::string g = std::to_string(c.groups), ci = std::to_string(cin),
                        co = std::to_string(c.out_channels);
      fail(layer, "groups", ErrorCode::kShape,
           Text{"groups " + g + " must divide both in channels (" + ci + ") and out_channels (" +
                    co + ")",
                "groups " + g + " 必须同时整除输入通道数（" + ci + "）和 out_channels（" + co +
                    "）"});
    }
    Pair2 pad = c.padding;
    if (c.padding_same) {
      if (c.stride.h != 1 || c.stride.w != 1) {
        fail(layer, "padding", ErrorCode::kValue,
             "padding \"same\" needs stride 1 (as in PyTorch); give the padding as numbers");
      }
      // PyTorch pads d(k-1) in total; the output size equals the input either way.
      pad = {c.dilation.h * (c.kernel.h - 1) / 2, c.dilation.w * (c.kernel.w - 1) / 2};
    }
    const int64_t h = c.padding_same ? in[0][1]
                                     : windowOutput(layer, "height", in[0][1], c.kernel.h,
                                                    c.stride.h, pad.h, c.dilation.h, false);
    const int64_t w = c.padding_same ? in[0][2]
                                     : windowOutput(layer, "width", in[0][2], c.kernel.w,
                                                    c.stride.w, pad.w, c.dilation.w, false);
    r.output = {c.out_channels, h, w};
    const int64_t per_output = checkedMul(checkedMul(cin / c.groups, c.kernel.h), c.kernel.w);
    r.params = checkedAdd(checkedMul(per_output, c.out_channels), c.bias ? c.out_channels : 0);
    r.macs_per_sample = checkedMul(elementCount(r.output), per_output);
    saveInputs();
  }

  void operator()(const Linear& l) {
    if (in[0].empty()) fail(layer, "", ErrorCode::kShape, "linear needs a non-scalar input");
    const int64_t fin = in[0].back();
    if (l.in_features && l.in_features != fin) {
      const std::string given = std::to_string(l.in_features), last = std::to_string(fin),
                        shape = shapeToString(in[0]);
      fail(layer, "in_features", ErrorCode::kShape,
           Text{"in_features is " + given + " but the input's last dimension is " + last +
                    " (shape " + shape + "; add a flatten?)",
                "in_features 为 " + given + "，但输入的最后一维为 " + last + "（形状 " + shape +
                    "；需要先加 flatten？）"});
    }
    r.output = in[0];
    r.output.back() = l.out_features;
    r.params = checkedAdd(checkedMul(fin, l.out_features), l.bias ? l.out_features : 0);
    r.macs_per_sample = checkedMul(inElements(), l.out_features);
    saveInputs();
  }

  void operator()(const Pool2d& p) {
    requireRank(layer, in[0], 3, "[C, H, W]");
    if (2 * p.padding.h > p.kernel.h || 2 * p.padding.w > p.kernel.w) {
      fail(layer, "padding", ErrorCode::kValue, "padding must be at most half the kernel size");
    }
    const int64_t h = windowOutput(layer, "height", in[0][1], p.kernel.h, p.stride.h, p.padding.h,
                                   p.dilation.h, p.ceil_mode);
    const int64_t w = windowOutput(layer, "width", in[0][2], p.kernel.w, p.stride.w, p.padding.w,
                                   p.dilation.w, p.ceil_mode);
    r.output = {in[0][0], h, w};
    poolSaved(p.kind);
  }

  void operator()(const AdaptivePool2d& p) {
    requireRank(layer, in[0], 3, "[C, H, W]");
    r.output = {in[0][0], p.output.h, p.output.w};
    poolSaved(p.kind);
  }

  void poolSaved(PoolKind kind) {
    saveInputs();  // both max and average pooling keep their input in PyTorch's autograd
    if (kind != PoolKind::kMax) return;
    // Max pooling always computes int64 indices off CPU: aten/src/ATen/native/Pooling.cpp,
    // max_pool2d: `auto output_and_indices = at::max_pool2d_with_indices(...); return
    // std::get<0>(output_and_indices);` (adaptive_max_pool2d returns them too). Training
    // saves them for backward; at inference they are freed when the op returns.
    const int64_t indices = checkedMul(elementCount(r.output), kIndexBytes);
    if (training()) {
      r.saved.extra_bytes_per_sample = indices;
    } else {
      r.scratch_bytes_per_sample = indices;
    }
  }

  void operator()(const BatchNorm2d& b) {
    if (in[0].size() < 2) {
      fail(layer, "", ErrorCode::kShape,
           "batchnorm2d needs a [C, H, W] (or [C, L]) input, got " + shapeToString(in[0]));
    }
    const int64_t c = in[0][0];
    r.output = in[0];
    r.params = b.affine ? checkedMul(2, c) : 0;
    if (b.track_running_stats) {
      r.buffer_values = checkedMul(2, c);
      r.buffer_counters = 1;
    }
    saveInputs();
    r.saved.extra_fixed_bytes = checkedMul(checkedMul(2, c), kStatBytes);  // mean, invstd
  }

  void operator()(const LayerNorm& n) {
    if (n.normalized_dims > static_cast<int64_t>(in[0].size())) {
      fail(layer, "normalized_dims", ErrorCode::kShape,
           "cannot normalise the last " + std::to_string(n.normalized_dims) + " dimensions of " +
               shapeToString(in[0]));
    }
    int64_t d = 1;
    for (size_t i = in[0].size() - n.normalized_dims; i < in[0].size(); ++i)
      d = checkedMul(d, in[0][i]);
    r.output = in[0];
    r.params = n.elementwise_affine ? checkedMul(d, n.bias ? 2 : 1) : 0;
    saveInputs();
    const int64_t rows = inElements() / d;
    r.saved.extra_bytes_per_sample = checkedMul(checkedMul(2, rows), kStatBytes);  // mean, rstd
  }

  void operator()(const Activation& a) {
    r.output = in[0];
    r.aliases_input = a.inplace;
    // Which tensor the gradient formula reads, from PyTorch's tools/autograd/derivatives.yaml
    // (2.x): the result for relu (`self: threshold_backward(grad, result, 0)`), sigmoid
    // (`sigmoid_backward(grad, result)`) and tanh (`tanh_backward(grad, result)`); the input
    // (`self`) for the others: `hardtanh_backward(grad, self, min_val, max_val)` (relu6 is
    // hardtanh(0, 6)), `gelu_backward(grad, self, approximate)`, `silu_backward(grad, self)`,
    // `hardswish_backward(grad, self)`, `hardsigmoid_backward(grad, self)`. An in-place
    // variant without its own entry (hardtanh_, silu_, hardswish_, hardsigmoid_) uses that
    // formula, so autograd saves a clone of `self` taken before it is overwritten
    // (tools/autograd/gen_variable_type.py, save_variables: `original_self = self.clone()`
    // for `self` of an in-place op). Measured on 1.13.1 by scripts/validate-torch: an
    // in-place ReLU6 keeps that copy (mobilenet_v2's saved bytes match only with it).
    bool uses_result = false;
    switch (a.kind) {
      case ActivationKind::kRelu:
      case ActivationKind::kSigmoid:
      case ActivationKind::kTanh:
        uses_result = true;
        break;
      default:
        break;
    }
    if (uses_result) {
      r.saved.inputs.assign(1, false);
      r.saved.output = true;
    } else if (a.inplace) {
      // The clone of the input is new memory the op allocates only for backward; the
      // overwritten input's memory holds the output, which nothing saves.
      r.saved.inputs.assign(1, false);
      if (training()) r.saved.extra_bytes_per_sample = checkedMul(inElements(), act_bytes);
    } else {
      saveInputs();
    }
  }

  void operator()(const Dropout& d) {
    r.output = in[0];
    if (!training()) {
      r.aliases_input = true;  // the identity at inference
      r.passes_gradient[0] = true;
      return;
    }
    // CUDA runs the fused kernel, which saves only its mask: derivatives.yaml,
    // `native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)`,
    // `input: ... native_dropout_backward(grad, result1, ...)`, result1 a bool tensor.
    // Elsewhere (CPU) aten/src/ATen/native/Dropout.cpp's _dropout_impl multiplies by a noise
    // tensor of the input's dtype (4 bytes per element in fp32); docs/accuracy.md says so.
    r.aliases_input = d.inplace;
    r.saved.inputs.assign(1, false);
    r.saved.extra_bytes_per_sample = checkedMul(inElements(), kMaskBytes);
  }

  void operator()(const Flatten& f) {
    const size_t rank = in[0].size();
    if (rank == 0) fail(layer, "", ErrorCode::kShape, "cannot flatten a scalar");
    const int64_t s = normalizeAxis(layer, "start_dim", f.start_dim, rank);
    const int64_t e = normalizeAxis(layer, "end_dim", f.end_dim, rank);
    if (s > e) fail(layer, "end_dim", ErrorCode::kValue, "end_dim must not come before start_dim");
    Shape out(in[0].begin(), in[0].begin() + s);
    int64_t merged = 1;
    for (int64_t i = s; i <= e; ++i) merged = checkedMul(merged, in[0][i]);
    out.push_back(merged);
    out.insert(out.end(), in[0].begin() + e + 1, in[0].end());
    r.output = out;
    r.aliases_input = true;
    r.passes_gradient[0] = true;  // the gradient is reshaped back: a view
  }

  void operator()(const Add& a) {
    r.output = broadcast(layer, in);
    if (a.inplace && r.output != in[0]) {
      fail(layer, "inplace", ErrorCode::kShape,
           "an in-place add writes into its first input, so that input must have the "
           "result's shape " +
               shapeToString(r.output) + ", not " + shapeToString(in[0]));
    }
    // Nothing is saved either way. AddBackward hands its output gradient to each input
    // unchanged (alpha = 1); only a broadcast input gets a new, reduced tensor (sum_to).
    r.aliases_input = a.inplace;
    for (size_t k = 0; k < in.size(); ++k) r.passes_gradient[k] = in[k] == r.output;
  }

  void operator()(const Multiply&) {
    r.output = broadcast(layer, in);
    saveInputs();  // each factor's gradient needs the others
  }

  void operator()(const Concat& c) {
    const size_t rank = in[0].size();
    const int64_t axis = normalizeAxis(layer, "axis", c.axis, rank);
    Shape out = in[0];
    for (size_t k = 1; k < in.size(); ++k) {
      bool ok = in[k].size() == rank;
      for (size_t i = 0; ok && i < rank; ++i)
        ok = static_cast<int64_t>(i) == axis || in[k][i] == out[i];
      if (!ok) {
        fail(layer, "inputs", ErrorCode::kShape,
             "concat needs shapes equal except along axis " + std::to_string(axis) + ": " +
                 shapeToString(in[0]) + " and " + shapeToString(in[k]));
      }
      out[axis] = checkedAdd(out[axis], in[k][axis]);
    }
    r.output = out;
    r.passes_gradient.assign(in.size(), true);  // CatBackward narrows: views of one gradient
  }

  void operator()(const Embedding& e) {
    r.output = in[0];
    r.output.push_back(e.embedding_dim);
    r.params = checkedMul(e.num_embeddings, e.embedding_dim);
    saveInputs();  // the ids, to scatter the gradient
  }

  void operator()(const Softmax& s) {
    normalizeAxis(layer, "dim", s.dim, in[0].size());
    r.output = in[0];
    r.saved.inputs.assign(1, false);
    r.saved.output = true;
  }
};

}  // namespace

LayerAnalysis analyzeLayer(const Layer& layer, const std::vector<Shape>& inputs, Mode mode,
                           DType activation) {
  Analyzer a{layer, inputs, mode, dtypeBits(activation) / 8, {}};
  a.r.saved.inputs.assign(inputs.size(), false);
  a.r.passes_gradient.assign(inputs.size(), false);
  try {
    std::visit(a, layer.spec);
    // The output tensor's bytes must fit too, or the memory simulation would overflow
    // later without a layer to blame.
    checkedMul(elementCount(a.r.output), a.act_bytes);
  } catch (const ArithmeticOverflow&) {
    fail(layer, "", ErrorCode::kTooLarge, "sizes overflow 64-bit arithmetic");
  }
  for (int64_t d : a.r.output) {
    if (d <= 0)
      fail(layer, "", ErrorCode::kShape,
           "output shape " + shapeToString(a.r.output) + " has an empty dimension");
  }
  if (!a.training()) a.r.saved = SavedForBackward{std::vector<bool>(inputs.size(), false)};
  return a.r;
}

}  // namespace dlcost
