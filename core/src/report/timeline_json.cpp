// The memory timeline as JSON (dlcost/report/timeline_json.hpp).

#include "dlcost/report/timeline_json.hpp"

#include "dlcost/report/estimate.hpp"
#include "dlcost/schema/config_json.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

/// Where an event of `phase` runs, "{op}" standing for its op's name.
Text phaseTemplate(TimelinePhase phase) {
  switch (phase) {
    case TimelinePhase::kForward:
      return {"the forward of {op}", "{op} 的前向"};
    case TimelinePhase::kRecompute:
      return {"the recomputed forward of {op}", "{op} 的重算前向"};
    case TimelinePhase::kBackward:
      return {"the backward of {op}", "{op} 的反向"};
    case TimelinePhase::kOptimizerStep:
      break;
  }
  return {"the optimizer step", "优化器步"};
}

std::string filled(std::string text, const std::string& op) {
  const size_t at = text.find("{op}");
  return at == std::string::npos ? text : text.replace(at, 4, op);
}

}  // namespace

Text timelineEventText(const TimelinePoint& point) {
  const Text t = phaseTemplate(point.phase);
  return {filled(t.en, point.op), filled(t.zh, point.op)};
}

json timelineToJson(const MemoryTimeline& timeline) {
  json terms = json::array();
  for (size_t t = 0; t < kTimelineTerms; ++t)
    terms.push_back(timelineTermName(static_cast<TimelineTerm>(t)));
  json points = json::array();
  for (const TimelinePoint& p : timeline.points) {
    // One array per point, in the terms' order: a 1,000-layer step stays a few hundred KB.
    points.push_back({{"op", p.op}, {"phase", timelinePhaseName(p.phase)}, {"bytes", p.bytes}});
  }
  // The words for each phase, "{op}" standing for the event's op (the page names any event).
  json phases = json::object();
  for (TimelinePhase ph : {TimelinePhase::kForward, TimelinePhase::kRecompute,
                           TimelinePhase::kBackward, TimelinePhase::kOptimizerStep}) {
    const Text t = phaseTemplate(ph);
    phases[timelinePhaseName(ph)] = {{"en", t.en}, {"zh", t.zh}};
  }
  json out = {
      {"terms", std::move(terms)}, {"phases", std::move(phases)}, {"points", std::move(points)}};
  if (!timeline.points.empty()) {
    const TimelinePoint& peak = timeline.points[timeline.peak];
    const Text where = timelineEventText(peak);
    out["peak"] = {{"index", timeline.peak},
                   {"op", peak.op},
                   {"phase", timelinePhaseName(peak.phase)},
                   {"total", peak.total()},
                   {"where", {{"en", where.en}, {"zh", where.zh}}}};
  }
  return out;
}

json timelineDocument(const json& document) {
  const Config c = parseConfig(document);
  MemoryTimeline timeline;
  const Report report = estimate(c.model, c.workload, &timeline);
  json out = {{"schema", "dlcost.timeline/1"},
              {"model", c.model.name},
              {"mode", modeName(c.workload.mode)},
              {"batch", c.workload.batch},
              {"memory_total", report.memory.total}};
  out.update(timelineToJson(timeline));
  return out;
}

}  // namespace dlcost
