#include "graph/layer_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>

#include "dlcost/base/checked.hpp"
#include "dlcost/base/error.hpp"

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

/// A shape past kMaxRank dimensions (an embedding of an 8-D input, say).
[[noreturn]] void failRank(const Layer& layer) {
  fail(layer, "", ErrorCode::kShape,
       "output of more than " + std::to_string(kMaxRank) +
           " dimensions per sample, which dlcost does not model");
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

/// A batch of two or more stands for any batch in the stride rules below: at batch 1 PyTorch
/// can view what it copies at larger batches (a size-1 dimension merges with anything), and
/// dlcost's figures are per sample of a batch (docs/accuracy.md).
constexpr int64_t kAnyBatch = 2;

/// Strides of a contiguous tensor of `full` shape (batch first).
Shape contiguousStrides(const Shape& full) {
  Shape st(full.size(), 1);
  for (size_t k = full.size(); k-- > 1;) st[k - 1] = checkedMul(st[k], full[k]);
  return st;
}

Shape withBatch(const Shape& sample) {
  Shape full{kAnyBatch};
  full.append(sample.begin(), sample.end());
  return full;
}

/// The strides of `new_shape` as a view of a tensor of `old_shape` and `old_strides`, or
/// none where no view exists and reshape copies: aten/src/ATen/TensorUtils.cpp,
/// computeStride (v1.13), which walks the old dimensions from the last in chunks of
/// contiguous memory and fits the new dimensions into each.
std::optional<Shape> viewStrides(const Shape& old_shape, const Shape& old_strides,
                                 const Shape& new_shape) {
  Shape out(new_shape.size(), 1);
  if (old_shape.empty()) return out;
  int64_t view_d = static_cast<int64_t>(new_shape.size()) - 1;
  int64_t chunk_base_stride = old_strides.back(), tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_shape.size()) - 1; d >= 0; --d) {
    const auto u = static_cast<size_t>(d);
    tensor_numel = checkedMul(tensor_numel, old_shape[u]);
    if (d == 0 || (old_shape[u - 1] != 1 &&
                   old_strides[u - 1] != checkedMul(tensor_numel, chunk_base_stride))) {
      while (view_d >= 0 &&
             (view_numel < tensor_numel || new_shape[static_cast<size_t>(view_d)] == 1)) {
        out[static_cast<size_t>(view_d)] = checkedMul(view_numel, chunk_base_stride);
        view_numel = checkedMul(view_numel, new_shape[static_cast<size_t>(view_d)]);
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = old_strides[u - 1];
        tensor_numel = view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

/// Whether the elements fill their memory without gaps in some order of the dimensions
/// (c10's is_non_overlapping_and_dense): permuted views are, a select's view is not.
bool dense(const Shape& full, const Shape& strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;
  for (size_t k = 0; k < full.size(); ++k)
    if (full[k] != 1) dims.push_back({strides[k], full[k]});
  std::sort(dims.begin(), dims.end());
  int64_t expected = 1;
  for (const auto& [stride, size] : dims) {
    if (stride != expected) return false;
    expected = checkedMul(expected, size);
  }
  return true;
}

// Each kind of layer has its rule: one overload of analyze() per alternative of LayerSpec,
// the table std::visit dispatches on (a kind without a rule does not compile). The rules
// share a LayerContext: the layer, its inputs, the analysis being made, and the helpers that
// say how an input is laid out and what backward keeps of it.

struct LayerContext {
  const Layer& layer;
  const std::vector<Shape>& in;
  Mode mode;
  int64_t act_bytes;
  const std::vector<Shape>* in_strides;
  DType weights;
  LayerAnalysis r;

  bool training() const { return mode == Mode::kTrain; }
  int64_t inElements(size_t k = 0) const { return elementCount(in[k]); }
  void saveInputs() { r.saved.inputs.setFirst(in.size()); }
  /// Input k's strides, batch first.
  Shape strides(size_t k) const {
    if (in_strides && k < in_strides->size() && !(*in_strides)[k].empty()) return (*in_strides)[k];
    return contiguousStrides(withBatch(in[k]));
  }
  bool contiguous(size_t k) const {
    // No strides given: contiguous, without making them to compare (the usual case).
    if (!in_strides || k >= in_strides->size() || (*in_strides)[k].empty()) return true;
    return (*in_strides)[k] == contiguousStrides(withBatch(in[k]));
  }
  /// The output keeps input 0's layout (element-wise ops on a dense input: TensorIterator
  /// lays the output out as the input; in place, the output is the input).
  void keepLayout(bool inplace) {
    if (contiguous(0) || r.output != in[0]) return;
    const Shape st = strides(0);
    if (inplace || dense(withBatch(in[0]), st)) r.strides = st;
  }
  /// Input k is read as `shape` (batch first) through reshape: saved as a view of the
  /// input, or (where no view exists) as a new contiguous copy that only backward keeps.
  void saveReshaped(size_t k, const Shape& full, const Shape& full_strides, const Shape& shape) {
    if (viewStrides(full, full_strides, shape)) {
      r.saved.inputs.set(k);
    } else if (training()) {
      r.saved.extra_bytes_per_sample = checkedAdd(
          r.saved.extra_bytes_per_sample, checkedMul(elementCount(full) / kAnyBatch, act_bytes));
    }
  }

  /// Input 0 read through `input.contiguous()` and kept for backward: the input itself where
  /// it is contiguous, else the copy, new memory that only training keeps.
  void saveContiguousInput() {
    if (contiguous(0)) {
      saveInputs();
    } else if (training()) {
      r.saved.extra_bytes_per_sample =
          checkedAdd(r.saved.extra_bytes_per_sample, checkedMul(inElements(), act_bytes));
    }
  }
};

// Helpers that more than one rule uses.

void poolSaved(LayerContext& ctx, PoolKind kind) {
  ctx.saveInputs();  // both max and average pooling keep their input in PyTorch's autograd
  if (kind != PoolKind::kMax) return;
  // Max pooling always computes int64 indices off CPU: aten/src/ATen/native/Pooling.cpp,
  // max_pool2d: `auto output_and_indices = at::max_pool2d_with_indices(...); return
  // std::get<0>(output_and_indices);` (adaptive_max_pool2d returns them too). Training
  // saves them for backward; at inference they are freed when the op returns.
  const int64_t indices = checkedMul(elementCount(ctx.r.output), kIndexBytes);
  if (ctx.training()) {
    ctx.r.saved.extra_bytes_per_sample = indices;
  } else {
    ctx.r.scratch_bytes_per_sample = indices;
  }
}

/// torch.reshape (flatten is one): a view with new strides where computeStride finds
/// them, else a contiguous copy (`_unsafe_view(self.clone(at::MemoryFormat::Contiguous),
/// shape)`, aten/src/ATen/native/TensorShape.cpp, reshape). Either way the gradient is
/// reshaped back, a view (ViewBackward0 and CloneBackward0 keep no tensor).
void reshapeTo(LayerContext& ctx, const Shape& out) {
  ctx.r.passes_gradient.set(0);
  if (auto st = viewStrides(withBatch(ctx.in[0]), ctx.strides(0), withBatch(out))) {
    ctx.r.aliases_input = true;
    if (*st != contiguousStrides(withBatch(out))) ctx.r.strides = *st;
  }
}

/// The inputs with the tensor operand (first), for the broadcast rule.
std::vector<Shape> withOperand(const LayerContext& ctx, const TensorOperand& t) {
  std::vector<Shape> all = ctx.in;
  if (t.present) all.insert(all.begin(), t.shape);
  return all;
}

void operandParams(LayerContext& ctx, const TensorOperand& t) {
  if (t.present && t.learned) ctx.r.params = elementCount(t.shape);
}

void analyze(const Conv2d& c, LayerContext& ctx) {
  requireRank(ctx.layer, ctx.in[0], 3, "[C, H, W]");
  const int64_t cin = ctx.in[0][0];
  if (c.in_channels && c.in_channels != cin) {
    const std::string given = std::to_string(c.in_channels), has = std::to_string(cin);
    fail(ctx.layer, "in_channels", ErrorCode::kShape,
         Text{"in_channels is " + given + " but the input has " + has + " channels",
              "in_channels 为 " + given + "，但输入有 " + has + " 个通道"});
  }
  if (cin % c.groups || c.out_channels % c.groups) {
    const std::string g = std::to_string(c.groups), ci = std::to_string(cin),
                      co = std::to_string(c.out_channels);
    fail(
        ctx.layer, "groups", ErrorCode::kShape,
        Text{"groups " + g + " must divide both in channels (" + ci + ") and out_channels (" + co +
                 ")",
             "groups " + g + " 必须同时整除输入通道数（" + ci + "）和 out_channels（" + co + "）"});
  }
  Pair2 pad = c.padding;
  if (c.padding_same) {
    if (c.stride.h != 1 || c.stride.w != 1) {
      fail(ctx.layer, "padding", ErrorCode::kValue,
           "padding \"same\" needs stride 1 (as in PyTorch); give the padding as numbers");
    }
    // PyTorch pads d(k-1) in total; the output size equals the input either way.
    pad = {c.dilation.h * (c.kernel.h - 1) / 2, c.dilation.w * (c.kernel.w - 1) / 2};
  }
  const int64_t h = c.padding_same ? ctx.in[0][1]
                                   : windowOutput(ctx.layer, "height", ctx.in[0][1], c.kernel.h,
                                                  c.stride.h, pad.h, c.dilation.h, false);
  const int64_t w = c.padding_same ? ctx.in[0][2]
                                   : windowOutput(ctx.layer, "width", ctx.in[0][2], c.kernel.w,
                                                  c.stride.w, pad.w, c.dilation.w, false);
  ctx.r.output = {c.out_channels, h, w};
  const int64_t per_output = checkedMul(checkedMul(cin / c.groups, c.kernel.h), c.kernel.w);
  ctx.r.params = checkedAdd(checkedMul(per_output, c.out_channels), c.bias ? c.out_channels : 0);
  ctx.r.macs_per_sample = checkedMul(elementCount(ctx.r.output), per_output);
  ctx.saveInputs();
}

void analyze(const Linear& l, LayerContext& ctx) {
  if (ctx.in[0].empty()) fail(ctx.layer, "", ErrorCode::kShape, "linear needs a non-scalar input");
  const int64_t fin = ctx.in[0].back();
  if (l.in_features && l.in_features != fin) {
    const std::string given = std::to_string(l.in_features), last = std::to_string(fin),
                      shape = shapeToString(ctx.in[0]);
    fail(ctx.layer, "in_features", ErrorCode::kShape,
         Text{"in_features is " + given + " but the input's last dimension is " + last +
                  " (shape " + shape + "; add a flatten?)",
              "in_features 为 " + given + "，但输入的最后一维为 " + last + "（形状 " + shape +
                  "；需要先加 flatten？）"});
  }
  ctx.r.output = ctx.in[0];
  ctx.r.output.back() = l.out_features;
  ctx.r.params = checkedAdd(checkedMul(fin, l.out_features), l.bias ? l.out_features : 0);
  ctx.r.macs_per_sample = checkedMul(ctx.inElements(), l.out_features);
  // F.linear multiplies a matrix: an input of more dimensions is folded to [rows, in]
  // (aten/src/ATen/native/Linear.cpp, linear; LinearAlgebra.cpp, matmul's folding), a
  // view where the layout allows it; addmm/mm then saves that matrix.
  const Shape full = withBatch(ctx.in[0]);
  if (ctx.in[0].size() == 1) {
    ctx.saveInputs();
  } else {
    ctx.saveReshaped(0, full, ctx.strides(0), Shape{elementCount(full) / fin, fin});
  }
}

void analyze(const Pool2d& p, LayerContext& ctx) {
  requireRank(ctx.layer, ctx.in[0], 3, "[C, H, W]");
  if (2 * p.padding.h > p.kernel.h || 2 * p.padding.w > p.kernel.w) {
    fail(ctx.layer, "padding", ErrorCode::kValue, "padding must be at most half the kernel size");
  }
  const int64_t h = windowOutput(ctx.layer, "height", ctx.in[0][1], p.kernel.h, p.stride.h,
                                 p.padding.h, p.dilation.h, p.ceil_mode);
  const int64_t w = windowOutput(ctx.layer, "width", ctx.in[0][2], p.kernel.w, p.stride.w,
                                 p.padding.w, p.dilation.w, p.ceil_mode);
  ctx.r.output = {ctx.in[0][0], h, w};
  poolSaved(ctx, p.kind);
}

void analyze(const AdaptivePool2d& p, LayerContext& ctx) {
  requireRank(ctx.layer, ctx.in[0], 3, "[C, H, W]");
  ctx.r.output = {ctx.in[0][0], p.output.h, p.output.w};
  poolSaved(ctx, p.kind);
}

void analyze(const BatchNorm2d& b, LayerContext& ctx) {
  if (ctx.in[0].size() < 2) {
    fail(ctx.layer, "", ErrorCode::kShape,
         "batchnorm2d needs a [C, H, W] (or [C, L]) input, got " + shapeToString(ctx.in[0]));
  }
  const int64_t c = ctx.in[0][0];
  ctx.r.output = ctx.in[0];
  ctx.r.params = b.affine ? checkedMul(2, c) : 0;
  if (b.track_running_stats) {
    ctx.r.buffer_values = checkedMul(2, c);
    ctx.r.buffer_counters = 1;
  }
  ctx.saveInputs();
  ctx.r.saved.extra_fixed_bytes = checkedMul(checkedMul(2, c), kStatBytes);  // mean, invstd
}

void analyze(const InstanceNorm2d& n, LayerContext& ctx) {
  requireRank(ctx.layer, ctx.in[0], 3, "[C, H, W]");
  const int64_t c = ctx.in[0][0];
  ctx.r.output = ctx.in[0];
  ctx.r.params = n.affine ? checkedMul(2, c) : 0;
  // aten/src/ATen/native/Normalization.cpp (v1.13), instance_norm: the batch becomes
  // channels, `weight_ = repeat_if_defined(weight, b)`, `input.contiguous().view(shape)`
  // into at::batch_norm(..., use_input_stats = true), `out.view_as(input)`. The batch norm
  // (NativeBatchNormBackward0 in 1.13's generated Functions.h) keeps its input (a view of
  // this layer's input, or of its contiguous copy), the repeated weight (batch x C values
  // in the weights' format: new memory, unlike batchnorm's parameter) and its mean and
  // inverse std (fp32, batch x C each); RepeatBackward0 keeps only sizes.
  ctx.saveContiguousInput();
  int64_t extra = checkedMul(checkedMul(2, c), kStatBytes);
  if (n.affine) extra = checkedAdd(extra, bytesForBits(c, dtypeBits(ctx.weights)));
  ctx.r.saved.extra_bytes_per_sample = checkedAdd(ctx.r.saved.extra_bytes_per_sample, extra);
}

void analyze(const GroupNorm& n, LayerContext& ctx) {
  if (ctx.in[0].size() < 2) {
    fail(ctx.layer, "", ErrorCode::kShape,
         "groupnorm needs a [C, ...] input of 2+ dimensions, got " + shapeToString(ctx.in[0]));
  }
  const int64_t c = ctx.in[0][0];
  if (c % n.groups) {
    fail(ctx.layer, "num_groups", ErrorCode::kShape,
         "num_groups " + std::to_string(n.groups) + " must divide the " + std::to_string(c) +
             " channels (as in nn.GroupNorm)");
  }
  ctx.r.output = ctx.in[0];
  ctx.r.params = n.affine ? checkedMul(2, c) : 0;
  // aten/src/ATen/native/group_norm.cpp (v1.13), group_norm: native_group_norm of
  // `input.contiguous()`; NativeGroupNormBackward0 (1.13's generated Functions.h) keeps
  // input_, weight_ (the parameter) and the mean and rstd per sample and group (fp32).
  ctx.saveContiguousInput();
  ctx.r.saved.extra_bytes_per_sample = checkedAdd(ctx.r.saved.extra_bytes_per_sample,
                                                  checkedMul(checkedMul(2, n.groups), kStatBytes));
}

void analyze(const LayerNorm& n, LayerContext& ctx) {
  if (n.normalized_dims > static_cast<int64_t>(ctx.in[0].size())) {
    fail(ctx.layer, "normalized_dims", ErrorCode::kShape,
         "cannot normalise the last " + std::to_string(n.normalized_dims) + " dimensions of " +
             shapeToString(ctx.in[0]));
  }
  int64_t d = 1;
  for (size_t i = ctx.in[0].size() - n.normalized_dims; i < ctx.in[0].size(); ++i)
    d = checkedMul(d, ctx.in[0][i]);
  ctx.r.output = ctx.in[0];
  ctx.r.params = n.elementwise_affine ? checkedMul(d, n.bias ? 2 : 1) : 0;
  ctx.saveInputs();
  const int64_t rows = ctx.inElements() / d;
  ctx.r.saved.extra_bytes_per_sample = checkedMul(checkedMul(2, rows), kStatBytes);  // mean, rstd
}

void analyze(const Activation& a, LayerContext& ctx) {
  ctx.r.output = ctx.in[0];
  ctx.r.aliases_input = a.inplace;
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
  // Leaky ReLU: `leaky_relu: self: leaky_relu_backward(grad, self, negative_slope,
  // false)`, `leaky_relu_: self: leaky_relu_backward(grad, result, negative_slope, true)`:
  // out of place it keeps its input, in place its result (1.13's generated Functions.h:
  // LeakyReluBackward0 holds `self_`, LeakyReluBackward1 `result_`), with no clone.
  bool uses_result = false;
  switch (a.kind) {
    case ActivationKind::kRelu:
    case ActivationKind::kSigmoid:
    case ActivationKind::kTanh:
      uses_result = true;
      break;
    case ActivationKind::kLeakyRelu:
      uses_result = a.inplace;
      break;
    default:
      break;
  }
  ctx.keepLayout(a.inplace);
  if (uses_result) {
    ctx.r.saved.output = true;
  } else if (a.inplace) {
    // The clone of the input is new memory the op allocates only for backward; the
    // overwritten input's memory holds the output, which nothing saves.
    if (ctx.training())
      ctx.r.saved.extra_bytes_per_sample = checkedMul(ctx.inElements(), ctx.act_bytes);
  } else {
    ctx.saveInputs();
  }
}

void analyze(const Dropout& d, LayerContext& ctx) {
  ctx.r.output = ctx.in[0];
  if (!ctx.training()) {
    ctx.r.aliases_input = true;  // the identity at inference
    ctx.r.passes_gradient.set(0);
    return;
  }
  // CUDA runs the fused kernel, which saves only its mask: derivatives.yaml,
  // `native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)`,
  // `input: ... native_dropout_backward(grad, result1, ...)`, result1 a bool tensor.
  // Elsewhere (CPU) aten/src/ATen/native/Dropout.cpp's _dropout_impl multiplies by a noise
  // tensor of the input's dtype (4 bytes per element in fp32); docs/accuracy.md says so.
  ctx.r.aliases_input = d.inplace;
  ctx.keepLayout(d.inplace);
  ctx.r.saved.extra_bytes_per_sample = checkedMul(ctx.inElements(), kMaskBytes);
}

void analyze(const Flatten& f, LayerContext& ctx) {
  const size_t rank = ctx.in[0].size();
  if (rank == 0) fail(ctx.layer, "", ErrorCode::kShape, "cannot flatten a scalar");
  const int64_t s = normalizeAxis(ctx.layer, "start_dim", f.start_dim, rank);
  const int64_t e = normalizeAxis(ctx.layer, "end_dim", f.end_dim, rank);
  if (s > e)
    fail(ctx.layer, "end_dim", ErrorCode::kValue, "end_dim must not come before start_dim");
  Shape out(ctx.in[0].begin(), ctx.in[0].begin() + s);
  int64_t merged = 1;
  for (int64_t i = s; i <= e; ++i) merged = checkedMul(merged, ctx.in[0][i]);
  out.push_back(merged);
  out.append(ctx.in[0].begin() + e + 1, ctx.in[0].end());
  ctx.r.output = out;
  reshapeTo(ctx, out);
}

void analyze(const Add& a, LayerContext& ctx) {
  ctx.r.output = broadcast(ctx.layer, withOperand(ctx, a.operand));
  operandParams(ctx, a.operand);
  if (a.inplace && ctx.r.output != ctx.in[0]) {
    fail(ctx.layer, "inplace", ErrorCode::kShape,
         "an in-place add writes into its first input, so that input must have the "
         "result's shape " +
             shapeToString(ctx.r.output) + ", not " + shapeToString(ctx.in[0]));
  }
  // Nothing is saved either way. AddBackward hands its output gradient to each input
  // unchanged (alpha = 1); only a broadcast input gets a new, reduced tensor (sum_to).
  ctx.r.aliases_input = a.inplace;
  for (size_t k = 0; k < ctx.in.size(); ++k)
    if (ctx.in[k] == ctx.r.output) ctx.r.passes_gradient.set(k);
}

void analyze(const Multiply& m, LayerContext& ctx) {
  ctx.r.output = broadcast(ctx.layer, withOperand(ctx, m.operand));
  operandParams(ctx, m.operand);
  // Each factor's gradient needs the others (MulBackward0 holds self_ and other_). By a
  // tensor that needs no gradient, autograd saves only that tensor (not an activation):
  // measured on 1.13, x * c saves c alone, x * p (p a parameter) saves x too.
  if (!m.operand.present) {
    ctx.saveInputs();
  } else if (m.operand.learned) {
    ctx.r.saved.inputs.set(0);
  }
}

void analyze(const Concat& c, LayerContext& ctx) {
  const std::vector<Shape> all = withOperand(ctx, c.operand);
  operandParams(ctx, c.operand);
  const size_t rank = all[0].size();
  const int64_t axis = normalizeAxis(ctx.layer, "axis", c.axis, rank);
  Shape out = all[0];
  for (size_t k = 1; k < all.size(); ++k) {
    bool ok = all[k].size() == rank;
    for (size_t i = 0; ok && i < rank; ++i)
      ok = static_cast<int64_t>(i) == axis || all[k][i] == out[i];
    if (!ok) {
      fail(ctx.layer, "inputs", ErrorCode::kShape,
           "concat needs shapes equal except along axis " + std::to_string(axis) + ": " +
               shapeToString(all[0]) + " and " + shapeToString(all[k]));
    }
    out[axis] = checkedAdd(out[axis], all[k][axis]);
  }
  ctx.r.output = out;
  ctx.r.passes_gradient.setFirst(ctx.in.size());  // CatBackward narrows: views of one gradient
}

void analyze(const Embedding& e, LayerContext& ctx) {
  ctx.r.output = ctx.in[0];
  ctx.r.output.push_back(e.embedding_dim);
  ctx.r.params = checkedMul(e.num_embeddings, e.embedding_dim);
  ctx.saveInputs();  // the ids, to scatter the gradient
}

void analyze(const ConvTranspose2d& c, LayerContext& ctx) {
  requireRank(ctx.layer, ctx.in[0], 3, "[C, H, W]");
  const int64_t cin = ctx.in[0][0];
  if (c.in_channels && c.in_channels != cin) {
    fail(ctx.layer, "in_channels", ErrorCode::kShape,
         "in_channels is " + std::to_string(c.in_channels) + " but the input has " +
             std::to_string(cin) + " channels");
  }
  if (cin % c.groups || c.out_channels % c.groups) {
    fail(ctx.layer, "groups", ErrorCode::kShape,
         "groups " + std::to_string(c.groups) + " must divide both in channels (" +
             std::to_string(cin) + ") and out_channels (" + std::to_string(c.out_channels) + ")");
  }
  // torch/nn/modules/conv.py, _ConvTransposeNd._output_padding: "output padding must be
  // smaller than either stride or dilation".
  if ((c.output_padding.h >= c.stride.h && c.output_padding.h >= c.dilation.h) ||
      (c.output_padding.w >= c.stride.w && c.output_padding.w >= c.dilation.w)) {
    fail(ctx.layer, "output_padding", ErrorCode::kValue,
         "output_padding must be smaller than the stride or the dilation (as in PyTorch)");
  }
  // Output size (nn.ConvTranspose2d's docs): (in - 1) x stride - 2 x padding +
  // dilation x (kernel - 1) + output_padding + 1.
  auto size = [&](int64_t n, int64_t k, int64_t s, int64_t p, int64_t d, int64_t op) {
    return checkedAdd(checkedSub(checkedMul(n - 1, s), checkedMul(2, p)),
                      checkedAdd(checkedMul(d, k - 1), op + 1));
  };
  ctx.r.output = {
      c.out_channels,
      size(ctx.in[0][1], c.kernel.h, c.stride.h, c.padding.h, c.dilation.h, c.output_padding.h),
      size(ctx.in[0][2], c.kernel.w, c.stride.w, c.padding.w, c.dilation.w, c.output_padding.w)};
  const int64_t per_input =
      checkedMul(checkedMul(c.out_channels / c.groups, c.kernel.h), c.kernel.w);
  ctx.r.params = checkedAdd(checkedMul(per_input, cin), c.bias ? c.out_channels : 0);
  // Every input element is multiplied by a kernel of out/groups x kh x kw weights
  // (fvcore's conv_flop_count for transposed convolutions: batch x prod(w.shape) x
  // prod(x.shape[2:]), with x the input).
  ctx.r.macs_per_sample = checkedMul(ctx.inElements(), per_input);
  // derivatives.yaml, convolution: `input, weight, bias: "grad.defined() ?
  // convolution_backward(grad, input, weight, ...)"`; ConvolutionBackward0 holds input_.
  ctx.saveInputs();
}

void analyze(const Upsample& u, LayerContext& ctx) {
  requireRank(ctx.layer, ctx.in[0], 3, "[C, H, W]");
  if (u.size.h > 0) {
    ctx.r.output = {ctx.in[0][0], u.size.h, u.size.w};
  } else {
    // PyTorch's output size for a scale factor: floor(input x scale)
    // (aten/src/ATen/native/UpSample.cpp, compute_output_size).
    const double h = std::floor(static_cast<double>(ctx.in[0][1]) * u.scale_h);
    const double w = std::floor(static_cast<double>(ctx.in[0][2]) * u.scale_w);
    if (!(h >= 1 && w >= 1 && h <= 9e15 && w <= 9e15)) {
      fail(ctx.layer, "scale_factor", ErrorCode::kShape,
           "scale_factor gives an output of " + std::to_string(h) + " x " + std::to_string(w));
    }
    ctx.r.output = {ctx.in[0][0], static_cast<int64_t>(h), static_cast<int64_t>(w)};
  }
  // Nothing is kept: UpsampleNearest2DBackward0/1 and UpsampleBilinear2DBackward0/1 hold
  // only sizes (1.13's generated Functions.h; derivatives.yaml, upsample_nearest2d:
  // `self: upsample_nearest2d_backward(grad, output_size, self.sizes(), ...)`).
}

void analyze(const PixelShuffle& p, LayerContext& ctx) {
  requireRank(ctx.layer, ctx.in[0], 3, "[C, H, W]");
  const int64_t rr = checkedMul(p.factor, p.factor);
  const int64_t c = ctx.in[0][0], h = ctx.in[0][1], w = ctx.in[0][2];
  if (!p.unshuffle) {
    if (c % rr) {
      fail(ctx.layer, "upscale_factor", ErrorCode::kShape,
           "pixel_shuffle needs channels divisible by upscale_factor^2 = " + std::to_string(rr) +
               ", got " + std::to_string(c));
    }
    ctx.r.output = {c / rr, checkedMul(h, p.factor), checkedMul(w, p.factor)};
  } else {
    if (h % p.factor || w % p.factor) {
      fail(ctx.layer, "downscale_factor", ErrorCode::kShape,
           "pixel_unshuffle needs height and width divisible by downscale_factor " +
               std::to_string(p.factor) + ", got " + shapeToString(ctx.in[0]));
    }
    ctx.r.output = {checkedMul(c, rr), h / p.factor, w / p.factor};
  }
  // A new tensor; PixelShuffleBackward0 / PixelUnshuffleBackward0 keep only the factor
  // (1.13's generated Functions.h; derivatives.yaml, pixel_shuffle: `self:
  // pixel_unshuffle(grad, upscale_factor)`), and the gradient is a new tensor too.
}

void analyze(const Pad2d& p, LayerContext& ctx) {
  requireRank(ctx.layer, ctx.in[0], 3, "[C, H, W]");
  const int64_t h = ctx.in[0][1], w = ctx.in[0][2];
  if (p.mode == PadMode::kReflect && (p.left >= w || p.right >= w || p.top >= h || p.bottom >= h)) {
    // aten/src/ATen/native/ReflectionPad.cpp: "Padding size should be less than the
    // corresponding input dimension".
    fail(ctx.layer, "padding", ErrorCode::kShape,
         "reflect padding must be smaller than the input's height and width " +
             shapeToString(ctx.in[0]));
  }
  ctx.r.output = {ctx.in[0][0], checkedAdd(h, checkedAdd(p.top, p.bottom)),
                  checkedAdd(w, checkedAdd(p.left, p.right))};
  // 1.13's generated Functions.h: ConstantPadNdBackward0 keeps only the amounts (its
  // gradient, constant_pad_nd of the output's by the negated amounts, is a narrowed
  // clone: new memory); ReflectionPad2DBackward0 and ReplicationPad2DBackward0 keep
  // `self_`, the input.
  if (p.mode != PadMode::kConstant) ctx.saveInputs();
}

void analyze(const Permute& p, LayerContext& ctx) {
  const size_t rank = ctx.in[0].size();
  if (p.dims.size() != rank) {
    fail(ctx.layer, "dims", ErrorCode::kShape,
         "permute needs " + std::to_string(rank) + " dims for a sample of shape " +
             shapeToString(ctx.in[0]));
  }
  std::vector<bool> seen(rank, false);
  const Shape st = ctx.strides(0);
  ctx.r.output.clear();
  Shape out_strides{st[0]};
  for (int64_t d : p.dims) {
    const auto a = static_cast<size_t>(normalizeAxis(ctx.layer, "dims", d, rank));
    if (seen[a]) fail(ctx.layer, "dims", ErrorCode::kValue, "dims repeats a dimension");
    seen[a] = true;
    ctx.r.output.push_back(ctx.in[0][a]);
    out_strides.push_back(st[a + 1]);
  }
  // A view (PermuteBackward0 keeps only dims; its gradient is a permuted view).
  ctx.r.aliases_input = true;
  ctx.r.passes_gradient.set(0);
  if (out_strides != contiguousStrides(withBatch(ctx.r.output))) ctx.r.strides = out_strides;
}

void analyze(const Reshape& s, LayerContext& ctx) {
  Shape out = s.shape;
  const int64_t elements = ctx.inElements();
  int64_t known = 1;
  int infer = -1;
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k] == -1) {
      if (infer >= 0) fail(ctx.layer, "shape", ErrorCode::kValue, "only one dimension may be -1");
      infer = static_cast<int>(k);
    } else if (out[k] == 0) {
      fail(ctx.layer, "shape", ErrorCode::kValue, "dimensions must be positive or -1");
    } else {
      known = checkedMul(known, out[k]);
    }
  }
  if (infer >= 0 && elements % known == 0) out[static_cast<size_t>(infer)] = elements / known;
  if (elementCount(out) != elements || out.empty()) {
    fail(ctx.layer, "shape", ErrorCode::kShape,
         "cannot reshape " + shapeToString(ctx.in[0]) + " (" + std::to_string(elements) +
             " values) to " + shapeToString(s.shape));
  }
  ctx.r.output = out;
  reshapeTo(ctx, out);
}

