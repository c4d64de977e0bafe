// The multi-GPU step, links and run cost as report JSON (dlcost/step_json.hpp).

#include "dlcost/step_json.hpp"

namespace dlcost {

using nlohmann::json;

json interconnectToJson(const Interconnect& l) {
  return {{"id", l.id},
          {"name", l.name},
          {"scope", linkScopeName(l.scope)},
          {"bandwidth_bytes_per_s", l.bandwidth_bytes_per_s},
          {"step_latency_s", l.step_latency_s},
          {"source", l.source},
          {"bus_efficiency", l.bus_efficiency},
          {"efficiency_source", l.efficiency_source}};
}

json interconnectTableJson() {
  json list = json::array();
  for (const Interconnect& l : interconnectPresets()) list.push_back(interconnectToJson(l));
  return {{"links", list},
          {"base_latency_s", kCollectiveBaseLatency},
          {"convention",
           "bandwidth per GPU and per direction at the line rate (decimal bytes/s); collectives "
           "run at bandwidth x bus_efficiency (the bus bandwidth NCCL reaches); latency per "
           "ring step, plus base_latency_s once per collective (NCCL src/graph/tuning.cc, "
           "Ring/Simple)"}};
}

json listPriceToJson(const GpuListPrice& p) {
  return {{"gpu", p.gpu},
          {"usd_per_gpu_hour", p.usd_per_gpu_hour},
          {"offer", p.offer},
          {"date", p.date},
          {"source", p.source}};
}

json listPricesJson() {
  json list = json::array();
  for (const GpuListPrice& p : gpuListPrices()) list.push_back(listPriceToJson(p));
  return {{"prices", list},
          {"convention",
           "published rental list prices, dated; defaults only: set price_per_gpu_hour to "
           "what you pay"}};
}

json runCostToJson(const RunCost& c) {
  json price_source = json();
  if (c.price && !c.price_is_list) price_source = {{"kind", "user"}};
  if (c.list_price) {
    price_source = listPriceToJson(*c.list_price);
    price_source["kind"] = "list price (default)";
  }
  return {{"steps", c.steps},
          {"tokens", c.tokens},
          {"samples", c.samples},
          {"wall_s", c.wall_s},
          {"wall_days", c.wall_s / 86400.0},
          {"gpu_hours", c.gpu_hours},
          {"price_per_gpu_hour", c.price ? json(*c.price) : json()},
          {"price_source", price_source},
          {"cost_usd", c.cost_usd ? json(*c.cost_usd) : json()},
          {"energy_kwh", c.energy_kwh},
          {"mfu", c.mfu},
          {"convention",
           "steps = ceil(tokens / tokens per step) or ceil(samples x epochs / samples per "
           "step); wall_s = steps x step_time.step_s; gpu_hours = wall hours x gpus; "
           "energy at the GPUs' board power (TDP), an upper bound; USD"}};
}

json networkToJson(const Network& n) {
  return {{"nodes", n.nodes},
          {"gpus_per_node", n.gpus_per_node},
          {"intra_node_link", n.intra ? interconnectToJson(*n.intra) : json()},
          {"inter_node_link", n.inter ? interconnectToJson(*n.inter) : json()}};
}

json stepBreakdownToJson(const StepBreakdown& b) {
  json collectives = json::array();
  for (const CollectiveCost& c : b.collectives) {
    collectives.push_back({{"purpose", c.purpose},
                           {"collective", collectiveName(c.collective)},
                           {"group", c.group},
                           {"ranks", c.placement.ranks},
                           {"ranks_per_node", c.placement.per_node},
                           {"nodes", c.placement.nodes},
                           {"links", c.links},
                           {"bytes", c.bytes},
                           {"calls", c.calls},
                           {"time_s", c.time_s},
                           {"exposed_s", c.exposed_s},
                           {"overlap", c.overlap}});
  }
  // The parts in the order a chart stacks them, each with its share of the step.
  json parts = json::array();
  double offset = 0;  // share of the step before this part, where a stacked bar starts it
  for (const auto& [key, seconds] :
       {std::pair{"compute", b.compute_s}, std::pair{"tp_comm", b.tp_comm_s},
        std::pair{"pp_comm", b.pp_comm_s}, std::pair{"ep_comm", b.ep_comm_s},
        std::pair{"dp_comm", b.dp_comm_s}, std::pair{"bubble", b.bubble_s},
        std::pair{"optimizer", b.optimizer_s}}) {
    const double share = b.step_s > 0 ? seconds / b.step_s : 0.0;
    parts.push_back({{"key", key}, {"seconds", seconds}, {"share", share}, {"offset", offset}});
    offset += share;
  }
  return {{"step_s", b.step_s},
          {"parts", parts},
          {"compute_s", b.compute_s},
          {"tp_comm_s", b.tp_comm_s},
          {"pp_comm_s", b.pp_comm_s},
          {"ep_comm_s", b.ep_comm_s},
          {"dp_comm_s", b.dp_comm_s},
          {"bubble_s", b.bubble_s},
          {"optimizer_s", b.optimizer_s},
          {"bubble_fraction", b.bubble_fraction},
          {"virtual_stages", b.virtual_stages},
          {"micro_steps", b.micro_steps},
          {"microbatches", b.microbatches},
          {"model_flops", b.model_flops},
          {"mfu", b.mfu},
          {"collectives", collectives},
          {"convention",
           "step_s = compute_s + tp_comm_s + pp_comm_s + ep_comm_s + dp_comm_s (exposed) + "
           "bubble_s + "
           "optimizer_s, for one optimizer step (micro_steps gradient-accumulation steps of "
           "microbatches pipeline micro-batches); bytes per call and per GPU; mfu = "
           "model_flops / (step_s x gpus x dense peak), recomputation excluded"}};
}

}  // namespace dlcost
