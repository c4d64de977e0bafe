#pragma once
// The GPU fit, the step's breakdown, the network, the links and the run's cost as JsonObject
// (json_writer.hpp), written once: the report puts them together, and the nlohmann::json
// functions of dlcost/gpu/gpu_json.hpp and step_json.hpp read the same text back.

#include "dlcost/types/gpu_fit.hpp"
#include "dlcost/types/interconnect.hpp"
#include "dlcost/types/run_cost.hpp"
#include "dlcost/types/step_breakdown.hpp"
#include "dlcost/types/workload.hpp"
#include "types/json_writer.hpp"

namespace dlcost {

/// The report's "gpu_fit": "gpu", "fits", "headroom_bytes", "max_batch", "step_time_s",
/// "tokens_per_s", "per_gpu", "advice", ... (gpu_json.cpp).
JsonObject gpuFitObject(const GpuFit& fit, const Workload& workload);

/// stepBreakdownToJson's, networkToJson's, interconnectToJson's and runCostToJson's objects
/// (step_json.cpp).
JsonObject stepBreakdownObject(const StepBreakdown& step);
JsonObject networkObject(const Network& net);
JsonObject interconnectObject(const Interconnect& link);
JsonObject runCostObject(const RunCost& run);

}  // namespace dlcost
