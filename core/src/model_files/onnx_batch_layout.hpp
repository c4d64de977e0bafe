#pragma once
// Where an ONNX tensor keeps the batch. dlcost's layers see one sample; most tensors of an
// exported graph hold the batch as axis 0 alone, but nn.MultiheadAttention (torchvision's
// ViT, PyTorch 1.13) runs sequence-first inside a batch-first model: a Transpose moves the
// batch to axis 1, a Reshape merges it with the heads ([S, B*H, hd]) or the tokens
// ([S*B, E]), and a Transpose brings it back. A layout follows the batch through those nodes,
// so that each tensor is still one sample's tensor (the ONNX tensor with the batch taken
// out, its other axes in the same order) and each node a layer of that sample.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dlcost {

/// How the batch sits in an ONNX tensor of rank r, given the sample's shape.
struct BatchLayout {
  enum class Merge {
    kAlone,  ///< the batch is ONNX axis `axis` alone: rank r = sample rank + 1
    kOuter,  ///< ONNX axis `axis` is batch x sample axis `axis` (the batch outer): rank equal
    kInner,  ///< ONNX axis `axis` is sample axis `axis` x batch (the batch inner): rank equal
  };
  int64_t axis = 0;
  Merge merge = Merge::kAlone;

  /// The usual layout: the batch alone, first.
  bool batchFirst() const { return axis == 0 && merge == Merge::kAlone; }
  bool operator==(const BatchLayout& o) const { return axis == o.axis && merge == o.merge; }
  bool operator!=(const BatchLayout& o) const { return !(*this == o); }
};

/// The ONNX dims of a tensor whose one sample is `sample`, at batch `batch`.
std::vector<int64_t> onnxDims(const BatchLayout& l, const std::vector<int64_t>& sample,
                              int64_t batch);

/// The sample axis that ONNX axis `axis` (0 <= axis < ONNX rank) is; nullopt where it is the
/// batch alone. A merged axis is the sample axis of the same index.
std::optional<int64_t> sampleAxisOf(const BatchLayout& l, int64_t axis);

/// Whether ONNX axis `axis` holds (part of) the batch.
bool holdsBatch(const BatchLayout& l, int64_t axis);

/// A Transpose by `perm` (of the ONNX axes; a permutation checked by the caller): the new
/// layout and the permutation of the sample's axes (the identity where only the batch moves).
struct TransposedLayout {
  BatchLayout layout;
  std::vector<int64_t> sample_perm;
};
TransposedLayout transposeLayout(const BatchLayout& l, const std::vector<int64_t>& perm);

/// A Reshape to the ONNX dims `to` (all known, > 0) of a tensor whose sample is `sample`, at
/// batch `batch` (> 1: a batch of 1 cannot be told apart from an axis of size 1): where the
/// batch goes and the sample's new shape. The batch keeps its place in the elements' order,
/// so it must land alone in one axis of `to`, or as the outer or inner factor of one. An
/// error text where it does neither or where two places fit.
struct ReshapedLayout {
  BatchLayout layout;
  std::vector<int64_t> sample;
  std::string error;  ///< empty on success
};
ReshapedLayout reshapeLayout(const BatchLayout& l, const std::vector<int64_t>& sample,
                             const std::vector<int64_t>& to, int64_t batch);

}  // namespace dlcost
