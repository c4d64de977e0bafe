#pragma once
// How an LLM is served: the engine, the checkpoint's quantization format and the engine's own
// knobs. Read from the workload object ("engine", "users", "context", "quant", ...; see
// core/src/workload_schema.cpp); planned by servingPlan (dlcost/serving.hpp).

#include <cstdint>
#include <optional>
#include <string>

#include "dlcost/types/transformer.hpp"

namespace dlcost {

/// The program that runs the model. Each keeps its memory its own way (docs/serving.md).
enum class Engine {
  kNone,      ///< no engine: the plain inference estimate (one forward, batch sequences)
  kHf,        ///< Hugging Face transformers generate(): weights, dynamic KV cache, activations
  kVllm,      ///< vLLM: gpu_memory_utilization budget, paged KV blocks
  kSglang,    ///< SGLang: mem_fraction_static budget, token-granular KV pool
  kLlamaCpp,  ///< llama.cpp (and Ollama): GGUF weights, n_ctx cells, layer offload
  kTrtllm,    ///< TensorRT-LLM: a share of the memory free after weights, paged KV blocks
};
inline constexpr Engine kEngines[] = {Engine::kNone,   Engine::kHf,     Engine::kVllm,
                                      Engine::kSglang, Engine::kTrtllm, Engine::kLlamaCpp};
const char* engineName(Engine e);
std::optional<Engine> parseEngine(const std::string& name);

/// Checkpoint quantization formats, each with its exact storage (dlcost/quant_formats.hpp).
enum class QuantFormat {
  kNone,        ///< the weights in weight_dtype (or the precision's format)
  kGguf,        ///< a llama.cpp GGUF file of gguf_type (llama-quantize's mixes)
  kGptq,        ///< GPTQ (AutoGPTQ / GPTQModel): packed int32 weights, zeros, fp16 scales, g_idx
  kAwq,         ///< AWQ (AutoAWQ GEMM): packed int32 weights, zeros, fp16 scales
  kBnbNf4,      ///< bitsandbytes 4-bit NormalFloat, blocks of 64, fp32 absmax
  kBnbFp4,      ///< bitsandbytes 4-bit float, as NF4
  kFp8Tensor,   ///< FP8 E4M3 with one fp32 scale per matrix
  kFp8Channel,  ///< FP8 E4M3 with one scale per output channel
  kFp8Block,    ///< FP8 E4M3 with one fp32 scale per 128 x 128 block (DeepSeek-V3)
  kMxfp4,       ///< OCP MXFP4: 32-value blocks of E2M1 with one E8M0 scale byte (gpt-oss)
  kNvfp4,       ///< NVFP4: 16-value blocks of E2M1 with an FP8 E4M3 scale, fp32 global scales
};
inline constexpr QuantFormat kQuantFormats[] = {
    QuantFormat::kNone,     QuantFormat::kGguf,   QuantFormat::kGptq,      QuantFormat::kAwq,
    QuantFormat::kBnbNf4,   QuantFormat::kBnbFp4, QuantFormat::kFp8Tensor, QuantFormat::kFp8Channel,
    QuantFormat::kFp8Block, QuantFormat::kMxfp4,  QuantFormat::kNvfp4};
const char* quantFormatName(QuantFormat q);
std::optional<QuantFormat> parseQuantFormat(const std::string& name);

/// llama-quantize's file types (LLAMA_FTYPE_MOSTLY_*): a default ggml type and the per-tensor
/// exceptions of llama_tensor_get_type_impl (src/llama-quant.cpp). MXFP4_MOE: the experts'
/// 3-D tensors in MXFP4, every other matrix in Q8_0 (gpt-oss's GGUF files).
enum class GgufFileType { kF16, kBf16, kQ8_0, kQ6_K, kQ5_K_M, kQ4_K_M, kQ4_K_S, kQ4_0, kMxfp4Moe };
inline constexpr GgufFileType kGgufFileTypes[] = {
    GgufFileType::kF16,    GgufFileType::kBf16,   GgufFileType::kQ8_0,
    GgufFileType::kQ6_K,   GgufFileType::kQ5_K_M, GgufFileType::kQ4_K_M,
    GgufFileType::kQ4_K_S, GgufFileType::kQ4_0,   GgufFileType::kMxfp4Moe};
const char* ggufFileTypeName(GgufFileType t);
std::optional<GgufFileType> parseGgufFileType(const std::string& name);

/// llama.cpp's KV cache types (--cache-type-k / --cache-type-v).
enum class CacheType { kF16, kQ8_0, kQ4_0 };
inline constexpr CacheType kCacheTypes[] = {CacheType::kF16, CacheType::kQ8_0, CacheType::kQ4_0};
const char* cacheTypeName(CacheType c);
std::optional<CacheType> parseCacheType(const std::string& name);

/// The vLLM release whose start-up memory profile the KV plan follows (docs/serving.md): what
/// its profiling run holds beside the weights differs between releases.
enum class VllmVersion {
  kV0_19,  ///< 0.19 (V1 engine, FlashInfer's top-k/top-p sampler on by default)
  kV0_11,  ///< 0.8 to 0.11 (V1 engine, PyTorch's top-k/top-p sampler: a full sort)
  kV0,     ///< the V0 engine (before 0.8, or VLLM_USE_V1=0)
};
inline constexpr VllmVersion kVllmVersions[] = {VllmVersion::kV0_19, VllmVersion::kV0_11,
                                                VllmVersion::kV0};
const char* vllmVersionName(VllmVersion v);
std::optional<VllmVersion> parseVllmVersion(const std::string& name);
/// The TensorRT-LLM release whose decode-attention kernels the speed follows (docs/serving.md):
/// before 0.7 the generation phase ran only the masked multi-head attention kernel, one thread
/// block per query head, so under GQA every query head read its group's KV cache itself;
/// 0.7 added the XQA kernels, which read a KV head once for its whole group.
enum class TrtllmVersion {
  kV1,    ///< 0.7 and later (XQA for GQA/MQA decode; 1.x's PyTorch backend)
  kV0_6,  ///< 0.5 to 0.6.1 (masked MHA only)
};
inline constexpr TrtllmVersion kTrtllmVersions[] = {TrtllmVersion::kV1, TrtllmVersion::kV0_6};
const char* trtllmVersionName(TrtllmVersion v);
std::optional<TrtllmVersion> parseTrtllmVersion(const std::string& name);

/// Dual-channel DDR5-4800: 2 channels x 8 bytes x 4.8 GT/s = 76.8 GB/s (JEDEC JESD79-5 data
/// rate; a desktop's usual memory). What layers left in system RAM are read at.
constexpr double kDefaultHostBandwidth = 76.8e9;

struct ServingSettings {
  Engine engine = Engine::kNone;
  /// Sequences served at once (>= 1): each holds `context` tokens of KV cache.
  int64_t users = 1;
  /// Tokens per sequence the engine is set up for (vLLM's max_model_len, llama.cpp's n_ctx
  /// per slot); absent: prompt_tokens + generated_tokens.
  std::optional<int64_t> context;
  QuantFormat quant = QuantFormat::kNone;
  int quant_bits = 4;  ///< GPTQ/AWQ bits per weight: 2, 3, 4 or 8 (AWQ: 4)
  GgufFileType gguf_type = GgufFileType::kQ4_K_M;
  bool bnb_double_quant = false;  ///< bnb_4bit_use_double_quant (transformers' default: false)
  /// vLLM gpu_memory_utilization / SGLang mem_fraction_static; absent: the engine's default.
  std::optional<double> gpu_memory_utilization;
  std::optional<int64_t> max_num_seqs;                ///< vLLM/SGLang; absent: engine default
  std::optional<int64_t> max_num_batched_tokens;      ///< vLLM/SGLang chunked-prefill budget
  std::optional<int64_t> block_size;                  ///< tokens per KV block; absent: engine's
  VllmVersion vllm_version = VllmVersion::kV0_19;     ///< whose memory profile vLLM's plan follows
  TrtllmVersion trtllm_version = TrtllmVersion::kV1;  ///< whose decode kernels TRT-LLM runs
  /// llama.cpp -ngl: decoder layers on the GPU (more than the layers: the output layer too);
  /// absent: as many as fit.
  std::optional<int64_t> n_gpu_layers;
  CacheType cache_type = CacheType::kF16;  ///< llama.cpp K and V cache type
  /// Bytes per second at which the CPU reads layers left in system RAM; absent:
  /// kDefaultHostBandwidth.
  std::optional<double> host_bandwidth;
  /// Speculative decoding with a draft model (vLLM's speculative_config method "draft_model"):
  /// the preset it names ("" for none) and its architecture, read from that preset.
  std::string draft_preset;
  std::optional<Transformer> draft;
  std::string draft_id;      ///< the draft's Hugging Face id (its config's _name_or_path)
  int64_t draft_tokens = 5;  ///< tokens the draft proposes per step (num_speculative_tokens)
  /// Chance that the target accepts one proposed token (Leviathan et al. 2023's alpha): it
  /// depends on the prompts and the pair of models, so the user gives it.
  std::optional<double> draft_acceptance;
};

}  // namespace dlcost
