// The advisor: when a workload does not fit its GPU, the smallest changes that do, each
// verified by running the changed workload through the engine again.

#include <algorithm>
#include <functional>

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

}  // namespace

std::vector<Advice> adviseFits(const Model& model, const Workload& w, const GpuFit& fit) {
  std::vector<Advice> out;
  auto offer = [&](std::string change, const Workload& candidate, int64_t accumulation = 1) {
    if (auto bytes = fitsWith(model, candidate)) {
      Advice a{std::move(change), candidate, accumulation, *bytes};
      a.workload.hardware.advise = true;
      out.push_back(std::move(a));
      return true;
    }
    return false;
  };
  const Parallelism& p = w.hardware.parallel;
  const int64_t step = fit.data_parallel * p.microbatchCount();  // batches must be multiples

  // 1. A smaller batch per step, with gradient accumulation keeping the effective batch
  //    (training); inference simply runs smaller batches.
  if (fit.max_batch >= step && fit.max_batch < w.batch) {
    int64_t accumulation = 0, batch = 0;
    for (int64_t k = 2; k <= w.batch / step; ++k) {
      if (w.batch % k == 0 && (w.batch / k) % step == 0 && w.batch / k <= fit.max_batch) {
        accumulation = k;
        batch = w.batch / k;
        break;
      }
    }
    if (!accumulation) {  // no exact divisor fits: the largest batch, accumulated to >= batch
      batch = fit.max_batch;
      accumulation = (w.batch + batch - 1) / batch;
    }
    Workload c = w;
    c.batch = batch;
    // A transformer's workload counts the accumulation itself (grad_accum), so applying the
    // advice keeps the step's effective batch and its compute.
    const bool counted = w.mode == Mode::kTrain && std::holds_alternative<Transformer>(model.body);
    if (counted && w.grad_accum <= kMaxBatch / accumulation)
      c.grad_accum = w.grad_accum * accumulation;
    const std::string text =
        w.mode == Mode::kTrain
            ? "batch " + std::to_string(batch) + " with " + std::to_string(accumulation) +
                  " gradient-accumulation steps (effective batch " +
                  std::to_string(batch * accumulation) + ")"
            : "batch " + std::to_string(batch) + " (" + std::to_string(accumulation) +
                  " forward passes per " + std::to_string(w.batch) + " samples)";
    offer(text, c, w.mode == Mode::kTrain ? accumulation : 1);
  }

  // 2. 16-bit precision: mixed (fp32 master weights and states) first, then pure bf16.
  std::vector<Precision> precisions;
  if (w.precision == Precision::kFp32) precisions = {Precision::kMixed, Precision::kBf16};
  if (w.precision == Precision::kMixed && w.mode == Mode::kTrain) precisions = {Precision::kBf16};
  for (Precision pr : precisions) {
    Workload c = w;
    c.precision = pr;
    c.hardware.math.reset();
    const std::string text =
        pr == Precision::kMixed
            ? "mixed precision (16-bit weights, gradients and activations; fp32 master weights "
              "and optimizer states)"
            : "pure bf16 (weights, gradients, optimizer states and activations in bf16)";
    if (offer(text, c)) break;
  }

  // 3. A lighter optimizer: Adam's states in 8 bits first (same algorithm), then fewer state
  //    tensors per parameter.
  if (w.mode == Mode::kTrain && optimizerStateCount(w.optimizer) > 0) {
    const bool adam = w.optimizer == Optimizer::kAdam || w.optimizer == Optimizer::kAdamW;
    bool lighter = false;
    if (adam) {
      Workload c = w;
      c.optimizer = Optimizer::kAdam8bit;
      lighter = offer("8-bit Adam (bitsandbytes: 2 bytes of state per parameter)", c);
    }
    for (Optimizer o : {Optimizer::kMomentum, Optimizer::kSgd}) {
      if (lighter || optimizerStateCount(o) >= optimizerStateCount(w.optimizer)) continue;
      Workload c = w;
      c.optimizer = o;
      lighter = offer(std::string("optimizer ") + optimizerName(o) + " (" +
                          std::to_string(optimizerStateCount(o)) + " state tensors per parameter)",
                      c);
    }
  }

  // 4. Transformers: recompute activations, train adapters instead of every weight, or
  //    store the weights (and the KV cache) in fewer bits.
  if (std::holds_alternative<Transformer>(model.body)) {
    if (w.mode == Mode::kTrain) {
      for (Recompute rc : {Recompute::kSelective, Recompute::kFull}) {
        if (rc <= w.recompute) continue;
        Workload c = w;
        c.recompute = rc;
        if (offer(
                rc == Recompute::kSelective
                    ? "selective activation recomputation (recompute attention scores in backward)"
                    : "full activation recomputation (keep each layer's input, recompute the "
                      "layer)",
                c))
          break;
      }
      if (w.finetune == Finetune::kNone || w.finetune == Finetune::kFull) {
        Workload c = w;
        c.finetune = Finetune::kLora;
        if (!offer("LoRA fine-tuning (rank " + std::to_string(w.lora_rank) +
                       " adapters; the base weights frozen)",
                   c)) {
          c.finetune = Finetune::kQlora;
          c.weight_dtype = DType::kInt4;
          offer("QLoRA (4-bit base weights with LoRA adapters)", c);
        }
      } else if (w.finetune == Finetune::kLora) {
        Workload c = w;
        c.finetune = Finetune::kQlora;
        c.weight_dtype = DType::kInt4;
        offer("QLoRA (4-bit base weights with LoRA adapters)", c);
      }
    } else {
      const int bits =
          w.weight_dtype ? dtypeBits(*w.weight_dtype) : dtypeBits(layoutOf(w.precision).weights);
      for (DType d : {DType::kInt8, DType::kInt4}) {
        if (dtypeBits(d) >= bits) continue;
        Workload c = w;
        c.weight_dtype = d;
        if (offer(std::string("weights quantized to ") + dtypeName(d) + " (group size " +
                      std::to_string(w.quant_group_size) + ")",
                  c))
          break;
      }
      const int kv_bits =
          w.kv_dtype ? dtypeBits(*w.kv_dtype) : dtypeBits(layoutOf(w.precision).activations);
      if (kv_bits > 8) {
        Workload c = w;
        c.kv_dtype = DType::kFp8;
        offer("KV cache in fp8", c);
      }
    }
  }

  // 5. A higher ZeRO stage over the data-parallel GPUs already there.
  if (w.mode == Mode::kTrain && fit.data_parallel > 1) {
    for (int s = p.zero + 1; s <= 3; ++s) {
      Workload c = w;
      c.hardware.parallel.zero = s;
      if (offer("ZeRO stage " + std::to_string(s) + " over the " +
                    std::to_string(fit.data_parallel) + " data-parallel GPUs",
                c))
        break;
    }
  }

  // 6. More GPUs: data parallel (with the same ZeRO stage, then with ZeRO-3 for training),
  //    and for inference tensor parallel, which splits the weights.
  bool found = false;
  for (int64_t factor = 2; factor <= 64 && !found; factor *= 2) {
    Workload c = w;
    c.hardware.parallel.gpus = p.gpus * factor;
    const int64_t dp = c.hardware.parallel.dataParallel();
    if (w.batch % (dp * p.microbatchCount()) != 0) break;  // the batch no longer splits
    found = offer(std::to_string(c.hardware.parallel.gpus) + " GPUs (data parallel " +
                      std::to_string(dp) + ")",
                  c);
    if (!found && w.mode == Mode::kTrain && p.zero < 3) {
      c.hardware.parallel.zero = 3;
      found = offer(std::to_string(c.hardware.parallel.gpus) + " GPUs with ZeRO stage 3", c);
    }
  }
  if (w.mode == Mode::kInfer) {
    for (int64_t factor = 2; factor <= 8; factor *= 2) {
      Workload c = w;
      c.hardware.parallel.gpus = p.gpus * factor;
      c.hardware.parallel.tp = p.tp * factor;
      if (offer("tensor parallel over " + std::to_string(c.hardware.parallel.tp) + " GPUs", c))
        break;
    }
  }
  return out;
}

}  // namespace dlcost
