// The batch's place in an ONNX tensor, followed through Transpose and Reshape
// (onnx_batch_layout.hpp).
#include "model_files/onnx_batch_layout.hpp"

#include "dlcost/base/checked.hpp"

namespace dlcost {

namespace {

int64_t product(const std::vector<int64_t>& d, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t k = from; k < to && k < d.size(); ++k) p = checkedMul(p, d[k]);
  return p;
}

/// The sample's elements before and after the batch in the elements' order (row-major over
/// the ONNX axes): index = (before index) x B x after + b x after + (after index).
std::pair<int64_t, int64_t> aroundBatch(const BatchLayout& l, const std::vector<int64_t>& sample) {
  const auto a = static_cast<size_t>(l.axis);
  const size_t split = l.merge == BatchLayout::Merge::kInner ? a + 1 : a;
  return {product(sample, 0, split), product(sample, split, sample.size())};
}

}  // namespace

std::vector<int64_t> onnxDims(const BatchLayout& l, const std::vector<int64_t>& sample,
                              int64_t batch) {
  std::vector<int64_t> d = sample;
  const auto a = static_cast<size_t>(l.axis);
  if (l.merge == BatchLayout::Merge::kAlone) {
    d.insert(d.begin() + static_cast<std::ptrdiff_t>(std::min(a, d.size())), batch);
  } else if (a < d.size()) {
    d[a] = checkedMul(d[a], batch);
  }
  return d;
}

std::optional<int64_t> sampleAxisOf(const BatchLayout& l, int64_t axis) {
  if (l.merge != BatchLayout::Merge::kAlone) return axis;
  if (axis == l.axis) return std::nullopt;
  return axis < l.axis ? axis : axis - 1;
}

bool holdsBatch(const BatchLayout& l, int64_t axis) {
  return axis == l.axis;
}

TransposedLayout transposeLayout(const BatchLayout& l, const std::vector<int64_t>& perm) {
  TransposedLayout t;
  t.layout.merge = l.merge;
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] == l.axis) t.layout.axis = static_cast<int64_t>(i);
    if (l.merge != BatchLayout::Merge::kAlone) {
      t.sample_perm.push_back(perm[i]);
    } else if (perm[i] != l.axis) {
      t.sample_perm.push_back(*sampleAxisOf(l, perm[i]));
    }
  }
  return t;
}

ReshapedLayout reshapeLayout(const BatchLayout& l, const std::vector<int64_t>& sample,
                             const std::vector<int64_t>& to, int64_t batch) {
  ReshapedLayout r;
  if (batch < 2) {
    r.error = "the graph's batch is 1, so its place after the reshape cannot be told";
    return r;
  }
  const auto [before, after] = aroundBatch(l, sample);
  int fits = 0;
  for (size_t j = 0; j < to.size(); ++j) {
    const int64_t rest = product(to, j + 1, to.size());
    if (rest == 0 || after % rest != 0) continue;
    const int64_t inner = after / rest;
    if (to[j] % checkedMul(batch, inner) != 0) continue;
    const int64_t outer = to[j] / (batch * inner);
    if (checkedMul(product(to, 0, j), outer) != before || (outer > 1 && inner > 1)) continue;
    ++fits;
    r.sample = to;
    r.layout.axis = static_cast<int64_t>(j);
    if (outer == 1 && inner == 1) {
      r.layout.merge = BatchLayout::Merge::kAlone;
      r.sample.erase(r.sample.begin() + static_cast<std::ptrdiff_t>(j));
    } else {
      r.layout.merge = inner == 1 ? BatchLayout::Merge::kInner : BatchLayout::Merge::kOuter;
      r.sample[j] = to[j] / batch;
    }
  }
  if (fits != 1) {
    r.error = fits == 0 ? "the batch would not stay one axis or one factor of an axis"
                        : "the batch could be in more than one place";
  }
  return r;
}

}  // namespace dlcost
