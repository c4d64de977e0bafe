#pragma once
// Memory as one list of terms. Both estimators (layer graph, transformer) produce it; the
// totals, the fixed/per-sample split, per-GPU memory, the largest batch, sweeps, explanations
// and the report JSON are all derived from it, so no figure is summed in two places.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dlcost/types/precision.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// What a term holds. The JSON key of each is memoryKeyName's.
enum class MemoryKey {
  kWeights,                 ///< parameters in their storage format
  kQuantScales,             ///< group-wise scales of int8/int4 weights, fp8's per-tensor ones
  kBuffers,                 ///< running statistics and counters (batchnorm)
  kGradients,               ///< one gradient per trainable parameter
  kMasterWeights,           ///< fp32 copy of the weights (mixed precision)
  kOptimizerStates,         ///< state tensors x trainable parameters
  kAdapterWeights,          ///< LoRA adapters, fp32 (PEFT upcasts 16-bit adapters)
  kAdapterGradients,        ///< one gradient per adapter parameter
  kAdapterOptimizerStates,  ///< optimizer states of the adapters
  /// Training: tensors saved for backward. Inference: the peak of simultaneously live tensors.
  kActivations,
  /// Training: what the passes need at their peak on top of the saved activations (live
  /// activation gradients and temporaries, less the saved tensors freed by then).
  kBackwardPeakExtra,
  /// Training: the parameter gradients alive at the backward pass's peak less all of them:
  /// negative for those not made yet (zero_grad set_to_none), positive for the new gradient
  /// being added into a kept one (zero_grad zero).
  kBackwardGradientDelta,
  /// Training: what the optimizer step allocates besides the model states (the temporaries
  /// of the workload's optimizer_impl), and the batch the caller still holds.
  kOptimizerStep,
  kKvCache,   ///< inference: K and V of every layer for every token in the context
  kOverhead,  ///< the workload's fixed overhead_bytes
  /// Serving: llama.cpp's compute graph buffer (reserved for one micro-batch).
  kComputeBuffer,
  /// Training with context parallelism (per GPU only): the ring's K/V buffers of the layer
  /// running attention: the all-gathered K and V of the whole sequence (PyTorch's default
  /// rotate method), and in the backward the fp32 dQ/dK/dV accumulators and the dK/dV block
  /// in flight (dlcost/gpu/fit.hpp).
  kCpRingBuffers,
};

/// "weights", "quant_scales", ..., "backward_peak_extra", "backward_gradient_delta",
/// "optimizer_step", "kv_cache", "overhead", "compute_buffer", "cp_ring_buffers".
const char* memoryKeyName(MemoryKey key);

/// What a term is, in a few English words for tables ("activations (saved)" in training,
/// "activations (peak)" in inference).
const char* memoryKeyLabel(MemoryKey key, Mode mode);

/// How a term divides over the GPUs of a Parallelism (see perGpuMemory in fit.hpp).
enum class Sharding {
  kReplicated,     ///< every GPU holds all of it (the overhead)
  kModelParallel,  ///< split by tp x pp only (buffers)
  kZero3,          ///< split by tp x pp, and by the data-parallel degree at ZeRO stage >= 3
  kZero2,          ///< ... at ZeRO stage >= 2 (gradients)
  kZero1,          ///< ... at ZeRO stage >= 1 (optimizer states, master weights)
  /// Activations: the replica's batch; tensor parallelism keeps (10 tp + 24) / (34 tp) of them
  /// (1 / tp with sequence parallelism), a pipeline stage 1/pp of the layers for
  /// min(pp, micro-batches) micro-batches in flight.
  kActivation,
};

/// "replicated", "model_parallel", "zero3", "zero2", "zero1", "activation".
const char* shardingName(Sharding s);

/// When a term's bytes are alive. A training step peaks either in the forward/backward pass
/// or in the optimizer step (at `step()` the activations are gone, the step's temporaries
/// are not yet made); the total is the larger of the two.
enum class MemoryPhase {
  kAlways,         ///< the whole step (model states, the overhead; everything in inference)
  kBackward,       ///< forward and backward only (activations, backward_peak_extra)
  kOptimizerStep,  ///< `optimizer.step()` only (optimizer_step)
};

/// "always", "backward", "optimizer_step".
const char* memoryPhaseName(MemoryPhase p);

