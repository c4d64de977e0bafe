// The first WebAssembly module (dlcost_wasm): what the page and the widget need before their
// first result, and nothing else, so that it stays small (docs/benchmarks.md, "Two modules").
//
// Where a new binding goes: HERE only if the page cannot show its first verdict without it
// (estimate, the batch chart that comes with it, presets, GPUs, the workload form's schema and
// text, share links). Everything a user reaches by a click or that runs after the first
// result is drawn (explanations, comparisons, layouts, serving sweeps, model files, imports)
// goes into wasm/bindings.cpp, and its name into EXTRA in web/js/dlcost.js. Both
// modules link the same dlcost_core; LTO drops what a module's bindings do not reach.
//
// A few coarse calls, each taking and returning JSON text, so one user action is one call
// across the boundary and the page reads exactly the report the CLI prints with --json.
// Exceptions never cross the boundary (wasm/guarded.hpp).

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <map>
#include <string>

#include "dlcost/api.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/base/units_json.hpp"
#include "dlcost/report/report_json.hpp"
#include "dlcost/schema/config_json.hpp"
#include "dlcost/schema/task_defaults.hpp"
#include "dlcost/schema/workload_json.hpp"
#include "dlcost/schema/workload_schema.hpp"
#include "guarded.hpp"

namespace {

using dlcost_wasm::guarded;

/// `text` (UTF-8) as a JavaScript string, decoded by the host's TextDecoder in one call.
/// Embind's own std::string return walks every byte twice in JavaScript (looking for NULs, then
/// for the end) before it decodes: about a seventh of an estimate's time in Node
/// (docs/benchmarks.md, "Session 7: WebAssembly speed"). The same string either way.
emscripten::val jsString(const std::string& text) {
  static const emscripten::val decoder = emscripten::val::global("TextDecoder").new_();
  return decoder.call<emscripten::val>(
      "decode", emscripten::val(emscripten::typed_memory_view(
                    text.size(), reinterpret_cast<const unsigned char*>(text.data()))));
}

/// estimate(documentText) -> the report JSON text (dlcost::estimateText, the CLI's --json).
emscripten::val estimate(const std::string& document_text) {
  return jsString(guarded([&] { return dlcost::estimateText(document_text); }));
}

/// sweepBatch(documentText, batchesJsonText) -> memory at each batch (dlcost::sweepBatchText).
emscripten::val sweepBatch(const std::string& document_text, const std::string& batches_json_text) {
  return jsString(
      guarded([&] { return dlcost::sweepBatchText(document_text, batches_json_text); }));
}

/// estimateWithSweep(documentText, points) -> {"report", "sweep"} (dlcost::estimateWithSweepText):
/// what one page update needs, from one parse and one estimate. The hot path, so it returns
/// the UTF-8 bytes as a Uint8Array view into wasm memory, valid until the next call, for the
/// caller to decode with TextDecoder: Embind's std::string conversion walks every byte in
/// JavaScript, which costs milliseconds on the report of a 600-layer model.
emscripten::val estimateWithSweep(const std::string& document_text, int points) {
  static std::string last;
  last = guarded([&] { return dlcost::estimateWithSweepText(document_text, points); });
  return emscripten::val(emscripten::typed_memory_view(
      last.size(), reinterpret_cast<const unsigned char*>(last.data())));
}

/// presets() -> JSON array of {name, family, source}.
std::string presets() {
  return guarded([] { return dlcost::dumpJson(dlcost::presetListJson()); });
}

/// preset(name) -> the preset's model document as JSON text, or the error object.
std::string preset(const std::string& name) {
  return guarded([&] { return dlcost::presetText(name); });
}

/// gpus() -> JSON array of the GPU presets ({id, name, memory_bytes, ...}; dlcost::gpuTable).
std::string gpus() {
  return guarded([] { return dlcost::dumpJson(dlcost::gpuTable()); });
}

/// shareLinkEncode(stateText) -> {"fragment": "#d1...."} (dlcost::shareLinkEncodeText, the
/// codec `dlcost link` uses).
std::string shareLinkEncode(const std::string& state_text) {
  return guarded([&] { return dlcost::shareLinkEncodeText(state_text); });
}

/// shareLinkDecode(fragment) -> {"state": {...}} or the error saying why the link is unreadable.
std::string shareLinkDecode(const std::string& fragment) {
  return guarded([&] { return dlcost::shareLinkDecodeText(fragment); });
}

/// workloadSchema() -> the workload schema (dlcost::workloadSchemaJson; `dlcost schema --json`).
std::string workloadSchema() {
  return guarded([] { return dlcost::dumpJson(dlcost::workloadSchemaJson()); });
}

/// numberUnits() -> the unit tables the page's formatter reads (dlcost::numberUnitsJson).
std::string numberUnits() {
  return guarded([] { return dlcost::dumpJson(dlcost::numberUnitsJson()); });
}

/// workloadFromText({"fields": {KEY: TEXT}, "byte_unit": "GiB"}) -> the workload object, each
/// text read by the schema's one rule (the CLI's flags use it too); errors at /workload/KEY.
std::string workloadFromText(const std::string& request_text) {
  return guarded([&] {
    const nlohmann::json request = dlcost::parseDocumentText(request_text);
    std::map<std::string, std::string> texts;
    const nlohmann::json fields = request.value("fields", nlohmann::json::object());
    for (auto it = fields.begin(); it != fields.end(); ++it) {
      if (!it->is_string()) {
        throw dlcost::InputError(dlcost::ErrorCode::kType, dlcost::childPath("/workload", it.key()),
                                 "must be given as text");
      }
      texts[it.key()] = it->get<std::string>();
    }
    return dlcost::dumpJson(dlcost::workloadFromText(texts, request.value("byte_unit", "B")));
  });
}

/// workloadToText({"workload": {...}, "byte_unit": "GiB"}) -> {KEY: TEXT} for the form.
std::string workloadToText(const std::string& request_text) {
  return guarded([&] {
    const nlohmann::json request = dlcost::parseDocumentText(request_text);
    const nlohmann::json workload = request.value("workload", nlohmann::json::object());
    return dlcost::dumpJson(
        nlohmann::json(dlcost::workloadToText(workload, request.value("byte_unit", "B"))));
  });
}

/// The document with its workload started from the task it implies, as the CLI estimates a
/// document given without --task (core's startingDocument).
std::string startingDocument(const std::string& document_text) {
  return guarded([&] {
    return dlcost::dumpJson(dlcost::startingDocument(dlcost::parseDocumentText(document_text)));
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(dlcost) {
  emscripten::function("estimate", &estimate);
  emscripten::function("sweepBatch", &sweepBatch);
  emscripten::function("estimateWithSweep", &estimateWithSweep);
  emscripten::function("presets", &presets);
  emscripten::function("preset", &preset);
  emscripten::function("gpus", &gpus);
  emscripten::function("shareLinkEncode", &shareLinkEncode);
  emscripten::function("shareLinkDecode", &shareLinkDecode);
  emscripten::function("workloadSchema", &workloadSchema);
  emscripten::function("numberUnits", &numberUnits);
  emscripten::function("workloadFromText", &workloadFromText);
  emscripten::function("workloadToText", &workloadToText);
  emscripten::function("startingDocument", &startingDocument);
  emscripten::function("exceptionMessage", &dlcost_wasm::exceptionMessage);
}
