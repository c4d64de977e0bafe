#pragma once
// How a model is run: the knobs that change its cost but not its architecture.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dlcost/types/serving_settings.hpp"
#include "dlcost/types/transformer.hpp"

#include "dlcost/types/parallel.hpp"
#include "dlcost/types/precision.hpp"
#include "dlcost/types/run_cost.hpp"

namespace dlcost {

enum class Mode {
  kTrain,  ///< forward + backward + optimizer step
  kInfer,  ///< forward only, no gradients, only simultaneously live tensors
};
inline constexpr Mode kModes[] = {Mode::kTrain, Mode::kInfer};

/// Optimizers by the number of per-parameter state tensors they keep.
enum class Optimizer {
  kSgd,       ///< plain SGD: no state
  kMomentum,  ///< SGD with momentum: 1 (momentum buffer)
  kAdam,      ///< 2 (exp_avg, exp_avg_sq)
  kAdamW,     ///< 2, as Adam
  kRmsprop,   ///< 1 (square_avg; PyTorch's default momentum=0 adds none)
  kAdagrad,   ///< 1 (sum)
  /// Adam with 8-bit block-wise quantized states (bitsandbytes; Dettmers et al. 2022, "8-bit
  /// Optimizers via Block-wise Quantization"): 2 states of 1 byte per parameter.
  kAdam8bit,
};
/// Every optimizer, in the order lists and menus show them (the workload schema's values).
inline constexpr Optimizer kOptimizers[] = {
    Optimizer::kSgd,     Optimizer::kMomentum, Optimizer::kAdam,    Optimizer::kAdamW,
    Optimizer::kRmsprop, Optimizer::kAdagrad,  Optimizer::kAdam8bit};

/// What `optimizer.zero_grad()` does to the gradients between steps (training).
enum class ZeroGrad {
  /// Frees them (`set_to_none=True`, PyTorch's default since 2.0): backward creates each
  /// parameter's gradient when that parameter's layer runs backward.
  kSetToNone,
  /// Fills them with zeros (`set_to_none=False`, the default before 2.0): every gradient
  /// exists for the whole step, and backward adds each new one into it.
  kZero,
};
inline constexpr ZeroGrad kZeroGrads[] = {ZeroGrad::kSetToNone, ZeroGrad::kZero};

/// Which of PyTorch's optimizer implementations runs the step (torch/optim/, `foreach=` and
/// `fused=` of Adam, AdamW, SGD, RMSprop, Adagrad); it sets the step's temporaries.
enum class OptimizerImpl {
  kForeach,  ///< `_multi_tensor_*`: PyTorch 2.x's default when every parameter is on CUDA
  kForLoop,  ///< `_single_tensor_*`: one parameter at a time (the default on CPU)
  kFused,    ///< `_fused_*`: one kernel, no temporaries (`fused=True`)
};
inline constexpr OptimizerImpl kOptimizerImpls[] = {OptimizerImpl::kForeach,
                                                    OptimizerImpl::kForLoop, OptimizerImpl::kFused};

/// How attention is computed (transformers only).
enum class AttentionImpl {
  kEager,  ///< materialises the s x s scores (and keeps them for backward)
  kFlash,  ///< FlashAttention: tiles the scores, keeps only a per-row log-sum-exp (fp32)
};
inline constexpr AttentionImpl kAttentionImpls[] = {AttentionImpl::kFlash, AttentionImpl::kEager};

/// Activation recomputation (Korthikanti et al. 2022, "Reducing Activation Recomputation in
/// Large Transformer Models", section 4).
enum class Recompute {
  kNone,       ///< keep every activation the backward needs
  kSelective,  ///< recompute the attention core (scores, softmax, dropout) in backward
  kFull,       ///< keep only each layer's input; recompute the layer in backward
};
inline constexpr Recompute kRecomputes[] = {Recompute::kNone, Recompute::kSelective,
                                            Recompute::kFull};

/// What a training run updates (transformers only).
enum class Finetune {
  kNone,   ///< training from scratch: every parameter
  kFull,   ///< full fine-tuning: every parameter (the same costs as training)
  kLora,   ///< LoRA (Hu et al. 2021): frozen base, rank-r adapters on the target modules
  kQlora,  ///< QLoRA (Dettmers et al. 2023): LoRA over a 4-bit base (weight_dtype int4)
};
inline constexpr Finetune kFinetunes[] = {Finetune::kNone, Finetune::kFull, Finetune::kLora,
                                          Finetune::kQlora};

const char* modeName(Mode mode);
std::optional<Mode> parseMode(const std::string& name);
const char* optimizerName(Optimizer optimizer);
std::optional<Optimizer> parseOptimizer(const std::string& name);
/// Per-parameter state tensors the optimizer keeps.
int optimizerStateCount(Optimizer optimizer);
/// Bits of each state value: 8 for 8-bit optimizers, else 0 = the precision's state format.
int optimizerStateBits(Optimizer optimizer);
const char* zeroGradName(ZeroGrad zero_grad);
std::optional<ZeroGrad> parseZeroGrad(const std::string& name);
const char* optimizerImplName(OptimizerImpl impl);
std::optional<OptimizerImpl> parseOptimizerImpl(const std::string& name);
const char* attentionName(AttentionImpl attention);
std::optional<AttentionImpl> parseAttention(const std::string& name);
const char* recomputeName(Recompute recompute);
std::optional<Recompute> parseRecompute(const std::string& name);
const char* finetuneName(Finetune finetune);
std::optional<Finetune> parseFinetune(const std::string& name);

struct Workload {
  Mode mode = Mode::kTrain;
  int64_t batch = 1;  ///< samples per step, >= 1
  Precision precision = Precision::kFp32;
  Optimizer optimizer = Optimizer::kAdam;
  ZeroGrad zero_grad = ZeroGrad::kSetToNone;
  OptimizerImpl optimizer_impl = OptimizerImpl::kForeach;
  /// Fixed extra bytes (framework, CUDA context, workspace) added to the total.
  int64_t overhead_bytes = 0;
  /// Memory available; when set, the report carries the largest batch that fits.
  std::optional<int64_t> memory_bytes;
  // --- transformers (ignored for layer graphs) -----------------------------------------
  /// Micro-batches per optimizer step (>= 1). Memory and the phases are those of one
  /// micro-batch of `batch`; MACs and FLOPs count the whole step.
  int64_t grad_accum = 1;
  /// Tokens per sequence in training. Absent: min(2048, the model's context length).
  std::optional<int64_t> seq_len;
  /// Inference: tokens of the prompt (prefill). Absent: the seq_len rule above.
  std::optional<int64_t> prompt_tokens;
  /// Inference: tokens generated after the prompt (decode steps). Default 0 (the decode
  /// phase then describes the first generated token).
  int64_t generated_tokens = 0;
  /// Serving: tokens already in each sequence's KV cache before the prompt (the conversation
  /// so far, a cached prefix; llama-bench -d): the prompt attends to them, the cache holds
  /// them, the prefill does not compute them. Default 0.
  int64_t cached_tokens = 0;
  /// Images per sample of a vision-language model (>= 0); each adds its image tokens to
  /// the sequence and a pass of the vision tower. Absent: 1 for a vision-language model;
  /// a text model takes none.
  std::optional<int64_t> images;
  /// Storage of the weights; absent: the precision's weight format. int8/int4 are
  /// group-wise quantized (one fp16 scale per quant_group_size weights of each block
  /// linear layer); fp8 keeps one fp32 scale per linear layer. QLoRA defaults to int4.
  std::optional<DType> weight_dtype;
  int64_t quant_group_size = 128;
  /// Storage of the KV cache; absent: the precision's activation format.
  std::optional<DType> kv_dtype;
  AttentionImpl attention = AttentionImpl::kFlash;
  /// MLA models (DeepSeek-V2/V3): the latent cache vLLM and SGLang keep (default), or the
  /// per-head cache of HF transformers ("mla_cache": "latent" | "decompressed").
  MlaCache mla_cache = MlaCache::kLatent;
  Recompute recompute = Recompute::kNone;
  Finetune finetune = Finetune::kNone;
  int64_t lora_rank = 8;  ///< r (PEFT's LoraConfig default)
  double lora_alpha = 8;  ///< scaling alpha / r: changes no cost, reported back
  /// Modules that get adapters (PEFT's target_modules): the architecture's module names,
  /// logical projections (q_proj ... down_proj, adapting the module that computes them) or
  /// "all-linear". Default q_proj, v_proj: PEFT's default for Llama, GPT-2 (c_attn), T5.
  /// Names the architecture lacks are an error at /workload/lora_targets.
  std::vector<std::string> lora_targets = {"q_proj", "v_proj"};
  /// GPU, multi-GPU layout and roofline settings (dlcost/parallel.hpp).
  HardwareSettings hardware;
  /// LLM serving: engine, users, context, quantization format (dlcost/serving_settings.hpp).
  ServingSettings serving;
  /// Tokens or samples of a whole training run and the price of a GPU-hour (run_cost.hpp).
  RunSettings run;
};

/// The attention core runs as fused kernels (FlashAttention and its kin: scores stay on chip):
/// `attention: flash`, and always under vLLM, SGLang and TensorRT-LLM, whose kernels are.
bool fusedAttention(const Workload& w);

}  // namespace dlcost
