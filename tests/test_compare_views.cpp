// The engine calls behind the page's comparison views: the presets' published metrics, one
// estimate per preset for the model chart, and throughput per batch for the batch chart.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

#include "dlcost/api.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/schema/presets.hpp"

using nlohmann::json;

namespace {

const json* rowNamed(const json& rows, const std::string& name) {
  for (const json& r : rows) {
    if (r["name"] == name) return &r;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("the preset list carries each CNN's ImageNet top-1 with its source",
          "[presets][metrics]") {
  // torchvision's weights metadata, acc@1 of IMAGENET1K_V1 (torchvision/models/*.py, e.g.
  // ResNet50_Weights.IMAGENET1K_V1 "acc@1": 76.13, AlexNet_Weights 56.522); MobileNet v1 from
  // Howard et al. 2017 (arXiv:1704.04861), Table 8: 1.0 MobileNet-224, 70.6 %.
  const auto [name, top1] = GENERATE(table<std::string, double>({{"resnet50", 76.13},
                                                                 {"alexnet", 56.522},
                                                                 {"vgg16", 71.592},
                                                                 {"efficientnet_b0", 77.692},
                                                                 {"mobilenet_v3_small", 67.668},
                                                                 {"mobilenet_v1", 70.6}}));
  CAPTURE(name);
  const json list = dlcost::presetListJson();
  const json* p = rowNamed(list, name);
  REQUIRE(p);
  REQUIRE(p->contains("metrics"));
  CHECK((*p)["metrics"]["imagenet_top1"].get<double>() == Approx(top1).epsilon(0));
  CHECK_FALSE((*p)["metrics"]["source"].get<std::string>().empty());
}

TEST_CASE("the preset list's metrics, cut out at build time, are the documents' own",
          "[presets][metrics]") {
  const json list = dlcost::presetListJson();
  for (const dlcost::PresetInfo& info : dlcost::presetList()) {
    CAPTURE(info.name);
    const json doc = json::parse(dlcost::presetText(info.name));
    const json* p = rowNamed(list, info.name);
    REQUIRE(p);
    CHECK(p->contains("metrics") == doc.contains("metrics"));
    if (doc.contains("metrics")) CHECK((*p)["metrics"] == doc["metrics"]);
  }
}

TEST_CASE("a model's metrics do not change its estimate", "[presets][metrics]") {
  json model = json::parse(dlcost::presetText("resnet18"));
  REQUIRE(model.contains("metrics"));
  const json with = dlcost::estimateDocument({{"model", model}});
  model.erase("metrics");
  const json without = dlcost::estimateDocument({{"model", model}});
  CHECK(with["memory"] == without["memory"]);
  CHECK(with["params"] == without["params"]);
}

TEST_CASE("comparePresets gives each preset of a family the figures of its own estimate",
          "[compare][presets]") {
  const std::string family = GENERATE("cnn", "hf");
  const json workload =
      family == "cnn" ? json{{"batch", 8}} : json{{"batch", 1}, {"mode", "infer"}};
  const json out = dlcost::comparePresetsDocument({{"family", family}, {"workload", workload}});
  size_t expected = 0;
  for (const auto& p : dlcost::presetList()) expected += p.family == family;
  REQUIRE(out["rows"].size() == expected);
  for (const json& row : out["rows"]) {
    CAPTURE(row["name"]);
    CHECK(row["family"] == family);
    if (row.contains("error")) continue;
    const json report =
        dlcost::estimateDocument({{"model", {{"preset", row["name"]}}}, {"workload", workload}});
    CHECK(row["params"] == report["params"]["total"]);
    CHECK(row["macs_forward"] == report["macs"]["forward"]);
    CHECK(row["memory_total"] == report["memory"]["total"]);
  }
}

TEST_CASE("comparePresets names a bad request field", "[compare][errors]") {
  const auto [doc, path] = GENERATE(table<json, std::string>({
      {json{{"family", 3}}, "/family"},
      {json{{"familly", "cnn"}}, "/familly"},
  }));
  CAPTURE(doc.dump());
  try {
    dlcost::comparePresetsDocument(doc);
    FAIL("no error");
  } catch (const dlcost::InputError& e) {
    CHECK(e.error().path == path);
  }
}

TEST_CASE("with a GPU the throughput sweep carries each batch's rate from a full estimate",
          "[sweep][compare]") {
  const json doc = {{"model", {{"preset", "resnet50"}}},
                    {"workload", {{"batch", 32}, {"gpu", "a100-sxm4-80gb"}}}};
  const json sweep =
      json::parse(dlcost::sweepThroughputText(doc.dump(), "[1, 2, 8, 32, 128, 512, 2048]"));
  REQUIRE_FALSE(sweep.contains("error"));
  const json& points = sweep["points"];
  REQUIRE(points.size() == 7);
  double best = 0;
  for (const json& p : points) {
    CAPTURE(p.dump());
    REQUIRE(p.contains("samples_per_s"));
    json at = doc;
    at["workload"]["batch"] = p["batch"];
    const json report = dlcost::estimateDocument(at);
    CHECK(p["samples_per_s"].get<double>() ==
          Approx(report["gpu_fit"]["samples_per_s"].get<double>()));
    CHECK(p["step_time_s"].get<double>() == Approx(report["gpu_fit"]["step_time_s"].get<double>()));
    best = std::max(best, p["samples_per_s"].get<double>());
  }
  // A step reads every weight once whatever the batch, so one sample is far from the best rate.
  CHECK(points[0]["batch"] == 1);
  CHECK(points[0]["samples_per_s"].get<double>() < best);
}

TEST_CASE("without a GPU the sweep has no throughput", "[sweep]") {
  const json doc = {{"model", {{"preset", "resnet18"}}}, {"workload", {{"memory_gib", 16}}}};
  const json sweep = json::parse(dlcost::sweepThroughputText(doc.dump(), "[1, 4, 64]"));
  REQUIRE_FALSE(sweep.contains("error"));
  for (const json& p : sweep["points"]) CHECK_FALSE(p.contains("samples_per_s"));
}
