#pragma once
// torch.autocast's op lists over the layer graph: which layers run in 16 bits, which in fp32,
// which in their inputs' format, and which casts they make and keep.
//
// The lists follow PyTorch 1.13.1 (aten/src/ATen/autocast_mode.cpp; Debian's python3-torch),
// checked by running each layer's op under autocast on that version: CPU bf16 (its
// AutocastCPU lists) and CUDA fp16 (its AutocastCUDA lists).

#include <cstdint>
#include <vector>

#include "dlcost/types/layer.hpp"
#include "dlcost/types/precision.hpp"
#include "graph/layer_analysis.hpp"

namespace dlcost {

/// What autocast does with one op.
enum class CastPolicy {
  kLowerPrecision,  ///< casts its inputs and weights to 16 bits (conv, linear, matmul)
  kFp32,            ///< casts its inputs to fp32
  kFollow,          ///< no rule: runs in its inputs' format, promoted (cat, add of fp32 and bf16)
};

/// The policy of a layer's op under autocast to `low` (kFp16: CUDA's lists; kBf16: CPU's).
CastPolicy castPolicy(const Layer& layer, DType low);

/// How one layer runs under autocast, given its inputs' formats.
struct AutocastStep {
  DType compute = DType::kFp32;  ///< the format it computes in, and its output's
  InputFlags cast;               ///< per input: autocast casts it to `compute` first
};

/// `inputs[k]` is the format of the layer's input k. Tensor operands (a class token, a
/// position embedding) are fp32 parameters or buffers, so adding one to a 16-bit tensor gives
/// fp32 (PyTorch's type promotion).
AutocastStep autocastStep(const Layer& layer, const std::vector<DType>& inputs, DType low);

/// The parameters a layer's op casts to 16 bits, in elements.
struct WeightCasts {
  /// The weight: backward keeps its copy (addmm and convolution keep no bias).
  int64_t weight = 0;
  /// The bias: cast too, into autocast's cache only.
  int64_t bias = 0;
};

/// `params` is the layer's parameter count (LayerAnalysis::params); none for ops that are
/// not on the lower-precision list.
WeightCasts weightCasts(const Layer& layer, int64_t params, DType low);

/// Rewrites what `a` saves for backward where the layer casts an input it saves: the 16-bit
/// or fp32 copy is what autograd keeps, not the input, so the input's flag is cleared and the
/// copy's bytes (`input_elements[k]` values in step.compute) move to the layer's own extra
/// bytes.
void keepCastCopies(const AutocastStep& step, const std::vector<int64_t>& input_elements,
                    LayerAnalysis& a);

}  // namespace dlcost
