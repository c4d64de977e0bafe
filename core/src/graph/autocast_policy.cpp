#include "graph/autocast_policy.hpp"

#include "dlcost/base/checked.hpp"

namespace dlcost {

namespace {

/// Lower-precision ops on both devices in 1.13.1: conv1d/2d/3d, linear, mm, bmm, addmm,
/// matmul. conv_transpose2d joined CPU's list only later (2.x): on 1.13.1's CPU it is on the
/// fp32 list, so a bf16 input comes out fp32.
bool onLowerList(const Layer& layer, DType low) {
  if (std::holds_alternative<Conv2d>(layer.spec) || std::holds_alternative<Linear>(layer.spec) ||
      std::holds_alternative<MatMul>(layer.spec)) {
    return true;
  }
  return std::holds_alternative<ConvTranspose2d>(layer.spec) && low == DType::kFp16;
}

/// CUDA's fp32 list holds layer_norm, group_norm and (fp32_set_opt_dtype) softmax; CPU's
/// holds none of them (1.13.1 runs layer_norm in its input's format, and refuses a bf16
/// input with fp32 weights) but holds conv_transpose2d and reflection / replication pads.
bool onFp32List(const Layer& layer, DType low) {
  if (low == DType::kFp16) {
    return std::holds_alternative<LayerNorm>(layer.spec) ||
           std::holds_alternative<GroupNorm>(layer.spec) ||
           std::holds_alternative<Softmax>(layer.spec);
  }
  if (std::holds_alternative<ConvTranspose2d>(layer.spec)) return true;
  const auto* pad = std::get_if<Pad2d>(&layer.spec);
  return pad != nullptr && pad->mode != PadMode::kConstant;
}

/// Whether a tensor operand (a parameter or buffer, fp32 under autocast) of add, multiply or
/// concat promotes a 16-bit input to fp32. A scalar does not: a Python number or a 0-d
/// tensor takes part in type promotion only where no dimensioned operand has its category
/// (`x / 8` stays bf16), while a class token or position embedding does.
bool promotingOperand(const Layer& layer) {
  const TensorOperand* o = nullptr;
  if (const auto* a = std::get_if<Add>(&layer.spec)) o = &a->operand;
  if (const auto* m = std::get_if<Multiply>(&layer.spec)) o = &m->operand;
  if (const auto* c = std::get_if<Concat>(&layer.spec)) o = &c->operand;
  return o != nullptr && o->present && !o->shape.empty();
}

/// Elements of a lower-precision layer's bias (the rest of its parameters is the weight).
int64_t biasElements(const Layer& layer) {
  if (const auto* c = std::get_if<Conv2d>(&layer.spec)) return c->bias ? c->out_channels : 0;
  if (const auto* t = std::get_if<ConvTranspose2d>(&layer.spec)) {
    return t->bias ? t->out_channels : 0;
  }
  if (const auto* l = std::get_if<Linear>(&layer.spec)) return l->bias ? l->out_features : 0;
  return 0;
}

/// Type promotion of the inputs' formats: fp32 wins over 16 bits; token ids (int64) read by
/// an embedding give its fp32 table's format.
DType promoted(const Layer& layer, const std::vector<DType>& inputs) {
  if (std::holds_alternative<Embedding>(layer.spec) || promotingOperand(layer)) {
    return DType::kFp32;
  }
  DType out = inputs.empty() ? DType::kFp32 : inputs.front();
  for (DType d : inputs) {
    if (d == DType::kFp32 || d == DType::kInt64) out = DType::kFp32;
  }
  return out;
}

}  // namespace

CastPolicy castPolicy(const Layer& layer, DType low) {
  if (onLowerList(layer, low)) return CastPolicy::kLowerPrecision;
  if (onFp32List(layer, low)) return CastPolicy::kFp32;
  return CastPolicy::kFollow;
}

AutocastStep autocastStep(const Layer& layer, const std::vector<DType>& inputs, DType low) {
  AutocastStep s;
  const CastPolicy policy = castPolicy(layer, low);
  if (policy == CastPolicy::kFollow) {
    s.compute = promoted(layer, inputs);
    return s;
  }
  s.compute = policy == CastPolicy::kLowerPrecision ? low : DType::kFp32;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k] != s.compute) s.cast.set(k);
  }
  return s;
}

WeightCasts weightCasts(const Layer& layer, int64_t params, DType low) {
  WeightCasts c;
  if (params == 0 || castPolicy(layer, low) != CastPolicy::kLowerPrecision) return c;
  c.bias = biasElements(layer);
  c.weight = checkedSub(params, c.bias);
  return c;
}

void keepCastCopies(const AutocastStep& step, const std::vector<int64_t>& input_elements,
                    LayerAnalysis& a) {
  const int64_t bytes = dtypeBits(step.compute) / 8;
  InputFlags kept;
  for (size_t k = 0; k < input_elements.size(); ++k) {
    if (!a.saved.inputs[k]) continue;
    if (!step.cast[k]) {
      kept.set(k);
      continue;
    }
    a.saved.extra_bytes_per_sample =
        checkedAdd(a.saved.extra_bytes_per_sample, checkedMul(input_elements[k], bytes));
  }
  a.saved.inputs = kept;
}

}  // namespace dlcost
