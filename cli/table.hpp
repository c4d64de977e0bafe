#pragma once
// The human-readable report: a per-layer table, then totals and the memory breakdown.

#include <ostream>

#include "dlcost/report.hpp"
#include "dlcost/units.hpp"

namespace dlcost::cli {

void printReport(std::ostream& out, const Report& report, ByteUnits units);

}  // namespace dlcost::cli
