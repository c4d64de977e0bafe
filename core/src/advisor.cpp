// The advisor: when a workload does not fit its GPU, the smallest changes that do, each
// verified by running the changed workload through the engine again.

#include <algorithm>

#include "dlcost/engine_limits.hpp"
#include "dlcost/error.hpp"
#include "dlcost/estimate.hpp"
#include "dlcost/fit.hpp"
#include "dlcost/transformer.hpp"

namespace dlcost {

namespace {

/// Re-estimates `candidate`; the per-GPU bytes when it fits.
std::optional<int64_t> fitsWith(const Model& model, Workload candidate) {
  candidate.hardware.advise = false;
  try {
    const Report r = estimate(model, candidate);
    if (r.gpu_fit && r.gpu_fit->fits) return r.gpu_fit->per_gpu.total;
  } catch (const InputError&) {
    // A layout this model cannot take (e.g. tp not dividing its channels) is no advice.
  }
  return std::nullopt;
}

/// What every strategy sees: the model, the workload that does not fit and its fit; `offer`
/// re-estimates a changed workload and keeps it as advice when it fits.
struct Advising {
  const Model& model;
  const Workload& w;
  const GpuFit& fit;
  std::vector<Advice>& out;

  bool offer(std::string change, const Workload& candidate, int64_t accumulation = 1) const {
    auto bytes = fitsWith(model, candidate);
    if (!bytes) return false;
    Advice a{std::move(change), candidate, accumulation, *bytes};
    a.workload.hardware.advise = true;
    out.push_back(std::move(a));
    return true;
  }
  /// Batches must stay multiples of the data-parallel replicas times the micro-batches.
  int64_t batchStep() const { return fit.data_parallel * w.hardware.parallel.microbatchCount(); }
  bool train() const { return w.mode == Mode::kTrain; }
  bool transformer() const { return std::holds_alternative<Transformer>(model.body); }
};

/// A smaller batch per step, with gradient accumulation keeping the effective batch
/// (training); inference simply runs smaller batches.
void smallerBatch(const Advising& a) {
  const Workload& w = a.w;
  const int64_t step = a.batchStep();
  if (a.fit.max_batch < step || a.fit.max_batch >= w.batch) return;
  int64_t accumulation = 0, batch = 0;
  for (int64_t k = 2; k <= w.batch / step; ++k) {
    if (w.batch % k == 0 && (w.batch / k) % step == 0 && w.batch / k <= a.fit.max_batch) {
      accumulation = k;
      batch = w.batch / k;
      break;
    }
  }
  if (!accumulation) {  // no exact divisor fits: the largest batch, accumulated to >= batch
    batch = a.fit.max_batch;
    accumulation = (w.batch + batch - 1) / batch;
  }
  Workload c = w;
  c.batch = batch;
  // A transformer's workload counts the accumulation itself (grad_accum), so applying the
  // advice keeps the step's effective batch and its compute.
  if (a.train() && a.transformer() && w.grad_accum <= kMaxBatch / accumulation)
    c.grad_accum = w.grad_accum * accumulation;
  const std::string text =
      a.train() ? "batch " + std::to_string(batch) + " with " + std::to_string(accumulation) +
                      " gradient-accumulation steps (effective batch " +
                      std::to_string(batch * accumulation) + ")"
                : "batch " + std::to_string(batch) + " (" + std::to_string(accumulation) +
                      " forward passes per " + std::to_string(w.batch) + " samples)";
  a.offer(text, c, a.train() ? accumulation : 1);
}

/// 16-bit precision: mixed (fp32 master weights and states) first, then pure bf16.
void sixteenBitPrecision(const Advising& a) {
  std::vector<Precision> precisions;
  if (a.w.precision == Precision::kFp32) precisions = {Precision::kMixed, Precision::kBf16};
  if (a.w.precision == Precision::kMixed && a.train()) precisions = {Precision::kBf16};
  for (Precision pr : precisions) {
    Workload c = a.w;
    c.precision = pr;
    c.hardware.math.reset();
    const std::string text =
        pr == Precision::kMixed
            ? "mixed precision (16-bit weights, gradients and activations; fp32 master weights "
              "and optimizer states)"
            : "pure bf16 (weights, gradients, optimizer states and activations in bf16)";
    if (a.offer(text, c)) break;
  }
}

/// A lighter optimizer: Adam's states in 8 bits first (same algorithm), then fewer state
/// tensors per parameter.
void lighterOptimizer(const Advising& a) {
  const Workload& w = a.w;
  if (!a.train() || optimizerStateCount(w.optimizer) == 0) return;
  bool lighter = false;
  if (w.optimizer == Optimizer::kAdam || w.optimizer == Optimizer::kAdamW) {
    Workload c = w;
    c.optimizer = Optimizer::kAdam8bit;
    lighter = a.offer("8-bit Adam (bitsandbytes: 2 bytes of state per parameter)", c);
  }
  for (Optimizer o : {Optimizer::kMomentum, Optimizer::kSgd}) {
    if (lighter || optimizerStateCount(o) >= optimizerStateCount(w.optimizer)) continue;
    Workload c = w;
    c.optimizer = o;
    lighter = a.offer(std::string("optimizer ") + optimizerName(o) + " (" +
                          std::to_string(optimizerStateCount(o)) + " state tensors per parameter)",
                      c);
  }
}

/// Transformer training: recompute activations, then train adapters instead of every weight
/// (LoRA, then QLoRA's 4-bit base).
void transformerTraining(const Advising& a) {
  const Workload& w = a.w;
  if (!a.transformer() || !a.train()) return;
  for (Recompute rc : {Recompute::kSelective, Recompute::kFull}) {
    if (rc <= w.recompute) continue;
    Workload c = w;
    c.recompute = rc;
    const char* text =
        rc == Recompute::kSelective
            ? "selective activation recomputation (recompute attention scores in backward)"
            : "full activation recomputation (keep each layer's input, recompute the layer)";
    if (a.offer(text, c)) break;
  }
  Workload qlora = w;
  qlora.finetune = Finetune::kQlora;
  qlora.weight_dtype = DType::kInt4;
  if (w.finetune == Finetune::kNone || w.finetune == Finetune::kFull) {
    Workload c = w;
    c.finetune = Finetune::kLora;
    if (!a.offer("LoRA fine-tuning (rank " + std::to_string(w.lora_rank) +
                     " adapters; the base weights frozen)",
                 c))
      a.offer("QLoRA (4-bit base weights with LoRA adapters)", qlora);
  } else if (w.finetune == Finetune::kLora) {
    a.offer("QLoRA (4-bit base weights with LoRA adapters)", qlora);
  }
}

/// Transformer inference: weights in fewer bits (int8, then int4), the KV cache in fp8.
void transformerInference(const Advising& a) {
  const Workload& w = a.w;
  if (!a.transformer() || a.train()) return;
  const int bits =
      w.weight_dtype ? dtypeBits(*w.weight_dtype) : dtypeBits(layoutOf(w.precision).weights);
  for (DType d : {DType::kInt8, DType::kInt4}) {
    if (dtypeBits(d) >= bits) continue;
    Workload c = w;
    c.weight_dtype = d;
    if (a.offer(std::string("weights quantized to ") + dtypeName(d) + " (group size " +
                    std::to_string(w.quant_group_size) + ")",
                c))
      break;
  }
  const int kv_bits =
      w.kv_dtype ? dtypeBits(*w.kv_dtype) : dtypeBits(layoutOf(w.precision).activations);
  if (kv_bits > 8) {
    Workload c = w;
    c.kv_dtype = DType::kFp8;
    a.offer("KV cache in fp8", c);
  }
}

/// A higher ZeRO stage over the data-parallel GPUs already there.
void higherZeroStage(const Advising& a) {
  if (!a.train() || a.fit.data_parallel <= 1) return;
  for (int s = a.w.hardware.parallel.zero + 1; s <= 3; ++s) {
    Workload c = a.w;
    c.hardware.parallel.zero = s;
    if (a.offer("ZeRO stage " + std::to_string(s) + " over the " +
                    std::to_string(a.fit.data_parallel) + " data-parallel GPUs",
                c))
      break;
  }
}

/// More GPUs, data parallel (with the same ZeRO stage, then with ZeRO-3 for training), doubling
/// up to 64x while the batch still splits.
void moreGpus(const Advising& a) {
  const Parallelism& p = a.w.hardware.parallel;
  for (int64_t factor = 2; factor <= 64; factor *= 2) {
    Workload c = a.w;
    c.hardware.parallel.gpus = p.gpus * factor;
    const int64_t dp = c.hardware.parallel.dataParallel();
    if (a.w.batch % (dp * p.microbatchCount()) != 0) return;  // the batch no longer splits
    if (a.offer(std::to_string(c.hardware.parallel.gpus) + " GPUs (data parallel " +
                    std::to_string(dp) + ")",
                c))
      return;
    if (a.train() && p.zero < 3) {
      c.hardware.parallel.zero = 3;
      if (a.offer(std::to_string(c.hardware.parallel.gpus) + " GPUs with ZeRO stage 3", c)) return;
    }
  }
}

/// Inference: tensor parallelism over more GPUs, which splits the weights.
void tensorParallelInference(const Advising& a) {
  if (a.train()) return;
  const Parallelism& p = a.w.hardware.parallel;
  for (int64_t factor = 2; factor <= 8; factor *= 2) {
    Workload c = a.w;
    c.hardware.parallel.gpus = p.gpus * factor;
    c.hardware.parallel.tp = p.tp * factor;
    if (a.offer("tensor parallel over " + std::to_string(c.hardware.parallel.tp) + " GPUs", c))
      return;
  }
}

/// The strategies, in the order their advice is listed: changes to the run itself first, then
/// lighter number formats and optimizers, then changes to the model's training, then hardware.
using Strategy = void (*)(const Advising&);
constexpr Strategy kStrategies[] = {
    smallerBatch,         sixteenBitPrecision, lighterOptimizer, transformerTraining,
    transformerInference, higherZeroStage,     moreGpus,         tensorParallelInference};

}  // namespace

std::vector<Advice> adviseFits(const Model& model, const Workload& w, const GpuFit& fit) {
  std::vector<Advice> out;
  const Advising advising{model, w, fit, out};
  for (Strategy strategy : kStrategies) strategy(advising);
  return out;
}

}  // namespace dlcost
