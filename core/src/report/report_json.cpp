#include "dlcost/report/report_json.hpp"

#include "dlcost/schema/workload_json.hpp"
#include "gpu/gpu_writers.hpp"
#include "memory/memory_json.hpp"
#include "serving/serving_writers.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

JsonObject transformerObject(const TransformerSummary& t) {
  const TransformerParams& p = t.params;
  JsonObject components;
  components.add("embeddings", p.embeddings)
      .add("attention", p.attention)
      .add("mlp", p.mlp)
      .add("norms", p.norms)
      .add("lm_head", p.lm_head)
      .add("other", p.other);
  // A vision-language model's tower and projector.
  if (p.vision > 0 || p.projector > 0)
    components.add("vision", p.vision).add("projector", p.projector);
  JsonObject j;
  j.add("architecture", t.architecture)
      .add("params_by_component", std::move(components))
      .add("active_params_per_token", p.active_per_token)
      .add("seq_len", t.seq_len)
      .add("generated_tokens", t.generated_tokens)
      .add("context_tokens", t.context_tokens)
      .add("tokens_per_step", t.tokens_per_step)
      .add("forward_flops_per_token", t.forward_flops_per_token)
      .add("kv_cache_bytes_per_token", t.kv_cache_bytes_per_token);
  // Only a model read through the generic fallback, at the user's request.
  if (t.approximate) j.add("approximate", true);
  if (t.params.vision > 0) {
    j.add("images", t.images)
        .add("image_tokens", t.image_tokens)
        .add("vision_macs_per_image", t.vision_macs_per_image);
  }
  // A multimodal config read as its language model alone, at the user's request.
  if (!t.text_only_of.empty()) j.add("text_only_of", t.text_only_of);
  return j;
}

/// A layer's row of "layers". Its JSON is written straight into the array: one row per
/// layer is most of a CNN's report (30 of resnet50's 35 KB), and a JsonObject per row was
/// most of the report's writing time. The keys are written sorted, as JsonObject writes
/// them (tests/test_json_writer.cpp checks every preset's report against nlohmann's dump).
struct LayerRow {
  const LayerReport& layer;
  bool with_inputs;  ///< layer-graph rows: the page draws the graph from "inputs"
};

// (Qualified: this overload hides the others of namespace dlcost.)
void appendJson(std::string& out, const LayerRow& row) {
  const LayerReport& l = row.layer;
  out += "{\"activation_bytes\":";
  dlcost::appendJson(out, l.activation_bytes);
  out += ",\"buffers\":";
  dlcost::appendJson(out, l.buffers);
  out += ",\"bytes_accessed\":";
  dlcost::appendJson(out, l.bytes_accessed);
  out += ",\"inplace\":";
  dlcost::appendJson(out, l.inplace);
  if (row.with_inputs) {
    out += ",\"inputs\":";
    dlcost::appendJson(out, l.inputs);
  }
  out += ",\"macs\":";
  dlcost::appendJson(out, l.macs);
  out += ",\"name\":";
  dlcost::appendJson(out, l.name);
  out += ",\"output_shape\":";
  dlcost::appendJson(out, l.output_shape);
  out += ",\"params\":";
  dlcost::appendJson(out, l.params);
  out += ",\"type\":";
  dlcost::appendJson(out, l.type);
  out += '}';
}

}  // namespace

json memoryToJson(const MemoryBreakdown& m, const char* units) {
  return toDocument(memoryObject(m, units));
}

std::string reportJsonText(const Report& r) {
  JsonArray layers;
  // Transformer rows are a list, not a graph: no "inputs" (the page draws blocks).
  const bool with_inputs = r.model_kind == "layers";
  for (const LayerReport& l : r.layers) layers.push(LayerRow{l, with_inputs});
  JsonArray phases;
  for (const PhaseWork& p : r.phases) {
    phases.push(JsonObject()
                    .add("name", p.name)
                    .add("flops", p.flops)
                    .add("bytes", p.bytes)
                    .add("tokens", p.tokens));
  }
  const char* macs_convention =
      r.transformer
          ? "multiply-accumulates of every matmul (linear layers, QK^T and AV over the full s x s "
            "square, LM head) at the workload's batch, for the whole step (grad_accum "
            "micro-batches)"
          : "multiply-accumulates of conv, linear and matmul layers at the workload's batch";
  JsonObject j;
  j.add("schema", kReportSchema)
      .add("model", JsonObject().add("name", r.model_name).add("kind", r.model_kind))
      .add("workload", writeAppliedWorkload(r.workload, r.transformer.has_value()))
      .add("params", JsonObject()
                         .add("total", r.params.total)
                         .add("trainable", r.params.trainable)
                         .add("non_trainable", r.params.total - r.params.trainable)
                         .add("buffers", r.params.buffers)
                         .add("adapters", r.params.adapters))
      .add("macs", JsonObject()
                       .add("forward", r.macs.forward)
                       .add("backward", r.macs.backward)
                       .add("total", r.macs.forward + r.macs.backward)
                       .add("convention", macs_convention))
      .add("flops", JsonObject()
                        .add("forward", flopsOf(r.macs.forward))
                        .add("backward", flopsOf(r.macs.backward))
                        .add("total", flopsOf(r.macs.forward + r.macs.backward))
                        .add("convention", "FLOPs = 2 x MACs"))
      .add("memory", memoryObject(r.memory, "bytes"))
      .add("layers", layers)
      .add("phases", phases)
      .add("warnings", r.warnings);
  if (r.workload.memory_bytes && r.max_batch) {
    // Fit against a plain memory size (no GPU reserves): the whole model's total.
    const int64_t capacity = *r.workload.memory_bytes;
    j.add("memory_fit", JsonObject()
                            .add("memory_bytes", capacity)
                            .add("fits", r.memory.total <= capacity)
                            .add("headroom_bytes", capacity - r.memory.total)
                            .add("max_batch", *r.max_batch));
  }
  if (r.transformer) j.add("transformer", transformerObject(*r.transformer));
  // With a GPU: its own object, so that its max_batch and fit stay apart from memory_fit's.
  if (r.gpu_fit) {
    j.add("gpu_fit", gpuFitObject(*r.gpu_fit, r.workload, r.serving ? &*r.serving : nullptr));
  }
  if (r.serving) j.add("serving", servingPlanObject(*r.serving));
  return j.str();
}

json reportToJson(const Report& r) {
  return json::parse(reportJsonText(r));
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
