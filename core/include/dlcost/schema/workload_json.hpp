#pragma once
// Reading and writing the workload object, and reading workload fields typed as text (CLI
// flags, the page's form), all driven by the workload schema (workload_schema.hpp).

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "dlcost/schema/workload_schema.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// Parses a workload object found at `path`, starting from `base` (fields absent keep base's).
/// Unknown fields, wrong types, values out of range and contradictions are InputErrors naming
/// the field's JSON pointer; messages state what the field accepts, with its unit.
Workload parseWorkload(const nlohmann::json& workload, const std::string& path,
                       const Workload& base = {});

/// Checks one field's JSON value against the schema and returns it in canonical form (an
/// integer for integer fields, the value's name for an enum alias, an array for a name list).
nlohmann::json checkFieldValue(const WorkloadField& field, const nlohmann::json& value,
                               const std::string& path);

/// Every field that is set, in schema order: parseWorkload reads it back to the same workload.
nlohmann::json writeWorkload(const Workload& workload);

/// The fields that apply to this workload on a transformer or a layer graph (fieldApplies),
/// in schema order: what a report shows as its workload, and parseWorkload reads it back.
nlohmann::json writeAppliedWorkload(const Workload& workload, bool transformer);

/// Reads one field typed as text by the schema's one rule for text (workloadSchemaJson's
/// "number_text"): the JSON value the workload object would hold. A byte field's bare number
/// is in `bare_byte_unit` ("B", "GiB", "GB", ...). Throws InputError at `path`.
nlohmann::json fieldFromText(const WorkloadField& field, const std::string& text,
                             const std::string& path, const std::string& bare_byte_unit = "B");

/// Fields typed as text, keyed by JSON key, as a workload object (each at /workload/KEY).
nlohmann::json workloadFromText(const std::map<std::string, std::string>& texts,
                                const std::string& bare_byte_unit = "B");

/// The inverse for a form: each known field of a workload object as the text a person would
/// type, sizes in `byte_unit` in the fewest digits (at least 6) that give back the same byte,
/// with the unit written out where a bare number would be read in another (memory_gib in GB:
/// "25.769803776 GB"), so that workloadFromText reads every text back. Unknown keys are skipped.
std::map<std::string, std::string> workloadToText(const nlohmann::json& workload,
                                                  const std::string& byte_unit = "B");

}  // namespace dlcost
