#pragma once
// Reading dlcost's input documents (schema version 1) into values.

#include <nlohmann/json.hpp>

#include "dlcost/model.hpp"
#include "dlcost/workload.hpp"
#include "dlcost/workload_json.hpp"  // parseWorkload

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

/// Parses a model document (the value of `model`, or the whole document) found at `path`.
Model parseModel(const nlohmann::json& model, const std::string& path);

}  // namespace dlcost
