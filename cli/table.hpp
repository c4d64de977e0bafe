#pragma once
// The human-readable report: a per-layer table, then totals and the memory breakdown.

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dlcost/base/units.hpp"
#include "dlcost/gpu/time_model.hpp"
#include "dlcost/types/report.hpp"

namespace dlcost::cli {

/// `v` with `digits` digits after the point.
std::string fixed(double v, int digits);

/// A time figure with its calibrated range (dlcost/gpu/time_model.hpp, timeRange):
/// "≈ 98.0 (85.1–112.3)" with `digits` digits after the point, `scale` applied to all three.
std::string approx(double v, TimeKind kind, bool rate, int digits, double scale = 1.0);

/// Seconds as "1.23 s", "4.56 ms" or "7.8 us", with the calibrated range of `kind`.
std::string approxSeconds(double s, TimeKind kind);

/// A text table: columns before `left_columns` left-aligned, the rest right-aligned, two spaces
/// between columns, each line after `indent`.
void printTable(std::ostream& out, const std::vector<std::string>& head,
                const std::vector<std::vector<std::string>>& rows, size_t left_columns,
                const std::string& indent = "");

void printReport(std::ostream& out, const Report& report, ByteUnits units);

/// The GPU preset table (gpuTable()'s JSON).
void printGpus(std::ostream& out, const nlohmann::json& table, ByteUnits units);

/// A compareDocument result, one row per GPU.
/// `dlcost layouts`: one row per split, ranked, then the refused splits and why.
void printLayouts(std::ostream& out, const nlohmann::json& result, ByteUnits units);

/// `dlcost links`: the link table and the list prices.
void printLinks(std::ostream& out, const nlohmann::json& links, const nlohmann::json& prices);

void printCompare(std::ostream& out, const nlohmann::json& result, ByteUnits units);

/// Engine sweeps (sweepBatchText's objects, each with "seq_len" when swept over contexts) as
/// one table, or as CSV (bytes and seconds unformatted).
void printSweeps(std::ostream& out, const nlohmann::json& sweeps, ByteUnits units, bool csv);

}  // namespace dlcost::cli
