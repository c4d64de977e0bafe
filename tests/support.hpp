#pragma once
// Helpers the Catch2 suites share: build a document, estimate it, find a row, catch an error.

#include <catch2/catch.hpp>
#include <string>

#include "dlcost/api.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/report/estimate.hpp"
#include "dlcost/schema/config_json.hpp"
#include "dlcost/schema/presets.hpp"

namespace dlcost::test {

using nlohmann::json;

/// Estimates any document parseConfig accepts.
inline Report estimateDoc(const json& doc) {
  const Config c = parseConfig(doc);
  return estimate(c.model, c.workload);
}

/// Estimates a model given by its input shape and layer list.
inline Report run(const json& layers, const json& input, const json& workload = json::object()) {
  return estimateDoc(
      json{{"model", {{"input", input}, {"layers", layers}}}, {"workload", workload}});
}

/// Estimates a built-in preset.
inline Report runPreset(const std::string& name, const json& workload = json::object()) {
  return estimateDoc(json{{"model", {{"preset", name}}}, {"workload", workload}});
}

/// One training sample at fp32: the workload the layer tests' PyTorch measurements use
/// (saved bytes per sample, tests/model_files/make_onnx_graphs.py).
inline const json kTrain = {{"batch", 1}, {"dtype", "fp32"}, {"mode", "train"}};

/// Bytes kept for backward (the activations term of the memory report).
inline int64_t saved(const Report& r) {
  return r.memory.bytesOf(MemoryKey::kActivations);
}

/// The report row of the layer called `name` (the model input is "input").
inline const LayerReport& row(const Report& r, const std::string& name) {
  for (const LayerReport& l : r.layers) {
    if (l.name == name) return l;
  }
  FAIL("no layer named " << name);
  return r.layers.front();
}

/// The error estimating `doc` raises; fails the test when there is none.
inline Error errorOf(const json& doc) {
  try {
    estimateDocument(doc);
  } catch (const InputError& e) {
    return e.error();
  }
  FAIL("no error for " << doc.dump());
  return {};
}

/// The error estimating `text` raises (through the text facade every front end uses).
inline Error errorOfText(const std::string& text) {
  const json out = json::parse(estimateText(text));
  if (!out.contains("error")) FAIL("no error for " << text.substr(0, 200));
  const json& e = out["error"];
  ErrorCode code = ErrorCode::kValue;
  for (ErrorCode c :
       {ErrorCode::kParse, ErrorCode::kMissingField, ErrorCode::kUnknownField, ErrorCode::kType,
        ErrorCode::kValue, ErrorCode::kShape, ErrorCode::kGraph, ErrorCode::kTooLarge}) {
    if (e["code"] == errorCodeName(c)) code = c;
  }
  return {code, e["path"].get<std::string>(), e["message"].get<std::string>()};
}

}  // namespace dlcost::test
