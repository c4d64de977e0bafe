// The batch sweep behind the page's memory-vs-batch chart: each point must equal a full
// estimate at that batch (the sweep is the report's own fixed + batch x per_sample line).

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "dlcost/api.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/explore/sweep.hpp"
#include "dlcost/report/estimate.hpp"
#include "dlcost/schema/config_json.hpp"
#include "dlcost/schema/presets.hpp"

#include <algorithm>

using nlohmann::json;

namespace {

json presetDocument(const std::string& name, const std::string& mode, int64_t batch) {
  return {{"model", {{"preset", name}}},
          {"workload", {{"mode", mode}, {"batch", batch}, {"memory_gib", 16}}}};
}

}  // namespace

TEST_CASE("every sweep point equals a full estimate at that batch", "[sweep]") {
  const std::string mode = GENERATE("train", "infer");
  const std::vector<int64_t> batches = {1, 2, 7, 64, 1000};
  for (const auto& preset : dlcost::presetList()) {
    CAPTURE(preset.name, mode);
    const json sweep = json::parse(
        dlcost::sweepBatchText(presetDocument(preset.name, mode, 3).dump(), json(batches).dump()));
    REQUIRE_FALSE(sweep.contains("error"));
    REQUIRE(sweep["points"].size() == batches.size());
    for (size_t i = 0; i < batches.size(); ++i) {
      CAPTURE(batches[i]);
      const json report = dlcost::estimateDocument(presetDocument(preset.name, mode, batches[i]));
      CHECK(sweep["points"][i]["batch"] == batches[i]);
      CHECK(sweep["points"][i]["total"] == report["memory"]["total"]);
      CHECK(sweep["points"][i]["fits"] ==
            (report["memory"]["total"].get<int64_t>() <= report["workload"]["memory_bytes"]));
    }
    const json at3 = dlcost::estimateDocument(presetDocument(preset.name, mode, 3));
    CHECK(sweep["max_batch"] == at3["memory_fit"]["max_batch"]);
    CHECK(sweep["fixed"] == at3["memory"]["fixed"]);
  }
}

TEST_CASE("a sweep names the bad batch entry or the bad document field", "[sweep][errors]") {
  struct Case {
    std::string document, batches, code, path;
  };
  const std::string good = R"({"model":{"preset":"alexnet"}})";
  const Case c = GENERATE_COPY(values<Case>({
      {good, "[1, 0, 4]", "value", "/batches/1"},
      {good, "[1, 2.5]", "type", "/batches/1"},
      {good, "[]", "value", "/batches"},
      {good, "{\"b\": 1}", "type", "/batches"},
      {good, "[1, 10000000000000000000]", "too_large", "/batches/1"},
      {good, "[1,", "parse", ""},
      {R"({"model":{"preset":"alexnet"},"workload":{"batch":0}})", "[1]", "value",
       "/workload/batch"},
  }));
  CAPTURE(c.document, c.batches);
  const json out = json::parse(dlcost::sweepBatchText(c.document, c.batches));
  REQUIRE(out.contains("error"));
  CHECK(out["error"]["code"] == c.code);
  CHECK(out["error"]["path"] == c.path);
  CHECK_FALSE(out["error"]["message"].get<std::string>().empty());
}

TEST_CASE("a sweep refuses a total that overflows 64 bits", "[sweep][errors]") {
  const json out = json::parse(
      dlcost::sweepBatchText(R"({"model":{"preset":"alexnet"}})", "[1, 4000000000000000000]"));
  REQUIRE(out.contains("error"));
  CHECK(out["error"]["code"] == "too_large");
  CHECK(out["error"]["path"] == "/batches/1");
}

