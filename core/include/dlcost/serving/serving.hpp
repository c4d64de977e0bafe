#pragma once
// An LLM served by an engine: where each byte goes on the GPU (and in system RAM), how many
// users at which context the engine holds, the launch flags that realise the plan, and the
// speeds people quote (time to first token, tokens/s per user and in all, inter-token latency).
// Every engine's layout is read from its source; docs/serving.md cites each rule.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dlcost/types/memory.hpp"
#include "dlcost/types/report.hpp"
#include "dlcost/types/serving_plan.hpp"
#include "dlcost/types/transformer.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// llama.cpp's default micro-batch (-ub, n_ubatch): the compute graph is reserved for it and
/// a prompt is processed in pieces of this many tokens.
constexpr int64_t kLlamaUbatch = 512;
/// Tokens a batch needs before llama.cpp runs a matmul whose weights sit in system RAM on the
/// GPU, copying the weights over the host link first: ggml-cuda.cu,
/// ggml_backend_cuda_device_offload_op (min_batch_size = 32, the batch being ne[1] of the
/// matmul), asked by ggml-backend.cpp's scheduler for ops with weights in a host buffer.
constexpr int64_t kLlamaOffloadMinBatch = 32;

/// The engine's natural compute precision when the workload names none (dtype absent): what
/// it loads an unquantized checkpoint in and multiplies with. llama.cpp: F16 (a GGUF's
/// unquantized tensors and its CUDA/Metal matmuls); vLLM, SGLang and HF transformers: the
/// model card's bfloat16 (--dtype auto / torch_dtype), float16 on GPUs without BF16 math.
Precision engineDefaultPrecision(Engine e, const Gpu* gpu);

/// `w` with the prompt an engine's context implies: with an engine and a context but no
/// prompt_tokens, each sequence's prompt fills its context (context - generated_tokens).
/// Throws InputError at /workload/context for a context beyond the model's
/// max_position_embeddings (checked first, before anything is sized from it).
Workload withServingDefaults(const Transformer& t, const Workload& w);

/// The plan for `w.serving.engine` (not kNone) given the engine-less inference report `r` of
/// `t` under `w`. Throws InputError with the JSON path of the field at fault: a context beyond
/// the model's max_position_embeddings (/workload/context), a quantization format the engine
/// cannot load (/workload/quant), an encoder model (/workload/engine).
ServingPlan servingPlan(const Transformer& t, const Workload& w, const Report& r);

/// The plan's speed at `users` sequences of `context` tokens (the sweep's points).
ServingSpeed servingSpeed(const Transformer& t, const Workload& w, const Report& r,
                          const ServingPlan& plan, int64_t users, int64_t context);

}  // namespace dlcost
