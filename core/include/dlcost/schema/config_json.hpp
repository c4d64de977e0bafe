#pragma once
// Reading dlcost's input documents (schema version 1) into values.

#include <memory>
#include <nlohmann/json.hpp>

#include "dlcost/schema/workload_json.hpp"  // parseWorkload
#include "dlcost/types/model.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// A model and the workload to run it with.
struct Config {
  Model model;
  Workload workload;
};

/// Accepts, each with an optional `workload` object beside the model:
/// - `{"model": MODEL, "workload": {...}}`
/// - a model document itself: `{"input": [...], "layers": [...], "workload": {...}}`
/// - `{"model": {"preset": "resnet50"}}`
/// Throws InputError naming the JSON pointer of the first bad field.
Config parseConfig(const nlohmann::json& document);

/// Parses text as JSON (refusing nesting deeper than 64 levels); malformed text is an
/// InputError with code kParse.
nlohmann::json parseDocumentText(const std::string& text);

/// Parses text as JSON first; malformed text is an InputError with code kParse.
Config parseConfigText(const std::string& text);

/// A model and its workload where the model may be a built-in preset's, shared with the
/// engine's cache of parsed presets instead of copied: copying resnet50's 177 layers was
/// most of the time reading its document took (docs/benchmarks.md, "Session 6").
struct SharedConfig {
  std::shared_ptr<const Model> model;
  Workload workload;
};

/// parseConfig and parseConfigText, the model shared (same errors, same values).
SharedConfig parseSharedConfig(const nlohmann::json& document);
SharedConfig parseSharedConfigText(const std::string& text);

/// True when `document` is a Hugging Face config.json (as a model repository ships it): an
/// object with "model_type" or "architectures". Such a document is read as the model itself
/// (parseConfig; the value of "hf_config" must be one), the CLI wraps a file of it with its
/// flags' workload, and the page offers a dropped one as the model.
bool isHfConfig(const nlohmann::json& document);

/// Parses a model document (the value of `model`, or the whole document) found at `path`.
Model parseModel(const nlohmann::json& model, const std::string& path);

}  // namespace dlcost
