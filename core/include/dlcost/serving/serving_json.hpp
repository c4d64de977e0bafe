#pragma once
// A serving speed point as JSON (the report's "serving" object is written by report_json.cpp).

#include <nlohmann/json.hpp>

#include "dlcost/types/serving_plan.hpp"

namespace dlcost {

/// One speed point: {"users", "context", "ttft_s", "itl_s", "tokens_per_s_per_user",
/// "tokens_per_s", "bound", "step_bytes", "step_flops"}.
nlohmann::json servingSpeedToJson(const ServingSpeed& speed);

}  // namespace dlcost
