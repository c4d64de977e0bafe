#include "graph/layer_json.hpp"

#include "dlcost/base/engine_limits.hpp"

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

ConvTranspose2d convTranspose2d(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "out_channels", "in_channels", "kernel", "stride", "padding",
                   "output_padding", "dilation", "groups", "bias"});
  ConvTranspose2d c;
  c.out_channels = r.requiredInt("out_channels", 1, kMax);
  c.in_channels = r.optionalInt("in_channels", 0, 1, kMax);
  c.kernel = r.requiredPair("kernel", 1, kMax);
  c.stride = r.optionalPair("stride", {1, 1}, 1, kMax);
  c.padding = r.optionalPair("padding", {0, 0}, 0, kMax);
  c.output_padding = r.optionalPair("output_padding", {0, 0}, 0, kMax);
  c.dilation = r.optionalPair("dilation", {1, 1}, 1, kMax);
  c.groups = r.optionalInt("groups", 1, 1, kMax);
  c.bias = r.optionalBool("bias", true);
  return c;
}

Upsample upsample(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "mode", "size", "scale_factor", "align_corners"});
  Upsample u;
  const std::string mode = r.optionalString("mode", "nearest");
  if (mode == "bilinear" || mode == "bicubic") {
    u.mode = mode == "bilinear" ? UpsampleMode::kBilinear : UpsampleMode::kBicubic;
    r.optionalBool("align_corners", false);  // changes values, not cost
  } else if (mode != "nearest") {
    throw InputError(ErrorCode::kValue, r.pathOf("mode"),
                     "must be \"nearest\", \"bilinear\" or \"bicubic\", not \"" + mode + "\"");
  } else if (r.has("align_corners")) {
    throw InputError(ErrorCode::kUnknownField, r.pathOf("align_corners"),
                     "align_corners applies to modes \"bilinear\" and \"bicubic\" only (as in "
                     "PyTorch)");
  }
  if (r.has("size") == r.has("scale_factor")) {
    throw InputError(ErrorCode::kValue, r.pathOf(r.has("size") ? "scale_factor" : "size"),
                     "give exactly one of size and scale_factor (as nn.Upsample)");
  }
  if (r.has("size")) {
    u.size = r.requiredPair("size", 1, kMax);
    return u;
  }
  const nlohmann::json& f = r.require("scale_factor");
  auto factor = [&](const nlohmann::json& v, const std::string& path) {
    if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 1e6) {
      throw InputError(ErrorCode::kValue, path, "must be a number in (0, 1e6], a factor");
    }
    return v.get<double>();
  };
  if (f.is_array() && f.size() == 2) {
    u.scale_h = factor(f[0], r.pathOf("scale_factor", 0));
    u.scale_w = factor(f[1], r.pathOf("scale_factor", 1));
  } else {
    u.scale_h = u.scale_w = factor(f, r.pathOf("scale_factor"));
  }
  return u;
}

/// "padding": one amount for all four sides, or [left, right, top, bottom] (F.pad's order).
Pad2d pad2d(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "padding", "mode", "value"});
  Pad2d p;
  const std::string mode = r.optionalString("mode", "constant");
  if (mode == "reflect") {
    p.mode = PadMode::kReflect;
  } else if (mode == "replicate") {
    p.mode = PadMode::kReplicate;
  } else if (mode != "constant") {
    throw InputError(ErrorCode::kValue, r.pathOf("mode"),
                     "must be \"constant\", \"reflect\" or \"replicate\", not \"" + mode + "\"");
  }
  if (r.has("value") && p.mode != PadMode::kConstant) {
    throw InputError(ErrorCode::kUnknownField, r.pathOf("value"),
                     "value applies to mode \"constant\" only (as in F.pad)");
  }
  r.optionalNumber("value", 0, -1e300, 1e300);  // changes values, not cost
  const nlohmann::json& a = r.require("padding");
  if (a.is_array()) {
    if (a.size() != 4) {
      throw InputError(ErrorCode::kValue, r.pathOf("padding"),
                       "must be a number or [left, right, top, bottom]");
    }
    int64_t* sides[] = {&p.left, &p.right, &p.top, &p.bottom};
    for (size_t k = 0; k < 4; ++k) *sides[k] = readInt(a[k], r.pathOf("padding", k), 0, kMax);
  } else {
    p.left = p.right = p.top = p.bottom = readInt(a, r.pathOf("padding"), 0, kMax);
  }
  return p;
}

/// Integers of an array field, each in [min, max], at most 8 (kMaxRank) of them.
Shape intList(const ObjectReader& r, const std::string& key, int64_t min, int64_t max) {
  const nlohmann::json& a = r.require(key);
  if (!a.is_array() || a.size() > kMaxRank) {
    throw InputError(ErrorCode::kValue, r.pathOf(key), "must be an array of at most 8 integers");
  }
  Shape out;
  for (size_t k = 0; k < a.size(); ++k) out.push_back(readInt(a[k], r.pathOf(key, k), min, max));
  return out;
}

