#pragma once
// The rules that make memory terms: model states (weights, scales, gradients, master weights,
// optimizer states, adapters), activation terms and the framework overhead, and their sum.

#include <cstdint>
#include <string>
#include <vector>

#include "dlcost/types/memory.hpp"
#include "dlcost/types/precision.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// Fills each term's bytes at `batch`, the phases' totals and the peak; with backward
/// candidates, first sets the two backward terms to the candidate that peaks at `batch`.
/// Throws ArithmeticOverflow.
MemoryBreakdown sumTerms(std::vector<MemoryTerm> terms, int64_t batch,
                         std::vector<BackwardCandidate> candidates = {});

/// What the optimizer and the weight format act on, for modelStateTerms.
struct ModelStateCounts {
  int64_t params = 0;     ///< every parameter (adapters excluded)
  int64_t trainable = 0;  ///< parameters the optimizer updates (0 when only adapters train)
  /// Storage format of the weights: the precision's, or an int8/int4/fp8 format for
  /// `quantized` of them (the rest stay in the precision's format).
  DType weight_dtype = DType::kFp32;
  int64_t quantized = 0;  ///< elements of the quantized matrices
  int64_t quant_matrices = 0;
  int64_t quant_groups = 0;  ///< int8/int4: one fp16 scale per group
  int64_t adapters = 0;      ///< LoRA adapter parameters (trained in fp32)
  /// Elements of each trainable parameter tensor, in the order `model.parameters()` yields
  /// them (the for-loop optimizers' order); empty when only adapters train.
  std::vector<int64_t> tensors;
  /// Bytes per sample the caller still holds during `optimizer.step()`: the batch's input
  /// and the model's output.
  int64_t held_per_sample = 0;
};

bool isQuantized(DType d);

/// Weights, quantization scales, gradients, master weights, optimizer states and adapter
/// terms for `w` (gradients and optimizer terms only in training, with the optimizer step's
/// temporaries as the kOptimizerStep term), the one rule both estimators use. Throws
/// ArithmeticOverflow.
std::vector<MemoryTerm> modelStateTerms(const ModelStateCounts& c, const Workload& w);

/// A term of `per_sample` bytes per sample (and `fixed` per batch), sharded as activations.
MemoryTerm activationTerm(MemoryKey key, int64_t fixed, int64_t per_sample, std::string formula,
                          std::vector<TermInput> inputs);

/// The workload's overhead_bytes as a replicated term.
MemoryTerm overheadTerm(const Workload& w);

}  // namespace dlcost
