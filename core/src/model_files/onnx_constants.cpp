// Evaluation of ONNX shape arithmetic (see onnx_constants.hpp), following the operators'
// definitions in onnx/docs/Operators.md; values are held as doubles (every shape amount is
// within 2^53) and never exceed kOnnxMaxValues.
#include "model_files/onnx_constants.hpp"

#include <cmath>
#include <map>
#include <set>

namespace dlcost {

namespace {

const OnnxAttribute* attr(const OnnxNode& n, const char* name) {
  for (const OnnxAttribute& a : n.attributes)
    if (a.name == name) return &a;
  return nullptr;
}

[[noreturn]] void notFolded(const OnnxNode& n, const std::string& why) {
  throw ConstantNotFolded{n.op_type + " of constants " + why};
}

const OnnxTensor& input(const OnnxNode& n, const std::vector<const OnnxTensor*>& in, size_t k) {
  if (k >= in.size() || !in[k]) notFolded(n, "without its input " + std::to_string(k));
  if (!in[k]->has_values) notFolded(n, "whose input '" + in[k]->name + "' has no values stored");
  return *in[k];
}

OnnxTensor make(std::vector<int64_t> dims, std::vector<double> values, int32_t type) {
  OnnxTensor t;
  t.data_type = type;
  t.dims = std::move(dims);
  t.values = std::move(values);
  t.elements = static_cast<int64_t>(t.values.size());
  t.has_values = true;
  return t;
}

int64_t whole(const OnnxNode& n, double v) {
  if (!(std::abs(v) <= 9007199254740992.0) || v != std::floor(v)) notFolded(n, "by a non-integer");
  return static_cast<int64_t>(v);
}

std::vector<int64_t> ints(const OnnxNode& n, const OnnxTensor& t) {
  std::vector<int64_t> out;
  for (double v : t.values) out.push_back(whole(n, v));
  return out;
}

/// Axes from the input `k` (opset 13) or the attribute "axes" (earlier opsets).
std::vector<int64_t> axes(const OnnxNode& n, const std::vector<const OnnxTensor*>& in, size_t k) {
  if (k < in.size() && in[k]) return ints(n, input(n, in, k));
  const OnnxAttribute* a = attr(n, "axes");
  return a ? a->ints : std::vector<int64_t>{};
}

bool isInteger(int32_t type) {
  return type == 2 || type == 3 || type == 4 || type == 5 || type == 6 || type == 7 || type == 12 ||
         type == 13;
}

/// Element-wise op of two tensors, equal in size or one a single value.
template <typename F>
OnnxTensor binary(const OnnxNode& n, const OnnxTensor& a, const OnnxTensor& b, int32_t type, F f) {
  if (a.values.empty() || b.values.empty() ||
      (a.values.size() != b.values.size() && a.values.size() != 1 && b.values.size() != 1)) {
    notFolded(n, "of unequal sizes");
  }
  const bool b_wider = a.values.size() == 1 && b.values.size() != 1;
  const size_t size = std::max(a.values.size(), b.values.size());
  std::vector<double> out;
  for (size_t k = 0; k < size; ++k) {
    out.push_back(
        f(a.values[a.values.size() == 1 ? 0 : k], b.values[b.values.size() == 1 ? 0 : k]));
  }
  return make(b_wider ? b.dims : a.dims, out, type);
}

// One handler per operator, each following that operator's definition in Operators.md; the
// table below maps op_type to its handler, so that what is folded is listed in one place.
using Inputs = std::vector<const OnnxTensor*>;

/// Concat of 1-D tensors (the pieces of a shape).
OnnxTensor foldConcat(const OnnxNode& n, const Inputs& in) {
  std::vector<double> out;
  int32_t type = 0;
  for (size_t k = 0; k < in.size(); ++k) {
    const OnnxTensor& t = input(n, in, k);
    if (t.dims.size() > 1) notFolded(n, "of more than one dimension");
    out.insert(out.end(), t.values.begin(), t.values.end());
    type = t.data_type;
    if (out.size() > static_cast<size_t>(kOnnxMaxValues)) notFolded(n, "of too many values");
  }
  return make({static_cast<int64_t>(out.size())}, out, type);
}

/// Unsqueeze: the values unchanged, a 1 inserted at each axis (counted in the result's rank).
OnnxTensor foldUnsqueeze(const OnnxNode& n, const Inputs& in) {
  const OnnxTensor& t = input(n, in, 0);
  std::vector<int64_t> ax = axes(n, in, 1);
  const std::vector<int64_t>& dims = t.dims;
  const auto rank = static_cast<int64_t>(dims.size() + ax.size());
  std::set<int64_t> at;
  for (int64_t a : ax) at.insert(a < 0 ? a + rank : a);
  std::vector<int64_t> out;
  for (int64_t k = 0, j = 0; k < rank; ++k) {
    if (at.count(k)) {
      out.push_back(1);
    } else if (j < static_cast<int64_t>(dims.size())) {
      out.push_back(dims[static_cast<size_t>(j++)]);
    } else {
      notFolded(n, "with axes outside the result");
    }
  }
  return make(out, t.values, t.data_type);
}

/// Squeeze: the values unchanged, the given axes (or every axis of size 1) dropped.
OnnxTensor foldSqueeze(const OnnxNode& n, const Inputs& in) {
  const OnnxTensor& t = input(n, in, 0);
  std::vector<int64_t> ax = axes(n, in, 1);
  const std::vector<int64_t>& dims = t.dims;
  const auto rank = static_cast<int64_t>(dims.size());
  std::set<int64_t> at;
  for (int64_t a : ax) at.insert(a < 0 ? a + rank : a);
  std::vector<int64_t> out;
  for (int64_t k = 0; k < rank; ++k) {
    const bool drop = at.empty() ? dims[static_cast<size_t>(k)] == 1 : at.count(k) > 0;
    if (!drop) out.push_back(dims[static_cast<size_t>(k)]);
  }
  return make(out, t.values, t.data_type);
}

/// Reshape: 0 copies the input's dimension, one -1 is inferred; the size must not change.
OnnxTensor foldReshape(const OnnxNode& n, const Inputs& in) {
  const OnnxTensor& t = input(n, in, 0);
  std::vector<int64_t> to = ints(n, input(n, in, 1));
  int64_t known = 1, infer = -1;
  for (size_t k = 0; k < to.size(); ++k) {
    if (to[k] == 0 && k < t.dims.size()) to[k] = t.dims[k];
    if (to[k] == -1) {
      infer = static_cast<int64_t>(k);
    } else if (to[k] <= 0) {
      notFolded(n, "to an empty shape");
    } else {
      known *= to[k];
      if (known > kOnnxMaxValues) notFolded(n, "to a larger shape");
    }
  }
  if (infer >= 0) to[static_cast<size_t>(infer)] = t.elements / known;
  int64_t total = 1;
  for (int64_t d : to) total *= d;
  if (total != t.elements) notFolded(n, "to a shape of another size");
  return make(to, t.values, t.data_type);
}

/// Slice along the first axis only (rows of the rest: F.pad's reversed pairs).
OnnxTensor foldSlice(const OnnxNode& n, const Inputs& in) {
  const OnnxTensor& t = input(n, in, 0);
  if (t.dims.empty()) notFolded(n, "of a scalar");
  // Starts and ends may be INT64_MIN or MAX ("to the end", as torch writes x[::-1]): any
  // amount past 2^53 is clamped to the axis anyway.
  auto bounds = [&](size_t k) {
    std::vector<int64_t> out;
    for (double v : input(n, in, k).values)
      out.push_back(std::abs(v) > 9007199254740992.0
                        ? (v < 0 ? -(int64_t{1} << 53) : int64_t{1} << 53)
                        : whole(n, v));
    return out;
  };
  const std::vector<int64_t> starts = bounds(1), ends = bounds(2);
  const std::vector<int64_t> ax = axes(n, in, 3);
  std::vector<int64_t> steps{1};
  if (in.size() > 4 && in[4]) steps = ints(n, input(n, in, 4));
  const auto rank = static_cast<int64_t>(t.dims.size());
  if (starts.size() != 1 || ends.size() != 1 || steps.size() != 1 || steps[0] == 0 ||
      (!ax.empty() && (ax.size() != 1 || (ax[0] != 0 && ax[0] != -rank)))) {
    notFolded(n, "other than one slice of the first axis");
  }
  const int64_t size = t.dims[0];
  if (size <= 0 || t.values.size() % static_cast<size_t>(size)) notFolded(n, "of an empty axis");
  const size_t row = t.values.size() / static_cast<size_t>(size);
  auto clamp = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0) v += size;
    return std::min(std::max(v, lo), hi);
  };
  const int64_t step = steps[0];
  int64_t b = clamp(starts[0], step > 0 ? 0 : -1, step > 0 ? size : size - 1);
  const int64_t e = clamp(ends[0], step > 0 ? 0 : -1, step > 0 ? size : size - 1);
  std::vector<double> out;
  int64_t rows = 0;
  for (; step > 0 ? b < e : b > e; b += step, ++rows) {
    const auto at = t.values.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(b) * row);
    out.insert(out.end(), at, at + static_cast<std::ptrdiff_t>(row));
  }
  std::vector<int64_t> dims = t.dims;
  dims[0] = rows;
  return make(dims, out, t.data_type);
}

