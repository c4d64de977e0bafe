#pragma once
// A serving plan as JSON (the report's "serving" object).

#include <nlohmann/json.hpp>

#include "dlcost/serving_plan.hpp"

namespace dlcost {

/// {"engine", "context", "users", "fits", "max_users", "capacity_bytes", "budget_bytes",
/// "kv_bytes_per_token", "device": memory, "host"?: memory, "paged"?: {...}, "llamacpp"?:
/// {...}, "command", "speed"?: {...}, "notes"}. Bytes are exact integers.
nlohmann::json servingPlanToJson(const ServingPlan& plan);

/// One speed point: {"users", "context", "ttft_s", "itl_s", "tokens_per_s_per_user",
/// "tokens_per_s", "bound", "step_bytes", "step_flops"}.
nlohmann::json servingSpeedToJson(const ServingSpeed& speed);

}  // namespace dlcost