/// The "parameter" (learned) or "constant" (fixed) operand of add, multiply and concat: the
/// tensor's per-sample shape.
TensorOperand operand(const ObjectReader& r) {
  TensorOperand t;
  if (r.has("parameter") && r.has("constant")) {
    throw InputError(ErrorCode::kValue, r.pathOf("constant"),
                     "give a parameter or a constant operand, not both");
  }
  const char* key = r.has("parameter") ? "parameter" : r.has("constant") ? "constant" : nullptr;
  if (!key) return t;
  t.present = true;
  t.learned = r.has("parameter");
  t.shape = intList(r, key, 1, kMax);
  return t;
}

Linear linear(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "out_features", "in_features", "bias"});
  Linear l;
  l.out_features = r.requiredInt("out_features", 1, kMax);
  l.in_features = r.optionalInt("in_features", 0, 1, kMax);
  l.bias = r.optionalBool("bias", true);
  return l;
}

template <PoolKind kind>
Pool2d pool2d(const ObjectReader& r) {
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

template <PoolKind kind, bool global>
AdaptivePool2d adaptive(const ObjectReader& r) {
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

template <ActivationKind kind, bool can_inplace>
Activation activation(const ObjectReader& r) {
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

Activation leakyRelu(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "inplace", "negative_slope"});
  // Any slope computes the same; an in-place one must be positive to save its result
  // (derivatives.yaml, leaky_relu_: "In-place leakyReLu backward calculation has to have
  // negative_slope greater than 0"): refused rather than modelled wrongly.
  const bool inplace = r.optionalBool("inplace", false);
  if (r.optionalNumber("negative_slope", 0.01, -1e300, 1e300) <= 0 && inplace) {
    throw InputError(ErrorCode::kValue, r.pathOf("negative_slope"),
                     "an in-place leaky_relu needs a positive negative_slope (as in PyTorch, "
                     "whose backward then reads the result)");
  }
  return Activation{ActivationKind::kLeakyRelu, inplace};
}

BatchNorm2d batchNorm2d(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "affine", "track_running_stats", "eps", "momentum"});
  r.optionalNumber("eps", 1e-5, 0, 1);
  r.optionalNumber("momentum", 0.1, 0, 1);
  return BatchNorm2d{r.optionalBool("affine", true), r.optionalBool("track_running_stats", true)};
}

InstanceNorm2d instanceNorm2d(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "affine", "eps", "momentum"});
  r.optionalNumber("eps", 1e-5, 0, 1);
  r.optionalNumber("momentum", 0.1, 0, 1);
  return InstanceNorm2d{r.optionalBool("affine", false)};
}

GroupNorm groupNorm(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "num_groups", "affine", "eps"});
  r.optionalNumber("eps", 1e-5, 0, 1);
  return GroupNorm{r.requiredInt("num_groups", 1, kMax), r.optionalBool("affine", true)};
}

LayerNorm layerNorm(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "normalized_dims", "elementwise_affine", "bias", "eps"});
  r.optionalNumber("eps", 1e-5, 0, 1);
  return LayerNorm{r.optionalInt("normalized_dims", 1, 1, 8),
                   r.optionalBool("elementwise_affine", true), r.optionalBool("bias", true)};
}

template <bool unshuffle>
PixelShuffle pixelShuffle(const ObjectReader& r) {
  const char* field = unshuffle ? "downscale_factor" : "upscale_factor";
  r.rejectUnknown({DLCOST_COMMON, field});
  return PixelShuffle{r.requiredInt(field, 1, 1 << 20), unshuffle};
}

Dropout dropout(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "p", "inplace"});
  return Dropout{r.optionalNumber("p", 0.5, 0, 1), r.optionalBool("inplace", false)};
}

Flatten flatten(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "start_dim", "end_dim"});
  return Flatten{r.optionalInt("start_dim", 0, -8, 8), r.optionalInt("end_dim", -1, -8, 8)};
}

Add add(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "inplace", "parameter", "constant"});
  return Add{r.optionalBool("inplace", false), operand(r)};
}

Multiply multiply(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "parameter", "constant"});
  return Multiply{operand(r)};
}

Concat concat(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "axis", "parameter", "constant"});
  return Concat{r.optionalInt("axis", 0, -8, 8), operand(r)};
}

Permute permute(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "dims"});
  const Shape dims = intList(r, "dims", -8, 7);
  return Permute{{dims.begin(), dims.end()}};
}

Reshape reshape(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "shape"});
  return Reshape{intList(r, "shape", -1, kMax)};
}

MatMul matMul(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON});
  return MatMul{};
}

Select select(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "dim", "index"});
  return Select{r.optionalInt("dim", 0, -8, 7), r.optionalInt("index", 0, -kMax, kMax)};
}

