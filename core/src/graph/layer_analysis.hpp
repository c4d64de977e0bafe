#pragma once
// Per-layer rules: output shape, parameters, MACs, and what the op keeps for backward.

#include <cstdint>
#include <vector>

#include "dlcost/types/layer.hpp"
#include "dlcost/types/precision.hpp"
#include "dlcost/types/shape.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// One flag per input of a layer, all clear at first. Bits: the first 64 inputs without
/// allocating (an estimate keeps two sets per layer), more (a long concat) on the heap.
class InputFlags {
 public:
  bool operator[](size_t k) const {
    if (k < kWordBits) return (first_ >> k) & 1;
    const size_t word = k / kWordBits - 1;
    return word < more_.size() && (more_[word] >> (k % kWordBits)) & 1;
  }
  void set(size_t k) {
    if (k < kWordBits) {
      first_ |= uint64_t{1} << k;
      return;
    }
    const size_t word = k / kWordBits - 1;
    if (more_.size() <= word) more_.resize(word + 1, 0);
    more_[word] |= uint64_t{1} << (k % kWordBits);
  }
  /// Sets the flags of inputs 0 to n - 1.
  void setFirst(size_t n) {
    for (size_t k = 0; k < n; ++k) set(k);
  }

 private:
  static constexpr size_t kWordBits = 64;
  uint64_t first_ = 0;          ///< inputs 0 to 63
  std::vector<uint64_t> more_;  ///< inputs 64 and on, 64 to a word
};

/// What autograd keeps from one op until its backward runs (PyTorch's saved tensors).
struct SavedForBackward {
  InputFlags inputs;    ///< per input: its tensor is kept
  bool output = false;  ///< the op's own output is kept
  /// Bytes per sample the op allocates only for backward: dropout masks, max-pool indices,
  /// layernorm statistics, and the copy an in-place op makes of an input its gradient needs.
  int64_t extra_bytes_per_sample = 0;
  /// Bytes per batch, independent of batch size: batchnorm's saved mean and inverse std.
  int64_t extra_fixed_bytes = 0;
};

struct LayerAnalysis {
  Shape output;
  int64_t params = 0;           ///< trainable parameters
  int64_t buffer_values = 0;    ///< running statistics, in the buffer format
  int64_t buffer_counters = 0;  ///< int64 counters (num_batches_tracked)
  int64_t macs_per_sample = 0;  ///< conv and linear multiply-accumulates
  /// The output reuses input 0's memory: an in-place op, or a view (flatten).
  bool aliases_input = false;
  /// Per input: its gradient is the output's gradient itself or a view of it (flatten's
  /// reshape, add's pass-through where the shapes are equal, concat's slices), so backward
  /// allocates no new memory for it.
  InputFlags passes_gradient;
  SavedForBackward saved;
  /// Bytes per sample the op allocates and frees within its own step, besides its output:
  /// max pooling's int64 indices at inference.
  int64_t scratch_bytes_per_sample = 0;
  /// The output's strides in elements, batch first (the batch dimension's stride is the
  /// elements per sample of the memory it lives in); empty: contiguous. Views (permute,
  /// select, reshape) have others, and decide whether a later reshape or matmul copies.
  Shape strides;
};

/// Applies the layer's rule to its input shapes. `activation` is the format of activations,
/// `weights` that of the weights (instance norm saves a copy of its weight per sample).
/// `strides` (LayerAnalysis::strides of each input; null: all contiguous) decide whether a
/// reshape is a view or a copy. Throws InputError at the layer's field that makes the shapes
/// impossible.
LayerAnalysis analyzeLayer(const Layer& layer, const std::vector<Shape>& inputs, Mode mode,
                           DType activation, const std::vector<Shape>* strides = nullptr,
                           DType weights = DType::kFp32);

}  // namespace dlcost
