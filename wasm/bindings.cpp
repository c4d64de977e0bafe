// The second WebAssembly module (dlcost_extra), loaded by web/js/dlcost.js (loadExtra) only
// when the page first needs one of these: after the first result is drawn (explanations,
// comparisons) or when the user asks (layouts, serving sweeps, a model file dropped).
//
// Where a new binding goes: HERE (bindings.cpp), unless the page cannot show its first verdict
// without it (then wasm/bindings_core.cpp; see the rule at its top). Add its name to EXTRA in
// web/js/dlcost.js so the page routes the call to this module, and have the caller await
// loadExtra() first. Both modules link the same dlcost_core; LTO keeps only what the bindings
// of each reach, so the readers, planners and texts below cost the first module nothing.
// Exceptions never cross the boundary (wasm/guarded.hpp).

#include <emscripten/bind.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include "dlcost/api.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/explore/layouts.hpp"
#include "dlcost/explore/serve_sim.hpp"
#include "dlcost/explore/serving_sweep.hpp"
#include "dlcost/gpu/step_json.hpp"
#include "dlcost/model_files/model_file.hpp"
#include "dlcost/model_files/weight_components.hpp"
#include "dlcost/report/measured_json.hpp"
#include "dlcost/report/report_json.hpp"
#include "dlcost/report/timeline_json.hpp"
#include "dlcost/schema/config_json.hpp"
#include "dlcost/serving/load_json.hpp"
#include "guarded.hpp"

namespace {

using dlcost_wasm::guarded;

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

/// layouts(documentText) -> every dp x tp x pp split of the document's GPUs, ranked
/// (dlcost::layoutsDocument; `dlcost layouts --json`).
std::string layouts(const std::string& document_text) {
  return guarded([&] {
    return dlcost::dumpJson(dlcost::layoutsDocument(dlcost::parseDocumentText(document_text)));
  });
}

/// timeline(documentText) -> the step's memory over time (dlcost::timelineDocument,
/// `dlcost timeline --json`).
std::string timeline(const std::string& document_text) {
  return guarded([&] {
    return dlcost::dumpJson(dlcost::timelineDocument(dlcost::parseDocumentText(document_text)));
  });
}

/// measuredTimeline(documentText, snapshotBytes, fileSize, device) -> the predicted timeline
/// beside a PyTorch CUDA memory snapshot, exactly `dlcost timeline --measured FILE [--device N]
/// --json` (dlcost::measuredTimelineDocument; device -1: the one with the most trace events).
/// Start with no bytes and the file's size: a file past the engine's limit is refused
/// (dlcost::checkSnapshotFileSize) before the page reads it; else {"need_bytes": fileSize}:
/// read the whole file (a Uint8Array) and call again.
std::string measuredTimeline(const std::string& document_text, const std::string& bytes,
                             double file_size, int device) {
  return guarded([&] {
    // NaN and negative sizes read as 0; the bytes given are the file when they are more.
    const uint64_t size = file_size > 0 ? static_cast<uint64_t>(std::min(file_size, 1e18)) : 0;
    dlcost::checkSnapshotFileSize(std::max<uint64_t>(size, bytes.size()));
    if (bytes.empty() && size > 0) {
      return dlcost::dumpJson(nlohmann::json{{"need_bytes", size}});
    }
    return dlcost::dumpJson(
        dlcost::measuredTimelineDocument(dlcost::parseDocumentText(document_text), bytes, device));
  });
}

/// serveSim(documentText) -> the engine under load ({"model", "workload", "load"};
/// dlcost::serveSimDocument, `dlcost serve-sim --json`).
std::string serveSim(const std::string& document_text) {
  return guarded([&] {
    return dlcost::dumpJson(dlcost::serveSimDocument(dlcost::parseDocumentText(document_text)));
  });
}

/// loadTrace(text) -> {"trace": [[arrival_s, prompt_tokens, output_tokens], ...]} from a
/// dropped CSV or JSON Lines file (dlcost::parseTraceText), for the document's "load".
std::string loadTrace(const std::string& text) {
  return guarded([&] {
    nlohmann::json rows = nlohmann::json::array();
    for (const dlcost::LoadRequest& q : dlcost::parseTraceText(text)) {
      rows.push_back({q.arrival_s, q.prompt_tokens, q.output_tokens});
    }
    return dlcost::dumpJson(nlohmann::json{{"trace", std::move(rows)}});
  });
}

/// links() -> the link table and the dated list prices (`dlcost links --json`).
std::string links() {
  return guarded([] {
    return dlcost::dumpJson(
        {{"links", dlcost::interconnectTableJson()}, {"prices", dlcost::listPricesJson()}});
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

/// checkComponents(summaryText, documentText) -> a dropped checkpoint's tensors against the
/// engine's components of the document's model, or null where no check applies
/// (dlcost::componentCheckText; the CLI's `estimate --weights` makes the same check).
std::string checkComponents(const std::string& summary_text, const std::string& document_text) {
  return guarded([&] { return dlcost::componentCheckText(summary_text, document_text); });
}

/// isHfConfig(documentText) -> true when the document is a Hugging Face config.json as a
/// whole (dlcost::isHfConfig, the test parseConfig and the CLI read a document by); text that
/// is not JSON is an error.
std::string isHfConfig(const std::string& document_text) {
  return guarded([&] {
    return std::string(dlcost::isHfConfig(dlcost::parseDocumentText(document_text)) ? "true"
                                                                                    : "false");
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(dlcost_extra) {
  emscripten::function("explain", &explain);
  emscripten::function("compare", &compare);
  emscripten::function("layouts", &layouts);
  emscripten::function("timeline", &timeline);
  emscripten::function("measuredTimeline", &measuredTimeline);
  emscripten::function("links", &links);
  emscripten::function("comparePresets", &comparePresets);
  emscripten::function("sweepThroughput", &sweepThroughput);
  emscripten::function("inspectModelFile", &inspectModelFile);
  emscripten::function("inspectShardedCheckpoint", &inspectShardedCheckpoint);
  emscripten::function("exceptionMessage", &dlcost_wasm::exceptionMessage);
  emscripten::function("servingSweep", &servingSweep);
  emscripten::function("serveSim", &serveSim);
  emscripten::function("loadTrace", &loadTrace);
  emscripten::function("checkComponents", &checkComponents);
  emscripten::function("isHfConfig", &isHfConfig);
}
