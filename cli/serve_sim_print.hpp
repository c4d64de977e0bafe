#pragma once
// `dlcost serve-sim` as text: the load, the latency percentiles, throughput and the engine's
// state, the capacity answer; and the KV/queue timeline as CSV. Every figure is the engine's
// (serveSimDocument).

#include <ostream>

#include <nlohmann/json.hpp>

namespace dlcost::cli {

void printServeSim(std::ostream& out, const nlohmann::json& doc);

/// The result's timeline: time_s,running,waiting,kv_used.
void printLoadTimelineCsv(std::ostream& out, const nlohmann::json& result);

}  // namespace dlcost::cli