void analyze(const MatMul&, LayerContext& ctx) {
  if (ctx.in[0].size() < 2 || ctx.in[1].size() < 2) {
    fail(ctx.layer, "inputs", ErrorCode::kShape,
         "matmul needs samples of two or more dimensions, got " + shapeToString(ctx.in[0]) +
             " and " + shapeToString(ctx.in[1]));
  }
  const int64_t n = ctx.in[0][ctx.in[0].size() - 2], k = ctx.in[0].back();
  const int64_t k2 = ctx.in[1][ctx.in[1].size() - 2], m = ctx.in[1].back();
  if (k != k2) {
    fail(ctx.layer, "inputs", ErrorCode::kShape,
         "matmul of " + shapeToString(ctx.in[0]) + " and " + shapeToString(ctx.in[1]) +
             ": the inner dimensions differ");
  }
  const Shape b0(ctx.in[0].begin(), ctx.in[0].end() - 2),
      b1(ctx.in[1].begin(), ctx.in[1].end() - 2);
  const Shape batch = broadcast(ctx.layer, {b0, b1});
  ctx.r.output = batch;
  ctx.r.output.push_back(n);
  ctx.r.output.push_back(m);
  const int64_t batches = elementCount(batch);
  ctx.r.macs_per_sample = checkedMul(checkedMul(checkedMul(batches, n), k), m);
  // aten/src/ATen/native/LinearAlgebra.cpp (v1.13), matmul of two batched tensors:
  // `tensor1.expand(tensor1_expand_size).reshape({expand_batch_product, n, m1})`, the
  // same for tensor2, then bmm, which keeps both (derivatives.yaml, bmm: `self:
  // grad.bmm(mat2.transpose(1, 2).conj())`, `mat2: self.transpose(1, 2).conj().bmm(grad)`;
  // BmmBackward0 holds self_ and mat2_). Where reshape cannot view (a permuted Q, K or V
  // whose heads are not outermost), the saved operand is a new copy.
  for (size_t x = 0; x < 2; ++x) {
    const Shape& own = x == 0 ? b0 : b1;
    Shape full{kAnyBatch}, st{ctx.strides(x)[0]};
    const Shape in_st = ctx.strides(x);
    for (size_t d = 0; d < batch.size(); ++d) {
      // Expanded dimensions (missing or of size 1) get stride 0.
      const size_t pad = batch.size() - own.size();
      full.push_back(batch[d]);
      const bool expanded = d < pad || own[d - pad] != batch[d];
      st.push_back(expanded ? 0 : in_st[1 + d - pad]);
    }
    for (size_t d = ctx.in[x].size() - 2; d < ctx.in[x].size(); ++d) {
      full.push_back(ctx.in[x][d]);
      st.push_back(in_st[1 + d]);
    }
    ctx.saveReshaped(
        x, full, st,
        Shape{checkedMul(kAnyBatch, batches), ctx.in[x][ctx.in[x].size() - 2], ctx.in[x].back()});
  }
}

