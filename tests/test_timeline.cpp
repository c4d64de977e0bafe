// The memory timeline (types/timeline.hpp): its peak against the report's peak on every
// preset, and its shape (one point per op event, recomputation as forward re-runs).
//
// The events follow the activation simulation (core/src/graph/activation_memory.cpp) and
// the transformer's backward candidates (core/src/transformer/transformer_estimate.cpp),
// which cite the PyTorch behaviour they model; docs/timeline.md lists the events.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "dlcost/base/error.hpp"
#include "dlcost/report/estimate.hpp"
#include "dlcost/report/timeline_json.hpp"
#include "dlcost/schema/config_json.hpp"
#include "dlcost/schema/presets.hpp"

namespace {

using namespace dlcost;
using nlohmann::json;

struct Run {
  Report report;
  MemoryTimeline timeline;
};

Run runWithTimeline(const json& doc) {
  const Config c = parseConfig(doc);
  Run r;
  r.report = estimate(c.model, c.workload, &r.timeline);
  return r;
}

}  // namespace

TEST_CASE("the timeline's peak equals the report's peak on every preset", "[timeline]") {
  // The figure checked is the engine's own (Report::memory.total): the timeline must
  // reproduce it byte for byte, whatever the model and mode.
  const std::string mode = GENERATE("train", "infer");
  const json zero = GENERATE(json("set_to_none"), json("zero"));
  int checked = 0;
  for (const PresetInfo& p : presetList()) {
    CAPTURE(p.name, mode, zero);
    const json doc = {{"model", {{"preset", p.name}}},
                      {"workload", {{"mode", mode}, {"zero_grad", zero}}}};
    Run r;
    try {
      r = runWithTimeline(doc);
    } catch (const InputError& e) {
      // A preset that cannot run this mode (inference-only checkpoints) has no report.
      CAPTURE(e.what());
      CHECK(mode == "train");
      continue;
    }
    REQUIRE(!r.timeline.points.empty());
    const TimelinePoint& peak = r.timeline.points[r.timeline.peak];
    CHECK(peak.total() == r.report.memory.total);
    for (const TimelinePoint& point : r.timeline.points) {
      CAPTURE(point.op);
      CHECK(point.total() <= peak.total());
      for (int64_t bytes : point.bytes) CHECK(bytes >= 0);
    }
    ++checked;
  }
  CHECK(checked > 0);
}

TEST_CASE("a layer graph's timeline has one point per op event", "[timeline]") {
  // resnet18: 1 input + n forward layers, n backward layers, 1 optimizer step.
  const Run r = runWithTimeline(
      json{{"model", {{"preset", "resnet18"}}}, {"workload", {{"mode", "train"}, {"batch", 32}}}});
  const size_t n = r.report.layers.size() - 1;
  REQUIRE(r.timeline.points.size() == 2 * n + 2);
  CHECK(r.timeline.points.front().op == "input");
  CHECK(r.timeline.points.back().phase == TimelinePhase::kOptimizerStep);
  const TimelinePoint& peak = r.timeline.points[r.timeline.peak];
  CHECK(peak.phase != TimelinePhase::kOptimizerStep);
  CHECK(peak.total() == r.report.memory.total);
  const Run infer =
      runWithTimeline(json{{"model", {{"preset", "resnet18"}}}, {"workload", {{"mode", "infer"}}}});
  CHECK(infer.timeline.points.size() == n + 1);
}

TEST_CASE("recomputation shows as a forward re-run before each layer's backward", "[timeline]") {
  const Run r = runWithTimeline(json{{"model", {{"preset", "gpt2"}}},
                                     {"workload", {{"mode", "train"}, {"recompute", "full"}}}});
  int reruns = 0;
  for (size_t k = 0; k + 1 < r.timeline.points.size(); ++k) {
    if (r.timeline.points[k].phase != TimelinePhase::kRecompute) continue;
    ++reruns;
    CHECK(r.timeline.points[k + 1].phase == TimelinePhase::kBackward);
    CHECK(r.timeline.points[k + 1].op == r.timeline.points[k].op);
  }
  CHECK(reruns == 12);  // GPT-2 small: 12 layers (config.json n_layer)
  CHECK(r.timeline.points[r.timeline.peak].total() == r.report.memory.total);
}

TEST_CASE("the timeline document: its peak named, equal to the report's total", "[timeline]") {
  // `dlcost timeline --json` and the wasm module's timeline(): schema dlcost.timeline/1.
  const json doc = timelineDocument(
      {{"model", {{"preset", "resnet18"}}}, {"workload", {{"batch", 8}, {"optimizer", "sgd"}}}});
  CHECK(doc["schema"] == "dlcost.timeline/1");
  CHECK(doc["terms"].size() == kTimelineTerms);
  const json& peak = doc["peak"];
  CHECK(peak["total"] == doc["memory_total"]);
  const json& at = doc["points"][peak["index"].get<size_t>()];
  int64_t sum = 0;
  for (const json& b : at["bytes"]) sum += b.get<int64_t>();
  CHECK(sum == peak["total"].get<int64_t>());
  CHECK(peak["where"]["en"] ==
        "the " + at["phase"].get<std::string>() + " of " + at["op"].get<std::string>());
  CHECK(doc["points"].back()["phase"] == "optimizer_step");
  CHECK(timelineEventText(TimelinePoint{"optimizer", TimelinePhase::kOptimizerStep, {}}).zh ==
        "优化器步");
}
