#include "layer_json.hpp"

#include "dlcost/engine_limits.hpp"

namespace dlcost {

namespace {

constexpr int64_t kMax = kMaxDimension;

// Fields every layer object may have besides its own.
#define DLCOST_COMMON "type", "name", "inputs", "comment"

Conv2d conv2d(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "out_channels", "in_channels", "kernel", "stride", "padding",
                   "dilation", "groups", "bias"});
  Conv2d c;
  c.out_channels = r.requiredInt("out_channels", 1, kMax);
  c.in_channels = r.optionalInt("in_channels", 0, 1, kMax);
  c.kernel = r.requiredPair("kernel", 1, kMax);
  c.stride = r.optionalPair("stride", {1, 1}, 1, kMax);
  c.dilation = r.optionalPair("dilation", {1, 1}, 1, kMax);
  c.groups = r.optionalInt("groups", 1, 1, kMax);
  c.bias = r.optionalBool("bias", true);
  if (const auto* p = r.find("padding"); p && p->is_string()) {
    const std::string s = p->get<std::string>();
    if (s == "same") {
      c.padding_same = true;
    } else if (s != "valid") {
      throw InputError(ErrorCode::kValue, r.pathOf("padding"),
                       "must be a number, [h, w], \"same\" or \"valid\", not \"" + s + "\"");
    }
  } else {
    c.padding = r.optionalPair("padding", {0, 0}, 0, kMax);
  }
  return c;
}

Linear linear(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "out_features", "in_features", "bias"});
  Linear l;
  l.out_features = r.requiredInt("out_features", 1, kMax);
  l.in_features = r.optionalInt("in_features", 0, 1, kMax);
  l.bias = r.optionalBool("bias", true);
  return l;
}

Pool2d pool2d(const ObjectReader& r, PoolKind kind) {
  if (kind == PoolKind::kMax) {
    r.rejectUnknown({DLCOST_COMMON, "kernel", "stride", "padding", "dilation", "ceil_mode"});
  } else {
    r.rejectUnknown(
        {DLCOST_COMMON, "kernel", "stride", "padding", "ceil_mode", "count_include_pad"});
    r.optionalBool("count_include_pad", true);  // changes values, not cost
  }
  Pool2d p;
  p.kind = kind;
  p.kernel = r.requiredPair("kernel", 1, kMax);
  p.stride = r.optionalPair("stride", p.kernel, 1, kMax);
  p.padding = r.optionalPair("padding", {0, 0}, 0, kMax);
  p.dilation = r.optionalPair("dilation", {1, 1}, 1, kMax);
  p.ceil_mode = r.optionalBool("ceil_mode", false);
  return p;
}

AdaptivePool2d adaptive(const ObjectReader& r, PoolKind kind, bool global) {
  AdaptivePool2d p;
  p.kind = kind;
  if (global) {
    r.rejectUnknown({DLCOST_COMMON});
  } else {
    r.rejectUnknown({DLCOST_COMMON, "output_size"});
    p.output = r.requiredPair("output_size", 1, kMax);
  }
  return p;
}

Activation activation(const ObjectReader& r, ActivationKind kind, bool can_inplace) {
  if (can_inplace) {
    r.rejectUnknown({DLCOST_COMMON, "inplace", "approximate"});
  } else {
    r.rejectUnknown({DLCOST_COMMON, "approximate"});
  }
  if (r.has("approximate") && kind != ActivationKind::kGelu) {
    throw InputError(ErrorCode::kUnknownField, r.pathOf("approximate"),
                     "unknown field 'approximate' (only gelu has it)");
  }
  // nn.GELU(approximate=...) accepts exactly these two; the cost is the same either way.
  if (const std::string a = r.optionalString("approximate", "none"); a != "none" && a != "tanh") {
    throw InputError(ErrorCode::kValue, r.pathOf("approximate"),
                     "must be \"none\" or \"tanh\", not \"" + a + "\"");
  }
  return Activation{kind, can_inplace && r.optionalBool("inplace", false)};
}

}  // namespace

const std::vector<std::string>& layerTypeNames() {
  static const std::vector<std::string> kNames = {"conv2d",
                                                  "linear",
                                                  "maxpool2d",
                                                  "avgpool2d",
                                                  "adaptive_avgpool2d",
                                                  "adaptive_maxpool2d",
                                                  "global_avgpool2d",
                                                  "batchnorm2d",
                                                  "layernorm",
                                                  "relu",
                                                  "relu6",
                                                  "gelu",
                                                  "silu",
                                                  "sigmoid",
                                                  "tanh",
                                                  "hardswish",
                                                  "hardsigmoid",
                                                  "dropout",
                                                  "flatten",
                                                  "add",
                                                  "multiply",
                                                  "concat",
                                                  "embedding",
                                                  "softmax"};
  return kNames;
}

