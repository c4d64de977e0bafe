#include "dlcost/report_json.hpp"

#include "dlcost/gpu_json.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

json workloadToJson(const Workload& w) {
  json j = {{"mode", modeName(w.mode)},
            {"batch", w.batch},
            {"dtype", precisionName(w.precision)},
            {"optimizer", optimizerName(w.optimizer)},
            {"overhead_bytes", w.overhead_bytes}};
  if (w.memory_bytes) j["memory_bytes"] = *w.memory_bytes;
  if (w.hardware.gpu) j["hardware"] = hardwareToJson(w.hardware);
  return j;
}

/// The workload fields only transformers read, as the estimate resolved them.
void addTransformerWorkload(const Workload& w, json& j) {
  j["grad_accum"] = w.grad_accum;
  if (w.seq_len) j["seq_len"] = *w.seq_len;
  if (w.prompt_tokens) j["prompt_tokens"] = *w.prompt_tokens;
  if (w.mode == Mode::kInfer) j["generated_tokens"] = w.generated_tokens;
  j["attention"] = attentionName(w.attention);
  j["recompute"] = recomputeName(w.recompute);
  j["finetune"] = finetuneName(w.finetune);
  if (w.weight_dtype) j["weight_dtype"] = dtypeName(*w.weight_dtype);
  if (w.kv_dtype) j["kv_dtype"] = dtypeName(*w.kv_dtype);
  if (w.mla_cache == MlaCache::kDecompressed) j["mla_cache"] = "decompressed";
  j["quant_group_size"] = w.quant_group_size;
  if (w.finetune == Finetune::kLora || w.finetune == Finetune::kQlora) {
    j["lora_rank"] = w.lora_rank;
    j["lora_alpha"] = w.lora_alpha;
    j["lora_targets"] = w.lora_targets;
  }
}

json transformerToJson(const TransformerSummary& t) {
  const TransformerParams& p = t.params;
  json j = {{"architecture", t.architecture},
            {"params_by_component",
             {{"embeddings", p.embeddings},
              {"attention", p.attention},
              {"mlp", p.mlp},
              {"norms", p.norms},
              {"lm_head", p.lm_head},
              {"other", p.other}}},
            {"active_params_per_token", p.active_per_token},
            {"seq_len", t.seq_len},
            {"generated_tokens", t.generated_tokens},
            {"context_tokens", t.context_tokens},
            {"tokens_per_step", t.tokens_per_step},
            {"forward_flops_per_token", t.forward_flops_per_token},
            {"kv_cache_bytes_per_token", t.kv_cache_bytes_per_token}};
  // Only a model read through the generic fallback, at the user's request.
  if (t.approximate) j["approximate"] = true;
  return j;
}

}  // namespace

json reportToJson(const Report& r) {
  const MemoryBreakdown& m = r.memory;
  json layers = json::array();
  for (const LayerReport& l : r.layers) {
    layers.push_back({{"name", l.name},
                      {"type", l.type},
                      {"output_shape", l.output_shape},
                      {"params", l.params},
                      {"buffers", l.buffers},
                      {"macs", l.macs},
                      {"activation_bytes", l.activation_bytes},
                      {"inplace", l.inplace},
                      {"bytes_accessed", l.bytes_accessed}});
  }
  json phases = json::array();
  for (const PhaseWork& p : r.phases) {
    phases.push_back(
        {{"name", p.name}, {"flops", p.flops}, {"bytes", p.bytes}, {"tokens", p.tokens}});
  }
  json j = {
      {"schema", "dlcost.report/1"},
      {"model", {{"name", r.model_name}, {"kind", r.model_kind}}},
      {"workload", workloadToJson(r.workload)},
      {"params",
       {{"total", r.params.total},
        {"trainable", r.params.trainable},
        {"non_trainable", r.params.total - r.params.trainable},
        {"buffers", r.params.buffers},
        {"adapters", r.params.adapters}}},
      {"macs",
       {{"forward", r.macs.forward},
        {"backward", r.macs.backward},
        {"total", r.macs.forward + r.macs.backward},
        {"convention", "multiply-accumulates of conv and linear layers at the workload's batch"}}},
      {"flops",
       {{"forward", 2 * r.macs.forward},
        {"backward", 2 * r.macs.backward},
        {"total", 2 * (r.macs.forward + r.macs.backward)},
        {"convention", "FLOPs = 2 x MACs"}}},
      {"memory",
       {{"weights", m.weights},
        {"buffers", m.buffers},
        {"gradients", m.gradients},
        {"master_weights", m.master_weights},
        {"optimizer_states", m.optimizer_states},
        {"activations", m.activations},
        {"activation_gradients", m.activation_gradients},
        {"kv_cache", m.kv_cache},
        {"quant_scales", m.quant_scales},
        {"adapter_weights", m.adapter_weights},
        {"adapter_gradients", m.adapter_gradients},
        {"adapter_optimizer_states", m.adapter_optimizer_states},
        {"overhead", m.overhead},
        {"total", m.total},
        {"fixed", m.fixed},
        {"per_sample", m.per_sample},
        {"units", "bytes"}}},
      {"layers", std::move(layers)},
      {"phases", std::move(phases)},
      {"warnings", r.warnings},
  };
  if (r.max_batch) j["max_batch"] = *r.max_batch;
  if (r.transformer) {
    j["transformer"] = transformerToJson(*r.transformer);
    addTransformerWorkload(r.workload, j["workload"]);
    j["macs"]["convention"] =
        "multiply-accumulates of every matmul (linear layers, QK^T and AV over the full s x s "
        "square, LM head) at the workload's batch, for the whole step (grad_accum micro-batches)";
  }
  // With a GPU: "gpu", "fits", "headroom_bytes", "max_batch" (the GPU's), "step_time_s",
  // "tokens_per_s", "per_gpu", "advice" and the figures behind them.
  if (r.gpu_fit) {
    const json fit = gpuFitToJson(*r.gpu_fit, r.workload);
    for (auto it = fit.begin(); it != fit.end(); ++it) j[it.key()] = it.value();
  }
  return j;
}

std::string dumpJson(const json& value, int indent) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

json errorToJson(const Error& e) {
  return {{"error", {{"code", errorCodeName(e.code)}, {"path", e.path}, {"message", e.message}}}};
}

}  // namespace dlcost