/// Transpose by "perm" (reversed axes when absent), of a tensor whose size is known.
OnnxTensor foldTranspose(const OnnxNode& n, const Inputs& in) {
  const OnnxTensor& t = input(n, in, 0);
  const size_t rank = t.dims.size();
  const OnnxAttribute* pa = attr(n, "perm");
  std::vector<int64_t> perm = pa ? pa->ints : std::vector<int64_t>{};
  if (perm.empty())
    for (size_t k = rank; k-- > 0;) perm.push_back(static_cast<int64_t>(k));
  std::vector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (perm.size() != rank || p < 0 || p >= static_cast<int64_t>(rank) ||
        seen[static_cast<size_t>(p)]) {
      notFolded(n, "with a perm that is not a permutation of its axes");
    }
    seen[static_cast<size_t>(p)] = true;
  }
  int64_t count = 1;
  for (int64_t d : t.dims) {
    if (d < 1 || d > kOnnxMaxValues) notFolded(n, "of an empty or unknown shape");
    count *= d;
    if (count > kOnnxMaxValues) notFolded(n, "of too many values");
  }
  if (static_cast<size_t>(count) != t.values.size()) notFolded(n, "of unknown size");
  std::vector<int64_t> dims(rank), strides(rank, 1);
  for (size_t k = rank; k-- > 1;) strides[k - 1] = strides[k] * t.dims[k];
  for (size_t k = 0; k < rank; ++k) dims[k] = t.dims[static_cast<size_t>(perm[k])];
  std::vector<double> out;
  std::vector<int64_t> index(rank, 0);  // of the output, last axis fastest
  for (size_t e = 0; e < t.values.size(); ++e) {
    int64_t from = 0;
    for (size_t k = 0; k < rank; ++k) from += index[k] * strides[static_cast<size_t>(perm[k])];
    out.push_back(t.values[static_cast<size_t>(from)]);
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < dims[k]) break;
      index[k] = 0;
    }
  }
  return make(dims, out, t.data_type);
}