LayerSpec parseLayerSpec(const std::string& type, const ObjectReader& r) {
  if (type == "conv2d") return conv2d(r);
  if (type == "linear") return linear(r);
  if (type == "maxpool2d") return pool2d(r, PoolKind::kMax);
  if (type == "avgpool2d") return pool2d(r, PoolKind::kAvg);
  if (type == "adaptive_avgpool2d") return adaptive(r, PoolKind::kAvg, false);
  if (type == "adaptive_maxpool2d") return adaptive(r, PoolKind::kMax, false);
  if (type == "global_avgpool2d") return adaptive(r, PoolKind::kAvg, true);
  if (type == "batchnorm2d") {
    r.rejectUnknown({DLCOST_COMMON, "affine", "track_running_stats", "eps", "momentum"});
    r.optionalNumber("eps", 1e-5, 0, 1);
    r.optionalNumber("momentum", 0.1, 0, 1);
    return BatchNorm2d{r.optionalBool("affine", true), r.optionalBool("track_running_stats", true)};
  }
  if (type == "layernorm") {
    r.rejectUnknown({DLCOST_COMMON, "normalized_dims", "elementwise_affine", "bias", "eps"});
    r.optionalNumber("eps", 1e-5, 0, 1);
    return LayerNorm{r.optionalInt("normalized_dims", 1, 1, 8),
                     r.optionalBool("elementwise_affine", true), r.optionalBool("bias", true)};
  }
  if (type == "relu") return activation(r, ActivationKind::kRelu, true);
  if (type == "relu6") return activation(r, ActivationKind::kRelu6, true);
  if (type == "gelu") return activation(r, ActivationKind::kGelu, false);
  if (type == "silu") return activation(r, ActivationKind::kSilu, true);
  if (type == "sigmoid") return activation(r, ActivationKind::kSigmoid, true);
  if (type == "tanh") return activation(r, ActivationKind::kTanh, true);
  if (type == "hardswish") return activation(r, ActivationKind::kHardswish, true);
  if (type == "hardsigmoid") return activation(r, ActivationKind::kHardsigmoid, true);
  if (type == "dropout") {
    r.rejectUnknown({DLCOST_COMMON, "p", "inplace"});
    return Dropout{r.optionalNumber("p", 0.5, 0, 1), r.optionalBool("inplace", false)};
  }
  if (type == "flatten") {
    r.rejectUnknown({DLCOST_COMMON, "start_dim", "end_dim"});
    return Flatten{r.optionalInt("start_dim", 0, -8, 8), r.optionalInt("end_dim", -1, -8, 8)};
  }
  if (type == "add") {
    r.rejectUnknown({DLCOST_COMMON, "inplace"});
    return Add{r.optionalBool("inplace", false)};
  }
  if (type == "multiply") {
    r.rejectUnknown({DLCOST_COMMON});
    return Multiply{};
  }
  if (type == "concat") {
    r.rejectUnknown({DLCOST_COMMON, "axis"});
    return Concat{r.optionalInt("axis", 0, -8, 8)};
  }
  if (type == "embedding") {
    r.rejectUnknown({DLCOST_COMMON, "num_embeddings", "embedding_dim"});
    return Embedding{r.requiredInt("num_embeddings", 1, kMax),
                     r.requiredInt("embedding_dim", 1, kMax)};
  }
  if (type == "softmax") {
    r.rejectUnknown({DLCOST_COMMON, "dim"});
    return Softmax{r.optionalInt("dim", -1, -8, 8)};
  }
  std::string list;
  for (const auto& n : layerTypeNames()) list += (list.empty() ? "" : ", ") + n;
  throw InputError(ErrorCode::kValue, r.pathOf("type"),
                   "unknown layer type '" + type + "' (known: " + list + ")");
}

int inputArity(const LayerSpec& spec) {
  if (std::holds_alternative<Add>(spec) || std::holds_alternative<Multiply>(spec) ||
      std::holds_alternative<Concat>(spec)) {
    return 0;
  }
  return 1;
}

#undef DLCOST_COMMON

}  // namespace dlcost
