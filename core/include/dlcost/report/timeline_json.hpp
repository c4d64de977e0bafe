#pragma once
// The memory timeline as JSON (schema "dlcost.timeline/1"): the live-bytes curve of the step
// an estimate simulated (types/timeline.hpp), for `dlcost timeline`, the wasm module and the
// page's chart. docs/timeline.md describes the events and the format.

#include <nlohmann/json.hpp>

#include "dlcost/base/text.hpp"
#include "dlcost/types/timeline.hpp"

namespace dlcost {

/// Where an event runs, in words: "the backward of layer4.1.conv2" / "layer4.1.conv2 的反向",
/// "the optimizer step" / "优化器步".
Text timelineEventText(const TimelinePoint& point);

/// `{"terms": [names, bottom first], "phases": {phase: {"en", "zh"}} (the words for where an
/// event runs, "{op}" standing for its op), "points": [{"op", "phase", "bytes": [one per term]}],
/// "peak": {"index", "op", "phase", "total", "where": {"en", "zh"}}}`; bytes are exact integers.
nlohmann::json timelineToJson(const MemoryTimeline& timeline);

/// The document's step simulated with its timeline: `{"schema": "dlcost.timeline/1", "model",
/// "mode", "batch", "memory_total"` (the report's total, equal to the peak's), then
/// timelineToJson's fields. Throws InputError for a bad document, as estimate does.
nlohmann::json timelineDocument(const nlohmann::json& document);

}  // namespace dlcost