Narrow narrow(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "dim", "start", "length"});
  return Narrow{r.optionalInt("dim", 0, -8, 7), r.optionalInt("start", 0, -kMax, kMax),
                r.requiredInt("length", 1, kMax)};
}

Mean mean(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "dims", "keepdim"});
  const Shape dims = intList(r, "dims", -8, 7);
  return Mean{{dims.begin(), dims.end()}, r.optionalBool("keepdim", false)};
}

Embedding embedding(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "num_embeddings", "embedding_dim"});
  return Embedding{r.requiredInt("num_embeddings", 1, kMax),
                   r.requiredInt("embedding_dim", 1, kMax)};
}

Softmax softmax(const ObjectReader& r) {
  r.rejectUnknown({DLCOST_COMMON, "dim"});
  return Softmax{r.optionalInt("dim", -1, -8, 8)};
}

/// One of the readers above, its result as a LayerSpec: what the table holds.
template <auto read>
LayerSpec asSpec(const ObjectReader& r) {
  return read(r);
}

struct LayerType {
  const char* name;
  LayerSpec (*read)(const ObjectReader&);
};

/// Every layer type with its reader, in the order the error for an unknown type lists them.
const LayerType kLayerTypes[] = {
    {"conv2d", asSpec<conv2d>},
    {"linear", asSpec<linear>},
    {"maxpool2d", asSpec<pool2d<PoolKind::kMax>>},
    {"avgpool2d", asSpec<pool2d<PoolKind::kAvg>>},
    {"adaptive_avgpool2d", asSpec<adaptive<PoolKind::kAvg, false>>},
    {"adaptive_maxpool2d", asSpec<adaptive<PoolKind::kMax, false>>},
    {"global_avgpool2d", asSpec<adaptive<PoolKind::kAvg, true>>},
    {"batchnorm2d", asSpec<batchNorm2d>},
    {"layernorm", asSpec<layerNorm>},
    {"relu", asSpec<activation<ActivationKind::kRelu, true>>},
    {"relu6", asSpec<activation<ActivationKind::kRelu6, true>>},
    {"gelu", asSpec<activation<ActivationKind::kGelu, false>>},
    {"silu", asSpec<activation<ActivationKind::kSilu, true>>},
    {"sigmoid", asSpec<activation<ActivationKind::kSigmoid, true>>},
    {"tanh", asSpec<activation<ActivationKind::kTanh, true>>},
    {"hardswish", asSpec<activation<ActivationKind::kHardswish, true>>},
    {"hardsigmoid", asSpec<activation<ActivationKind::kHardsigmoid, true>>},
    {"dropout", asSpec<dropout>},
    {"flatten", asSpec<flatten>},
    {"add", asSpec<add>},
    {"multiply", asSpec<multiply>},
    {"concat", asSpec<concat>},
    {"embedding", asSpec<embedding>},
    {"softmax", asSpec<softmax>},
    {"conv_transpose2d", asSpec<convTranspose2d>},
    {"upsample", asSpec<upsample>},
    {"leaky_relu", asSpec<leakyRelu>},
    {"permute", asSpec<permute>},
    {"reshape", asSpec<reshape>},
    {"matmul", asSpec<matMul>},
    {"select", asSpec<select>},
    {"instancenorm2d", asSpec<instanceNorm2d>},
    {"pixel_shuffle", asSpec<pixelShuffle<false>>},
    {"pixel_unshuffle", asSpec<pixelShuffle<true>>},
    {"pad", asSpec<pad2d>},
    {"groupnorm", asSpec<groupNorm>},
    {"narrow", asSpec<narrow>},
    {"mean", asSpec<mean>},
};

}  // namespace

const std::vector<std::string>& layerTypeNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const LayerType& t : kLayerTypes) names.push_back(t.name);
    return names;
  }();
  return kNames;
}

LayerSpec parseLayerSpec(const std::string& type, const ObjectReader& r) {
  for (const LayerType& t : kLayerTypes)
    if (type == t.name) return t.read(r);
  std::string list;
  for (const auto& n : layerTypeNames()) list += (list.empty() ? "" : ", ") + n;
  throw InputError(ErrorCode::kValue, r.pathOf("type"),
                   "unknown layer type '" + type + "' (known: " + list + ")");
}

int inputArity(const LayerSpec& spec) {
  if (const auto* a = std::get_if<Add>(&spec)) return a->operand.present ? 1 : 0;
  if (const auto* m = std::get_if<Multiply>(&spec)) return m->operand.present ? 1 : 0;
  if (const auto* c = std::get_if<Concat>(&spec)) return c->operand.present ? -1 : 0;
  if (std::holds_alternative<MatMul>(spec)) return 2;
  return 1;
}

#undef DLCOST_COMMON

}  // namespace dlcost
