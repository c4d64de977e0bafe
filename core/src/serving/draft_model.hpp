#pragma once
// The KV cache bytes of paged engines (HF, vLLM, SGLang, TensorRT-LLM) and the draft model of
// speculative decoding, shared by the serving plan (engine_plan.cpp) and its speed
// (serving_speed.cpp).

#include <cstdint>

#include "dlcost/types/interconnect.hpp"
#include "dlcost/types/transformer.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

struct ForwardWork;

/// KV bytes of one sequence of `tokens` tokens of `t` on one GPU (GQA heads split over tp, a
/// head kept whole when there are fewer heads than GPUs), in kv_dtype or the activations'.
int64_t kvBytes(const Transformer& t, const Workload& w, int64_t tokens);

/// The draft model's weights on one GPU: unquantized in the precision's weights format (vLLM
/// loads the draft as it is published), split over the same tensor-parallel group.
int64_t draftWeightBytes(const Workload& w);

/// Speculative decoding's tokens per step and sequence: (1 - a^(k+1)) / (1 - a) for k
/// proposed tokens each accepted with chance a (Leviathan et al. 2023, eq. 1).
double tokensPerStep(double acceptance, int64_t proposed);

/// One decode forward of the draft model over `sequences` sequences at `context` tokens: its
/// weights once, the sequences' draft KV cache, `flops_per_token` each (split over the
/// tensor-parallel group), its all-reduces over that group on `net`.
ForwardWork draftDecodeWork(const Workload& w, const Network& net, double sequences,
                            int64_t context, double flops_per_token);

}  // namespace dlcost
