#include "dlcost/report_json.hpp"

#include "dlcost/gpu_json.hpp"
#include "dlcost/serving_json.hpp"
#include "dlcost/workload_json.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

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

json memoryToJson(const MemoryBreakdown& m, const char* units) {
  json terms = json::array();
  for (const MemoryTerm& t : m.terms) {
    json inputs = json::array();
    for (const TermInput& in : t.inputs) {
      json input = {{"name", in.name}, {"value", in.value}};
      if (!in.note.empty()) input["note"] = in.note;
      inputs.push_back(std::move(input));
    }
    // Share of the total, for the breakdown's percentages (0 when the total is 0).
    const double share =
        m.total > 0 ? static_cast<double>(t.bytes) / static_cast<double>(m.total) : 0.0;
    terms.push_back({{"key", memoryKeyName(t.key)},
                     {"bytes", t.bytes},
                     {"share", share},
                     {"fixed", t.fixed},
                     {"per_sample", t.per_sample},
                     {"sharding", shardingName(t.sharding)},
                     {"phase", memoryPhaseName(t.phase)},
                     // Whether the total counts it: the peak phase's terms and the others'.
                     {"in_peak", t.phase == MemoryPhase::kAlways || t.phase == m.peak_phase},
                     {"formula", t.formula},
                     {"inputs", std::move(inputs)}});
  }
  json out = {{"terms", std::move(terms)},
              {"total", m.total},
              {"fixed", m.fixed},
              {"per_sample", m.per_sample},
              {"units", units}};
  if (!m.phases.empty()) {
    json phases = json::array();
    for (const PhaseTotal& p : m.phases) {
      phases.push_back({{"phase", memoryPhaseName(p.phase)},
                        {"bytes", p.bytes},
                        {"fixed", p.fixed},
                        {"per_sample", p.per_sample}});
    }
    out["phases"] = std::move(phases);
    out["peak_phase"] = memoryPhaseName(m.peak_phase);
  }
  if (m.first_step_total) out["first_step_total"] = *m.first_step_total;
  return out;
}

json reportToJson(const Report& r) {
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
      {"schema", kReportSchema},
      {"model", {{"name", r.model_name}, {"kind", r.model_kind}}},
      {"workload", writeAppliedWorkload(r.workload, r.transformer.has_value())},
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
        {"convention",
         "multiply-accumulates of conv, linear and matmul layers at the workload's batch"}}},
      {"flops",
       {{"forward", flopsOf(r.macs.forward)},
        {"backward", flopsOf(r.macs.backward)},
        {"total", flopsOf(r.macs.forward + r.macs.backward)},
        {"convention", "FLOPs = 2 x MACs"}}},
      {"memory", memoryToJson(r.memory, "bytes")},
      {"layers", std::move(layers)},
      {"phases", std::move(phases)},
      {"warnings", r.warnings},
  };
  if (r.workload.memory_bytes && r.max_batch) {
    // Fit against a plain memory size (no GPU reserves): the whole model's total.
    const int64_t capacity = *r.workload.memory_bytes;
    j["memory_fit"] = {{"memory_bytes", capacity},
                       {"fits", r.memory.total <= capacity},
                       {"headroom_bytes", capacity - r.memory.total},
                       {"max_batch", *r.max_batch}};
  }
  if (r.transformer) {
    j["transformer"] = transformerToJson(*r.transformer);
    j["macs"]["convention"] =
        "multiply-accumulates of every matmul (linear layers, QK^T and AV over the full s x s "
        "square, LM head) at the workload's batch, for the whole step (grad_accum micro-batches)";
  }
  // With a GPU: its own object, so that its max_batch and fit stay apart from memory_fit's.
  if (r.gpu_fit) j["gpu_fit"] = gpuFitToJson(*r.gpu_fit, r.workload);
  if (r.serving) j["serving"] = servingPlanToJson(*r.serving);
  return j;
}

std::string dumpJson(const json& value, int indent) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

json errorToJson(const Error& e) {
  json j = {{"code", errorCodeName(e.code)}, {"path", e.path}, {"message", e.message}};
  if (!e.message_zh.empty()) j["message_zh"] = e.message_zh;
  return {{"error", std::move(j)}};
}

}  // namespace dlcost
