#pragma once
// Writing a report (and an error) as JSON: the one machine format the CLI, the wasm module
// and the page share.

#include <nlohmann/json.hpp>

#include "dlcost/error.hpp"
#include "dlcost/report.hpp"

namespace dlcost {

/// The `--json` report. Bytes and counts are exact integers.
nlohmann::json reportToJson(const Report& report);

/// `{"error": {"code": ..., "path": ..., "message": ...}}`
nlohmann::json errorToJson(const Error& error);

/// Serialises for output. Invalid UTF-8 (which a parse error may quote from the input) is
/// replaced by U+FFFD instead of throwing, so an error report can always be printed.
std::string dumpJson(const nlohmann::json& value, int indent = -1);

}  // namespace dlcost
