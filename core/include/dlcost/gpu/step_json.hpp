#pragma once
// The multi-GPU step, the links and the cost of a run in the report JSON.

#include <nlohmann/json.hpp>

#include "dlcost/types/interconnect.hpp"
#include "dlcost/types/run_cost.hpp"
#include "dlcost/types/step_breakdown.hpp"

namespace dlcost {

/// gpu_fit.step_time: {"step_s", "compute_s", "tp_comm_s", "pp_comm_s", "dp_comm_s",
/// "bubble_s", "optimizer_s", "parts": [{"key", "seconds", "share", "offset"}], "bubble_fraction",
/// "micro_steps", "microbatches", "model_flops", "mfu", "collectives": [...], "convention"}.
nlohmann::json stepBreakdownToJson(const StepBreakdown& step);

/// gpu_fit.network: {"nodes", "gpus_per_node", "intra_node_link", "inter_node_link"}, each
/// link as interconnectToJson (null where the run does not use it).
nlohmann::json networkToJson(const Network& net);

/// {"id", "name", "scope", "bandwidth_bytes_per_s", "step_latency_s", "source"}.
nlohmann::json interconnectToJson(const Interconnect& link);

/// gpu_fit.run: {"steps", "tokens", "samples", "wall_s", "wall_days", "gpu_hours",
/// "price_per_gpu_hour", "price_source", "cost_usd", "energy_kwh", "mfu", "convention"};
/// price and cost null when no price is known.
nlohmann::json runCostToJson(const RunCost& run);

/// The built-in list prices (`dlcost prices --json`).
nlohmann::json listPricesJson();

/// The link table (`dlcost links --json`).
nlohmann::json interconnectTableJson();

}  // namespace dlcost
