// The serving plan as the report's "serving" object, written once as JsonObject
// (serving_writers.hpp).
#include "dlcost/serving/serving_json.hpp"

#include "gpu/gpu_writers.hpp"
#include "memory/memory_json.hpp"
#include "serving/serving_writers.hpp"

namespace dlcost {

using nlohmann::json;

JsonObject servingSpeedObject(const ServingSpeed& s) {
  // One user's tokens/s is a decode speed; many users' together a serving throughput.
  const TimeKind throughput = s.users > 1 ? TimeKind::kServingThroughput : TimeKind::kDecode;
  JsonObject j;
  j.add("users", s.users)
      .add("context", s.context)
      // ttft_s is 0 only without a published compute rate (a prefill always takes time):
      // unknown, so null, not 0.
      .add("ttft_s", s.ttft_s > 0 ? std::optional(s.ttft_s) : std::nullopt)
      .add("ttft_s_range", s.ttft_s > 0
                               ? std::optional(rangeOf(TimeKind::kServingLatency, s.ttft_s, false))
                               : std::nullopt)
      .add("batch_prefill_s",
           s.batch_prefill_s > 0 ? std::optional(s.batch_prefill_s) : std::nullopt)
      .add("batch_prefill_s_range",
           s.batch_prefill_s > 0
               ? std::optional(rangeOf(TimeKind::kPrefill, s.batch_prefill_s, false))
               : std::nullopt)
      .add("compute_known", s.ttft_s > 0)
      .add("itl_s", s.itl_s)
      .add("itl_s_range", rangeOf(TimeKind::kDecode, s.itl_s, false))
      .add("tokens_per_s_per_user", s.tokens_per_s_per_user)
      .add("tokens_per_s_per_user_range", rangeOf(TimeKind::kDecode, s.tokens_per_s_per_user, true))
      .add("tokens_per_s", s.tokens_per_s)
      .add("tokens_per_s_range", rangeOf(throughput, s.tokens_per_s, true))
      .add("bound", s.bound)
      .add("step_bytes", s.step_bytes)
      .add("step_flops", s.step_flops)
      .add("prefill_copy_bytes", s.prefill_copy_bytes);
  if (s.tokens_per_step > 0) {
    j.add("speculative", JsonObject()
                             .add("tokens_per_step", s.tokens_per_step)
                             .add("draft_s", s.draft_s)
                             .add("verify_s", s.verify_s));
  }
  return j;
}

json servingSpeedToJson(const ServingSpeed& s) {
  return toDocument(servingSpeedObject(s));
}

JsonObject servingPlanObject(const ServingPlan& p) {
  JsonObject j;
  j.add("engine", engineName(p.engine))
      .add("context", p.context)
      .add("users", p.users)
      .add("fits", p.fits)
      .add("max_users", p.max_users)
      .add("capacity_bytes", p.capacity_bytes)
      .add("budget_bytes", p.budget_bytes)
      .add("kv_bytes_per_token", p.kv_bytes_per_token)
      .add("on_cpu", p.on_cpu)
      .add("device", memoryObject(p.device, "bytes"))
      .add("command", p.command)
      .add("notes", p.notes);
  if (p.engine == Engine::kVllm || p.engine == Engine::kSglang || p.engine == Engine::kTrtllm) {
    j.add("paged", JsonObject()
                       .add("memory_fraction", p.memory_fraction.value_or(0.0))
                       .add("block_size", p.block_size)
                       .add("block_bytes", p.block_bytes)
                       .add("num_blocks", p.num_blocks)
                       .add("kv_tokens", p.kv_tokens)
                       .add("max_concurrency", p.max_concurrency)
                       .add("max_num_seqs", p.max_num_seqs)
                       .add("max_num_batched_tokens", p.max_num_batched_tokens));
  }
  if (!p.stage_layers.empty()) {
    j.add("pipeline",
          JsonObject().add("stage_layers", p.stage_layers).add("limiting_stage", p.limiting_stage));
  }
  if (p.engine == Engine::kLlamaCpp) {
    j.add("host", memoryObject(p.host, "bytes"))
        .add("llamacpp", JsonObject()
                             .add("layers", p.layers)
                             .add("gpu_layers", p.gpu_layers)
                             .add("n_ctx", p.n_ctx));
  }
  if (p.speed.itl_s > 0) j.add("speed", servingSpeedObject(p.speed));
  return j;
}

}  // namespace dlcost
