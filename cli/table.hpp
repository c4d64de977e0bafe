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

/// Engine sweeps (sweepBatchText's objects, each with "seq_len" when swept over contexts) as
/// one table, or as CSV (bytes and seconds unformatted).
void printSweeps(std::ostream& out, const nlohmann::json& sweeps, ByteUnits units, bool csv);

}  // namespace dlcost::cli
