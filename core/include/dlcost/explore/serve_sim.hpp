#pragma once
// A serving engine under load, as one document call (`dlcost serve-sim`, the page's "Under
// load"): the simulation of dlcost/serving/load_sim.hpp at the document's load and, when the
// load names objectives (P99 TTFT, P99 inter-token latency) and a rate, the capacity search:
// the largest request rate one engine instance sustains within them, and the replicas (and
// GPUs, and dollars per hour) the asked rate needs.

#include <nlohmann/json.hpp>

#include "dlcost/types/report.hpp"
#include "dlcost/types/serving_load.hpp"
#include "dlcost/types/transformer.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// Simulations one capacity search runs at most.
constexpr int kMaxCapacitySimulations = 40;
/// Requests per simulation of the search (fewer than the asked load's when it asks more).
constexpr int64_t kCapacitySearchRequests = 2000;

struct LoadCapacity {
  double max_rate = 0;                 ///< requests/s one instance sustains within the objectives
  LoadResult at_max;                   ///< the simulation at that rate
  int simulations = 0;                 ///< simulations the search ran
  int64_t replicas = 0;                ///< instances the asked rate needs (ceil(rate / max_rate))
  int64_t gpus = 0;                    ///< replicas x tensor-parallel GPUs
  std::optional<double> usd_per_hour;  ///< at the workload's price or the GPU's list price
};

/// The capacity search for `s` (which must name an objective): Poisson arrivals at rates
/// doubled or halved from s.rate until the objectives flip, then bisected to 2 %. Throws
/// InputError at "/load/slo_ttft_ms" when no objective is given, "/load/rate" when even a
/// trickle misses them.
LoadCapacity loadCapacity(const Transformer& t, const Workload& w, const Report& r,
                          const LoadSettings& s);

/// `document` {"model", "workload" (an engine and a GPU), "load"}: {"schema":
/// "dlcost.serve_sim/1", "engine", "gpu", "load": the settings read, "result":
/// loadResultToJson, "steady_state": the serving plan's speed at its users, "capacity"?:
/// {"max_rate", "at_max", "simulations", "replicas", "gpus", "usd_per_hour"?}}. Throws
/// InputError naming the field.
nlohmann::json serveSimDocument(const nlohmann::json& document);

}  // namespace dlcost
