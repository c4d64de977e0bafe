#pragma once
// A serving engine under load (issue #30): a discrete-event simulation of one engine instance
// (or replicas behind a round-robin router) as its scheduler forms each iteration's batch,
// each iteration timed by the per-op time model (dlcost/gpu/time_model.hpp) with the work of
// that batch's prompt chunks and decode tokens. Schedulers, as each engine's source does it:
//   vLLM (v1): continuous batching with chunked prefill: running requests first (a decode
//     token each, or their next prompt chunk), then waiting ones first come first served,
//     within max_num_batched_tokens and max_num_seqs; KV blocks of block_size tokens are
//     allocated as tokens are scheduled; when none is free the last running request is
//     preempted and recomputed later (vllm/v1/core/sched/scheduler.py).
//   SGLang: a prefill batch whenever waiting requests fit (chunked at the plan's token budget),
//     else a decode batch of every running request; batches are not mixed (its default);
//     a token-granular pool; retraction as vLLM's preemption.
//   llama.cpp server: -np slots, each with its context; a request waits for a free slot; each
//     forward takes every decoding slot's token and then prompt tokens up to n_ubatch.
//   HF transformers generate(): static batches of `users` requests: one padded prefill, then
//     decode steps until the batch's longest answer ends.

#include <vector>

#include "dlcost/types/report.hpp"
#include "dlcost/types/serving_load.hpp"
#include "dlcost/types/transformer.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// The requests `s` describes: its trace, or `s.requests` generated ones (Poisson arrivals at
/// s.rate; for a closed loop the arrival times are set by the simulation), lengths drawn from
/// s.prompt and s.output with s.seed. The generator is the project's own (splitmix64,
/// inverse-CDF exponential, Box-Muller), so the CLI and the page draw the same requests.
std::vector<LoadRequest> loadRequests(const LoadSettings& s);

/// The simulation of `s` on the serving plan of `r` (the report of `t` under `w`, with
/// `r.serving` and `r.gpu_fit`). Throws InputError: no engine or GPU, layers in system RAM,
/// a GPU without a published compute rate, a run that does not settle.
LoadResult simulateLoad(const Transformer& t, const Workload& w, const Report& r,
                        const LoadSettings& s);

}  // namespace dlcost
