#pragma once
// Helpers shared by the transformer tests: run a preset, a config.json or a generic form.

#include <string>

#include <nlohmann/json.hpp>

#include "dlcost/config_json.hpp"
#include "dlcost/estimate.hpp"
#include "dlcost/presets.hpp"

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

}  // namespace dlcost::testing
