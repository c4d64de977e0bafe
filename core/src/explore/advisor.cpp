// Each piece of advice is verified by running the changed workload through the engine again.

#include "dlcost/explore/advisor.hpp"

#include <algorithm>

#include "dlcost/base/engine_limits.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/base/text.hpp"
#include "dlcost/gpu/fit.hpp"
#include "dlcost/gpu/gpu_table.hpp"
#include "dlcost/report/estimate.hpp"
#include "dlcost/types/transformer.hpp"

namespace dlcost {

namespace {

/// Re-estimates `candidate`; the per-GPU bytes when it fits.
std::optional<int64_t> fitsWith(const Model& model, Workload candidate) {
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

  bool offer(Text change, const Workload& candidate, int64_t accumulation = 1) const {
    auto bytes = fitsWith(model, candidate);
    if (!bytes) return false;
    Advice a{std::move(change.en), std::move(change.zh), candidate, accumulation, *bytes};
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
  const std::string n = std::to_string(batch), k = std::to_string(accumulation);
  const Text text =
      a.train()
          ? Text{"batch " + n + " with " + k + " gradient-accumulation steps (effective batch " +
                     std::to_string(batch * accumulation) + ")",
                 "批大小 " + n + "，梯度累积 " + k + " 步（等效批大小 " +
                     std::to_string(batch * accumulation) + "）"}
          : Text{"batch " + n + " (" + k + " forward passes per " + std::to_string(w.batch) +
                     " samples)",
                 "批大小 " + n + "（每 " + std::to_string(w.batch) + " 个样本前向 " + k + " 次）"};
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
    const Text text =
        pr == Precision::kMixed
            ? Text{"mixed precision (16-bit weights, gradients and activations; fp32 master "
                   "weights and optimizer states)",
                   "混合精度（16 位权重、梯度与激活；fp32 主权重与优化器状态）"}
            : Text{"pure bf16 (weights, gradients, optimizer states and activations in bf16)",
                   "纯 bf16（权重、梯度、优化器状态与激活均为 bf16）"};
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
    lighter = a.offer({"8-bit Adam (bitsandbytes: 2 bytes of state per parameter)",
                       "8 位 Adam（bitsandbytes：每个参数 2 字节状态）"},
                      c);
  }
  for (Optimizer o : {Optimizer::kMomentum, Optimizer::kSgd}) {
    if (lighter || optimizerStateCount(o) >= optimizerStateCount(w.optimizer)) continue;
    Workload c = w;
    c.optimizer = o;
    const std::string name = optimizerName(o), states = std::to_string(optimizerStateCount(o));
    lighter = a.offer({"optimizer " + name + " (" + states + " state tensors per parameter)",
                       "优化器 " + name + "（每个参数 " + states + " 个状态张量）"},
                      c);
  }
}

const Text kQloraAdvice{"QLoRA (4-bit base weights with LoRA adapters)",
                        "QLoRA（4 位基础权重加 LoRA 适配器）"};

/// Transformer training: recompute activations, then train adapters instead of every weight
/// (LoRA, then QLoRA's 4-bit base).
void transformerTraining(const Advising& a) {
  const Workload& w = a.w;
  if (!a.transformer() || !a.train()) return;
  for (Recompute rc : {Recompute::kSelective, Recompute::kFull}) {
    if (rc <= w.recompute) continue;
    Workload c = w;
    c.recompute = rc;
    const Text text =
        rc == Recompute::kSelective
            ? Text{"selective activation recomputation (recompute attention scores in backward)",
                   "选择性激活重计算（反向传播时重算注意力分数）"}
            : Text{"full activation recomputation (keep each layer's input, recompute the layer)",
                   "完全激活重计算（只保存每层输入，反向时重算该层）"};
    if (a.offer(text, c)) break;
  }
  Workload qlora = w;
  qlora.finetune = Finetune::kQlora;
  qlora.weight_dtype = DType::kInt4;
  if (w.finetune == Finetune::kNone || w.finetune == Finetune::kFull) {
    Workload c = w;
    c.finetune = Finetune::kLora;
    const std::string rank = std::to_string(w.lora_rank);
    if (!a.offer({"LoRA fine-tuning (rank " + rank + " adapters; the base weights frozen)",
                  "LoRA 微调（秩 " + rank + " 的适配器；基础权重冻结）"},
                 c))
      a.offer(kQloraAdvice, qlora);
  } else if (w.finetune == Finetune::kLora) {
    a.offer(kQloraAdvice, qlora);
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
    const std::string dtype = dtypeName(d), group = std::to_string(w.quant_group_size);
    if (a.offer({"weights quantized to " + dtype + " (group size " + group + ")",
                 "权重量化为 " + dtype + "（分组大小 " + group + "）"},
                c))
      break;
  }
  const int kv_bits =
      w.kv_dtype ? dtypeBits(*w.kv_dtype) : dtypeBits(layoutOf(w.precision).activations);
  if (kv_bits > 8) {
    Workload c = w;
    c.kv_dtype = DType::kFp8;
    a.offer({"KV cache in fp8", "KV 缓存使用 fp8"}, c);
  }
}

/// A higher ZeRO stage over the data-parallel GPUs already there.
void higherZeroStage(const Advising& a) {
  // ZeRO shards over every data-parallel GPU, the context-parallel ones included.
  const int64_t sharding = a.w.hardware.parallel.dataParallel();
  if (!a.train() || sharding <= 1) return;
  for (int s = a.w.hardware.parallel.zero + 1; s <= 3; ++s) {
    Workload c = a.w;
    c.hardware.parallel.zero = s;
    const std::string stage = std::to_string(s), dp = std::to_string(sharding);
    if (a.offer({"ZeRO stage " + stage + " over the " + dp + " data-parallel GPUs",
                 "在 " + dp + " 个数据并行 GPU 上使用 ZeRO 第 " + stage + " 阶段"},
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
    const int64_t dp = c.hardware.parallel.batchReplicas();
    if (a.w.batch % (dp * p.microbatchCount()) != 0) return;  // the batch no longer splits
    const std::string gpus = std::to_string(c.hardware.parallel.gpus);
    if (a.offer({gpus + " GPUs (data parallel " + std::to_string(dp) + ")",
                 gpus + " 个 GPU（数据并行 " + std::to_string(dp) + "）"},
                c))
      return;
    if (a.train() && p.zero < 3) {
      c.hardware.parallel.zero = 3;
      if (a.offer({gpus + " GPUs with ZeRO stage 3", gpus + " 个 GPU，ZeRO 第 3 阶段"}, c)) return;
    }
  }
}

/// Tensor parallelism over 2, 4 or 8 times the GPUs (the weights, and a serving plan's KV
/// cache, split); the first that fits is offered. `A` is Advising or ServingAdvising.
template <typename A>
void offerTensorParallel(const A& a) {
  const Parallelism& p = a.w.hardware.parallel;
  for (int64_t factor = 2; factor <= 8; factor *= 2) {
    Workload c = a.w;
    c.hardware.parallel.gpus = p.gpus * factor;
    c.hardware.parallel.tp = p.tp * factor;
    const std::string tp = std::to_string(c.hardware.parallel.tp);
    if (a.offer({"tensor parallel over " + tp + " GPUs", "在 " + tp + " 个 GPU 上张量并行"}, c))
      return;
  }
}

/// Inference: tensor parallelism over more GPUs, which splits the weights.
void tensorParallelInference(const Advising& a) {
  if (!a.train()) offerTensorParallel(a);
}

/// Transformer training on several GPUs: each sequence split over more of the data-parallel
/// GPUs (context parallelism, 2, 4, ... times the workload's cp while it divides them), which
/// divides each GPU's tokens and so its activations. The same GPUs then hold fewer batch
/// replicas: the batch falls by the same factor and gradient accumulation makes up for it, so
/// the optimizer step keeps its tokens. The first that fits is offered.
void contextParallel(const Advising& a) {
  const Workload& w = a.w;
  if (!a.transformer() || !a.train()) return;
  const Parallelism& p = w.hardware.parallel;
  for (int64_t k = 2; p.cp * k <= p.dataParallel(); k *= 2) {
    const int64_t cp = p.cp * k;
    if (p.dataParallel() % cp != 0 || w.batch % k != 0 || w.grad_accum > kMaxBatch / k) return;
    Workload c = w;
    c.hardware.parallel.cp = cp;
    c.batch = w.batch / k;
    c.grad_accum = w.grad_accum * k;
    const std::string n = std::to_string(cp), b = std::to_string(c.batch),
                      g = std::to_string(c.grad_accum);
    if (a.offer({"context parallelism over " + n + " GPUs (each sequence split " + n +
                     " ways), batch " + b + " with " + g +
                     " gradient-accumulation steps (the same tokens per optimizer step)",
                 "在 " + n + " 个 GPU 上做上下文并行（每条序列切成 " + n + " 份），批大小 " + b +
                     "，梯度累积 " + g + " 步（每次优化器更新的 token 数不变）"},
                c, k))
      return;
  }
}

/// The strategies, in the order their advice is listed: changes to the run itself first, then
/// lighter number formats and optimizers, then changes to the model's training, then hardware.
using Strategy = void (*)(const Advising&);
constexpr Strategy kStrategies[] = {
    smallerBatch,         sixteenBitPrecision, lighterOptimizer, transformerTraining,
    transformerInference, higherZeroStage,     moreGpus,         tensorParallelInference,
    contextParallel};

/// A serving question (inference with an engine) is answered by the serving plan: advice for
/// it is what an operator changes (the weights' format, the context, the users, tensor
/// parallelism, the GPU), each kept when the changed plan holds its users at its context.
struct ServingAdvising {
  const Model& model;
  const Workload& w;
  const ServingPlan& plan;
  std::vector<Advice>& out;

  bool offer(Text change, const Workload& candidate) const {
    try {
      const Report r = estimate(model, candidate);
      if (!r.serving || !r.serving->fits) return false;
      out.push_back(
          {std::move(change.en), std::move(change.zh), candidate, 1, r.serving->device.total});
      return true;
    } catch (const InputError&) {
      return false;  // a change this model, GPU or engine cannot take is no advice
    }
  }
};

/// Quantized weights in the engine's own formats: FP8 then 4-bit AWQ for vLLM and SGLang,
/// bitsandbytes NF4 for Hugging Face transformers (llama.cpp's GGUF types are its own field).
void servingQuant(const ServingAdvising& a) {
  if (a.w.serving.quant != QuantFormat::kNone) return;
  std::vector<QuantFormat> formats;
  if (a.w.serving.engine == Engine::kVllm || a.w.serving.engine == Engine::kSglang ||
      a.w.serving.engine == Engine::kTrtllm)
    formats = {QuantFormat::kFp8Channel, QuantFormat::kAwq};
  if (a.w.serving.engine == Engine::kHf) formats = {QuantFormat::kBnbNf4};
  for (QuantFormat q : formats) {
    Workload c = a.w;
    c.serving.quant = q;
    const std::string name = quantFormatName(q);
    if (a.offer({"weights quantized (" + name + ")", "权重量化（" + name + "）"}, c)) return;
  }
}

/// Fewer users at the same context: as many as the plan holds.
void servingFewerUsers(const ServingAdvising& a) {
  if (a.plan.max_users < 1 || a.plan.max_users >= a.w.serving.users) return;
  Workload c = a.w;
  c.serving.users = a.plan.max_users;
  const std::string n = std::to_string(a.plan.max_users);
  a.offer({n + " users at this context", "此上下文下 " + n + " 个用户"}, c);
}

/// A shorter context for the same users: halved while it stays at 256 tokens or more.
void servingShorterContext(const ServingAdvising& a) {
  for (int64_t context = a.plan.context / 2; context >= 256; context /= 2) {
    Workload c = a.w;
    c.serving.context = context;
    const std::string n = std::to_string(context);
    if (a.offer({"context " + n + " tokens", "上下文 " + n + " 个 token"}, c)) return;
  }
}

/// Tensor parallelism over 2, 4 or 8 GPUs (the weights and the KV cache split).
void servingTensorParallel(const ServingAdvising& a) {
  offerTensorParallel(a);
}

/// The GPU of the same vendor with the least memory above this one's that holds the plan.
void servingBiggerGpu(const ServingAdvising& a) {
  const std::optional<Gpu>& now = a.w.hardware.gpu;
  if (!now) return;
  std::vector<const Gpu*> bigger;
  for (const Gpu& g : gpuPresets())
    if (g.vendor == now->vendor && g.memory_bytes > now->memory_bytes) bigger.push_back(&g);
  std::stable_sort(bigger.begin(), bigger.end(),
                   [](const Gpu* x, const Gpu* y) { return x->memory_bytes < y->memory_bytes; });
  for (const Gpu* g : bigger) {
    Workload c = a.w;
    c.hardware.gpu = *g;
    if (a.offer({"a GPU with more memory: " + g->name, "显存更大的 GPU：" + g->name}, c)) return;
  }
}

using ServingStrategy = void (*)(const ServingAdvising&);
constexpr ServingStrategy kServingStrategies[] = {servingQuant, servingShorterContext,
                                                  servingFewerUsers, servingTensorParallel,
                                                  servingBiggerGpu};

}  // namespace

std::vector<Advice> adviseFits(const Model& model, const Workload& w, const GpuFit& fit) {
  std::vector<Advice> out;
  const Advising advising{model, w, fit, out};
  for (Strategy strategy : kStrategies) strategy(advising);
  return out;
}

std::vector<Advice> adviseServing(const Model& model, const Workload& w, const ServingPlan& plan) {
  std::vector<Advice> out;
  const ServingAdvising advising{model, w, plan, out};
  for (ServingStrategy strategy : kServingStrategies) strategy(advising);
  return out;
}

Report estimateWithAdvice(const Model& model, const Workload& workload) {
  Report report = estimate(model, workload);
  if (report.gpu_fit && report.serving) {
    // The serving plan answers the question (gpu_json.cpp, "answered_by"): so does the advice.
    if (!report.serving->fits)
      report.gpu_fit->advice = adviseServing(model, workload, *report.serving);
    return report;
  }
  if (!report.gpu_fit || report.gpu_fit->fits) return report;
  GpuFit& fit = *report.gpu_fit;
  fit.advice = adviseFits(model, workload, fit);
  if (std::holds_alternative<LayerGraph>(model.body)) {
    fit.notes.push_back(
        "activation recomputation, LoRA and quantized weights are not modelled for layer "
        "graphs, so the advisor does not offer them");
  }
  return report;
}

}  // namespace dlcost
