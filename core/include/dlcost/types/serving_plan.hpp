#pragma once
// What a serving plan reports (dlcost/serving.hpp computes it): the engine's memory on one GPU
// and in system RAM, the users it holds, its launch command and its speed.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dlcost/types/memory.hpp"
#include "dlcost/types/serving_settings.hpp"

namespace dlcost {

/// Speed of the plan at some number of users, each with `context` tokens.
struct ServingSpeed {
  int64_t users = 1;
  int64_t context = 0;
  double ttft_s = 0;  ///< one user's prompt through the prefill on an idle engine
  /// Every one of `users` prompts through one prefill together (a static batch's start; what
  /// a burst of users waits for their first tokens); 0 like ttft_s without a compute rate.
  double batch_prefill_s = 0;
  double itl_s = 0;  ///< one decode step with `users` sequences: the inter-token latency
  double tokens_per_s_per_user = 0;  ///< 1 / itl_s
  double tokens_per_s = 0;           ///< users / itl_s
  const char* bound = "memory";      ///< what limits the decode step: "memory" or "compute"
  int64_t step_bytes = 0;            ///< bytes one decode step reads (weights + KV caches)
  int64_t step_flops = 0;            ///< FLOPs of one decode step
  /// llama.cpp with layers in system RAM: bytes of their weights copied to the GPU over the
  /// host link while the prompt is processed (one copy per micro-batch of 32+ tokens).
  int64_t prefill_copy_bytes = 0;
  /// Speculative decoding: tokens one step yields per sequence on average, (1 - a^(k+1)) /
  /// (1 - a) for k proposed tokens each accepted with chance a (Leviathan et al. 2023, eq. 1);
  /// 0 without a draft model. itl_s is then a step's time over it.
  double tokens_per_step = 0;
  double draft_s = 0;   ///< the draft's k forwards of one step
  double verify_s = 0;  ///< the target's forward over k + 1 tokens per sequence
};

/// The engine's plan on the workload's GPU (or memory size).
struct ServingPlan {
  Engine engine = Engine::kNone;
  int64_t context = 0;  ///< tokens per sequence (max_model_len, n_ctx per slot)
  int64_t users = 1;    ///< sequences asked for
  /// What one GPU holds (the terms of dlcost/memory_terms.hpp); for vLLM and SGLang the KV
  /// cache term is the whole preallocated pool.
  MemoryBreakdown device;
  MemoryBreakdown host;        ///< llama.cpp: what stays in system RAM
  bool on_cpu = false;         ///< the device is a CPU: `device` is system RAM
  int64_t capacity_bytes = 0;  ///< one GPU's memory as the driver reports it (0: none given)
  int64_t budget_bytes = 0;    ///< what the engine lets itself use of it
  /// One token of one sequence, all layers, on one GPU (over pipeline stages: one GPU of each).
  int64_t kv_bytes_per_token = 0;
  // --- paged engines (vLLM, SGLang) ---------------------------------------------------------
  std::optional<double> memory_fraction;  ///< gpu_memory_utilization / mem_fraction_static
  int64_t block_size = 0;                 ///< tokens per KV block (page)
  int64_t block_bytes = 0;                ///< one block over every layer
  int64_t num_blocks = 0;                 ///< blocks in the pool
  int64_t kv_tokens = 0;                  ///< tokens the pool holds (vLLM's "GPU KV cache size")
  double max_concurrency = 0;             ///< sequences of `context` tokens the pool holds
  int64_t max_num_seqs = 0;               ///< the scheduler's cap on running sequences
  int64_t max_num_batched_tokens = 0;     ///< tokens per step (the profiled dummy batch)
  /// vLLM --pipeline-parallel-size: decoder layers per stage (get_pp_indices); empty with one
  /// stage. The pool's blocks are the smallest stage's (vLLM takes the minimum of its workers'),
  /// and `device` is what a GPU of that stage holds.
  std::vector<int64_t> stage_layers;
  int64_t limiting_stage = 0;  ///< the stage whose GPUs hold the fewest blocks (0-based)
  // --- llama.cpp ----------------------------------------------------------------------------
  int64_t layers = 0;      ///< decoder layers
  int64_t gpu_layers = 0;  ///< -ngl as planned: layers on the GPU (+1 with the output layer)
  int64_t n_ctx = 0;       ///< KV cells: users x context, padded as llama.cpp pads it
  // --- the answer ---------------------------------------------------------------------------
  /// Users at `context` the plan holds at once: the pool's concurrency capped by
  /// max_num_seqs (paged engines), or the largest count whose memory fits (hf, llama.cpp).
  int64_t max_users = 0;
  bool fits = false;               ///< `users` sequences of `context` tokens fit
  std::string command;             ///< the launch command that realises the plan
  ServingSpeed speed;              ///< at `users`
  std::vector<std::string> notes;  ///< assumptions and measured-not-computed figures
};

}  // namespace dlcost
