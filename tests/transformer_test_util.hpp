#pragma once
// Helpers shared by the transformer tests: run a preset, a config.json or a generic form.

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "dlcost/report/estimate.hpp"
#include "dlcost/schema/config_json.hpp"
#include "dlcost/schema/presets.hpp"

namespace dlcost::testing {

inline Report runPreset(const std::string& name,
                        const nlohmann::json& workload = nlohmann::json::object()) {
  const Config c =
      parseConfig(nlohmann::json{{"model", {{"preset", name}}}, {"workload", workload}});
  return estimate(c.model, c.workload);
}

inline Report runConfig(const nlohmann::json& config,
                        const nlohmann::json& workload = nlohmann::json::object()) {
  const Config c =
      parseConfig(nlohmann::json{{"model", {{"hf_config", config}}}, {"workload", workload}});
  return estimate(c.model, c.workload);
}

inline Report runGeneric(const nlohmann::json& form,
                         const nlohmann::json& workload = nlohmann::json::object()) {
  const Config c =
      parseConfig(nlohmann::json{{"model", {{"transformer", form}}}, {"workload", workload}});
  return estimate(c.model, c.workload);
}

inline nlohmann::json presetConfig(const std::string& name) {
  const char* text = presetJson(name);
  return text ? nlohmann::json::parse(text) : nlohmann::json();
}

/// A published config.json from tests/fixtures/hf-configs (SOURCES.md says where each came
/// from).
inline nlohmann::json fixtureConfig(const std::string& name) {
  std::ifstream in(std::string(DLCOST_FIXTURES) + "/hf-configs/" + name + ".json");
  if (!in) throw std::runtime_error("no fixture " + name);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

inline const LayerReport& row(const Report& r, const std::string& name) {
  for (const LayerReport& l : r.layers)
    if (l.name == name) return l;
  throw std::runtime_error("no row " + name);
}

inline const PhaseWork& phase(const Report& r, const std::string& name) {
  for (const PhaseWork& p : r.phases)
    if (p.name == name) return p;
  throw std::runtime_error("no phase " + name);
}

/// scripts/validate_llama.py's CONFIG: the small Llama (2 layers, hidden 256, 8 heads over 4
/// KV heads, intermediate 688, vocabulary 2048) that the project measures with PyTorch.
inline nlohmann::json validateLlamaConfig(bool tied_embeddings = false) {
  return {{"model_type", "llama"},
          {"architectures", {"LlamaForCausalLM"}},
          {"hidden_size", 256},
          {"intermediate_size", 688},
          {"num_attention_heads", 8},
          {"num_key_value_heads", 4},
          {"num_hidden_layers", 2},
          {"vocab_size", 2048},
          {"max_position_embeddings", 2048},
          {"rms_norm_eps", 1e-6},
          {"rope_theta", 10000.0},
          {"hidden_act", "silu"},
          {"tie_word_embeddings", tied_embeddings},
          {"attention_bias", false},
          {"mlp_bias", false}};
}

}  // namespace dlcost::testing
