#pragma once
// The advisor: when a workload does not fit its GPU, the smallest changes that do. It runs
// beside estimate(), never inside it: each candidate is re-estimated through estimate(), so
// the caller that wants advice asks for it (estimateWithAdvice) and the engine has no cycle.

#include <vector>

#include "dlcost/types/gpu_fit.hpp"
#include "dlcost/types/model.hpp"
#include "dlcost/types/report.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// Changes that each make `w` fit on its GPU, smallest first within each kind: lower batch
/// with gradient accumulation, 16-bit precision, a lighter optimizer, for transformers
/// activation recomputation and LoRA/QLoRA (training) or int8/int4 weights and an fp8 KV
/// cache (inference), a higher ZeRO stage, more GPUs. Every candidate is re-estimated
/// through estimate(); only those that fit are returned.
std::vector<Advice> adviseFits(const Model& model, const Workload& w, const GpuFit& fit);

/// Changes that make a serving plan that does not hold its users at its context do: quantized
/// weights in the engine's formats, a shorter context, fewer users, tensor parallelism, a GPU
/// with more memory. Each is re-estimated; only those whose plan fits are returned.
std::vector<Advice> adviseServing(const Model& model, const Workload& w, const ServingPlan& plan);

/// estimate(), plus the advice in its GPU fit when the workload does not fit: what the CLI and
/// the page show. Throws as estimate() does.
Report estimateWithAdvice(const Model& model, const Workload& workload);

}  // namespace dlcost