/// Gather from a 1-D tensor (one size picked out of a shape).
OnnxTensor foldGather(const OnnxNode& n, const Inputs& in) {
  const OnnxTensor& t = input(n, in, 0);
  const OnnxTensor& idx = input(n, in, 1);
  const OnnxAttribute* a = attr(n, "axis");
  if (t.dims.size() != 1 || (a && a->i != 0 && a->i != -1)) notFolded(n, "of more than 1-D");
  std::vector<double> out;
  const auto size = static_cast<int64_t>(t.values.size());
  for (int64_t i : ints(n, idx)) {
    if (i < -size || i >= size) notFolded(n, "with an index outside the data");
    out.push_back(t.values[static_cast<size_t>(i < 0 ? i + size : i)]);
  }
  return make(idx.dims, out, t.data_type);
}

/// Cast: integers truncate, booleans (type 9) become 0 or 1.
OnnxTensor foldCast(const OnnxNode& n, const Inputs& in) {
  const OnnxTensor& t = input(n, in, 0);
  const OnnxAttribute* to = attr(n, "to");
  const int32_t type = to ? static_cast<int32_t>(to->i) : t.data_type;
  std::vector<double> out = t.values;
  if (isInteger(type) || type == 9)
    for (double& v : out) v = type == 9 ? (v != 0) : std::trunc(v);
  return make(t.dims, out, type);
}

