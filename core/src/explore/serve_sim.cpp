// The simulation under load as a document call, and the capacity search (serve_sim.hpp).
#include "dlcost/explore/serve_sim.hpp"

#include <cmath>
#include <functional>
#include <utility>

#include "dlcost/base/error.hpp"
#include "dlcost/gpu/run_cost.hpp"
#include "dlcost/report/estimate.hpp"
#include "dlcost/schema/config_json.hpp"
#include "dlcost/serving/load_json.hpp"
#include "dlcost/serving/load_sim.hpp"
#include "dlcost/serving/serving_json.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

struct Trial {
  double rate = 0;
  LoadResult result;
  bool meets = false;
};

/// Moves the rate by factors of 2 from `start` until the objectives flip; returns the bracket
/// (a rate that meets them, one that does not).
std::pair<Trial, Trial> bracket(const std::function<Trial(double)>& run, double start, int& sims) {
  Trial a = run(start);
  ++sims;
  Trial b = a;
  while (sims < kMaxCapacitySimulations / 2 && b.meets == a.meets) {
    b = run(a.meets ? b.rate * 2 : b.rate / 2);
    ++sims;
    if (b.meets == a.meets) a = b;
  }
  return a.meets ? std::make_pair(a, b) : std::make_pair(b, a);
}

}  // namespace

LoadCapacity loadCapacity(const Transformer& t, const Workload& w, const Report& r,
                          const LoadSettings& s) {
  if (!s.slo_ttft_s && !s.slo_itl_s) {
    throw InputError(ErrorCode::kMissingField, "/load/slo_ttft_ms",
                     "the capacity search needs an objective (slo_ttft_ms or slo_itl_ms)");
  }
  LoadSettings one = s;
  one.arrivals = LoadSettings::Arrivals::kPoisson;
  one.replicas = 1;
  one.requests = std::min(s.requests, kCapacitySearchRequests);
  const auto run = [&](double rate) {
    one.rate = rate;
    Trial trial{rate, simulateLoad(t, w, r, one), false};
    trial.meets = trial.result.meets_slo.value_or(false);
    return trial;
  };
  LoadCapacity c;
  auto [good, bad] =
      bracket(run, s.arrivals == LoadSettings::Arrivals::kPoisson ? s.rate : 1.0, c.simulations);
  if (!good.meets) {
    throw InputError(ErrorCode::kValue, "/load/rate",
                     "even " + json(good.rate).dump() +
                         " requests/s misses the objectives: the engine's single-request "
                         "latency is above them");
  }
  while (c.simulations < kMaxCapacitySimulations && bad.rate > 1.02 * good.rate) {
    const Trial mid = run(std::sqrt(good.rate * bad.rate));
    ++c.simulations;
    (mid.meets ? good : bad) = mid;
  }
  c.max_rate = good.rate;
  c.at_max = std::move(good.result);
  const double asked = s.arrivals == LoadSettings::Arrivals::kPoisson ? s.rate : c.max_rate;
  c.replicas = static_cast<int64_t>(std::ceil(asked / c.max_rate - 1e-9));
  c.gpus = c.replicas * std::max<int64_t>(1, w.hardware.parallel.tp);
  std::optional<double> price = w.run.price_per_gpu_hour;
  if (!price && w.hardware.gpu) {
    if (const GpuListPrice* p = findListPrice(w.hardware.gpu->id)) price = p->usd_per_gpu_hour;
  }
  if (price) c.usd_per_hour = *price * static_cast<double>(c.gpus);
  return c;
}

json serveSimDocument(const json& document) {
  if (!document.is_object() || !document.contains("load")) {
    throw InputError(ErrorCode::kMissingField, "/load",
                     "a simulation under load needs a load: rate, concurrency or trace");
  }
  json model_doc = document;
  model_doc.erase("load");
  // Serving is inference: a workload that names no mode means it.
  if (model_doc.contains("workload") && model_doc["workload"].is_object() &&
      !model_doc["workload"].contains("mode")) {
    model_doc["workload"]["mode"] = "infer";
  }
  const Config config = parseConfig(model_doc);
  const auto* t = std::get_if<Transformer>(&config.model.body);
  if (!t || config.workload.serving.engine == Engine::kNone) {
    throw InputError(ErrorCode::kMissingField, "/workload/engine",
                     "a simulation under load needs a transformer served by an engine");
  }
  if (config.workload.cached_tokens > 0) {
    // The simulation draws each request's prompt from the load and fills its cache from
    // nothing: a prefix cached before every request is not simulated.
    throw InputError(ErrorCode::kValue, "/workload/cached_tokens",
                     "serve-sim starts every request with an empty KV cache: leave "
                     "cached_tokens at 0 (it sets the steady-state plan's prefill)");
  }
  const Report r = estimate(config.model, config.workload);
  const TransformerSummary& sum = *r.transformer;
  const LoadSettings s =
      loadSettingsFromJson(document["load"], "/load", sum.seq_len, sum.generated_tokens);
  json out = {{"schema", "dlcost.serve_sim/1"},
              {"engine", engineName(config.workload.serving.engine)},
              {"gpu", r.gpu_fit ? json(r.gpu_fit->gpu.id) : json(nullptr)},
              {"load", document["load"]},
              {"result", loadResultToJson(simulateLoad(*t, config.workload, r, s))},
              {"steady_state", servingSpeedToJson(r.serving->speed)}};
  if (s.slo_ttft_s || s.slo_itl_s) {
    const LoadCapacity c = loadCapacity(*t, config.workload, r, s);
    out["capacity"] = {{"max_rate", c.max_rate},
                       {"at_max", loadResultToJson(c.at_max)},
                       {"simulations", c.simulations},
                       {"replicas", c.replicas},
                       {"gpus", c.gpus},
                       {"usd_per_hour", c.usd_per_hour ? json(*c.usd_per_hour) : json(nullptr)}};
  }
  return out;
}

}  // namespace dlcost
