#pragma once
// `dlcost timeline` as text or CSV: the live-bytes curve of the simulated step, one line per
// op event, stacked by term, the peak named. Every figure is the engine's (timelineDocument).

#include <ostream>

#include <nlohmann/json.hpp>

#include "dlcost/base/units.hpp"

namespace dlcost::cli {

/// The peak line, then a table: index, phase, op, total and each term that is ever non-zero.
void printTimeline(std::ostream& out, const nlohmann::json& doc, ByteUnits units);

/// index,phase,op,<every term>,total, in bytes.
void printTimelineCsv(std::ostream& out, const nlohmann::json& doc);

}  // namespace dlcost::cli
