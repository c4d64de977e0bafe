#pragma once
// vLLM's pipeline stages (--pipeline-parallel-size): the decoder layers each group of
// tensor-parallel GPUs holds and the weights on one of its GPUs, so that the paged plan sizes
// each stage's KV pool and keeps the smallest, as vLLM V1 does (get_kv_cache_configs: "Change
// the num_blocks of each rank to the smallest among all ranks").

#include <cstdint>
#include <vector>

#include "dlcost/types/transformer.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// Decoder layers per stage (vllm/distributed/utils.py get_pp_indices, v0.11 to v0.19):
/// layers / pp each, the remainder one more each to the stages before the last, from the
/// second-to-last back (the last holds the final norm and the LM head).
std::vector<int64_t> vllmStageLayers(int64_t layers, int64_t pp);

struct PipelineStage {
  int64_t first_layer = 0;
  int64_t layers = 0;
  int64_t weight_bytes = 0;  ///< on one GPU of the stage's tensor-parallel group
};

/// The stages of `t` under `w` (pp = w.hardware.parallel.pp). The first holds the token
/// embeddings; the last the final norm and the LM head, or under tied embeddings a copy of the
/// embedding table (vLLM builds embed_tokens on the last rank for the LM head to share).
/// Weights as stored: w.serving.quant's format, else unquantized. Throws InputError at
/// /workload/pp for a weight_dtype that quantizes without a checkpoint format.
std::vector<PipelineStage> vllmStages(const Transformer& t, const Workload& w);

}  // namespace dlcost