void analyze(const Select& s, LayerContext& ctx) {
  const size_t rank = ctx.in[0].size();
  if (rank < 2) fail(ctx.layer, "dim", ErrorCode::kShape, "select needs a sample of 2+ dimensions");
  const auto d = static_cast<size_t>(normalizeAxis(ctx.layer, "dim", s.dim, rank));
  if (s.index < -ctx.in[0][d] || s.index >= ctx.in[0][d]) {
    fail(ctx.layer, "index", ErrorCode::kValue,
         "index " + std::to_string(s.index) + " is outside dimension " + std::to_string(d) +
             " of size " + std::to_string(ctx.in[0][d]));
  }
  const Shape st = ctx.strides(0);
  Shape out_st{st[0]};
  for (size_t k = 0; k < rank; ++k) {
    if (k == d) continue;
    ctx.r.output.push_back(ctx.in[0][k]);
    out_st.push_back(st[k + 1]);
  }
  // A view; SelectBackward0 keeps only sizes (its gradient is a new zero tensor).
  ctx.r.aliases_input = true;
  if (out_st != contiguousStrides(withBatch(ctx.r.output))) ctx.r.strides = out_st;
}

void analyze(const Narrow& n, LayerContext& ctx) {
  const size_t rank = ctx.in[0].size();
  const auto d = static_cast<size_t>(normalizeAxis(ctx.layer, "dim", n.dim, rank));
  const int64_t size = ctx.in[0][d];
  const int64_t start = n.start < 0 ? n.start + size : n.start;
  if (start < 0 || start > size || n.length > size - start) {
    fail(ctx.layer, "length", ErrorCode::kValue,
         "entries " + std::to_string(n.start) + " to " + std::to_string(n.start) + " + " +
             std::to_string(n.length) + " are outside dimension " + std::to_string(d) +
             " of size " + std::to_string(size));
  }
  ctx.r.output = ctx.in[0];
  ctx.r.output[d] = n.length;
  // A view with the input's strides; SliceBackward0 keeps only sizes (its gradient is a new
  // zero tensor of the input's size with the slice copied in).
  ctx.r.aliases_input = true;
  const Shape st = ctx.strides(0);
  if (st != contiguousStrides(withBatch(ctx.r.output))) ctx.r.strides = st;
}

