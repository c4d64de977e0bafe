#pragma once
// Writing a report (and an error) as JSON: the one machine format the CLI, the wasm module
// and the page share.

#include <nlohmann/json.hpp>
#include <string>

#include "dlcost/base/error.hpp"
#include "dlcost/types/report.hpp"

namespace dlcost {

/// The report JSON's "schema". Version 2: memory as a list of terms
/// ({"terms": [{"key", "bytes", "share", "fixed", "per_sample", "sharding", "formula", "inputs"}],
/// "total", "fixed", "per_sample"}), "backward_peak_extra" for version 1's "activation_gradients",
/// the GPU fit under "gpu_fit" and the fit against a plain memory size under "memory_fit".
constexpr const char* kReportSchema = "dlcost.report/2";

/// A term list (whole model or one GPU) as JSON; `units` says which ("bytes", "bytes per GPU").
nlohmann::json memoryToJson(const MemoryBreakdown& memory, const char* units);

/// The `--json` report as JSON text. Bytes and counts are exact integers. Written directly
/// (core/src/json_writer.hpp), byte for byte what dumpJson would print for reportToJson.
std::string reportJsonText(const Report& report);

/// The same report as a document, for callers that read it (the CLI, comparisons, tests).
nlohmann::json reportToJson(const Report& report);

/// `{"error": {"code": ..., "path": ..., "message": ...}}`
nlohmann::json errorToJson(const Error& error);

/// Serialises for output. Invalid UTF-8 (which a parse error may quote from the input) is
/// replaced by U+FFFD instead of throwing, so an error report can always be printed.
std::string dumpJson(const nlohmann::json& value, int indent = -1);

}  // namespace dlcost
