#pragma once
// A memory breakdown (whole model or one GPU) as a JsonObject: its terms, totals and phases,
// written once for the report, the GPU fit and memoryToJson.

#include "dlcost/types/memory.hpp"
#include "types/json_writer.hpp"

namespace dlcost {

/// {"terms": [{"key", "bytes", "share", "fixed", "per_sample", "sharding", "phase", "in_peak",
/// "formula", "inputs"}], "total", "fixed", "per_sample", "units", "phases"?, "peak_phase"?,
/// "first_step_total"?}; `units` says which ("bytes", "bytes per GPU").
JsonObject memoryObject(const MemoryBreakdown& memory, const char* units);

}  // namespace dlcost
