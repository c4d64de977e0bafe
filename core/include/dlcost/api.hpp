#pragma once
// The one-call facade every front end uses (CLI, WebAssembly bindings): an input document
// in, the report JSON out. Keeping one path guarantees that the CLI's --json and the page
// show the same numbers for the same input.

#include <string>

#include <nlohmann/json.hpp>

namespace dlcost {

/// Parses `document` (any form parseConfig accepts), estimates, and returns reportToJson.
/// Throws InputError naming the JSON path of the first bad field.
nlohmann::json estimateDocument(const nlohmann::json& document);

/// Every preset GPU for the document's model and workload (its "gpu" replaced by each
/// preset), sorted by `sort` (see compareSortFields): `{"schema": "dlcost.compare/1",
/// "model", "workload", "sort", "best_buy", "rows": [...]}`; best_buy is the id of the fitting
/// GPU with the most samples/s per 1000 USD (null when none fits or none has a price). Throws
/// InputError; an unknown sort field is reported at path "/sort".
nlohmann::json compareDocument(const nlohmann::json& document,
                               const std::string& sort = "samples_per_s");

/// The GPU preset table (gpuTableJson).
nlohmann::json gpuTable();

/// The same from text; never throws: failures come back as errorToJson's
/// `{"error": {"code", "path", "message"}}`.
std::string estimateText(const std::string& document_text);

/// Memory versus batch size for `document` at each of `batches_json_text` (a JSON array of
/// integers >= 1, at most kMaxSweepPoints), from one estimate. Never throws. Returns
/// `{"schema": "dlcost.sweep/2", "per_gpu", "data_parallel", "microbatches", "fixed",
/// "per_sample", "memory_bytes"?, "max_batch"?, "points": [{"batch", "total", "fits"?}]}`
/// (bytes, per GPU at the replica batch when the workload names a GPU; "fits" when a
/// capacity is known), or
/// errorToJson's object: paths into the document as for estimateText, "/batches/i" for a bad
/// batch entry.
std::string sweepBatchText(const std::string& document_text, const std::string& batches_json_text);

/// One call for a page update: `{"report": R, "sweep": S}` where R is exactly estimateText's
/// report and S the sweep over chartBatches(R, points), from a single parse and estimate.
/// Never throws; failures come back as errorToJson's object.
std::string estimateWithSweepText(const std::string& document_text, int points);

/// sweepBatchText's sweep at `batches_json_text` (`null`: throughputBatches' batches) with
/// each point's roofline throughput on the workload's GPU ("samples_per_s", "step_time_s"; see
/// addThroughput) and "saturation": {"share", "batch"} (saturationBatch): one re-estimate per
/// point, so the page keeps it off the per-keystroke path. Without a GPU the points carry
/// memory only. Never throws; failures come back as errorToJson's object (paths as for
/// sweepBatchText).
std::string sweepThroughputText(const std::string& document_text,
                                const std::string& batches_json_text);

/// The built-in presets as a JSON array of `{"name", "family", "source", "source_zh"}` (and
/// "metrics" where the preset has them), in presetList order; "source_zh" is the source line in
/// Simplified Chinese.
nlohmann::json presetListJson();

/// A preset's model document as JSON text, or errorToJson's object for an unknown name.
std::string presetText(const std::string& name);

/// Every preset of `document["family"]` (all presets when absent or "") estimated with
/// `document["workload"]` (default {}): `{"schema": "dlcost.presets_compare/1", "family",
/// "rows": [{"name", "family", "metrics"?, "params", "macs_forward", "memory_total",
/// "fits"?}]}`: total parameters, forward MACs per sample, total memory in bytes, and the
/// fit when the workload names a GPU. A preset the workload does not suit gets
/// `"error": {"code", "path", "message"}` in place of the figures. Throws InputError for a
/// malformed document (paths "/family", "/<unknown key>").
nlohmann::json comparePresetsDocument(const nlohmann::json& document);

/// How every figure of the document's report was computed, and what dominates it:
/// `{"explanations": [{"id", "title", "formula", "inputs": [{"symbol", "label", "value"}],
/// "result", "text"}], "dominant": [{"quantity", "layer_type", "layers", "share", "names",
/// "text"}]}`. `language` is "en" or "zh", `units` "binary" or "decimal". Throws InputError.
nlohmann::json explainDocument(const nlohmann::json& document, const std::string& language = "en",
                               const std::string& units = "binary");

/// A share link for a page state given as JSON text (see share_link.hpp for the state's
/// shape): `{"fragment": "#d1...."}`. Never throws; text that is not a JSON object comes back
/// as errorToJson's object. The document inside is not estimated here: the page links what
/// it shows, and opening the link reports any error in it.
std::string shareLinkEncodeText(const std::string& state_text);

/// The state a share-link fragment carries: `{"state": {...}, "has_document": bool}`
/// (shareLinkHasDocument), or errorToJson's object saying
/// why a foreign, truncated or tampered fragment cannot be read. Never throws.
std::string shareLinkDecodeText(const std::string& fragment);

}  // namespace dlcost
