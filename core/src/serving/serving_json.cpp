// The serving plan as the report's "serving" object.
#include "dlcost/serving_json.hpp"

#include "dlcost/report_json.hpp"

namespace dlcost {

using nlohmann::json;

json servingSpeedToJson(const ServingSpeed& s) {
  return {{"users", s.users},
          {"context", s.context},
          // ttft_s is 0 only without a published compute rate (a prefill always takes time):
          // unknown, so null, not 0.
          {"ttft_s", s.ttft_s > 0 ? json(s.ttft_s) : json(nullptr)},
          {"compute_known", s.ttft_s > 0},
          {"itl_s", s.itl_s},
          {"tokens_per_s_per_user", s.tokens_per_s_per_user},
          {"tokens_per_s", s.tokens_per_s},
          {"bound", s.bound},
          {"step_bytes", s.step_bytes},
          {"step_flops", s.step_flops},
          {"prefill_copy_bytes", s.prefill_copy_bytes}};
}

json servingPlanToJson(const ServingPlan& p) {
  json j = {{"engine", engineName(p.engine)},
            {"context", p.context},
            {"users", p.users},
            {"fits", p.fits},
            {"max_users", p.max_users},
            {"capacity_bytes", p.capacity_bytes},
            {"budget_bytes", p.budget_bytes},
            {"kv_bytes_per_token", p.kv_bytes_per_token},
            {"on_cpu", p.on_cpu},
            {"device", memoryToJson(p.device, "bytes")},
            {"command", p.command},
            {"notes", p.notes}};
  if (p.engine == Engine::kVllm || p.engine == Engine::kSglang) {
    j["paged"] = {{"memory_fraction", p.memory_fraction.value_or(0.0)},
                  {"block_size", p.block_size},
                  {"block_bytes", p.block_bytes},
                  {"num_blocks", p.num_blocks},
                  {"kv_tokens", p.kv_tokens},
                  {"max_concurrency", p.max_concurrency},
                  {"max_num_seqs", p.max_num_seqs},
                  {"max_num_batched_tokens", p.max_num_batched_tokens}};
  }
  if (p.engine == Engine::kLlamaCpp) {
    j["host"] = memoryToJson(p.host, "bytes");
    j["llamacpp"] = {{"layers", p.layers}, {"gpu_layers", p.gpu_layers}, {"n_ctx", p.n_ctx}};
  }
  if (p.speed.itl_s > 0) j["speed"] = servingSpeedToJson(p.speed);
  return j;
}

}  // namespace dlcost
