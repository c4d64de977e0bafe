// The report's JSON text is written directly (core/src/json_writer.hpp), not through
// nlohmann::json: these checks hold it to what nlohmann::json's dump() prints for the same
// values, byte for byte, so the page, the CLI and the golden files read one format.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "dlcost/report/report_json.hpp"
#include "dlcost/schema/presets.hpp"
#include "support.hpp"
#include "types/json_writer.hpp"

namespace {

using dlcost::JsonArray;
using dlcost::JsonObject;
using nlohmann::json;

template <typename T>
std::string written(const T& value) {
  std::string out;
  dlcost::appendJson(out, value);
  return out;
}

std::string dumped(const json& value) {
  return dlcost::dumpJson(value);
}

}  // namespace

TEST_CASE("values are written as nlohmann::json's dump() prints them", "[json_writer]") {
  SECTION("doubles: shortest round trip, integral ones with .0, non-finite as null") {
    for (const double d :
         {0.0, -0.0, 1.0, 0.1, 1.0 / 3.0, 1e-5, 1.5e-7, 123456789.125, 1e15, 1e16, 1e17, 2.5e300,
          -4.9e-324, 6.02214076e23, std::numeric_limits<double>::max(),
          std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
      INFO(d);
      CHECK(written(d) == dumped(json(d)));
    }
  }
  SECTION("integers, signed and unsigned, and booleans") {
    for (const int64_t i :
         {int64_t{0}, int64_t{-1}, int64_t{42}, std::numeric_limits<int64_t>::min(),
          std::numeric_limits<int64_t>::max()}) {
      CHECK(written(i) == dumped(json(i)));
    }
    CHECK(written(std::numeric_limits<uint64_t>::max()) ==
          dumped(json(std::numeric_limits<uint64_t>::max())));
    CHECK(written(7) == "7");
    CHECK(written(true) == "true");
    CHECK(written(false) == "false");
  }
  SECTION("strings: escapes, UTF-8 kept, invalid UTF-8 replaced") {
    for (const std::string s :
         {std::string(""), std::string("plain ascii"), std::string("quote \" and \\ slash"),
          std::string("tab\there\nnewline \x01 \x1f \x7f"), std::string("显存 (GiB)"),
          std::string("bad \xff\xfe utf-8"), std::string("cut \xe6\x98"),
          std::string("nul \0 inside", 12)}) {
      INFO(s);
      CHECK(written(s) == dumped(json(s)));
    }
  }
  SECTION("optionals, vectors, null") {
    CHECK(written(std::optional<double>()) == "null");
    CHECK(written(std::optional<double>(2.5)) == "2.5");
    CHECK(written(std::vector<std::string>{"a", "b"}) == R"(["a","b"])");
    CHECK(written(std::vector<int64_t>{}) == "[]");
    CHECK(written(nullptr) == "null");
  }
}

TEST_CASE("objects are written with their keys sorted, as nlohmann::json's map keeps them",
          "[json_writer]") {
  JsonObject inner;
  inner.add("z", 1).add("a", JsonArray().push(1).push("two").push(JsonObject()));
  JsonObject outer;
  outer.add("units", "bytes")
      .add("inner", inner)
      .add("a_b", 1.5)
      .add("a", true)
      .add("empty", JsonObject())
      .add("none", JsonArray())
      .add("doc", json{{"y", 1}, {"x", {1, 2}}});
  const std::string text = outer.str();
  CHECK(text == dumped(json::parse(text)));
  CHECK(
      text ==
      R"({"a":true,"a_b":1.5,"doc":{"x":[1,2],"y":1},"empty":{},"inner":{"a":[1,"two",{}],"z":1},"none":[],"units":"bytes"})");
}

TEST_CASE("every preset's report text is what dump() prints for the same report", "[json_writer]") {
  // Workloads that reach every part of the report: training and inference, a multi-GPU
  // run with its network and cost, advice on a GPU too small, a memory size, serving engines.
  const std::vector<json> workloads = {
      json::object(),
      {{"mode", "infer"}},
      {{"gpu", "h100-sxm"},
       {"gpus", 64},
       {"gpus_per_node", 8},
       {"batch", 64},
       {"zero", 3},
       {"tokens", 1e9}},
      {{"gpu", "rtx-4090"}, {"batch", 512}},
      {{"memory_gib", 8}},
      {{"mode", "infer"}, {"engine", "vllm"}, {"gpu", "a100-sxm4-80gb"}},
      {{"mode", "infer"}, {"engine", "llama.cpp"}, {"gpu", "rtx-4090"}},
  };
  for (const dlcost::PresetInfo& p : dlcost::presetList()) {
    for (const json& w : workloads) {
      const std::string doc = json{{"model", {{"preset", p.name}}}, {"workload", w}}.dump();
      INFO(doc);
      const std::string text = dlcost::estimateText(doc);
      CHECK(text == dumped(json::parse(text)));
    }
  }
}
