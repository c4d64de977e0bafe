#pragma once
// Layout advice: every data x tensor x pipeline (x expert, for mixture-of-experts models)
// split of a workload's GPUs, each estimated with its memory per GPU and its step time, ranked.

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "dlcost/base/error.hpp"
#include "dlcost/types/gpu_fit.hpp"
#include "dlcost/types/model.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// One split of the GPUs and what it gives.
struct LayoutOption {
  Parallelism parallel;        ///< gpus, tp, pp (dp = gpus / (tp x pp)), ep, zero; sp as given
  int64_t batch = 0;           ///< samples per micro-step (the workload's batch / accumulation)
  int64_t grad_accum = 1;      ///< micro-steps per optimizer step
  std::optional<GpuFit> fit;   ///< absent when the model cannot take the split
  std::optional<Error> error;  ///< why not: the field (/workload/tp, /workload/pp, ...) and reason
};

/// Every tp dividing the workload's gpus and pp dividing gpus / tp, and for MoE models every
/// ep dividing gpus / (tp x pp) and the expert count (virtual_stages as given where pp > 1,
/// else 1). Micro-batches: the workload's, else one sample per micro-batch when pp > 1 (the
/// smallest bubble and the least activation memory in flight). A split that does not fit as
/// asked takes the fastest ZeRO stage (from the workload's up) that fits with the least
/// gradient accumulation that fits (a transformer without a pipeline; the optimizer step's
/// samples unchanged), else the least memory per GPU those reach. Options the model can take
/// come first: those that fit by step time, then those that do not by memory per GPU; then
/// the refused ones. Throws
/// InputError at /workload/gpu without a GPU, and errors that no layout escapes (the network,
/// the run) as they are.
std::vector<LayoutOption> layoutOptions(const Model& model, const Workload& workload);

/// `{"schema": "dlcost.layouts/1", "model", "gpus", "network", "rows": [{"dp", "tp", "pp",
/// "ep", "virtual_stages", "zero", "sp", "microbatches", "batch", "grad_accum", "set" (the
/// workload fields that apply the row), "fits", "per_gpu_bytes", "usable_bytes",
/// "headroom_bytes", "step_s", "samples_per_s", "mfu", "step_time", "per_gpu", "run"}], "refused":
/// [{"dp", "tp", "pp", "ep", "virtual_stages", "error": {"code", "path", "message"}}], "notes"}`.
/// Throws InputError when no layout is possible (at /workload/gpus) or the document is bad.
nlohmann::json layoutsDocument(const nlohmann::json& document);

}  // namespace dlcost
