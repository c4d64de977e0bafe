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
/// "model", "workload", "sort", "rows": [...]}`. Throws InputError; an unknown sort field is
/// reported at path "/sort".
nlohmann::json compareDocument(const nlohmann::json& document,
                               const std::string& sort = "samples_per_s");

/// The GPU preset table (gpuTableJson).
nlohmann::json gpuTable();

/// The same from text; never throws: failures come back as errorToJson's
/// `{"error": {"code", "path", "message"}}`.
std::string estimateText(const std::string& document_text);

}  // namespace dlcost
