#pragma once
// The GPU fit, the step's breakdown, the network, the links and the run's cost as JsonObject
// (json_writer.hpp), written once: the report puts them together, and the nlohmann::json
// functions of dlcost/gpu/gpu_json.hpp and step_json.hpp read the same text back.

#include "dlcost/gpu/time_model.hpp"
#include "dlcost/types/gpu_fit.hpp"
#include "dlcost/types/interconnect.hpp"
#include "dlcost/types/run_cost.hpp"
#include "dlcost/types/serving_plan.hpp"
#include "dlcost/types/step_breakdown.hpp"
#include "dlcost/types/workload.hpp"
#include "types/json_writer.hpp"

namespace dlcost {

/// The report's "gpu_fit": "gpu", "fits", "headroom_bytes", "max_batch", "step_time_s",
/// "tokens_per_s", "per_gpu", "advice", ... (gpu_json.cpp).
/// The fit as the report's "gpu_fit" object. With a serving plan (an inference report with an
/// engine) the plan answers how many users and how fast: max_batch is its max_users,
/// tokens_per_s its tokens/s, and the training-style step time and samples/s are null
/// ("answered_by": "serving").
JsonObject gpuFitObject(const GpuFit& fit, const Workload& workload,
                        const ServingPlan* serving = nullptr);

/// [lo, hi] of a time figure from the calibration residuals of its kind
/// (dlcost/time_model.hpp, timeRange).
std::vector<double> rangeOf(TimeKind kind, double value, bool rate);

/// stepBreakdownToJson's, networkToJson's, interconnectToJson's and runCostToJson's objects
/// (step_json.cpp).
JsonObject stepBreakdownObject(const StepBreakdown& step);
JsonObject networkObject(const Network& net);
JsonObject interconnectObject(const Interconnect& link);
JsonObject runCostObject(const RunCost& run);

}  // namespace dlcost
