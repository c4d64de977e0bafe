#pragma once
// The human-readable report: a per-layer table, then totals and the memory breakdown.

#include <ostream>

#include <nlohmann/json.hpp>

#include "dlcost/report.hpp"
#include "dlcost/units.hpp"

namespace dlcost::cli {

void printReport(std::ostream& out, const Report& report, ByteUnits units);

/// The GPU preset table (gpuTable()'s JSON).
void printGpus(std::ostream& out, const nlohmann::json& table, ByteUnits units);

/// A compareDocument result, one row per GPU.
void printCompare(std::ostream& out, const nlohmann::json& result, ByteUnits units);

}  // namespace dlcost::cli
