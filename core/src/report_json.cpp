#include "dlcost/report_json.hpp"

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
                      {"inplace", l.inplace}});
  }
  json j = {
      {"schema", "dlcost.report/1"},
      {"model", {{"name", r.model_name}, {"kind", r.model_kind}}},
      {"workload", workloadToJson(r.workload)},
      {"params",
       {{"total", r.params.total},
        {"trainable", r.params.trainable},
        {"non_trainable", r.params.total - r.params.trainable},
        {"buffers", r.params.buffers}}},
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
        {"overhead", m.overhead},
        {"total", m.total},
        {"fixed", m.fixed},
        {"per_sample", m.per_sample},
        {"units", "bytes"}}},
      {"layers", std::move(layers)},
      {"warnings", r.warnings},
  };
  if (r.max_batch) j["max_batch"] = *r.max_batch;
  return j;
}

std::string dumpJson(const json& value, int indent) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

json errorToJson(const Error& e) {
  return {{"error", {{"code", errorCodeName(e.code)}, {"path", e.path}, {"message", e.message}}}};
}

}  // namespace dlcost
