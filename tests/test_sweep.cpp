// The batch sweep behind the page's memory-vs-batch chart: each point must equal a full
// estimate at that batch (the sweep is the report's own fixed + batch x per_sample line).

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "dlcost/api.hpp"
#include "dlcost/presets.hpp"

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
    CHECK(sweep["max_batch"] == at3["max_batch"]);
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
    const int64_t max_batch = both["report"]["max_batch"].get<int64_t>();
    if (max_batch >= 1) {
      CHECK(std::count(seen.begin(), seen.end(), max_batch) == 1);
      CHECK(seen.back() > max_batch);
    }
  }
}
