#pragma once
// The load of a simulation as JSON (a document's "load" object, the CLI's serve-sim flags),
// a request trace as text (CSV or JSON Lines, as users export them), and the result as JSON.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dlcost/types/serving_load.hpp"

namespace dlcost {

/// Every key a load object accepts (loadSettingsFromJson rejects any other). The CLI's serve-sim
/// flags are these names with "--" and dashes ("slo_ttft_ms" is --slo-ttft-ms); "trace" is a file
/// there.
const std::vector<std::string>& loadFieldNames();

/// Reads `j` (at JSON path `path`, normally "/load"): exactly one of "rate" (requests/s,
/// Poisson), "concurrency" (requests in flight) or "trace" (an array of [arrival_s,
/// prompt_tokens, output_tokens] or of objects with those keys); "requests" (default 1000),
/// "prompt" and "output" (a length: an integer, {"fixed": n}, {"uniform": [lo, hi]} or
/// {"normal": [mean, sd]}; default the workload's prompt and generated tokens, given as
/// `prompt` and `output`), "seed", "replicas", "slo_ttft_ms", "slo_itl_ms". Throws InputError
/// naming the field, the reason and the unit.
LoadSettings loadSettingsFromJson(const nlohmann::json& j, const std::string& path, int64_t prompt,
                                  int64_t output);

/// A trace as text: CSV rows "arrival_s,prompt_tokens,output_tokens" (a header row of names
/// is skipped) or JSON Lines of objects with those keys (also "timestamp", "input_len" /
/// "output_len" as vLLM's and SGLang's benchmark dumps name them). Rows must be sorted by
/// arrival, lengths >= 1. Throws InputError at "/load/trace/<row>" (0-based) for a bad row and
/// kTooLarge for more than kMaxLoadRequests rows (counted before anything is allocated).
std::vector<LoadRequest> parseTraceText(const std::string& text);

/// {"engine", "scheduler", "requests", "rejected", "duration_s", "ttft_s": {mean, p50, p90,
/// p99}, "itl_s", "e2e_s", "queue_s", "requests_per_s", "output_tokens_per_s",
/// "total_tokens_per_s", "iterations", "preemptions", "max_waiting", "mean_batch_tokens",
/// "meets_slo"?, "timeline": {"time_s": [...], "running", "waiting", "kv_used"}, "notes"}.
nlohmann::json loadResultToJson(const LoadResult& r);

}  // namespace dlcost
