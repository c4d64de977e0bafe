// The WebAssembly front end: the only file that includes Embind. A few coarse calls, each
// taking and returning JSON text, so one user action is one call across the boundary and the
// page reads exactly the report the CLI prints with --json.
//
// No exception crosses into JavaScript (it would arrive as a bare pointer): every bound
// function catches everything and returns {"error": {"code", "path", "message"}}. This only
// works because the module is compiled and linked with -fexceptions (see wasm/CMakeLists.txt).

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <exception>
#include <map>
#include <string>

#include "dlcost/api.hpp"
#include "dlcost/config_json.hpp"
#include "dlcost/error.hpp"
#include "dlcost/model_file.hpp"
#include "dlcost/report_json.hpp"
#include "dlcost/serving_sweep.hpp"
#include "dlcost/workload_json.hpp"
#include "dlcost/workload_schema.hpp"

namespace {

std::string internalError(const std::string& what) {
  return dlcost::dumpJson(dlcost::errorToJson(
      dlcost::Error{dlcost::ErrorCode::kInternal, "", "internal error: " + what}));
}

/// Runs `body`, turning any escaping exception into the structured error object.
template <typename Body>
std::string guarded(Body body) {
  try {
    return body();
  } catch (const dlcost::InputError& e) {
    return dlcost::dumpJson(dlcost::errorToJson(e.error()));
  } catch (const std::exception& e) {
    return internalError(e.what());
  } catch (...) {
    return internalError("unknown exception");
  }
}

/// estimate(documentText) -> the report JSON text (dlcost::estimateText, the CLI's --json).
std::string estimate(const std::string& document_text) {
  return guarded([&] { return dlcost::estimateText(document_text); });
}

/// sweepBatch(documentText, batchesJsonText) -> memory at each batch (dlcost::sweepBatchText).
std::string sweepBatch(const std::string& document_text, const std::string& batches_json_text) {
  return guarded([&] { return dlcost::sweepBatchText(document_text, batches_json_text); });
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

/// explain(documentText, lang, units) -> {"explanations", "dominant"} (dlcost::explainDocument;
/// lang "en" | "zh", units "binary" | "decimal").
std::string explain(const std::string& document_text, const std::string& lang,
                    const std::string& units) {
  return guarded([&] {
    return dlcost::dumpJson(
        dlcost::explainDocument(dlcost::parseDocumentText(document_text), lang, units));
  });
}

/// compare(documentText, sort) -> every GPU preset for the document (dlcost::compareDocument).
std::string compare(const std::string& document_text, const std::string& sort) {
  return guarded([&] {
    return dlcost::dumpJson(
        dlcost::compareDocument(dlcost::parseDocumentText(document_text), sort));
  });
}

/// sweepThroughput(documentText, batchesJsonText) -> memory and samples/s at each batch on the
/// chosen GPU (dlcost::sweepThroughputText): one call for the whole batch chart.
std::string sweepThroughput(const std::string& document_text,
                            const std::string& batches_json_text) {
  return guarded([&] { return dlcost::sweepThroughputText(document_text, batches_json_text); });
}

/// servingSweep(documentText, usersJsonText, contextsJsonText) -> the serving plan at each
/// (users, context) (dlcost::servingSweepText): one call for the inference charts.
std::string servingSweep(const std::string& document_text, const std::string& users_json_text,
                         const std::string& contexts_json_text) {
  return guarded(
      [&] { return dlcost::servingSweepText(document_text, users_json_text, contexts_json_text); });
}

/// comparePresets(requestText) -> each preset of a family estimated with one workload
/// (dlcost::comparePresetsDocument): one call for the model-comparison chart.
std::string comparePresets(const std::string& request_text) {
  return guarded([&] {
    return dlcost::dumpJson(
        dlcost::comparePresetsDocument(dlcost::parseDocumentText(request_text)));
  });
}

/// workloadSchema() -> the workload schema (dlcost::workloadSchemaJson; `dlcost schema --json`).
std::string workloadSchema() {
  return guarded([] { return dlcost::dumpJson(dlcost::workloadSchemaJson()); });
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

/// inspectModelFile(bytes, fileSize) -> the summary of a GGUF, safetensors or index file from
/// its first bytes (a Uint8Array; dlcost::inspectModelFileText), or {"need_bytes": N}: read
/// the file's first N bytes (File.slice) and call again. Start with no bytes.
std::string inspectModelFile(const std::string& bytes, double file_size) {
  return guarded([&] { return dlcost::inspectModelFileText(bytes, file_size); });
}

/// inspectShardedCheckpoint(indexText, shardsJsonText) -> the exact summary of a sharded
/// checkpoint from its index and each shard's inspectModelFile summary
/// (dlcost::shardedSummaryText).
std::string inspectShardedCheckpoint(const std::string& index_text,
                                     const std::string& shards_json_text) {
  return guarded([&] { return dlcost::shardedSummaryText(index_text, shards_json_text); });
}

/// For debugging only: the message of a C++ exception whose pointer reached JavaScript
/// (e.g. from an abort), which Embind otherwise shows as a bare number.
std::string exceptionMessage(uintptr_t exception_ptr) {
  if (exception_ptr == 0) return "";
  return reinterpret_cast<const std::exception*>(exception_ptr)->what();
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
  emscripten::function("explain", &explain);
  emscripten::function("compare", &compare);
  emscripten::function("comparePresets", &comparePresets);
  emscripten::function("sweepThroughput", &sweepThroughput);
  emscripten::function("workloadSchema", &workloadSchema);
  emscripten::function("workloadFromText", &workloadFromText);
  emscripten::function("workloadToText", &workloadToText);
  emscripten::function("inspectModelFile", &inspectModelFile);
  emscripten::function("inspectShardedCheckpoint", &inspectShardedCheckpoint);
  emscripten::function("exceptionMessage", &exceptionMessage);
  emscripten::function("servingSweep", &servingSweep);
}
