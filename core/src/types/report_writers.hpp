#pragma once
// The report's parts as JsonObject (json_writer.hpp), written once: reportJsonText puts them
// together, and the nlohmann::json functions of the public headers (memoryToJson,
// stepBreakdownToJson, ...) read the same text back for the callers that want a document.

#include "dlcost/types/gpu_fit.hpp"
#include "dlcost/types/interconnect.hpp"
#include "dlcost/types/memory_terms.hpp"
#include "dlcost/types/run_cost.hpp"
#include "dlcost/types/serving_plan.hpp"
#include "dlcost/types/step_breakdown.hpp"
#include "dlcost/types/workload.hpp"
#include "types/json_writer.hpp"

namespace dlcost {

/// memoryToJson's object (report_json.cpp).
JsonObject memoryObject(const MemoryBreakdown& memory, const char* units);
/// The report's "gpu_fit": "gpu", "fits", "headroom_bytes", "max_batch", "step_time_s",
/// "tokens_per_s", "per_gpu", "advice", ... (gpu_json.cpp).
JsonObject gpuFitObject(const GpuFit& fit, const Workload& workload);
/// stepBreakdownToJson's, networkToJson's, interconnectToJson's and runCostToJson's objects
/// (step_json.cpp).
JsonObject stepBreakdownObject(const StepBreakdown& step);
JsonObject networkObject(const Network& net);
JsonObject interconnectObject(const Interconnect& link);
JsonObject runCostObject(const RunCost& run);
/// The report's "serving": {"engine", "context", "users", "fits", "max_users",
/// "capacity_bytes", "budget_bytes", "kv_bytes_per_token", "on_cpu", "device": memory, "host"?:
/// memory, "paged"?: {...}, "llamacpp"?: {...}, "command", "speed"?: {...}, "notes"}; bytes are
/// exact integers (serving_json.cpp).
JsonObject servingPlanObject(const ServingPlan& plan);
/// servingSpeedToJson's object (serving_json.cpp).
JsonObject servingSpeedObject(const ServingSpeed& speed);

/// A JsonObject as a nlohmann::json document.
nlohmann::json toDocument(const JsonObject& object);

}  // namespace dlcost
