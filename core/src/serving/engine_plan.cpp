// Each serving engine's memory plan, as its source lays memory out (docs/serving.md cites the
// lines): vLLM and SGLang budget a share of the card, TensorRT-LLM a share of what is free
// after loading, and fill what is left with a paged KV pool; HF transformers grows a dynamic cache;
// llama.cpp allocates n_ctx cells and splits layers between the GPU and system RAM.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "base/text_builder.hpp"
#include "dlcost/base/checked.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/gpu/gpu_compute.hpp"
#include "dlcost/memory/memory_terms.hpp"
#include "dlcost/memory/quant_formats.hpp"
#include "dlcost/serving/serving.hpp"
#include "dlcost/types/ggml_types.hpp"
#include "serving/draft_model.hpp"
#include "serving/llama_gguf.hpp"
#include "serving/vllm_stages.hpp"
#include "transformer/transformer_estimate.hpp"

namespace dlcost {

namespace {

// Every product and sum of sizes goes through checked arithmetic.
using namespace checked;

/// vLLM CacheConfig.gpu_memory_utilization's default (vllm/config/cache.py).
constexpr double kVllmUtilization = 0.9;
/// vLLM CacheConfig.block_size's default on CUDA: 16 tokens.
constexpr int64_t kVllmBlockSize = 16;
/// TensorRT-LLM KvCacheConfig.free_gpu_memory_fraction's default: 0.9 of the memory free
/// after loading (tensorrt_llm/llmapi/llm_args.py, "Default is 90%").
constexpr double kTrtllmFreeFraction = 0.9;
/// TensorRT-LLM's paged KV block: tokens_per_block 64 (GPTAttention plugin and trtllm-build's
/// default; the PyTorch backend of 1.x uses 32, --tokens_per_block / block_size sets it).
constexpr int64_t kTrtllmTokensPerBlock = 64;
/// trtllm-build's BuildConfig defaults (tensorrt_llm/builder.py, v0.11 on): max_batch_size
/// 2048 sequences in flight, max_num_tokens 8192 tokens per iteration.
constexpr int64_t kTrtllmMaxBatchSize = 2048;
constexpr int64_t kTrtllmMaxNumTokens = 8192;
/// llama.cpp pads n_ctx to a multiple of 256 cells (llama-context.cpp, GGML_PAD(n_ctx, 256)).
constexpr int64_t kLlamaCtxPad = 256;
/// What vLLM's start-up profile holds beside the weights, by release. Its profile_run runs one
/// dummy forward of max_num_batched_tokens tokens, then the sampler over min(max_num_seqs,
/// max_num_batched_tokens) rows of logits; "torch peak increase" is the larger of the two, and
/// "non-torch forward increase" what cuBLAS, NCCL and the all-reduce buffers took outside
/// PyTorch. The sampler's bytes per logit and the non-torch bytes are read from start-up logs
/// (measured, not derived; docs/serving.md lists them and docs/accuracy.md the pools they give).
struct VllmProfile {
  /// Peak bytes of the dummy sampler per row and vocabulary entry.
  double sampler_bytes_per_logit;
  /// V1 keeps the dummy forward's hidden states (max_num_batched_tokens x hidden) alive
  /// through the sampler run (gpu_model_runner.profile_run).
  bool holds_hidden;
  /// Non-torch bytes at tensor-parallel size 1, 2, and 4 or more.
  int64_t non_torch_tp1, non_torch_tp2, non_torch_tp4;
};

constexpr int64_t gibHundredths(int64_t n) {
  return n * (int64_t{1} << 30) / 100;
}

VllmProfile vllmProfile(VllmVersion v) {
  switch (v) {
    case VllmVersion::kV0_19:
      // llm-d-planner's v0.19.0 logs on H100 (tests/fixtures/speed, llmd-v0190-*): torch peak
      // less the held hidden states is 14.7-15.4 bytes per logit on six models whose sampler
      // dominates (FlashInfer's top-k/top-p sampler: bf16 logits, fp32 logits, masked logits,
      // probabilities); non-torch 0.25 GiB at tp 1, 2.07 GiB at tp 2 (four models), 2.17-2.21
      // GiB at tp 4 (NCCL and all-reduce workspaces).
      return {14.8, true, gibHundredths(25), gibHundredths(207), gibHundredths(219)};
    case VllmVersion::kV0_11:
      // llm-d-planner's v0.11.0 logs, Qwen3-32B on H100 at tp 1 and 2 (llmd-v0110-*): torch
      // peak 5.64 GiB at both, 38.4 bytes per logit after the hidden states: PyTorch's
      // top-k/top-p sorts the fp32 logits with int64 indices (sort outputs, index buffers and
      // radix-sort scratch); non-torch 0.14 GiB at tp 1, 0.54 GiB at tp 2 (tp 4 not logged).
      return {38.4, true, gibHundredths(14), gibHundredths(54), gibHundredths(54)};
    case VllmVersion::kV0:
      break;
  }
  // V0: fp32 logits and probabilities; "non_torch_memory=0.35GiB" logged for Llama-3.1-8B on
  // an RTX 3090 (vLLM issue #10517), at any tensor-parallel size.
  return {8.0, false, gibHundredths(35), gibHundredths(35), gibHundredths(35)};
}

int64_t vllmNonTorchBytes(const VllmProfile& v, int64_t tp) {
  if (tp >= 4) return v.non_torch_tp4;
  return tp >= 2 ? v.non_torch_tp2 : v.non_torch_tp1;
}
/// CUDA context and the libraries' handles, held before an engine loads anything (0.3-0.5 GiB
/// with lazy module loading, /work/shared/GPU-NOTES.md): SGLang's budget subtracts it.
constexpr int64_t kCudaContextBytes = int64_t{512} << 20;

/// SGLang ServerArgs.mem_fraction_static by tensor-parallel size (sglang/srt/server_args.py,
/// v0.4: 0.88 at tp 1, 0.87 at 2, 0.85 at 4, 0.81 at 8, 0.79 at 16).
double sglangFraction(int64_t tp) {
  if (tp >= 16) return 0.79;
  if (tp >= 8) return 0.81;
  if (tp >= 4) return 0.85;
  if (tp >= 2) return 0.87;
  return 0.88;
}

/// Sets `v` to sequences of `tokens` positions in all: a vision-language model's image tokens
/// are part of them (the estimate adds `images` x tokens per image to `prompt_tokens`), so
/// the text is what is left; when the images alone fill the sequence, text only.
void promptOf(const TransformerSummary& sum, int64_t tokens, Workload& v) {
  if (sum.image_tokens > 0 && sum.image_tokens < tokens) {
    v.prompt_tokens = tokens - sum.image_tokens;
  } else {
    v.prompt_tokens = tokens;
    if (sum.image_tokens > 0) v.images = 0;
  }
}

/// The engine-less estimate of `t` under `w` changed by `edit` (one sequence shape).
Report rerun(const Transformer& t, const Workload& w, const std::function<void(Workload&)>& edit) {
  Workload v = w;
  v.serving.engine = Engine::kNone;
  v.hardware.gpu.reset();
  v.memory_bytes.reset();
  edit(v);
  return estimateTransformer("", t, v);
}

MemoryTerm fixedTerm(MemoryKey key, int64_t bytes, std::string formula,
                     std::vector<TermInput> inputs) {
  MemoryTerm m;
  m.key = key;
  m.sharding = key == MemoryKey::kKvCache || key == MemoryKey::kActivations ? Sharding::kActivation
                                                                            : Sharding::kZero3;
  m.fixed = bytes;
  m.formula = std::move(formula);
  m.inputs = std::move(inputs);
  return m;
}

/// The report's weight terms on one GPU of a tensor-parallel group.
std::vector<MemoryTerm> weightTerms(const Report& r, int64_t tp) {
  std::vector<MemoryTerm> out;
  for (const MemoryTerm& m : r.memory.terms) {
    if (m.key != MemoryKey::kWeights && m.key != MemoryKey::kQuantScales) continue;
    MemoryTerm c = m;
    c.fixed = ceilDiv(m.fixed, tp);
    if (tp > 1) c.formula = "(" + c.formula + ") / tp";
    out.push_back(std::move(c));
  }
  return out;
}

int64_t sumFixed(const std::vector<MemoryTerm>& terms) {
  int64_t s = 0;
  for (const MemoryTerm& m : terms) s = add(s, m.fixed);
  return s;
}

/// The largest n in [0, limit] with fits(n) (fits monotone, fits(0) assumed).
int64_t largest(int64_t limit, const std::function<bool(int64_t)>& fits) {
  int64_t lo = 0, hi = limit;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid))
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

std::string modelArg(const Report& r) {
  return r.model_name.empty() ? "MODEL" : r.model_name;
}

// --- vLLM and SGLang ------------------------------------------------------------------------

/// vLLM V1's KV cache groups (vllm/v1/core/kv_cache_utils.py): layers of one attention type
/// share a block table. A model with full and sliding-window layers
/// (_get_kv_cache_config_uniform_page_size) cuts each type into groups of group_size = the
/// smaller type's layer count (the last one padded) and lays out group_size pools, each shared
/// by one layer of every group: a block id costs group_size pages. A model of one type is one
/// group of all its layers (_get_kv_cache_config_uniform_type).
struct VllmKvGroups {
  int64_t group_size = 0;      ///< layers per group: pages per block id
  int64_t full_groups = 0;     ///< FullAttentionSpec groups
  int64_t sliding_groups = 0;  ///< SlidingWindowSpec groups
};

VllmKvGroups vllmKvGroups(const Transformer& t) {
  int64_t sliding = 0;
  for (int64_t i = 0; i < t.layers; ++i) sliding += isLocalLayer(t, i) ? 1 : 0;
  const int64_t full = t.layers - sliding;
  if (sliding == 0) return {t.layers, 1, 0};
  if (full == 0) return {t.layers, 0, 1};
  const int64_t g = std::min(full, sliding);
  return {g, ceilDiv(full, g), ceilDiv(sliding, g)};
}

/// Blocks one request of max_model_len tokens takes from the shared pool, summed over groups
/// (get_max_concurrency_for_kv_cache_config): a full-attention group cdiv(max_model_len,
/// block_size); a sliding-window group (SlidingWindowSpec.max_memory_usage_bytes)
/// cdiv(min(sliding_window - 1 + max_num_batched_tokens, max_model_len), block_size) + 1,
/// the +1 for a window that does not start at a block boundary.
int64_t vllmBlocksPerRequest(const Transformer& t, const VllmKvGroups& g, const ServingPlan& p) {
  const int64_t full = ceilDiv(p.context, p.block_size);
  const int64_t window_tokens =
      std::min(add(t.sliding_window - 1, p.max_num_batched_tokens), p.context);
  const int64_t sliding = ceilDiv(window_tokens, p.block_size) + 1;
  return add(mul(g.full_groups, full), mul(g.sliding_groups, sliding));
}

/// The knobs a paged engine sizes its pool and batches with, from the user's settings or the
/// engine's defaults.
void pagedDefaults(const Workload& w, ServingPlan& p) {
  const ServingSettings& s = w.serving;
  const int64_t tp = w.hardware.parallel.tp;
  const bool big = p.capacity_bytes >= (int64_t{70} << 30) && w.hardware.gpu &&
                   w.hardware.gpu->id.find("a100") == std::string::npos;
  switch (s.engine) {
    case Engine::kVllm:
      // vllm/engine/arg_utils.py get_batch_defaults, `vllm serve` (OPENAI_API_SERVER): 8192
      // batched tokens and 1024 sequences on cards of 70 GiB or more other than the A100,
      // else 2048 and 256.
      p.memory_fraction = s.gpu_memory_utilization.value_or(kVllmUtilization);
      p.block_size = s.block_size.value_or(kVllmBlockSize);
      p.max_num_batched_tokens = s.max_num_batched_tokens.value_or(big ? 8192 : 2048);
      p.max_num_seqs = s.max_num_seqs.value_or(big ? 1024 : 256);
      break;
    case Engine::kTrtllm:
      p.memory_fraction = s.gpu_memory_utilization.value_or(kTrtllmFreeFraction);
      p.block_size = s.block_size.value_or(kTrtllmTokensPerBlock);
      p.max_num_batched_tokens = s.max_num_batched_tokens.value_or(kTrtllmMaxNumTokens);
      p.max_num_seqs = s.max_num_seqs.value_or(kTrtllmMaxBatchSize);
      break;
    default:
      // SGLang: chunked_prefill_size 8192 (2048 under 25 GB), no sequence cap beyond the pool.
      p.memory_fraction = s.gpu_memory_utilization.value_or(sglangFraction(tp));
      p.block_size = s.block_size.value_or(1);
      p.max_num_batched_tokens =
          s.max_num_batched_tokens.value_or(p.capacity_bytes < 25'000'000'000 ? 2048 : 8192);
      p.max_num_seqs = s.max_num_seqs.value_or(0);
      break;
  }
}

/// The forward peak of one batch of max_num_batched_tokens tokens, spread over sequences of at
/// most the context, on one GPU of the tensor-parallel group.
int64_t forwardPeak(const Transformer& t, const Workload& w, const Report& r,
                    const ServingPlan& p) {
  const int64_t seq = std::min(p.max_num_batched_tokens, p.context);
  const Report prof = rerun(t, w, [&](Workload& v) {
    v.batch = ceilDiv(p.max_num_batched_tokens, seq);
    promptOf(*r.transformer, seq, v);
    v.generated_tokens = 0;
    v.seq_len.reset();
  });
  return ceilDiv(prof.memory.bytesOf(MemoryKey::kActivations), w.hardware.parallel.tp);
}

/// The activations a paged engine reserves beside its KV pool on a GPU.
struct PagedActivations {
  int64_t reserved = 0;  ///< max(forward peak, sampler) + non-torch: what `terms` holds
  /// vLLM's pipeline stages before the last, which run no sampler: forward peak + non-torch.
  int64_t without_sampler = 0;
};

/// Sets p.budget_bytes (what the engine may hold: weights, activations and the KV pool) and
/// returns the activations it reserves beside the pool, adding their term to `terms`.
PagedActivations pagedReserve(const Transformer& t, const Workload& w, const Report& r,
                              int64_t weights, ServingPlan& p, std::vector<MemoryTerm>& terms) {
  const double fraction = *p.memory_fraction;
  if (p.engine == Engine::kTrtllm) {
    // TensorRT-LLM: the engine's activation memory is fixed at build time for max_num_tokens
    // (docs/source/reference/memory.md); after loading, the KV cache manager takes
    // free_gpu_memory_fraction of cudaMemGetInfo's free memory (KvCacheConfig, default 0.9).
    const int64_t act = forwardPeak(t, w, r, p);
    terms.push_back(
        fixedTerm(MemoryKey::kActivations, act, "engine activations at max_num_tokens",
                  {{"max_num_tokens", p.max_num_batched_tokens, "trtllm-build"},
                   {"cuda_context", kCudaContextBytes, "bytes: not free before loading"}}));
    const int64_t used = checkedAdd(checkedAdd(weights, act), kCudaContextBytes);
    const int64_t free_bytes = std::max<int64_t>(0, checkedSub(p.capacity_bytes, used));
    p.budget_bytes = checkedAdd(checkedAdd(weights, act),
                                static_cast<int64_t>(static_cast<double>(free_bytes) * fraction));
    p.notes.push_back(
        "TensorRT-LLM: the KV pool is kv_cache_free_gpu_mem_fraction of the memory free after "
        "the CUDA context, the weights and the engine's activations (fixed at build time for "
        "max_num_tokens); in-flight batching up to max_batch_size sequences");
    return {act, act};
  }
  // Budget: vLLM requested_memory = ceil(total x gpu_memory_utilization) (vllm/utils
  // request_memory); SGLang keeps total x mem_fraction_static, less what was in use before
  // loading (model_runner.profile_max_num_token).
  p.budget_bytes =
      static_cast<int64_t>(std::ceil(static_cast<double>(p.capacity_bytes) * fraction));
  if (p.engine != Engine::kVllm) {
    p.budget_bytes = checkedSub(p.budget_bytes, kCudaContextBytes);
    p.notes.push_back(
        "SGLang: activations and CUDA graphs live in the (1 - mem_fraction_static) "
        "share; 512 MiB of CUDA context is taken from the budget");
    return {};
  }
  // profile_run: one dummy forward of max_num_batched_tokens tokens, then the sampler over
  // min(max_num_seqs, max_num_batched_tokens) rows of logits; the peak is the larger.
  const VllmProfile prof = vllmProfile(w.serving.vllm_version);
  const int64_t forward = forwardPeak(t, w, r, p);
  const int64_t logits = mul(std::min(p.max_num_seqs, p.max_num_batched_tokens), t.vocab);
  const int64_t hidden = prof.holds_hidden
                             ? ceilDiv(mul(mul(p.max_num_batched_tokens, t.hidden),
                                           dtypeBits(layoutOf(w.precision).activations)),
                                       8)
                             : 0;
  const int64_t sampler = checkedAdd(
      static_cast<int64_t>(std::ceil(static_cast<double>(logits) * prof.sampler_bytes_per_logit)),
      hidden);
  const int64_t non_torch = vllmNonTorchBytes(prof, w.hardware.parallel.tp);
  const int64_t act = checkedAdd(std::max(forward, sampler), non_torch);
  const std::string version = std::string("vLLM ") + vllmVersionName(w.serving.vllm_version);
  terms.push_back(
      fixedTerm(MemoryKey::kActivations, act, "max(forward peak, sampler) + non-torch",
                {{"max_num_batched_tokens", p.max_num_batched_tokens, "dummy forward"},
                 {"non_torch", non_torch, "bytes: " + version + " start-up logs at this tp"},
                 {"forward_peak", forward, "bytes"},
                 {"sampler_logits", logits, "min(max_num_seqs, max_num_batched_tokens) x vocab"},
                 {"sampler_peak", sampler,
                  "bytes: logits x bytes per logit (" + version + ") + hidden states"}}));
  p.notes.push_back(
      "vLLM measures the activation peak in a profiling run; dlcost computes it from the "
      "layer shapes (docs/accuracy.md compares it with logged KV-cache sizes)");
  p.notes.push_back(
      "CUDA graphs are captured after the KV cache is allocated, in the " +
      std::to_string(static_cast<int>(std::lround((1 - fraction) * 100))) +
      " % left outside gpu_memory_utilization (unless VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS)");
  return {act, checkedAdd(forward, non_torch)};
}

/// The engine's launch command for the plan.
std::string pagedCommand(const Workload& w, const Report& r, const ServingPlan& p) {
  const int64_t tp = w.hardware.parallel.tp;
  TextBuilder frac;
  frac << *p.memory_fraction;
  TextBuilder cmd;
  if (p.engine == Engine::kVllm) {
    cmd << "vllm serve " << modelArg(r) << " --max-model-len " << p.context
        << " --gpu-memory-utilization " << frac.str() << " --max-num-seqs "
        << std::min<int64_t>(p.max_num_seqs, std::max<int64_t>(1, p.users));
    if (tp > 1) cmd << " --tensor-parallel-size " << tp;
    if (w.hardware.parallel.pp > 1) cmd << " --pipeline-parallel-size " << w.hardware.parallel.pp;
    if (w.serving.draft) {
      cmd << " --speculative-config '{\"method\": \"draft_model\", \"model\": \""
          << w.serving.draft_id << "\", \"num_speculative_tokens\": " << w.serving.draft_tokens
          << "}'";
    }
    if (w.kv_dtype == DType::kFp8) cmd << " --kv-cache-dtype fp8";
    if (p.block_size != kVllmBlockSize) cmd << " --block-size " << p.block_size;
  } else if (p.engine == Engine::kTrtllm) {
    cmd << "trtllm-serve " << modelArg(r) << " --max_seq_len " << p.context << " --max_batch_size "
        << std::min<int64_t>(p.max_num_seqs, std::max<int64_t>(1, p.users)) << " --max_num_tokens "
        << p.max_num_batched_tokens << " --kv_cache_free_gpu_memory_fraction " << frac.str();
    if (tp > 1) cmd << " --tp_size " << tp;
    // trtllm-serve has no KV dtype flag: the LLM API's kv_cache_config takes it (a YAML file of
    // "kv_cache_config: {dtype: fp8}"), or the checkpoint's hf_quant_config.json carries it.
    if (w.kv_dtype == DType::kFp8) cmd << " --extra_llm_api_options kv_fp8.yml";
  } else {
    cmd << "python -m sglang.launch_server --model-path " << modelArg(r) << " --context-length "
        << p.context << " --mem-fraction-static " << frac.str() << " --max-running-requests "
        << std::max<int64_t>(1, p.users);
    if (tp > 1) cmd << " --tp " << tp;
    if (w.kv_dtype == DType::kFp8) cmd << " --kv-cache-dtype fp8_e4m3";
  }
  return cmd.str();
}

/// What speculative decoding with a draft model needs, or an error at its field.
void checkDraft(const Transformer& t, const Workload& w) {
  const ServingSettings& s = w.serving;
  const Transformer& d = *s.draft;
  if (s.engine != Engine::kVllm) {
    throw InputError(ErrorCode::kValue, "/workload/draft_preset",
                     std::string("speculative decoding with a draft model is modelled for vllm; ") +
                         engineName(s.engine) + "'s is not");
  }
  if (!s.draft_acceptance) {
    throw InputError(ErrorCode::kMissingField, "/workload/draft_acceptance",
                     "give the chance that the model accepts a proposed token (0.01-0.99): it "
                     "depends on the prompts and the two models, so dlcost does not assume one");
  }
  if (d.vocab != t.vocab) {
    throw InputError(ErrorCode::kValue, "/workload/draft_preset",
                     s.draft_preset + "'s vocabulary (" + std::to_string(d.vocab) +
                         " tokens) is not the model's (" + std::to_string(t.vocab) +
                         "): a draft must propose tokens of the same vocabulary");
  }
  if (w.hardware.parallel.pp > 1 || vllmKvGroups(t).sliding_groups > 0 ||
      vllmKvGroups(d).sliding_groups > 0) {
    throw InputError(ErrorCode::kValue, "/workload/draft_preset",
                     "a draft model beside pipeline stages or sliding-window layers (vLLM's "
                     "hybrid KV cache groups) is not modelled");
  }
}

/// vLLM over pipeline stages (--pipeline-parallel-size): a GPU of each stage keeps what its
/// budget leaves after the stage's weights and its profiled activations (the sampler runs on
/// the last stage only) for the KV of its layers, num_blocks = available // page // layers
/// (_get_kv_cache_config_uniform_type); the pool is the smallest stage's
/// (get_kv_cache_configs). `terms` and p's block figures become that stage's GPU's.
void planVllmStages(const Transformer& t, const Workload& w, int64_t layer_page,
                    const PagedActivations& act, ServingPlan& p, std::vector<MemoryTerm>& terms) {
  if (vllmKvGroups(t).sliding_groups > 0) {
    throw InputError(ErrorCode::kValue, "/workload/pp",
                     "vLLM's pipeline stages of a model with sliding-window layers (its hybrid "
                     "KV cache groups over the stages) are not modelled: leave pp at 1");
  }
  const std::vector<PipelineStage> stages = vllmStages(t, w);
  int64_t blocks = std::numeric_limits<int64_t>::max();
  size_t limiting = 0;
  for (size_t i = 0; i < stages.size(); ++i) {
    const int64_t reserved = i + 1 == stages.size() ? act.reserved : act.without_sampler;
    const int64_t pool = std::max<int64_t>(
        0, checkedSub(checkedSub(p.budget_bytes, stages[i].weight_bytes), reserved));
    const int64_t n = pool / mul(layer_page, stages[i].layers);
    p.stage_layers.push_back(stages[i].layers);
    if (n < blocks) {
      blocks = n;
      limiting = i;
    }
  }
  const PipelineStage& s = stages[limiting];
  p.limiting_stage = static_cast<int64_t>(limiting);
  p.num_blocks = blocks;
  p.block_bytes = mul(layer_page, s.layers);
  // The stage's GPU: its weights (quantized values and scales, tp's share) and activations.
  terms.erase(std::remove_if(terms.begin(), terms.end(),
                             [](const MemoryTerm& m) {
                               return m.key == MemoryKey::kWeights ||
                                      m.key == MemoryKey::kQuantScales;
                             }),
              terms.end());
  terms.insert(
      terms.begin(),
      fixedTerm(MemoryKey::kWeights, s.weight_bytes,
                "stage's layers (+ embeddings on the first, LM head on the last) / tp",
                {{"stage", p.limiting_stage, "0-based, of " + std::to_string(stages.size())},
                 {"first_layer", s.first_layer, ""},
                 {"layers", s.layers, "vLLM get_pp_indices"}}));
  if (limiting + 1 != stages.size()) {
    for (MemoryTerm& m : terms) {
      if (m.key != MemoryKey::kActivations) continue;
      m.fixed = act.without_sampler;
      m.formula = "forward peak + non-torch (the sampler runs on the last stage)";
    }
  }
  p.notes.push_back("vLLM pipeline parallelism: " + std::to_string(stages.size()) +
                    " stages; every stage's GPUs keep the same number of KV blocks, the smallest "
                    "stage's (stage " +
                    std::to_string(limiting) + "): its GPU is shown");
}

/// vLLM, SGLang and TensorRT-LLM: a budget, then a pool of KV blocks filling what is left.
void planPaged(const Transformer& t, const Workload& w, const Report& r, ServingPlan& p) {
  const bool vllm = p.engine == Engine::kVllm;
  std::vector<MemoryTerm> terms = weightTerms(r, w.hardware.parallel.tp);
  if (w.serving.draft) {
    // The draft model's weights beside the model's, on every GPU of the group.
    const int64_t draft = draftWeightBytes(w);
    terms.front().fixed = checkedAdd(terms.front().fixed, draft);
    terms.front().formula += " + draft weights";
    terms.front().inputs.push_back({"draft_weights", draft, w.serving.draft_preset});
  }
  const int64_t weights = sumFixed(terms);
  pagedDefaults(w, p);
  const PagedActivations act = pagedReserve(t, w, r, weights, p, terms);
  const int64_t pool =
      std::max<int64_t>(0, checkedSub(checkedSub(p.budget_bytes, weights), act.reserved));
  // vLLM: one page per layer = block_size x 2 x kv_heads x head_size x dtype bytes
  // (FullAttentionSpec.page_size_bytes); num_blocks = available // page // layers
  // (kv_cache_utils.get_num_blocks). SGLang: max_total_num_tokens = rest // cell_size.
  // TensorRT-LLM: a block holds tokens_per_block tokens of every layer (KVCacheManager).
  p.kv_bytes_per_token = kvBytes(t, w, 1);
  // vLLM: a block id is one page in each of group_size layers (every layer when all share one
  // attention type); SGLang and TensorRT-LLM: tokens in every layer.
  const VllmKvGroups groups = vllm ? vllmKvGroups(t) : VllmKvGroups{t.layers, 1, 0};
  const int64_t layer_page =
      mul(p.block_size, p.kv_bytes_per_token / std::max<int64_t>(1, t.layers));
  p.block_bytes =
      vllm ? mul(layer_page, groups.group_size) : mul(p.block_size, p.kv_bytes_per_token);
  // A draft model's layers take their pages of every block too (its attention layers join
  // the KV cache spec): a block id spans both models' layers.
  const int64_t draft_kv = w.serving.draft ? kvBytes(*w.serving.draft, w, 1) : 0;
  if (draft_kv > 0) p.block_bytes = mul(p.block_size, add(p.kv_bytes_per_token, draft_kv));
  p.num_blocks = pool / p.block_bytes;
  if (vllm && w.hardware.parallel.pp > 1) planVllmStages(t, w, layer_page, act, p, terms);
  // "GPU KV cache size": num_blocks // groups x block_size tokens.
  p.kv_tokens = mul(p.num_blocks / add(groups.full_groups, groups.sliding_groups), p.block_size);
  // get_max_concurrency_for_kv_cache_config: num_blocks / the blocks one request takes.
  p.max_concurrency = static_cast<double>(p.num_blocks) /
                      static_cast<double>(vllm ? vllmBlocksPerRequest(t, groups, p)
                                               : ceilDiv(p.context, p.block_size));
  const int64_t by_pool = static_cast<int64_t>(std::floor(p.max_concurrency));
  p.max_users = p.max_num_seqs > 0 ? std::min(p.max_num_seqs, by_pool) : by_pool;
  terms.push_back(fixedTerm(MemoryKey::kKvCache, mul(p.num_blocks, p.block_bytes),
                            "num_blocks × block_bytes",
                            {{"num_blocks", p.num_blocks, "budget - weights - activations"},
                             {"block_size", p.block_size, "tokens"},
                             {"block_bytes", p.block_bytes, "one block id, every layer it spans"},
                             {"kv_bytes_per_token", p.kv_bytes_per_token, "all layers"},
                             {"draft_kv_bytes_per_token", draft_kv, "the draft's layers"}}));
  p.device = sumTerms(std::move(terms), 1);
  p.fits = p.users <= p.max_users && p.max_concurrency >= 1;
  if (vllm && groups.sliding_groups > 0) {
    p.notes.push_back("vLLM's hybrid KV cache manager: " + std::to_string(groups.full_groups) +
                      " full-attention and " + std::to_string(groups.sliding_groups) +
                      " sliding-window group(s) of " + std::to_string(groups.group_size) +
                      " layers; a sliding-window group keeps at most sliding_window - 1 + "
                      "max_num_batched_tokens tokens per request (+1 block)");
  } else if (!vllm && t.sliding_window > 0) {
    p.notes.push_back(std::string("sliding-window layers are counted as full attention in ") +
                      (p.engine == Engine::kTrtllm ? "TensorRT-LLM" : "SGLang") +
                      "'s pool (its window pools are not modelled): a lower bound on "
                      "concurrency");
  }
  p.command = pagedCommand(w, r, p);
  if (p.engine == Engine::kTrtllm && w.kv_dtype == DType::kFp8) {
    p.notes.push_back(
        "kv_fp8.yml in the launch command holds \"kv_cache_config: {dtype: fp8}\" (the LLM API's "
        "options): trtllm-serve has no flag for the KV cache's dtype");
  }
}

// --- HF transformers --------------------------------------------------------------------------

void planHf(const Transformer& t, const Workload& w, const Report& r, ServingPlan& p,
            int64_t usable) {
  // generate() over `users` prompts at once: the prefill's activations for all of them, a
  // DynamicCache growing to `context` tokens per sequence. The report's seq_len holds the
  // images' tokens: the re-run asks for the text beside them.
  const int64_t prompt = std::min(p.context, r.transformer->seq_len);
  auto at = [&](int64_t users) {
    return rerun(t, w, [&](Workload& v) {
      v.batch = std::max<int64_t>(1, users);
      promptOf(*r.transformer, prompt, v);
      v.generated_tokens = p.context - prompt;
    });
  };
  const Report one = at(p.users);
  p.device = one.memory;
  p.kv_bytes_per_token = kvBytes(t, w, 1);
  p.budget_bytes = usable;
  p.max_users = largest(int64_t{1} << 20, [&](int64_t n) {
    return n == 0 || checkedAdd(p.device.fixed, checkedMul(n, p.device.per_sample)) <= usable;
  });
  p.fits = p.device.total <= usable;
  TextBuilder cmd;
  cmd << "AutoModelForCausalLM.from_pretrained(\"" << modelArg(r) << "\", torch_dtype=\""
      << dtypeName(layoutOf(w.precision).weights) << "\", attn_implementation=\""
      << (w.attention == AttentionImpl::kFlash ? "flash_attention_2" : "eager")
      << "\").generate(batch of " << p.users << ", max_length=" << p.context << ")";
  p.command = cmd.str();
}

// --- llama.cpp --------------------------------------------------------------------------------

int64_t cacheRowBytes(CacheType c, int64_t values) {
  const uint32_t id = c == CacheType::kF16 ? 1 : c == CacheType::kQ8_0 ? 8 : 2;
  return ggmlBytes(*ggmlType(id), values);
}

/// The GPU llama.cpp puts an offloaded layer on under -sm layer, its default: the layer's
/// position among the `act` offloaded ones (the output layer last) over the GPUs' cumulative
/// shares of free memory, equal here (llama-model.cpp: std::upper_bound over the normalised
/// tensor_split of (il - i_gpu_start) / act_gpu_layers).
int64_t llamaLayerGpu(int64_t position, int64_t act, int64_t gpus) {
  return std::min(gpus - 1, position * gpus / std::max<int64_t>(1, act));
}

/// What llama.cpp's placement of a GGUF file over the GPUs and system RAM depends on.
struct LlamaShape {
  const Transformer* t = nullptr;
  const Workload* w = nullptr;
  QuantizedWeights q;  ///< the GGUF file's tensors, layer by layer
  bool cpu = false;    ///< a CPU as the device: everything in system RAM
  int64_t cell = 0;    ///< one KV cell of one layer: K and V rows in the cache type
  int64_t gpus = 1;    ///< -sm layer over this many GPUs
  int64_t users = 1;   ///< slots (-np)
};

/// KV cells layer `i` keeps: n_ctx, or for a sliding-window layer n_swa x slots + n_ubatch
/// (llama_kv_cache_iswa).
int64_t llamaLayerCells(const LlamaShape& l, int64_t i, int64_t n_ctx) {
  if (!isLocalLayer(*l.t, i)) return n_ctx;
  return std::min(n_ctx, add(mul(l.t->sliding_window, l.users), kLlamaUbatch));
}

/// The compute buffer: the graph reserved for n_ubatch tokens with n_ubatch outputs (fp32
/// logits), or without flash attention the fp32 scores of n_ubatch x n_ctx x heads.
int64_t llamaComputeBuffer(const LlamaShape& l, int64_t n_ctx) {
  const Transformer& t = *l.t;
  const int64_t logits = mul(mul(4, kLlamaUbatch), add(t.vocab, t.hidden));
  const int64_t scores =
      l.w->attention == AttentionImpl::kFlash ? 0 : mul(mul(4, kLlamaUbatch), mul(n_ctx, t.heads));
  const int64_t ffn = mul(mul(4, kLlamaUbatch), add(mul(2, t.ffn), mul(2, t.hidden)));
  return std::max(logits, add(scores, ffn));
}

/// Bytes each GPU and system RAM hold for -ngl `ngl` at `n_ctx` cells.
struct LlamaSplit {
  std::vector<int64_t> weights, kv, layers;  ///< per GPU
  int64_t host_weights = 0, host_kv = 0;
  int64_t on_gpu = 0;  ///< decoder layers on the GPUs
  size_t fullest = 0;  ///< the GPU holding most
};

/// Layers [layers - ngl, layers) run on the GPUs (llama-model.cpp: i_gpu_start = n_layer -
/// n_gpu_layers); ngl > layers also puts the output layer there. The token embeddings stay on
/// the CPU. Over several GPUs (-sm layer, the default) each offloaded layer goes to the GPU
/// its position falls in (llamaLayerGpu). On a CPU the device holds every tensor.
LlamaSplit llamaSplit(const LlamaShape& l, int64_t ngl, int64_t n_ctx) {
  const Transformer& t = *l.t;
  if (l.cpu) ngl = t.layers + 1;
  LlamaSplit out;
  out.on_gpu = std::min(ngl, t.layers);
  const int64_t start = t.layers - out.on_gpu, act = std::min(ngl, t.layers + 1);
  const auto n = static_cast<size_t>(l.gpus);
  out.weights.assign(n, 0);
  out.kv.assign(n, 0);
  out.layers.assign(n, 0);
  out.host_weights = l.cpu ? 0 : l.q.input_bytes;
  if (l.cpu) out.weights[0] = l.q.input_bytes;
  for (int64_t i = 0; i <= t.layers; ++i) {
    const bool output = i == t.layers;
    const int64_t lb = output ? l.q.output_bytes : l.q.layer_bytes[static_cast<size_t>(i)];
    const int64_t kv = output ? 0 : mul(l.cell, llamaLayerCells(l, i, n_ctx));
    if (i < start || i - start >= act) {
      out.host_weights = add(out.host_weights, lb);
      out.host_kv = add(out.host_kv, kv);
      continue;
    }
    const auto d = static_cast<size_t>(llamaLayerGpu(i - start, act, l.gpus));
    out.weights[d] = add(out.weights[d], lb);
    out.kv[d] = add(out.kv[d], kv);
    if (!output) ++out.layers[d];
  }
  for (size_t d = 1; d < n; ++d)
    if (add(out.weights[d], out.kv[d]) > add(out.weights[out.fullest], out.kv[out.fullest]))
      out.fullest = d;
  return out;
}

/// The fullest GPU's memory terms (on a CPU, system RAM's) for -ngl `ngl` at `n_ctx` cells.
MemoryBreakdown llamaDevice(const LlamaShape& l, int64_t ngl, int64_t n_ctx) {
  const LlamaSplit sp = llamaSplit(l, ngl, n_ctx);
  const size_t f = sp.fullest;
  MemoryTerm weights;
  if (l.cpu) {
    // The whole file is mapped into RAM.
    weights =
        fixedTerm(MemoryKey::kWeights, sp.weights[0],
                  "every GGUF tensor, memory-mapped from the file", {{"layers", l.t->layers, ""}});
  } else {
    std::vector<TermInput> in = {{"gpu_layers", sp.layers[f], ""},
                                 {"output_on_gpu", ngl > l.t->layers ? 1 : 0, ""}};
    if (l.gpus > 1) in.push_back({"gpus", l.gpus, "-sm layer: each holds a run of layers"});
    weights = fixedTerm(MemoryKey::kWeights, sp.weights[f],
                        l.gpus > 1 ? "GGUF tensors of this GPU's layers (the fullest GPU)"
                                   : "GGUF tensors of the GPU layers",
                        std::move(in));
  }
  const CacheType cache = l.w->serving.cache_type;
  return sumTerms(
      {weights,
       fixedTerm(
           MemoryKey::kKvCache, sp.kv[f],
           l.cpu ? "cells × layers × (K + V row bytes)"
                 : "cells × layers on GPU × (K + V row bytes)",
           {{"n_ctx", n_ctx, "cells"}, {"bytes_per_cell_and_layer", l.cell, cacheTypeName(cache)}}),
       fixedTerm(MemoryKey::kComputeBuffer, ngl > 0 || l.cpu ? llamaComputeBuffer(l, n_ctx) : 0,
                 "n_ubatch × 4 × max(vocab + hidden, [n_ctx × heads] + 2 ffn + 2 hidden)",
                 {{"n_ubatch", kLlamaUbatch, "tokens"}})},
      1);
}

/// What system RAM holds beside the GPUs: the token embeddings and the CPU layers.
MemoryBreakdown llamaHost(const LlamaShape& l, int64_t ngl, int64_t n_ctx) {
  const LlamaSplit sp = llamaSplit(l, ngl, n_ctx);
  return sumTerms({fixedTerm(MemoryKey::kWeights, sp.host_weights, "token embeddings + CPU layers",
                             {{"cpu_layers", l.t->layers - sp.on_gpu, ""}}),
                   fixedTerm(MemoryKey::kKvCache, sp.host_kv, "cells × CPU layers × row bytes",
                             {{"n_ctx", n_ctx, "cells"}})},
                  1);
}

/// The plan's notes on where llama.cpp runs what.
void llamaNotes(const LlamaShape& l, ServingPlan& p) {
  const int64_t layers = l.t->layers;
  if (l.cpu) {
    p.notes.push_back(
        "CPU: llama.cpp memory-maps the GGUF file (mmap), so the weights are the file's pages in "
        "the page cache and must stay resident; the KV cache and compute buffer are allocated in "
        "system RAM; decode reads every weight once per step at the memory bandwidth");
  } else if (p.gpu_layers <= layers) {
    p.notes.push_back(std::to_string(layers - std::min(p.gpu_layers, layers)) +
                      " layers and the output layer run on the CPU from system RAM: each decode "
                      "step reads them at host_bandwidth_gb_s");
    // ggml-backend's scheduler runs a batch of 32+ tokens on the GPU even for weights held in
    // system RAM (the CUDA backend's offload_op), copying them over PCIe per micro-batch.
    p.notes.push_back(
        "prompt micro-batches (and decode steps) of 32+ tokens run the CPU layers' matmuls on "
        "the GPU, copying their weights over the host link each time (ggml's offload_op, "
        "min_batch_size 32): the time to first token includes one copy per 512-token "
        "micro-batch");
  }
  if (l.gpus > 1) {
    p.notes.push_back(
        "llama.cpp splits the layers over the " + std::to_string(l.gpus) +
        " GPUs (-sm layer, its default; in proportion to their free memory, here equal): each "
        "token passes through them one after the other, so decode reads every weight once per "
        "step as on one GPU, plus one hop per GPU boundary; a prompt's 512-token micro-batches "
        "overlap across the GPUs (pipeline parallelism, n_batch 2048) where the GPUs have "
        "peer-to-peer access, which GeForce cards lack (there they take turns). The memory "
        "shown is the fullest GPU's");
  }
  p.notes.push_back(
      "the compute buffer is llama.cpp's graph allocation for n_ubatch = 512, "
      "estimated from the largest tensors (approximate)");
}

/// llama-server's launch command for the plan, and Ollama's settings as a note.
void llamaCommand(const LlamaShape& l, const Report& r, ServingPlan& p) {
  const Workload& w = *l.w;
  const CacheType cache = w.serving.cache_type;
  const bool flash = w.attention == AttentionImpl::kFlash;
  TextBuilder cmd;
  cmd << "llama-server -m " << modelArg(r) << "-"
      << ggufFileTypeName(asLlamaCppGguf(w).serving.gguf_type) << ".gguf -c " << p.n_ctx << " -np "
      << p.users << " -ngl " << p.gpu_layers;
  if (l.gpus > 1) cmd << " -sm layer";
  if (flash) cmd << " -fa on";
  if (cache != CacheType::kF16)
    cmd << " --cache-type-k " << cacheTypeName(cache) << " --cache-type-v " << cacheTypeName(cache);
  p.command = cmd.str();
  TextBuilder ollama;
  ollama << "Ollama: OLLAMA_CONTEXT_LENGTH=" << p.context << " OLLAMA_NUM_PARALLEL=" << p.users;
  if (flash) ollama << " OLLAMA_FLASH_ATTENTION=1";
  if (cache != CacheType::kF16) ollama << " OLLAMA_KV_CACHE_TYPE=" << cacheTypeName(cache);
  p.notes.push_back(ollama.str());
}

LlamaShape llamaShape(const Transformer& t, const Workload& w, int64_t users) {
  const ServingSettings& s = w.serving;
  if (s.cache_type != CacheType::kF16 && w.attention != AttentionImpl::kFlash) {
    throw InputError(ErrorCode::kValue, "/workload/cache_type",
                     "llama.cpp quantizes the V cache only with flash attention (-fa); set "
                     "attention to flash or cache_type to f16");
  }
  LlamaShape l;
  l.t = &t;
  l.w = &w;
  l.q = quantizedWeights(t, asLlamaCppGguf(w));
  l.cpu = w.hardware.gpu && w.hardware.gpu->cpu;
  // One cell of one layer: K and V rows of kv_heads x head_dim values in the cache type
  // (llama_kv_cache: ggml_row_size(type_k, n_embd_k_gqa) per cell).
  const int64_t row =
      t.kv_lora_rank > 0 ? kvCacheWidth(t, w.mla_cache) : mul(t.kv_heads, t.head_dim);
  l.cell = t.kv_lora_rank > 0 ? cacheRowBytes(s.cache_type, row)
                              : mul(2, cacheRowBytes(s.cache_type, row));
  l.gpus = l.cpu ? 1 : w.hardware.parallel.pp;
  l.users = users;
  return l;
}

void planLlamaCpp(const Transformer& t, const Workload& w, const Report& r, ServingPlan& p,
                  int64_t usable) {
  const ServingSettings& s = w.serving;
  const LlamaShape l = llamaShape(t, w, p.users);
  p.layers = t.layers;
  // n_ctx: every slot's context (llama-server splits -c over -np slots), padded.
  p.n_ctx = mul(ceilDiv(mul(p.users, p.context), kLlamaCtxPad), kLlamaCtxPad);
  p.kv_bytes_per_token = mul(l.cell, t.layers);
  if (l.cpu && s.n_gpu_layers && *s.n_gpu_layers > 0) {
    throw InputError(ErrorCode::kValue, "/workload/n_gpu_layers",
                     w.hardware.gpu->name +
                         " is a CPU: there is no GPU to offload layers to; "
                         "leave n_gpu_layers out or set it to 0");
  }
  const auto gpuBytes = [&](int64_t ngl, int64_t n_ctx) {
    return llamaDevice(l, ngl, n_ctx).total;
  };
  p.gpu_layers = l.cpu            ? 0
                 : s.n_gpu_layers ? std::min(*s.n_gpu_layers, t.layers + 1)
                                  : largest(t.layers + 1, [&](int64_t n) {
                                      return n == 0 || gpuBytes(n, p.n_ctx) <= usable;
                                    });
  p.device = llamaDevice(l, p.gpu_layers, p.n_ctx);
  if (!l.cpu) p.host = llamaHost(l, p.gpu_layers, p.n_ctx);
  p.budget_bytes = usable;
  // Without an -ngl of the user's, fitting means everything on the GPU; with one, the GPU's
  // share fitting (the rest runs from system RAM, checked when system_ram_gib is given). On a
  // CPU, everything fitting in its RAM.
  const int64_t planned = l.cpu || s.n_gpu_layers ? p.gpu_layers : t.layers + 1;
  p.fits = p.device.total <= usable && p.gpu_layers >= planned;
  // With the machine's RAM given, the layers left in system RAM must fit there too.
  if (!l.cpu && w.hardware.system_ram_bytes) {
    const int64_t ram = std::max<int64_t>(0, *w.hardware.system_ram_bytes - kDefaultOsReserveBytes);
    p.fits = p.fits && p.host.total <= ram;
    p.notes.push_back(
        "system RAM: the CPU layers and their KV cache must fit in system_ram_gib "
        "less 4 GiB the OS keeps");
  }
  p.max_users = largest(int64_t{1} << 16, [&](int64_t n) {
    if (n == 0) return true;
    const int64_t ctx = mul(ceilDiv(mul(n, p.context), kLlamaCtxPad), kLlamaCtxPad);
    return gpuBytes(planned, ctx) <= usable;
  });
  llamaNotes(l, p);
  llamaCommand(l, r, p);
}

/// Which formats each engine loads.
bool engineLoads(Engine e, QuantFormat q) {
  switch (e) {
    case Engine::kLlamaCpp:
      return q == QuantFormat::kNone || q == QuantFormat::kGguf;
    case Engine::kHf:
      // transformers dequantizes GGUF files to 16 bits on load.
      return q != QuantFormat::kGguf && q != QuantFormat::kNvfp4;
    case Engine::kVllm:
      // vLLM's bitsandbytes path loads NF4 only.
      return q != QuantFormat::kBnbFp4 && q != QuantFormat::kGguf;
    case Engine::kSglang:
      return q != QuantFormat::kBnbFp4 && q != QuantFormat::kGguf;
    case Engine::kTrtllm:
      // TensorRT-LLM's quantization modes (FP8, INT8/INT4 weight-only, AWQ, GPTQ, NVFP4,
      // MXFP4): no GGUF and no bitsandbytes.
      return q != QuantFormat::kGguf && q != QuantFormat::kBnbNf4 && q != QuantFormat::kBnbFp4;
    case Engine::kNone:
      return true;
  }
  return true;
}

/// Why vLLM cannot run `q` on `g`, or "" where it can. vLLM's installation guide: CUDA compute
/// capability 7.0 or higher; its quantization guide's "Supported Hardware" table (docs v0.11 to
/// v0.15): AWQ not on Volta (SM 7.0) nor AMD GPUs; GPTQ and bitsandbytes not on AMD GPUs; FP8
/// not on Volta (W8A8 from Ada and on AMD; Turing and Ampere run FP8 weight-only through
/// Marlin).
std::string vllmCannotRun(QuantFormat q, const Gpu& g) {
  const std::string& a = g.architecture;
  if (g.vendor == "NVIDIA" && (a == "Kepler" || a == "Maxwell" || a == "Pascal")) {
    return "vllm needs CUDA compute capability 7.0 or higher (Volta and later); " + g.name +
           " is " + a;
  }
  const bool amd = g.vendor == "AMD";
  const bool volta = a == "Volta";
  switch (q) {
    case QuantFormat::kAwq:
      if (volta || amd) return "vllm's AWQ kernels do not run on " + g.name + " (" + a + ")";
      break;
    case QuantFormat::kGptq:
    case QuantFormat::kBnbNf4:
      if (amd) {
        return std::string("vllm's ") + quantFormatName(q) + " kernels do not run on AMD GPUs";
      }
      break;
    case QuantFormat::kFp8Tensor:
    case QuantFormat::kFp8Channel:
    case QuantFormat::kFp8Block:
      if (volta) return "vllm runs FP8 checkpoints from Turing on (Marlin), not on Volta";
      break;
    default:
      break;
  }
  return "";
}

}  // namespace

Precision engineDefaultPrecision(Engine e, const Gpu* gpu) {
  if (e == Engine::kLlamaCpp) return Precision::kFp16;
  if (e == Engine::kNone) return Precision::kFp32;
  // A CPU or a GPU without BF16 math (before Ampere): vLLM's --dtype auto falls back to fp16.
  const bool bf16 = !gpu || (!gpu->cpu && gpu->bf16_flops > 0);
  return bf16 ? Precision::kBf16 : Precision::kFp16;
}

Workload withServingDefaults(const Transformer& t, const Workload& w) {
  if (w.serving.engine != Engine::kNone && w.serving.context && t.max_positions > 0 &&
      *w.serving.context > t.max_positions) {
    throw InputError(ErrorCode::kValue, "/workload/context",
                     std::to_string(*w.serving.context) + " tokens exceed the model's context of " +
                         std::to_string(t.max_positions) + " (max_position_embeddings)");
  }
  Workload v = w;
  // llama.cpp spreads a model over its GPUs by layers (-sm layer, its default): they are the
  // stages of a pipeline, not data-parallel replicas.
  const Parallelism& par = w.hardware.parallel;
  if (w.serving.engine == Engine::kLlamaCpp && par.gpus > 1) {
    if (par.tp > 1) {
      throw InputError(ErrorCode::kValue, "/workload/tp",
                       "llama.cpp spreads a model over GPUs by layers (-sm layer, its default); "
                       "its row split (-sm row) is not modelled: leave tp at 1");
    }
    if (par.pp > 1 && par.pp != par.gpus) {
      throw InputError(ErrorCode::kValue, "/workload/pp",
                       "llama.cpp splits the layers over every GPU it is given: pp is gpus (" +
                           std::to_string(par.gpus) + ") or left out");
    }
    v.hardware.parallel.pp = par.gpus;
    v.hardware.parallel.microbatches = 1;
  } else if (w.serving.engine != Engine::kNone && w.serving.engine != Engine::kLlamaCpp &&
             w.serving.engine != Engine::kVllm && par.pp > 1) {
    // Each stage holds its layers' weights and KV cache (vLLM's plan sizes them,
    // vllm_stages.hpp); the others' stage splits are not modelled, and a plan of the whole
    // model on one GPU would be a wrong answer.
    throw InputError(ErrorCode::kValue, "/workload/pp",
                     std::string(engineName(w.serving.engine)) +
                         "'s pipeline parallelism is not modelled in its serving plan: split "
                         "the model over the GPUs with tp, or leave pp at 1 (vllm models it)");
  }
  // vLLM's stages run whole batches, not a training step's micro-batches (the estimate's
  // pipeline split of the batch): one, as for llama.cpp's layer split.
  if (w.serving.engine == Engine::kVllm && par.pp > 1) v.hardware.parallel.microbatches = 1;
  if (w.cached_tokens > 0 && (w.serving.engine == Engine::kNone || w.mode != Mode::kInfer)) {
    throw InputError(ErrorCode::kValue, "/workload/cached_tokens",
                     "tokens already cached are a serving engine's KV cache: choose an engine");
  }
  // A vision-language model's images take their tokens of the context too, as do the tokens
  // already cached.
  const int64_t image_tokens =
      t.vision ? checkedMul(w.images.value_or(1), t.vision->tokens_per_image) : 0;
  const int64_t before_prompt = checkedAdd(image_tokens, w.cached_tokens);
  if (w.serving.engine != Engine::kNone && w.serving.context && !w.prompt_tokens &&
      *w.serving.context > checkedAdd(w.generated_tokens, before_prompt))
    v.prompt_tokens = *w.serving.context - w.generated_tokens - before_prompt;
  return v;
}

ServingPlan servingPlan(const Transformer& t, const Workload& w, const Report& r) {
  const ServingSettings& s = w.serving;
  ServingPlan p;
  p.engine = s.engine;
  p.users = s.users;
  if (t.kind != TransformerKind::kDecoder) {
    throw InputError(ErrorCode::kValue, "/workload/engine",
                     std::string(engineName(s.engine)) + " serves decoder LLMs; " + t.architecture +
                         " is not one");
  }
  const bool apple = w.hardware.gpu && w.hardware.gpu->vendor == "Apple";
  const bool cpu = w.hardware.gpu && w.hardware.gpu->cpu;
  p.on_cpu = cpu;
  if (cpu && s.engine != Engine::kLlamaCpp) {
    throw InputError(ErrorCode::kValue, "/workload/engine",
                     std::string(engineName(s.engine)) + " on " + w.hardware.gpu->name +
                         " (a CPU) is not modelled: choose llamacpp");
  }
  if (apple && s.engine != Engine::kLlamaCpp) {
    throw InputError(ErrorCode::kValue, "/workload/engine",
                     std::string(engineName(s.engine)) +
                         " does not run on Apple silicon's GPU: choose llamacpp (Metal)");
  }
  if (s.engine == Engine::kTrtllm && w.hardware.gpu && !cpu && w.hardware.gpu->vendor != "NVIDIA") {
    throw InputError(ErrorCode::kValue, "/workload/engine",
                     "trtllm runs on NVIDIA GPUs only; " + w.hardware.gpu->name + " is " +
                         w.hardware.gpu->vendor + "'s");
  }
  if (w.hardware.gpu && w.hardware.gpu->unified_memory) {
    p.notes.push_back("unified memory: " + w.hardware.gpu->unified_memory_note);
  }
  if (w.hardware.gpu && !gpuComputePublished(*w.hardware.gpu)) {
    p.notes.push_back(w.hardware.gpu->name +
                      " has no published compute rate: compute-bound speeds (time to first "
                      "token, decode once many users make it compute-bound) are unavailable; "
                      "decode tokens/s are the memory-bandwidth bound, an upper bound on speed");
  }
  if (!engineLoads(s.engine, s.quant)) {
    throw InputError(ErrorCode::kValue, "/workload/quant",
                     std::string(engineName(s.engine)) + " does not load " +
                         quantFormatName(s.quant) + " checkpoints");
  }
  if (s.engine == Engine::kVllm && w.hardware.gpu && !cpu) {
    // An engine the device cannot run, or a format its kernels lack there: an error at the
    // field, never another engine's (or format's) numbers.
    const std::string why = vllmCannotRun(s.quant, *w.hardware.gpu);
    if (!why.empty()) {
      const bool device = why.rfind("vllm needs", 0) == 0;
      throw InputError(ErrorCode::kValue, device ? "/workload/engine" : "/workload/quant", why);
    }
  }
  if (s.draft) checkDraft(t, w);
  const TransformerSummary& sum = *r.transformer;
  // The sequence the cache holds: the tokens already cached, then the prompt and the answer.
  p.context = s.context.value_or(sum.context_tokens);
  if (t.max_positions > 0 && p.context > t.max_positions) {
    throw InputError(ErrorCode::kValue,
                     s.context ? "/workload/context" : "/workload/generated_tokens",
                     std::to_string(p.context) + " tokens exceed the model's context of " +
                         std::to_string(t.max_positions) + " (max_position_embeddings)");
  }
  if (s.context && sum.context_tokens > p.context) {
    throw InputError(
        ErrorCode::kValue, "/workload/context",
        std::string(w.cached_tokens > 0 ? "cached_tokens + " : "") +
            "prompt_tokens + generated_tokens = " + std::to_string(sum.context_tokens) +
            " exceed the context of " + std::to_string(p.context) + " tokens");
  }
  int64_t usable = std::numeric_limits<int64_t>::max() / 4;
  if (r.gpu_fit) {
    // The engines size their budgets from CUDA's total (cudaMemGetInfo), below nvidia-smi's.
    p.capacity_bytes = r.gpu_fit->gpu.cpu || w.memory_bytes ? r.gpu_fit->capacity_bytes
                                                            : gpuCudaTotalBytes(r.gpu_fit->gpu);
    usable = r.gpu_fit->usable_bytes;
  } else if (w.memory_bytes) {
    p.capacity_bytes = *w.memory_bytes;
    usable = *w.memory_bytes;
  }
  try {
    switch (s.engine) {
      case Engine::kVllm:
      case Engine::kSglang:
      case Engine::kTrtllm:
        if (p.capacity_bytes == 0) {
          throw InputError(ErrorCode::kMissingField, "/workload/gpu",
                           std::string(engineName(s.engine)) +
                               " sizes its KV pool from the GPU's memory: give gpu or memory_gib");
        }
        planPaged(t, w, r, p);
        break;
      case Engine::kHf:
        planHf(t, w, r, p, usable);
        break;
      case Engine::kLlamaCpp:
        planLlamaCpp(t, w, r, p, usable);
        break;
      case Engine::kNone:
        break;
    }
    p.speed = servingSpeed(t, w, r, p, p.users, p.context);
  } catch (const ArithmeticOverflow&) {
    throw InputError(ErrorCode::kTooLarge, "/workload/users",
                     std::to_string(p.users) + " users of " + std::to_string(p.context) +
                         " tokens overflow 64-bit arithmetic");
  }
  return p;
}

}  // namespace dlcost