/// ConstantOfShape: the attribute "value" (0.0f when absent) repeated to the shape.
OnnxTensor foldConstantOfShape(const OnnxNode& n, const Inputs& in) {
  const std::vector<int64_t> dims = ints(n, input(n, in, 0));
  int64_t total = 1;
  for (int64_t d : dims) {
    if (d < 0) notFolded(n, "of a negative dimension");
    total *= d;
    if (total > kOnnxMaxValues) notFolded(n, "of more than 64 values");
  }
  double value = 0;
  int32_t type = 1;
  if (const OnnxAttribute* v = attr(n, "value"); v && v->has_tensor) {
    if (v->t.values.size() != 1) notFolded(n, "without a single value");
    value = v->t.values[0];
    type = v->t.data_type;
  }
  return make(dims, std::vector<double>(static_cast<size_t>(total), value), type);
}

/// An element-wise arithmetic op: the result keeps the first input's type.
template <double (*F)(double, double)>
OnnxTensor foldArithmetic(const OnnxNode& n, const Inputs& in) {
  const OnnxTensor& a = input(n, in, 0);
  const OnnxTensor& b = input(n, in, 1);
  return binary(n, a, b, a.data_type, F);
}

double add(double x, double y) {
  return x + y;
}
double sub(double x, double y) {
  return x - y;
}
double mul(double x, double y) {
  return x * y;
}

/// Div: integers truncate toward zero (as ONNX's integer Div); a zero divisor is not folded.
OnnxTensor foldDiv(const OnnxNode& n, const Inputs& in) {
  const OnnxTensor& a = input(n, in, 0);
  const OnnxTensor& b = input(n, in, 1);
  const bool integer = isInteger(a.data_type);
  for (double y : b.values)
    if (y == 0) notFolded(n, "by zero");
  return binary(n, a, b, a.data_type,
                [integer](double x, double y) { return integer ? std::trunc(x / y) : x / y; });
}

/// Equal: booleans (type 9).
OnnxTensor foldEqual(const OnnxNode& n, const Inputs& in) {
  const OnnxTensor& a = input(n, in, 0);
  const OnnxTensor& b = input(n, in, 1);
  return binary(n, a, b, 9, [](double x, double y) { return x == y ? 1 : 0; });
}

/// Where: x where the condition holds, else y; the condition one value or as many as x and y.
OnnxTensor foldWhere(const OnnxNode& n, const Inputs& in) {
  const OnnxTensor& c = input(n, in, 0);
  const OnnxTensor& x = input(n, in, 1);
  const OnnxTensor& y = input(n, in, 2);
  const OnnxTensor xy = binary(n, x, y, x.data_type, [](double a, double) { return a; });
  if (c.values.empty() || (c.values.size() != xy.values.size() && c.values.size() != 1))
    notFolded(n, "of unequal sizes");
  std::vector<double> out;
  for (size_t k = 0; k < xy.values.size(); ++k) {
    const bool pick = c.values[c.values.size() == 1 ? 0 : k] != 0;
    out.push_back((pick ? x : y).values[(pick ? x : y).values.size() == 1 ? 0 : k]);
  }
  return make(xy.dims, out, x.data_type);
}

using FoldHandler = OnnxTensor (*)(const OnnxNode&, const Inputs&);

/// Every op evaluated at import, with its handler.
const std::map<std::string, FoldHandler>& foldHandlers() {
  static const std::map<std::string, FoldHandler> kHandlers = {
      {"Concat", foldConcat},       {"Unsqueeze", foldUnsqueeze},
      {"Squeeze", foldSqueeze},     {"Reshape", foldReshape},
      {"Slice", foldSlice},         {"Gather", foldGather},
      {"Cast", foldCast},           {"ConstantOfShape", foldConstantOfShape},
      {"Add", foldArithmetic<add>}, {"Sub", foldArithmetic<sub>},
      {"Mul", foldArithmetic<mul>}, {"Div", foldDiv},
      {"Equal", foldEqual},         {"Where", foldWhere},
      {"Transpose", foldTranspose},
  };
  return kHandlers;
}

}  // namespace

bool foldableOp(const std::string& op) {
  return foldHandlers().count(op) > 0;
}

OnnxTensor foldConstant(const OnnxNode& n, const std::vector<const OnnxTensor*>& in) {
  const auto handler = foldHandlers().find(n.op_type);
  if (handler == foldHandlers().end()) notFolded(n, "(not evaluated)");
  return handler->second(n, in);
}

}  // namespace dlcost
