// The multi-GPU step, links and run cost as report JSON (dlcost/step_json.hpp), written once
// as JsonObject (gpu_writers.hpp).

#include "dlcost/gpu/step_json.hpp"
#include "dlcost/gpu/interconnect_table.hpp"
#include "dlcost/gpu/run_cost.hpp"

#include "gpu/gpu_writers.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

JsonObject listPriceObject(const GpuListPrice& p) {
  JsonObject j;
  j.add("gpu", p.gpu)
      .add("usd_per_gpu_hour", p.usd_per_gpu_hour)
      .add("offer", p.offer)
      .add("date", p.date)
      .add("source", p.source);
  return j;
}

JsonObject collectiveObject(const CollectiveCost& c) {
  JsonObject j;
  j.add("purpose", c.purpose)
      .add("collective", collectiveName(c.collective))
      .add("group", c.group)
      .add("ranks", c.placement.ranks)
      .add("ranks_per_node", c.placement.per_node)
      .add("nodes", c.placement.nodes)
      .add("links", c.links)
      .add("bytes", c.bytes)
      .add("calls", c.calls)
      .add("time_s", c.time_s)
      .add("exposed_s", c.exposed_s)
      .add("overlap", c.overlap);
  return j;
}

}  // namespace

JsonObject interconnectObject(const Interconnect& l) {
  JsonObject j;
  j.add("id", l.id)
      .add("name", l.name)
      .add("scope", linkScopeName(l.scope))
      .add("bandwidth_bytes_per_s", l.bandwidth_bytes_per_s)
      .add("step_latency_s", l.step_latency_s)
      .add("source", l.source)
      .add("bus_efficiency", l.bus_efficiency)
      .add("efficiency_source", l.efficiency_source);
  return j;
}

json interconnectToJson(const Interconnect& l) {
  return toDocument(interconnectObject(l));
}

json interconnectTableJson() {
  JsonArray list;
  for (const Interconnect& l : interconnectPresets()) list.push(interconnectObject(l));
  return toDocument(JsonObject()
                        .add("links", list)
                        .add("base_latency_s", kCollectiveBaseLatency)
                        .add("convention",
                             "bandwidth per GPU and per direction at the line rate (decimal "
                             "bytes/s); collectives run at bandwidth x bus_efficiency (the bus "
                             "bandwidth NCCL reaches); latency per ring step, plus "
                             "base_latency_s once per collective (NCCL src/graph/tuning.cc, "
                             "Ring/Simple)"));
}

json listPricesJson() {
  JsonArray list;
  for (const GpuListPrice& p : gpuListPrices()) list.push(listPriceObject(p));
  return toDocument(JsonObject()
                        .add("prices", list)
                        .add("convention",
                             "published rental list prices, dated; defaults only: set "
                             "price_per_gpu_hour to what you "
                             "pay"));
}

JsonObject runCostObject(const RunCost& c) {
  std::optional<JsonObject> price_source;
  if (c.price && !c.price_is_list) price_source = JsonObject().add("kind", "user");
  if (c.list_price) {
    price_source = listPriceObject(*c.list_price);
    price_source->add("kind", "list price (default)");
  }
  JsonObject j;
  j.add("steps", c.steps)
      .add("tokens", c.tokens)
      .add("samples", c.samples)
      .add("wall_s", c.wall_s)
      .add("wall_days", c.wall_s / 86400.0)
      .add("wall_days_range", rangeOf(TimeKind::kTraining, c.wall_s / 86400.0, false))
      .add("gpu_hours", c.gpu_hours)
      .add("price_per_gpu_hour", c.price)
      .add("price_source", price_source)
      .add("cost_usd", c.cost_usd)
      .add("cost_usd_range", c.cost_usd
                                 ? std::optional(rangeOf(TimeKind::kTraining, *c.cost_usd, false))
                                 : std::nullopt)
      .add("energy_kwh", c.energy_kwh)
      .add("mfu", c.mfu)
      .add("convention",
           "steps = ceil(tokens / tokens per step) or ceil(samples x epochs / samples per "
           "step); wall_s = steps x step_time.step_s; gpu_hours = wall hours x gpus; "
           "energy at the GPUs' board power (TDP), an upper bound; USD");
  return j;
}

json runCostToJson(const RunCost& c) {
  return toDocument(runCostObject(c));
}

JsonObject networkObject(const Network& n) {
  JsonObject j;
  j.add("nodes", n.nodes)
      .add("gpus_per_node", n.gpus_per_node)
      .add("intra_node_link", n.intra ? std::optional(interconnectObject(*n.intra)) : std::nullopt)
      .add("inter_node_link", n.inter ? std::optional(interconnectObject(*n.inter)) : std::nullopt);
  return j;
}

json networkToJson(const Network& n) {
  return toDocument(networkObject(n));
}

JsonObject stepBreakdownObject(const StepBreakdown& b) {
  JsonArray collectives;
  for (const CollectiveCost& c : b.collectives) collectives.push(collectiveObject(c));
  // The parts in the order a chart stacks them, each with its share of the step.
  JsonArray parts;
  double offset = 0;  // share of the step before this part, where a stacked bar starts it
  for (const auto& [key, seconds] :
       {std::pair{"compute", b.compute_s}, std::pair{"tp_comm", b.tp_comm_s},
        std::pair{"pp_comm", b.pp_comm_s}, std::pair{"ep_comm", b.ep_comm_s},
        std::pair{"cp_comm", b.cp_comm_s}, std::pair{"dp_comm", b.dp_comm_s},
        std::pair{"bubble", b.bubble_s}, std::pair{"optimizer", b.optimizer_s}}) {
    const double share = b.step_s > 0 ? seconds / b.step_s : 0.0;
    parts.push(JsonObject()
                   .add("key", key)
                   .add("seconds", seconds)
                   .add("share", share)
                   .add("offset", offset));
    offset += share;
  }
  JsonObject j;
  j.add("step_s", b.step_s)
      .add("parts", parts)
      .add("compute_s", b.compute_s)
      .add("tp_comm_s", b.tp_comm_s)
      .add("pp_comm_s", b.pp_comm_s)
      .add("ep_comm_s", b.ep_comm_s)
      .add("cp_comm_s", b.cp_comm_s)
      .add("dp_comm_s", b.dp_comm_s)
      .add("bubble_s", b.bubble_s)
      .add("optimizer_s", b.optimizer_s)
      .add("bubble_fraction", b.bubble_fraction)
      .add("virtual_stages", b.virtual_stages)
      .add("micro_steps", b.micro_steps)
      .add("microbatches", b.microbatches)
      .add("model_flops", b.model_flops)
      .add("mfu", b.mfu)
      .add("collectives", collectives)
      .add("convention",
           "step_s = compute_s + tp_comm_s + pp_comm_s + ep_comm_s + cp_comm_s + dp_comm_s "
           "(exposed) + "
           "bubble_s + "
           "optimizer_s, for one optimizer step (micro_steps gradient-accumulation steps of "
           "microbatches pipeline micro-batches); bytes per call and per GPU; mfu = "
           "model_flops / (step_s x gpus x dense peak), recomputation excluded");
  return j;
}

json stepBreakdownToJson(const StepBreakdown& b) {
  return toDocument(stepBreakdownObject(b));
}

}  // namespace dlcost
