#pragma once
// How many times a decode step reads each KV-cache cell, shared by the steady-state speed
// (serving_speed.cpp) and the simulation's iterations (iteration_time.cpp).

#include "dlcost/types/transformer.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// Reads of each KV cell per decode token. TensorRT-LLM before 0.7 ran its generation phase
/// in the masked multi-head attention kernel only, one thread block per query head
/// (docs/source/gpt_attention.md of v0.6.1, "Generation Phase"), so under GQA each query head
/// of a group read the group's K and V itself: heads / kv_heads reads. XQA (0.7, "XQA
/// Optimization" in the same document) and the other engines' paged decode kernels read a KV
/// head once for its whole group. MLA's latent cache is read once.
inline double decodeKvReads(const Transformer& t, Engine engine, const Workload& w) {
  if (engine != Engine::kTrtllm || w.serving.trtllm_version != TrtllmVersion::kV0_6) return 1.0;
  if (t.kv_lora_rank > 0 || t.kv_heads <= 0 || t.heads <= t.kv_heads) return 1.0;
  return static_cast<double>(t.heads) / static_cast<double>(t.kv_heads);
}

}  // namespace dlcost