/// One input of a term's formula: a count, a size in bits or bytes, a batch.
struct TermInput {
  std::string name;  ///< snake_case, e.g. "parameters", "bits_per_value", "batch"
  int64_t value = 0;
  std::string note;  ///< what qualifies the value ("fp16", "adamw"); empty when none
};

/// One line of memory: bytes = fixed + batch x per_sample.
struct MemoryTerm {
  MemoryKey key = MemoryKey::kWeights;
  int64_t fixed = 0;       ///< bytes that do not grow with the batch
  int64_t per_sample = 0;  ///< bytes each sample (sequence) adds
  int64_t bytes = 0;       ///< at the batch the list was summed at (sumTerms)
  Sharding sharding = Sharding::kReplicated;
  MemoryPhase phase = MemoryPhase::kAlways;
  /// How fixed and per_sample follow from `inputs`, written with the inputs' names.
  std::string formula;
  std::vector<TermInput> inputs;
};

/// The bytes alive in one phase of a training step: its own terms and the kAlways ones.
struct PhaseTotal {
  MemoryPhase phase = MemoryPhase::kBackward;
  int64_t fixed = 0;
  int64_t per_sample = 0;
  int64_t bytes = 0;  ///< at the breakdown's batch
};

/// One step of the backward pass where the peak may fall (layer graphs): the gradients then
/// alive less all of them, and the activations then alive beyond the saved ones, per sample.
/// Gradients appear as backward runs while saved activations are freed, so which step peaks
/// depends on the batch.
struct BackwardCandidate {
  int64_t gradient_delta = 0;    ///< the kBackwardGradientDelta term's fixed bytes
  int64_t extra_per_sample = 0;  ///< the kBackwardPeakExtra term's per-sample bytes
};

/// Reported instead of an unbounded batch (a model whose memory does not grow with batch).
constexpr int64_t kMaxBatchReported = int64_t{1} << 32;

/// Largest batch b >= 0 with fixed + b x per_sample <= capacity.
inline int64_t maxBatchFor(int64_t fixed_bytes, int64_t per_sample_bytes, int64_t capacity_bytes) {
  if (capacity_bytes < fixed_bytes) return 0;
  if (per_sample_bytes <= 0) return kMaxBatchReported;
  return std::min((capacity_bytes - fixed_bytes) / per_sample_bytes, kMaxBatchReported);
}

/// The term list and what is derived from it, at one batch. Whole model (Report::memory) or
/// one GPU at its replica batch (GpuFit::per_gpu).
struct MemoryBreakdown {
  std::vector<MemoryTerm> terms;  ///< model states first, then what grows with the batch
  /// The peak: the sum of the terms' bytes, or with phased terms (training) the largest
  /// phase's total.
  int64_t total = 0;
  int64_t fixed = 0;       ///< the fixed parts of the terms the peak counts
  int64_t per_sample = 0;  ///< their per-sample parts
  /// Training: the backward phase's total and the optimizer step's (in that order); empty
  /// when no term is phased (inference).
  std::vector<PhaseTotal> phases;
  /// Layer-graph training: the backward steps that can peak (none dominated by another);
  /// the kBackwardGradientDelta and kBackwardPeakExtra terms hold the one that peaks at the
  /// breakdown's batch, and totalAt and maxBatch try each.
  std::vector<BackwardCandidate> backward_candidates;
  /// The phase whose total is the peak (kAlways when there are no phases).
  MemoryPhase peak_phase = MemoryPhase::kAlways;
  /// Training, whole model: the first step's peak, lower than `total` because no optimizer
  /// state exists during its backward pass (absent per GPU).
  std::optional<int64_t> first_step_total;

  /// The term's bytes, 0 when the list has no such term.
  int64_t bytesOf(MemoryKey key) const;
  const MemoryTerm* find(MemoryKey key) const;
  /// Bytes of the model-state terms (phase always) sharded as `s`, e.g. every weight-like term
  /// for the optimizer's traffic.
  int64_t bytesSharded(Sharding s) const;
  /// The peak at another batch: fixed + batch x per_sample, the largest over the phases.
  /// Throws ArithmeticOverflow.
  int64_t totalAt(int64_t batch) const;
  /// The largest batch whose peak fits in `capacity_bytes` (0 = none), every phase's
  /// (maxBatchFor below, for each), at most kMaxBatchReported.
  int64_t maxBatch(int64_t capacity_bytes) const;
};

}  // namespace dlcost
