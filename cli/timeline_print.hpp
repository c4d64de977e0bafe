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

/// After printTimeline, for `--measured`: the measured peak beside the predicted one, their
/// difference, the reserved bytes and what is not modelled (measured_json.hpp's document).
void printMeasured(std::ostream& out, const nlohmann::json& doc, ByteUnits units);

/// The measured curve as CSV: `point,event,time_us,active_bytes` (measuredToJson's "measured").
void printMeasuredCsv(std::ostream& out, const nlohmann::json& measured);

}  // namespace dlcost::cli
