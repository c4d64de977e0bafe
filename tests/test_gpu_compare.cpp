// Every preset GPU for one workload, price/performance, and sorting.
#include <catch2/catch.hpp>

#include "dlcost/api.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/explore/compare.hpp"
#include "dlcost/gpu/gpu_compute.hpp"
#include "dlcost/gpu/gpu_table.hpp"
#include "dlcost/report/estimate.hpp"
#include "dlcost/schema/config_json.hpp"

using Catch::Matchers::WithinRel;
using nlohmann::json;

namespace {

constexpr double kFloatTolerance = 1e-12;

const json kDoc = {{"model", {{"preset", "alexnet"}}},
                   {"workload", {{"batch", 128}, {"dtype", "mixed"}}}};

}  // namespace

TEST_CASE("compare has one row per preset, each equal to estimating on that GPU",
          "[gpu][compare]") {
  const dlcost::Config c = dlcost::parseConfig(kDoc);
  std::vector<dlcost::Error> skipped;
  const auto rows = dlcost::compareGpus(c.model, c.workload, &skipped);
  // A preset with no published compute rate (Apple M2 Pro/Max, M3 and M4: five M3/M4 rows, the
  // 32-core M4 Max, the M2 Pro and the M2 Max) has no speed to rank: skipped, named.
  size_t unpublished = 0;
  for (const dlcost::Gpu& g : dlcost::gpuPresets())
    unpublished += dlcost::gpuComputePublished(g) ? 0 : 1;
  CHECK(unpublished == 8);
  CHECK(skipped.size() == unpublished);
  for (const dlcost::Error& e : skipped) CHECK(e.path == "/workload/gpu");
  REQUIRE(rows.size() == dlcost::gpuPresets().size() - unpublished);
  for (const auto& row : rows) {
    CAPTURE(row.gpu.id);
    dlcost::Workload w = c.workload;
    w.hardware.gpu = row.gpu;
    const auto f = *dlcost::estimate(c.model, w).gpu_fit;
    CHECK(row.fits == f.fits);
    CHECK(row.max_batch == f.max_batch);
    CHECK(row.step_time_s == f.time.step_s);
  }
}

TEST_CASE("price/performance divides throughput by the GPUs' launch price and TDP",
          "[gpu][compare]") {
  // Per device: a K80 board ($5000, 300 W) holds two GPUs, so one GPU costs $2500 and 150 W.
  const char* id = GENERATE("rtx-4090", "tesla-k80");
  CAPTURE(id);
  json d = kDoc;
  d["workload"]["gpu"] = id;
  d["workload"]["gpus"] = 2;
  const dlcost::Config c = dlcost::parseConfig(d);
  const auto f = *dlcost::estimate(c.model, c.workload).gpu_fit;
  const dlcost::Gpu& g = *dlcost::findGpu(id);
  const double gpus = 2.0 / g.devices_per_board;  // boards used
  REQUIRE(f.samples_per_s_per_1000usd);
  CHECK_THAT(*f.samples_per_s_per_1000usd,
             WithinRel(f.time.samples_per_s / (g.price_usd * gpus / 1000.0), kFloatTolerance));
  CHECK_THAT(f.samples_per_s_per_watt,
             WithinRel(f.time.samples_per_s / (g.tdp_watts * gpus), kFloatTolerance));
}

TEST_CASE("compare sorts fitting rows first, best first, and refuses unknown fields",
          "[gpu][compare]") {
  const char* field = GENERATE("samples_per_s", "step_time", "per_watt", "max_batch", "name");
  CAPTURE(field);
  const json out = dlcost::compareDocument(kDoc, field);
  const json& rows = out["rows"];
  for (size_t i = 1; i < rows.size(); ++i) {
    CAPTURE(i);
    const json &a = rows[i - 1], &b = rows[i];
    if (std::string(field) == "name") {
      CHECK(a["gpu"].get<std::string>() < b["gpu"].get<std::string>());
      continue;
    }
    CHECK((a["fits"].get<bool>() || !b["fits"].get<bool>()));
    if (a["fits"] != b["fits"]) continue;
    if (std::string(field) == "samples_per_s") CHECK(a["samples_per_s"] >= b["samples_per_s"]);
    if (std::string(field) == "step_time") CHECK(a["step_time_s"] <= b["step_time_s"]);
    if (std::string(field) == "per_watt")
      CHECK(a["samples_per_s_per_watt"] >= b["samples_per_s_per_watt"]);
    if (std::string(field) == "max_batch") CHECK(a["max_batch"] >= b["max_batch"]);
  }
  try {
    dlcost::compareDocument(kDoc, "speed");
    FAIL("an unknown sort field was accepted");
  } catch (const dlcost::InputError& e) {
    CHECK(e.error().path == "/sort");
  }
}

TEST_CASE("compare orders by a column's own value with :asc and :desc (the page's column sort)",
          "[gpu][compare]") {
  struct Case {
    const char* spec;
    const char* column;  // the row field the order follows
    bool ascending;
  };
  const Case c = GENERATE(
      Case{"step_time:asc", "step_time_s", true}, Case{"step_time:desc", "step_time_s", false},
      Case{"per_gpu_memory:asc", "per_gpu_bytes", true}, Case{"max_batch:desc", "max_batch", false},
      Case{"per_1000usd:desc", "samples_per_s_per_1000usd", false},
      Case{"per_1000usd:asc", "samples_per_s_per_1000usd", true});
  CAPTURE(c.spec);
  const json out = dlcost::compareDocument(kDoc, c.spec);
  CHECK(out["sort"] == c.spec);
  const json& rows = out["rows"];
  bool seen_absent = false;
  for (size_t i = 1; i < rows.size(); ++i) {
    CAPTURE(i);
    const json &a = rows[i - 1][c.column], &b = rows[i][c.column];
    if (a.is_null()) seen_absent = true;
    if (seen_absent) {
      CHECK(b.is_null());  // rows without a value (no launch price) stay last
      continue;
    }
    if (b.is_null()) continue;
    CHECK((c.ascending ? a.get<double>() <= b.get<double>() : a.get<double>() >= b.get<double>()));
  }
  SECTION("a bad direction names the field") {
    try {
      dlcost::compareDocument(kDoc, "step_time:up");
      FAIL("an unknown direction was accepted");
    } catch (const dlcost::InputError& e) {
      CHECK(e.error().path == "/sort");
      CHECK(e.error().message.find("asc or desc") != std::string::npos);
    }
  }
}

TEST_CASE("the best buy is the fitting GPU with the most samples/s per 1000 USD",
          "[gpu][compare]") {
  const json result = dlcost::compareDocument(kDoc, "name");
  REQUIRE(result["best_buy"].is_string());
  double best = 0;
  std::string best_id;
  for (const json& row : result["rows"]) {
    if (!row["fits"].get<bool>() || row["samples_per_s_per_1000usd"].is_null()) continue;
    const double v = row["samples_per_s_per_1000usd"].get<double>();
    if (v > best) best = v, best_id = row["gpu"].get<std::string>();
  }
  CHECK(result["best_buy"] == best_id);
}