void analyze(const Mean& m, LayerContext& ctx) {
  const size_t rank = ctx.in[0].size();
  if (m.dims.empty()) fail(ctx.layer, "dims", ErrorCode::kValue, "dims names no dimension");
  std::vector<bool> reduced(rank, false);
  for (int64_t d : m.dims) {
    const auto a = static_cast<size_t>(normalizeAxis(ctx.layer, "dims", d, rank));
    if (reduced[a]) fail(ctx.layer, "dims", ErrorCode::kValue, "dims repeats a dimension");
    reduced[a] = true;
  }
  ctx.r.output.clear();
  for (size_t k = 0; k < rank; ++k) {
    if (!reduced[k]) ctx.r.output.push_back(ctx.in[0][k]);
    if (reduced[k] && m.keepdim) ctx.r.output.push_back(1);
  }
  // MeanBackward1 keeps only sizes (its gradient, grad.expand(sizes) / n, is new memory).
}

void analyze(const Softmax& s, LayerContext& ctx) {
  normalizeAxis(ctx.layer, "dim", s.dim, ctx.in[0].size());
  ctx.r.output = ctx.in[0];
  ctx.r.saved.output = true;
}

}  // namespace

LayerAnalysis analyzeLayer(const Layer& layer, const std::vector<Shape>& inputs, Mode mode,
                           DType activation, const std::vector<Shape>* strides, DType weights) {
  LayerContext a{layer, inputs, mode, dtypeBits(activation) / 8, strides, weights, {}};
  try {
    std::visit([&a](const auto& spec) { analyze(spec, a); }, layer.spec);
    // The output tensor's bytes must fit too, or the memory simulation would overflow
    // later without a layer to blame.
    checkedMul(elementCount(a.r.output), a.act_bytes);
  } catch (const ArithmeticOverflow&) {
    fail(layer, "", ErrorCode::kTooLarge, "sizes overflow 64-bit arithmetic");
  } catch (const RankOverflow&) {
    failRank(layer);
  }
  if (a.r.output.size() > kMaxRank) failRank(layer);
  for (int64_t d : a.r.output) {
    if (d <= 0)
      fail(layer, "", ErrorCode::kShape,
           "output shape " + shapeToString(a.r.output) + " has an empty dimension");
  }
  if (!a.training()) a.r.saved = SavedForBackward{};  // inference saves nothing
  return std::move(a.r);                              // a member: returned by copy without the move
}

}  // namespace dlcost
