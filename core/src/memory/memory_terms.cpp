#include "dlcost/types/memory.hpp"

#include <algorithm>

#include "dlcost/base/checked.hpp"
#include "dlcost/memory/memory_terms.hpp"

namespace dlcost {

const char* memoryKeyName(MemoryKey key) {
  switch (key) {
    case MemoryKey::kWeights:
      return "weights";
    case MemoryKey::kQuantScales:
      return "quant_scales";
    case MemoryKey::kBuffers:
      return "buffers";
    case MemoryKey::kGradients:
      return "gradients";
    case MemoryKey::kMasterWeights:
      return "master_weights";
    case MemoryKey::kOptimizerStates:
      return "optimizer_states";
    case MemoryKey::kAdapterWeights:
      return "adapter_weights";
    case MemoryKey::kAdapterGradients:
      return "adapter_gradients";
    case MemoryKey::kAdapterOptimizerStates:
      return "adapter_optimizer_states";
    case MemoryKey::kActivations:
      return "activations";
    case MemoryKey::kBackwardPeakExtra:
      return "backward_peak_extra";
    case MemoryKey::kBackwardGradientDelta:
      return "backward_gradient_delta";
    case MemoryKey::kOptimizerStep:
      return "optimizer_step";
    case MemoryKey::kKvCache:
      return "kv_cache";
    case MemoryKey::kOverhead:
      return "overhead";
    case MemoryKey::kComputeBuffer:
      return "compute_buffer";
    case MemoryKey::kCpRingBuffers:
      return "cp_ring_buffers";
  }
  return "";
}

const char* memoryKeyLabel(MemoryKey key, Mode mode) {
  switch (key) {
    case MemoryKey::kWeights:
      return "weights";
    case MemoryKey::kQuantScales:
      return "quantization scales";
    case MemoryKey::kBuffers:
      return "buffers";
    case MemoryKey::kGradients:
      return "gradients";
    case MemoryKey::kMasterWeights:
      return "master weights (fp32)";
    case MemoryKey::kOptimizerStates:
      return "optimizer states";
    case MemoryKey::kAdapterWeights:
      return "LoRA adapter weights";
    case MemoryKey::kAdapterGradients:
      return "LoRA adapter gradients";
    case MemoryKey::kAdapterOptimizerStates:
      return "LoRA optimizer states";
    case MemoryKey::kActivations:
      return mode == Mode::kTrain ? "activations (saved)" : "activations (peak)";
    case MemoryKey::kBackwardPeakExtra:
      return "backward peak extra";
    case MemoryKey::kBackwardGradientDelta:
      return "gradient timing (bwd)";
    case MemoryKey::kOptimizerStep:
      return "optimizer step temps";
    case MemoryKey::kKvCache:
      return "KV cache";
    case MemoryKey::kOverhead:
      return "overhead";
    case MemoryKey::kComputeBuffer:
      return "compute buffer";
    case MemoryKey::kCpRingBuffers:
      return "CP ring K/V buffers";
  }
  return "";
}

const char* shardingName(Sharding s) {
  switch (s) {
    case Sharding::kReplicated:
      return "replicated";
    case Sharding::kModelParallel:
      return "model_parallel";
    case Sharding::kZero3:
      return "zero3";
    case Sharding::kZero2:
      return "zero2";
    case Sharding::kZero1:
      return "zero1";
    case Sharding::kActivation:
      return "activation";
  }
  return "";
}

const char* memoryPhaseName(MemoryPhase p) {
  switch (p) {
    case MemoryPhase::kAlways:
      return "always";
    case MemoryPhase::kBackward:
      return "backward";
    case MemoryPhase::kOptimizerStep:
      return "optimizer_step";
  }
  return "";
}

const MemoryTerm* MemoryBreakdown::find(MemoryKey key) const {
  for (const MemoryTerm& t : terms) {
    if (t.key == key) return &t;
  }
  return nullptr;
}

int64_t MemoryBreakdown::bytesOf(MemoryKey key) const {
  const MemoryTerm* t = find(key);
  return t ? t->bytes : 0;
}

int64_t MemoryBreakdown::bytesSharded(Sharding s) const {
  int64_t sum = 0;
  for (const MemoryTerm& t : terms) {
    // The model states only: a phase's transients (the optimizer step's temporaries, the
    // gradients not yet made in backward) share a state's sharding but are not moved by it.
    if (t.sharding == s && t.phase == MemoryPhase::kAlways) sum = checkedAdd(sum, t.bytes);
  }
  return sum;
}

namespace {

/// The backward phase's total with candidate c in place of the two backward terms.
PhaseTotal withCandidate(PhaseTotal backward, const MemoryBreakdown& m,
                         const BackwardCandidate& c) {
  const MemoryTerm* delta = m.find(MemoryKey::kBackwardGradientDelta);
  const MemoryTerm* extra = m.find(MemoryKey::kBackwardPeakExtra);
  if (delta)
    backward.fixed = checkedAdd(checkedSub(backward.fixed, delta->fixed), c.gradient_delta);
  if (extra) {
    backward.per_sample =
        checkedAdd(checkedSub(backward.per_sample, extra->per_sample), c.extra_per_sample);
  }
  return backward;
}

/// Every line the peak is the largest of: each backward candidate, the optimizer step.
std::vector<PhaseTotal> peakLines(const MemoryBreakdown& m) {
  if (m.phases.empty()) return {{MemoryPhase::kAlways, m.fixed, m.per_sample, m.total}};
  std::vector<PhaseTotal> lines{m.phases[1]};
  if (m.backward_candidates.empty()) lines.push_back(m.phases[0]);
  for (const BackwardCandidate& c : m.backward_candidates)
    lines.push_back(withCandidate(m.phases[0], m, c));
  return lines;
}

}  // namespace

int64_t MemoryBreakdown::totalAt(int64_t batch) const {
  int64_t best = 0;
  for (const PhaseTotal& p : peakLines(*this)) {
    best = std::max(best, checkedAdd(p.fixed, checkedMul(p.per_sample, batch)));
  }
  return best;
}

int64_t MemoryBreakdown::maxBatch(int64_t capacity_bytes) const {
  int64_t best = kMaxBatchReported;
  for (const PhaseTotal& p : peakLines(*this)) {
    best = std::min(best, maxBatchFor(p.fixed, p.per_sample, capacity_bytes));
  }
  return best;
}

MemoryBreakdown sumTerms(std::vector<MemoryTerm> terms, int64_t batch,
                         std::vector<BackwardCandidate> candidates) {
  MemoryBreakdown m;
  if (!candidates.empty()) {
    // The candidate that peaks at this batch (the earliest step on a tie).
    const BackwardCandidate* best = nullptr;
    int64_t best_bytes = 0;
    for (const BackwardCandidate& c : candidates) {
      const int64_t bytes = checkedAdd(c.gradient_delta, checkedMul(batch, c.extra_per_sample));
      if (!best || bytes > best_bytes) best = &c, best_bytes = bytes;
    }
    for (MemoryTerm& t : terms) {
      if (t.key == MemoryKey::kBackwardGradientDelta) t.fixed = best->gradient_delta;
      if (t.key == MemoryKey::kBackwardPeakExtra) t.per_sample = best->extra_per_sample;
    }
  }
  PhaseTotal always{MemoryPhase::kAlways, 0, 0, 0};
  PhaseTotal backward{MemoryPhase::kBackward, 0, 0, 0};
  PhaseTotal step{MemoryPhase::kOptimizerStep, 0, 0, 0};
  bool phased = false;
  for (MemoryTerm& t : terms) {
    t.bytes = checkedAdd(t.fixed, checkedMul(t.per_sample, batch));
    PhaseTotal& p = t.phase == MemoryPhase::kBackward        ? backward
                    : t.phase == MemoryPhase::kOptimizerStep ? step
                                                             : always;
    phased = phased || t.phase != MemoryPhase::kAlways;
    p.fixed = checkedAdd(p.fixed, t.fixed);
    p.per_sample = checkedAdd(p.per_sample, t.per_sample);
  }
  const auto withAlways = [&](PhaseTotal p) {
    p.fixed = checkedAdd(p.fixed, always.fixed);
    p.per_sample = checkedAdd(p.per_sample, always.per_sample);
    p.bytes = checkedAdd(p.fixed, checkedMul(p.per_sample, batch));
    return p;
  };
  PhaseTotal peak = always;
  peak.bytes = checkedAdd(always.fixed, checkedMul(always.per_sample, batch));
  if (phased) {
    m.phases = {withAlways(backward), withAlways(step)};
    // The backward phase wins a tie: it is the one that grows with the batch.
    peak = m.phases[1].bytes > m.phases[0].bytes ? m.phases[1] : m.phases[0];
  }
  m.peak_phase = peak.phase;
  m.fixed = peak.fixed;
  m.per_sample = peak.per_sample;
  m.total = peak.bytes;
  m.terms = std::move(terms);
  m.backward_candidates = std::move(candidates);
  // Every line at this batch must be below the peak the terms give.
  for (const PhaseTotal& p : peakLines(m)) checkedAdd(p.fixed, checkedMul(p.per_sample, batch));
  return m;
}

bool isQuantized(DType d) {
  return d == DType::kInt8 || d == DType::kInt4 || d == DType::kFp8;
}

namespace {

/// A fixed term of `count` values of `bits` each.
MemoryTerm valuesTerm(MemoryKey key, Sharding sharding, int64_t count, int bits, const char* what,
                      const std::string& format) {
  MemoryTerm t;
  t.key = key;
  t.sharding = sharding;
  t.fixed = bytesForBits(count, bits);
  t.formula = std::string(what) + " × bits_per_value / 8";
  t.inputs = {{what, count, ""}, {"bits_per_value", bits, format}};
  return t;
}

/// Elements the optimizer step allocates at its peak, besides its states, for `updated`
/// elements in `tensors` (the for-loop's order). PyTorch 2.x, torch/optim/:
/// - Adam/AdamW for-loop (`_single_tensor_adam`): `denom = (exp_avg_sq.sqrt() /
///   bias_correction2_sqrt).add_(eps)` holds sqrt() and the quotient of tensor i while the
///   previous tensor's `denom` is still bound: max over i of 2 s_i + s_(i-1).
/// - Adam/AdamW foreach (`_multi_tensor_adam`): `exp_avg_sq_sqrt =
///   torch._foreach_sqrt(device_exp_avg_sqs)`, then in place: one copy of every tensor.
/// - RMSprop (`avg = square_avg.sqrt().add_(eps)`; foreach `torch._foreach_sqrt`) and Adagrad
///   (`std = state_sum.sqrt().add_(eps)`; foreach `torch._foreach_sqrt(device_state_sums)`):
///   max over i of s_i + s_(i-1), or one copy of every tensor.
/// - SGD with or without momentum updates in place (`param.add_(grad, alpha=-lr)`,
///   `buf.mul_(momentum).add_(grad)`; foreach `torch._foreach_add_`), fused kernels
///   (`_fused_adam`, ...) and bitsandbytes' 8-bit Adam have no temporaries.
/// (Default hyper-parameters: no L2 weight_decay, maximize or amsgrad, which add copies.)
int64_t stepTemporaryElements(Optimizer opt, OptimizerImpl impl, int64_t updated,
                              const std::vector<int64_t>& tensors) {
  int per_tensor = 0;  // copies of tensor i alive with one of tensor i - 1 (for-loop)
  switch (opt) {
    case Optimizer::kAdam:
    case Optimizer::kAdamW:
      per_tensor = 2;
      break;
    case Optimizer::kRmsprop:
    case Optimizer::kAdagrad:
      per_tensor = 1;
      break;
    case Optimizer::kSgd:
    case Optimizer::kMomentum:
    case Optimizer::kAdam8bit:
      return 0;
  }
  if (impl == OptimizerImpl::kFused) return 0;
  if (impl == OptimizerImpl::kForeach || tensors.empty()) return updated;
  int64_t best = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const int64_t previous = i ? tensors[i - 1] : 0;
    best = std::max(best, checkedAdd(checkedMul(per_tensor, tensors[i]), previous));
  }
  return best;
}

/// The optimizer step's own bytes: its temporaries (fixed) and the batch the caller holds.
MemoryTerm optimizerStepTerm(const ModelStateCounts& c, const Workload& w, DType state_format) {
  const bool adapters_only = c.trainable == 0 && c.adapters > 0;
  const int64_t updated = adapters_only ? c.adapters : c.trainable;
  // Under LoRA the adapters' tensors are not listed: the foreach figure bounds the for-loop's.
  static const std::vector<int64_t> kNoTensors;
  const int64_t temps = stepTemporaryElements(w.optimizer, w.optimizer_impl, updated,
                                              adapters_only ? kNoTensors : c.tensors);
  const int bits = adapters_only ? 32 : dtypeBits(state_format);
  MemoryTerm t;
  t.key = MemoryKey::kOptimizerStep;
  t.sharding = Sharding::kZero1;  // each rank steps its own shard of the states
  t.phase = MemoryPhase::kOptimizerStep;
  t.fixed = bytesForBits(temps, bits);
  t.per_sample = c.held_per_sample;
  t.formula = "temporaries × bits_per_value / 8 + batch × held_per_sample";
  t.inputs = {{"temporaries", temps,
               std::string(optimizerName(w.optimizer)) + " " + optimizerImplName(w.optimizer_impl)},
              {"bits_per_value", bits, adapters_only ? "fp32" : dtypeName(state_format)},
              {"batch", w.batch, ""},
              {"held_per_sample", c.held_per_sample, "bytes of input and output"}};
  return t;
}

/// The weights, and for int8/int4/fp8 weights their scales. Block linear weights are the
/// quantized ones; embeddings, norms, biases, routers and the LM head stay in the compute format
/// (as GPTQ, AWQ and bitsandbytes leave them).
void addWeightTerms(const ModelStateCounts& c, const PrecisionLayout& lay,
                    std::vector<MemoryTerm>& out) {
  if (!isQuantized(c.weight_dtype)) {
    out.push_back(valuesTerm(MemoryKey::kWeights, Sharding::kZero3, c.params,
                             dtypeBits(c.weight_dtype), "parameters", dtypeName(c.weight_dtype)));
    return;
  }
  const int qbits = dtypeBits(c.weight_dtype), bits = dtypeBits(lay.weights);
  const int64_t rest = checkedSub(c.params, c.quantized);
  MemoryTerm t;
  t.key = MemoryKey::kWeights;
  t.sharding = Sharding::kZero3;
  t.fixed = checkedAdd(bytesForBits(c.quantized, qbits), bytesForBits(rest, bits));
  t.formula = "quantized × quantized_bits / 8 + other × bits_per_value / 8";
  t.inputs = {{"quantized", c.quantized, ""},
              {"quantized_bits", qbits, dtypeName(c.weight_dtype)},
              {"other", rest, ""},
              {"bits_per_value", bits, dtypeName(lay.weights)}};
  out.push_back(std::move(t));
  MemoryTerm s;
  s.key = MemoryKey::kQuantScales;
  s.sharding = Sharding::kZero3;
  if (c.weight_dtype == DType::kFp8) {
    s.fixed = checkedMul(4, c.quant_matrices);
    s.formula = "matrices × 4";  // one fp32 scale per matrix
    s.inputs = {{"matrices", c.quant_matrices, "fp32 scale each"}};
  } else {
    s.fixed = checkedMul(2, c.quant_groups);
    s.formula = "groups × 2";  // one fp16 scale per group
    s.inputs = {{"groups", c.quant_groups, "fp16 scale each"}};
  }
  out.push_back(std::move(s));
}

/// Bits per optimizer-state value: the optimizer's own (8-bit Adam) or the format's.
int stateBits(const Workload& w, DType format) {
  const int own = optimizerStateBits(w.optimizer);
  return own ? own : dtypeBits(format);
}

/// The optimizer's states over `trainable` values.
MemoryTerm optimizerTerm(const Workload& w, MemoryKey key, Sharding sharding, int64_t trainable,
                         DType format) {
  const int k = optimizerStateCount(w.optimizer);
  const int bits = stateBits(w, format);
  MemoryTerm t;
  t.key = key;
  t.sharding = sharding;
  t.fixed = bytesForBits(checkedMul(trainable, k), bits);
  t.formula = "states × trainable × bits_per_value / 8";
  t.inputs = {
      {"states", k, optimizerName(w.optimizer)},
      {"trainable", trainable, ""},
      {"bits_per_value", bits, optimizerStateBits(w.optimizer) ? "8-bit" : dtypeName(format)}};
  return t;
}

/// fp16 autocast trains under torch.cuda.amp.GradScaler, which keeps two one-element tensors
/// beside the optimizer's states: its scale (fp32) and its growth tracker (int32).
void addGradScaler(MemoryTerm& states) {
  constexpr int64_t kGradScalerBytes = 4 + 4;
  states.fixed = checkedAdd(states.fixed, kGradScalerBytes);
  states.formula += " + grad_scaler";
  states.inputs.push_back(
      {"grad_scaler", kGradScalerBytes, "bytes: GradScaler's scale (fp32) and growth tracker"});
}

/// Gradients, fp32 master weights and optimizer states of the trained parameters, and the
/// adapters' own weights, gradients and states under LoRA.
void addTrainingTerms(const ModelStateCounts& c, const Workload& w, const PrecisionLayout& lay,
                      std::vector<MemoryTerm>& out) {
  // Only adapters train under LoRA: the base model has no gradients or optimizer states.
  if (c.trainable > 0 || c.adapters == 0) {
    out.push_back(valuesTerm(MemoryKey::kGradients, Sharding::kZero2, c.trainable,
                             dtypeBits(lay.gradients), "trainable", dtypeName(lay.gradients)));
    if (lay.master_weights) {
      out.push_back(valuesTerm(MemoryKey::kMasterWeights, Sharding::kZero1, c.trainable, 32,
                               "trainable", "fp32"));
    }
    out.push_back(optimizerTerm(w, MemoryKey::kOptimizerStates, Sharding::kZero1, c.trainable,
                                lay.optimizer_states));
    if (w.precision == Precision::kAutocastFp16) addGradScaler(out.back());
  }
  if (c.adapters > 0) {
    // PEFT keeps adapters in fp32 even over a 16-bit base (LoraConfig's
    // autocast_adapter_dtype=True upcasts fp16/bf16 adapters), so their gradients and
    // optimizer states are fp32 as well (8-bit under Adam8bit). They shard like the states
    // they belong to.
    out.push_back(valuesTerm(MemoryKey::kAdapterWeights, Sharding::kZero3, c.adapters, 32,
                             "adapters", "fp32"));
    out.push_back(valuesTerm(MemoryKey::kAdapterGradients, Sharding::kZero2, c.adapters, 32,
                             "adapters", "fp32"));
    out.push_back(optimizerTerm(w, MemoryKey::kAdapterOptimizerStates, Sharding::kZero1, c.adapters,
                                DType::kFp32));
  }
}

}  // namespace

std::vector<MemoryTerm> modelStateTerms(const ModelStateCounts& c, const Workload& w) {
  const PrecisionLayout lay = layoutOf(w.precision);
  std::vector<MemoryTerm> out;
  addWeightTerms(c, lay, out);
  if (w.mode != Mode::kTrain) return out;
  addTrainingTerms(c, w, lay, out);
  out.push_back(optimizerStepTerm(c, w, lay.optimizer_states));
  return out;
}

MemoryTerm activationTerm(MemoryKey key, int64_t fixed, int64_t per_sample, std::string formula,
                          std::vector<TermInput> inputs) {
  MemoryTerm t;
  t.key = key;
  t.sharding = Sharding::kActivation;
  t.fixed = fixed;
  t.per_sample = per_sample;
  t.formula = std::move(formula);
  t.inputs = std::move(inputs);
  return t;
}

MemoryTerm overheadTerm(const Workload& w) {
  MemoryTerm t;
  t.key = MemoryKey::kOverhead;
  t.sharding = Sharding::kReplicated;
  t.fixed = w.overhead_bytes;
  t.formula = "overhead_bytes";
  t.inputs = {{"overhead_bytes", w.overhead_bytes, ""}};
  return t;
}

}  // namespace dlcost
