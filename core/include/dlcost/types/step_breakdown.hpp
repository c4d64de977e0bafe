#pragma once
// One training (or inference) step on several GPUs: compute, the communication it cannot
// hide, and the pipeline bubble, with every collective it runs and the overlap assumed for it.

#include <cstdint>
#include <string>
#include <vector>

#include "dlcost/types/collective.hpp"
#include "dlcost/types/interconnect.hpp"

namespace dlcost {

/// One kind of collective in a step: what it moves, over which GPUs and links, how long all
/// of its calls take and how much of that the step waits for.
struct CollectiveCost {
  std::string purpose;  ///< "dp_gradients", "zero_gradients", "zero_params", "tp_activations",
                        ///< "pp_activations", "ep_tokens", "cp_kv",
                        ///< "cp_dkv"
  Collective collective = Collective::kAllReduce;
  std::string group;         ///< "data", "tensor", "pipeline", "expert", "expert_data",
                             ///< "context"
  GroupPlacement placement;  ///< GPUs, per node, nodes
  std::string links;         ///< "nvlink4", "nvlink4 + ib-ndr"
  double bytes = 0;          ///< per call, per GPU (collectives.hpp's convention)
  int64_t calls = 0;         ///< per optimizer step
  double time_s = 0;         ///< all calls of one step
  double exposed_s = 0;      ///< of time_s, what the step waits for
  std::string overlap;       ///< the assumption and its source
};

/// Step time = compute + exposed communication + pipeline bubble + optimizer update.
struct StepBreakdown {
  double compute_s = 0;    ///< roofline compute/traffic of every micro-batch on one stage
  double tp_comm_s = 0;    ///< tensor-parallel collectives (not overlapped)
  double pp_comm_s = 0;    ///< activations sent between pipeline stages (not overlapped)
  double ep_comm_s = 0;    ///< expert-parallel all-to-alls of MoE layers (not overlapped)
  double cp_comm_s = 0;    ///< context-parallel K/V ring: sends outlasting their attention
  double dp_comm_s = 0;    ///< exposed data-parallel / ZeRO communication
  double bubble_s = 0;     ///< 1F1B fill and drain: (pp - 1) stage slots per micro-step
  double optimizer_s = 0;  ///< the memory-bound optimizer update
  double step_s = 0;       ///< the sum: one optimizer step (grad_accum micro-steps)
  /// Share of the pipeline's time idle in fill and drain: (pp - 1) / (m + pp - 1) for 1F1B,
  /// with (pp - 1) / v for pp - 1 under the interleaved schedule of v chunks per GPU.
  double bubble_fraction = 0;
  int64_t virtual_stages = 1;  ///< model chunks per GPU (1: plain 1F1B)
  int64_t micro_steps = 1;     ///< gradient-accumulation micro-steps per optimizer step
  int64_t microbatches = 1;    ///< pipeline micro-batches per micro-step
  double model_flops = 0;      ///< per step, excluding recomputation (for MFU)
  double mfu = 0;              ///< model_flops / (step_s x gpus x dense peak)
  std::vector<CollectiveCost> collectives;
  std::vector<std::string> notes;
};

}  // namespace dlcost
