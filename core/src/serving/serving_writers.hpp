#pragma once
// The serving plan and its speed as JsonObject (json_writer.hpp), written once for the report
// and for servingPlanToJson / servingSpeedToJson (dlcost/serving/serving_json.hpp).

#include "dlcost/types/serving_plan.hpp"
#include "types/json_writer.hpp"

namespace dlcost {

/// The report's "serving": {"engine", "context", "users", "fits", "max_users",
/// "capacity_bytes", "budget_bytes", "kv_bytes_per_token", "on_cpu", "device": memory, "host"?:
/// memory, "paged"?: {...}, "llamacpp"?: {...}, "command", "speed"?: {...}, "notes"}; bytes are
/// exact integers.
JsonObject servingPlanObject(const ServingPlan& plan);

/// servingSpeedToJson's object.
JsonObject servingSpeedObject(const ServingSpeed& speed);

}  // namespace dlcost