TEST_CASE("presetText returns the model document or a structured error", "[sweep][presets]") {
  for (const auto& preset : dlcost::presetList()) {
    CAPTURE(preset.name);
    const json doc = json::parse(dlcost::presetText(preset.name));
    CHECK(doc == json::parse(dlcost::presetJson(preset.name)));
    // The document estimates as a model of its own (what the page's editor sends back).
    CHECK_NOTHROW(dlcost::estimateDocument({{"model", doc}}));
  }
  const json missing = json::parse(dlcost::presetText("no-such-model"));
  CHECK(missing["error"]["path"] == "/model/preset");
  CHECK(dlcost::presetListJson().size() == dlcost::presetList().size());
}

TEST_CASE("chart batches span past the largest batch that fits and include the marked ones",
          "[sweep]") {
  // GENERATE outside the loop: Catch2 re-runs the test case per generated value.
  const int64_t batch = GENERATE(1, 7, 256);
  const double gib = GENERATE(0.5, 16.0, 80.0);
  for (const auto& preset : dlcost::presetList()) {
    CAPTURE(preset.name, batch, gib);
    const json doc = {{"model", {{"preset", preset.name}}},
                      {"workload", {{"batch", batch}, {"memory_gib", gib}}}};
    const json both = json::parse(dlcost::estimateWithSweepText(doc.dump(), 25));
    REQUIRE_FALSE(both.contains("error"));
    // The report part is exactly what estimate returns for the same document.
    CHECK(both["report"] == json::parse(dlcost::estimateText(doc.dump())));
    std::vector<int64_t> seen;
    for (const json& p : both["sweep"]["points"]) seen.push_back(p["batch"].get<int64_t>());
    CHECK(std::is_sorted(seen.begin(), seen.end()));
    CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
    CHECK(seen.front() == 1);
    CHECK(std::count(seen.begin(), seen.end(), batch) == 1);
    CHECK(seen.back() >= 2 * batch);
    const int64_t max_batch = both["report"]["memory_fit"]["max_batch"].get<int64_t>();
    if (max_batch >= 1) {
      CHECK(std::count(seen.begin(), seen.end(), max_batch) == 1);
      CHECK(seen.back() > max_batch);
    }
  }
}

namespace {

/// The preset estimated on H100s under `layout`, advisor off (its re-estimates are not what
/// this checks). Throws InputError where the layout does not suit the model.
dlcost::Report onGpus(const std::string& preset, const json& layout, int64_t batch) {
  json workload = {{"mode", "train"}, {"dtype", "mixed"}, {"batch", batch}, {"gpu", "h100-sxm"}};
  workload.update(layout);
  dlcost::Config c = dlcost::parseConfig({{"model", {{"preset", preset}}}, {"workload", workload}});
  return dlcost::estimate(c.model, c.workload);
}

}  // namespace

TEST_CASE("with a GPU layout the sweep is per GPU and agrees with the report's fit",
          "[sweep][gpu][property]") {
  // Over every preset x {one GPU, 8 GPUs ZeRO-1/2/3, TP 2, PP 2}: at the report's batch the
  // sweep point is the per-GPU total, and every point fits exactly when its batch is at most
  // the report's max_batch (so max_batch fits and max_batch + 1 does not).
  const json layouts[] = {json::object(),
                          {{"gpus", 8}, {"zero", 1}},
                          {{"gpus", 8}, {"zero", 2}},
                          {{"gpus", 8}, {"zero", 3}},
                          {{"gpus", 2}, {"tp", 2}},
                          {{"gpus", 2}, {"pp", 2}}};
  int checked = 0;
  for (const auto& preset : dlcost::presetList()) {
    for (const json& layout : layouts) {
      CAPTURE(preset.name, layout.dump());
      dlcost::Report r;
      try {
        r = onGpus(preset.name, layout, 8);
      } catch (const dlcost::InputError&) {
        continue;  // e.g. tp 2 does not divide a layer's channels
      }
      REQUIRE(r.gpu_fit);
      const dlcost::GpuFit& f = *r.gpu_fit;
      const int64_t m = f.max_batch;
      std::vector<int64_t> batches = {1, 8, std::max<int64_t>(m, 1), m + 1};
      if (m > 1) batches.push_back(m - 1);
      const dlcost::BatchSweep s = dlcost::sweepBatch(r, batches);
      CHECK(s.per_gpu);
      CHECK(s.max_batch == m);
      CHECK(s.points[1].total == f.per_gpu.total);
      CHECK(s.points[1].fits == f.fits);
      for (const dlcost::BatchPoint& p : s.points) {
        CAPTURE(p.batch);
        CHECK(*p.fits == (p.batch <= m));
      }
      if (m >= 1) {
        // The report at max_batch fits (estimated there, not extrapolated).
        const dlcost::Report at_max = onGpus(preset.name, layout, m);
        CHECK(at_max.gpu_fit->fits);
        CHECK(at_max.gpu_fit->per_gpu.total == s.points[2].total);
      }
      ++checked;
    }
  }
  CHECK(checked > 100);
}

TEST_CASE(
    "llama-2-7b on 8 H100s with ZeRO-3 and full recomputation: the sweep fits where "
    "the report does",
    "[sweep][gpu]") {
  // The case of issue 13: the report said fits with max batch 408 while the sweep compared
  // whole-model totals (118-626 GB) with one GPU's memory and marked 8, 64 and 408 as not
  // fitting.
  const json doc = {{"model", {{"preset", "llama-2-7b"}}},
                    {"workload",
                     {{"mode", "train"},
                      {"dtype", "mixed"},
                      {"batch", 8},
                      {"recompute", "full"},
                      {"gpu", "h100-sxm"},
                      {"gpus", 8},
                      {"zero", 3}}}};
  const json both = json::parse(dlcost::estimateWithSweepText(doc.dump(), 25));
  REQUIRE_FALSE(both.contains("error"));
  const json& fit = both["report"]["gpu_fit"];
  CHECK(fit["fits"] == true);
  const int64_t max_batch = fit["max_batch"].get<int64_t>();
  CHECK(max_batch > 64);
  CHECK(both["sweep"]["per_gpu"] == true);
  CHECK(both["sweep"]["max_batch"] == max_batch);
  for (const json& p : both["sweep"]["points"]) {
    CAPTURE(p.dump());
    CHECK(p["fits"] == (p["batch"].get<int64_t>() <= max_batch));
    if (p["batch"] == 8) CHECK(p["total"] == fit["per_gpu"]["total"]);
  }
}

TEST_CASE("the throughput sweep picks its batches and marks where throughput saturates",
          "[sweep][gpu]") {
  const json doc = {{"model", {{"preset", "resnet50"}}},
                    {"workload", {{"batch", 32}, {"dtype", "mixed"}, {"gpu", "a100-sxm4-80gb"}}}};
  const json sweep = json::parse(dlcost::sweepThroughputText(doc.dump(), "null"));
  REQUIRE_FALSE(sweep.contains("error"));
  const int64_t max_batch = sweep["max_batch"].get<int64_t>();
  double best = 0;
  bool has_max = false, has_batch = false;
  for (const json& p : sweep["points"]) {
    has_max = has_max || p["batch"] == max_batch;
    has_batch = has_batch || p["batch"] == 32;
    if (p["fits"].get<bool>()) best = std::max(best, p["samples_per_s"].get<double>());
  }
  CHECK(has_max);
  CHECK(has_batch);
  CHECK(sweep["points"].back()["batch"].get<int64_t>() > max_batch);
  // The saturation point: the smallest fitting batch at 90 % of the best throughput.
  REQUIRE(sweep.contains("saturation"));
  CHECK(sweep["saturation"]["share"] == dlcost::kSaturationShare);
  const int64_t sat = sweep["saturation"]["batch"].get<int64_t>();
  for (const json& p : sweep["points"]) {
    if (!p["fits"].get<bool>()) continue;
    const bool reaches = p["samples_per_s"].get<double>() >= dlcost::kSaturationShare * best;
    if (p["batch"].get<int64_t>() < sat) CHECK_FALSE(reaches);
    if (p["batch"] == sat) CHECK(reaches);
  }
}
