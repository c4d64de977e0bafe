// The workload schema drives the workload reader, the writer and the text rule for numbers
// that the CLI and the page share. No figures here: only what is accepted and how it is named.

#include <catch2/catch.hpp>

#include "dlcost/base/error.hpp"
#include "dlcost/base/units.hpp"
#include "dlcost/base/units_json.hpp"
#include "dlcost/schema/workload_json.hpp"
#include "dlcost/schema/workload_schema.hpp"

using dlcost::ErrorCode;
using dlcost::FieldType;
using dlcost::InputError;
using dlcost::WorkloadField;
using nlohmann::json;

namespace {

/// The error parseWorkload raises for `workload`; fails the test when it raises none.
dlcost::Error workloadError(const json& workload) {
  try {
    dlcost::parseWorkload(workload, "/workload");
  } catch (const InputError& e) {
    return e.error();
  }
  FAIL("no error for " << workload.dump());
  return {};
}

dlcost::Error textError(const std::string& key, const std::string& text,
                        const std::string& unit = "B") {
  try {
    dlcost::workloadFromText({{key, text}}, unit);
  } catch (const InputError& e) {
    return e.error();
  }
  FAIL("no error for " << key << " = '" << text << "'");
  return {};
}

bool isRange(const WorkloadField& f) {
  return f.type == FieldType::kInteger || f.type == FieldType::kNumber;
}

}  // namespace

TEST_CASE("every workload field parses its own default", "[workload_schema]") {
  for (const WorkloadField& f : dlcost::workloadFields()) {
    if (f.default_value.is_null()) continue;  // derived from the model or another field
    CAPTURE(f.key, f.default_value.dump());
    const dlcost::Workload w = dlcost::parseWorkload(json{{f.key, f.default_value}}, "/workload");
    CHECK(f.write(w) == f.default_value);
    // The default is the engine's: an empty workload holds it too.
    CHECK(f.write(dlcost::Workload{}) == f.default_value);
  }
}

TEST_CASE("every field refuses values out of its range, naming the path and the unit",
          "[workload_schema]") {
  for (const WorkloadField& f : dlcost::workloadFields()) {
    if (!isRange(f)) continue;
    const bool integer = f.type == FieldType::kInteger;
    const json below = integer ? json(static_cast<int64_t>(f.min) - 1) : json(f.min - 1);
    const json above = f.max_exclusive ? json(f.max)
                       : integer       ? json(static_cast<int64_t>(f.max) + 1)
                                       : json(f.max + 0.5);
    for (const json& value : {below, above}) {
      CAPTURE(f.key, value.dump());
      const dlcost::Error e = workloadError(json{{f.key, value}});
      CHECK(e.path == "/workload/" + f.key);
      CHECK_THAT(e.message, Catch::Matchers::Contains(f.key + ": " + dlcost::describeAccepted(f)));
      if (!f.unit.empty()) CHECK_THAT(e.message, Catch::Matchers::EndsWith(f.unit + ")"));
    }
  }
}

TEST_CASE("enum fields list every value of their enum when refusing one", "[workload_schema]") {
  for (const WorkloadField& f : dlcost::workloadFields()) {
    if (f.type != FieldType::kEnum) continue;
    CAPTURE(f.key);
    const dlcost::Error e = workloadError(json{{f.key, "no-such-value"}});
    CHECK(e.code == ErrorCode::kValue);
    CHECK(e.path == "/workload/" + f.key);
    CHECK_THAT(e.message, Catch::Matchers::StartsWith("must be one of "));
    for (const dlcost::EnumValue& v : f.values)
      CHECK_THAT(e.message, Catch::Matchers::Contains(v.name));
    CHECK_THAT(e.message, Catch::Matchers::EndsWith("not \"no-such-value\""));
  }
  // The values come from the enum's own list: the 8-bit optimizer is there.
  const WorkloadField* optimizer = dlcost::findWorkloadField("optimizer");
  REQUIRE(optimizer);
  std::vector<std::string> names;
  for (const auto& v : optimizer->values) names.push_back(v.name);
  CHECK(names == std::vector<std::string>{"sgd", "momentum", "adam", "adamw", "rmsprop", "adagrad",
                                          "adam8bit"});
  CHECK(dlcost::parseWorkload(json{{"optimizer", "adam8bit"}}, "/workload").optimizer ==
        dlcost::Optimizer::kAdam8bit);
}

TEST_CASE("integer fields take any exact whole number, written in any JSON number form",
          "[workload_schema]") {
  struct Case {
    json value;
    int64_t batch;
  };
  const Case c = GENERATE(Case{json(4), 4}, Case{json(2.0), 2}, Case{json::parse("1e3"), 1000},
                          Case{json::parse("40E-1"), 4});
  CAPTURE(c.value.dump());
  CHECK(dlcost::parseWorkload(json{{"batch", c.value}}, "/workload").batch == c.batch);

  const dlcost::Error e = workloadError(json{{"batch", 2.5}});
  CHECK(e.code == ErrorCode::kType);
  CHECK_THAT(e.message, Catch::Matchers::StartsWith("must be an integer, not 2.5"));
}

TEST_CASE("numbers typed as text follow one rule", "[workload_schema]") {
  SECTION("accepted forms") {
    struct Case {
      std::string key, text, unit;
      json expected;
    };
    const Case c =
        GENERATE(Case{"batch", " 4 ", "B", 4}, Case{"batch", "2.0", "B", 2},
                 Case{"batch", "1e3", "B", 1000}, Case{"batch", "+8", "B", 8},
                 Case{"utilization", ".5", "B", 0.5}, Case{"lora_alpha", "16", "B", 16.0},
                 // Exact beyond 2^53 when written as an integer.
                 Case{"overhead_bytes", "9007199254740993", "B", int64_t{9007199254740993}},
                 // Sizes: a written unit, or the caller's unit for a bare number; rounded to bytes.
                 Case{"overhead_bytes", "1.5 GiB", "B", int64_t{1610612736}},
                 Case{"overhead_bytes", "1.5GiB", "GB", int64_t{1610612736}},
                 Case{"overhead_bytes", "24", "GB", int64_t{24000000000}},
                 Case{"memory_bytes", "0.1", "GB", int64_t{100000000}},
                 Case{"memory_gib", "16", "GB", 16.0},  // a GiB field: a bare number is GiB
                 Case{"optimizer", " adam8bit ", "B", "adam8bit"},
                 Case{"mode", "inference", "B", "infer"}, Case{"sp", "true", "B", true},
                 Case{"lora_targets", "q_proj, v_proj", "B", {"q_proj", "v_proj"}});
    CAPTURE(c.key, c.text, c.unit);
    CHECK(dlcost::workloadFromText({{c.key, c.text}}, c.unit)[c.key] == c.expected);
  }
  SECTION("refused forms name the field, what it accepts and its unit") {
    struct Case {
      std::string key, text;
      ErrorCode code;
      std::string reason;
    };
    const Case c = GENERATE(
        Case{"batch", "2.5", ErrorCode::kType, "must be an integer, not 2.5"},
        Case{"batch", "many", ErrorCode::kType, "must be a number, not \"many\""},
        Case{"batch", "", ErrorCode::kType, "must be a number"},
        Case{"batch", "0x10", ErrorCode::kType, "must be a number"},
        Case{"batch", "1,000", ErrorCode::kType, "must be a number"},
        Case{"batch", "inf", ErrorCode::kType, "must be a number"},
        Case{"batch", "4 GiB", ErrorCode::kType, "must be a number"},  // not a size
        Case{"batch", "0", ErrorCode::kValue, "must be at least 1, not 0"},
        Case{"batch", "1e400", ErrorCode::kTooLarge, "above the largest allowed"},
        Case{"batch", "99999999999999999999", ErrorCode::kTooLarge, "above the largest allowed"},
        Case{"overhead_bytes", "3 GiBs", ErrorCode::kValue, "unknown unit \"GiBs\""},
        Case{"fragmentation", "0.5", ErrorCode::kValue, "must be below 0.5"},
        Case{"optimizer", "lion", ErrorCode::kValue, "must be one of sgd, momentum"},
        Case{"sp", "yes", ErrorCode::kType, "must be true or false"});
    CAPTURE(c.key, c.text);
    const dlcost::Error e = textError(c.key, c.text);
    CHECK(e.code == c.code);
    CHECK(e.path == "/workload/" + c.key);
    CHECK_THAT(e.message, Catch::Matchers::Contains(c.reason));
  }
  SECTION("an unknown key is an unknown field") {
    CHECK(textError("batchsize", "4").code == ErrorCode::kUnknownField);
  }
}

TEST_CASE("a workload written by the schema reads back to the same workload", "[workload_schema]") {
  const json given = {{"mode", "train"},
                      {"batch", 64},
                      {"dtype", "mixed"},
                      {"optimizer", "adam8bit"},
                      {"overhead_bytes", 1 << 20},
                      {"memory_bytes", int64_t{80} << 30},
                      {"seq_len", 4096},
                      {"weight_dtype", "int4"},
                      {"quant_group_size", 64},
                      {"attention", "eager"},
                      {"recompute", "selective"},
                      {"finetune", "qlora"},
                      {"lora_rank", 16},
                      {"lora_alpha", 32.0},
                      {"lora_targets", {"q_proj", "k_proj"}},
                      {"grad_accum", 4},
                      {"gpu", "h100-sxm"},
                      {"gpus", 8},
                      {"zero", 3},
                      {"tp", 2},
                      {"pp", 2},
                      {"sp", true},
                      {"microbatches", 4},
                      {"utilization", 0.4},
                      {"reserve_bytes", 1 << 30},
                      {"fragmentation", 0.1},
                      {"gpu_dtype", "bf16"}};
  const json written = dlcost::writeWorkload(dlcost::parseWorkload(given, "/workload"));
  for (auto it = given.begin(); it != given.end(); ++it) {
    CAPTURE(it.key());
    CHECK(written.at(it.key()) == *it);
  }
  CHECK(dlcost::writeWorkload(dlcost::parseWorkload(written, "/workload")) == written);
}

TEST_CASE("workload fields convert back to the text a form shows", "[workload_schema]") {
  const json w = {{"batch", 32},
                  {"overhead_bytes", 1610612736},
                  {"memory_gib", 24},
                  {"optimizer", "adam8bit"},
                  {"lora_targets", {"q_proj", "v_proj"}},
                  {"sp", true},
                  {"utilization", 0.5}};
  const auto text = dlcost::workloadToText(w, "GiB");
  CHECK(text.at("batch") == "32");
  CHECK(text.at("overhead_bytes") == "1.5");
  CHECK(text.at("memory_gib") == "24");
  CHECK(text.at("optimizer") == "adam8bit");
  CHECK(text.at("lora_targets") == "q_proj,v_proj");
  CHECK(text.at("sp") == "true");
  CHECK(text.at("utilization") == "0.5");
  // And back: the same bytes.
  CHECK(dlcost::workloadFromText({{"overhead_bytes", text.at("overhead_bytes")}}, "GiB")
            .at("overhead_bytes") == 1610612736);
  // 24 x 2^30 / 10^9, in as many digits as give back the same byte.
  // memory_gib reads a bare number as GiB, so text in GB says so.
  CHECK(dlcost::workloadToText(w, "GB").at("memory_gib") == "25.769803776 GB");
  CHECK(dlcost::workloadFromText({{"memory_gib", "25.769803776 GB"}}).at("memory_gib") == 24.0);
}

TEST_CASE("the exported schema describes every field in both languages", "[workload_schema]") {
  const json schema = dlcost::workloadSchemaJson();
  REQUIRE(schema.at("fields").size() == dlcost::workloadFields().size());
  for (const json& f : schema.at("fields")) {
    CAPTURE(f.at("key"));
    for (const char* text : {"label", "help"}) {
      CHECK_FALSE(f.at(text).at("en").get<std::string>().empty());
      CHECK_FALSE(f.at(text).at("zh").get<std::string>().empty());
    }
    CHECK_THAT(f.at("flag").get<std::string>(), Catch::Matchers::StartsWith("--"));
    CHECK((!f.at("default").is_null() || f.contains("default_note")));
    for (const json& c : f.at("when"))
      CHECK(schema.at("conditions").contains(c.get<std::string>()));
  }
}

// Binary prefixes are powers of 1024 (IEC 80000-13: 1 KiB = 1024 B, 1 GiB = 2^30 B), decimal
// ones powers of 1000 (SI: 1 kB = 1000 B, 1 GB = 10^9 B). One table holds each convention; the
// CLI's formatter, the text rule of byte fields and the page's formatter (via numberUnitsJson)
// all read it.
TEST_CASE("byte and count units come from one table", "[workload_schema][units]") {
  SECTION("byte unit names in typed text") {
    const std::pair<const char*, double> cases[] = {{"B", 1},
                                                    {"kB", 1e3},
                                                    {"KB", 1e3},
                                                    {"MB", 1e6},
                                                    {"GB", 1e9},
                                                    {"TB", 1e12},
                                                    {"KiB", 1024.0},
                                                    {"MiB", 1048576.0},
                                                    {"GiB", 1073741824.0},
                                                    {"TiB", 1099511627776.0},
                                                    {"PiB", 0},
                                                    {"gb", 0}};
    for (const auto& [name, bytes] : cases) {
      INFO(name);
      CHECK(dlcost::bytesPerUnitName(name) == bytes);
    }
  }
  SECTION("formatted bytes and counts") {
    using dlcost::ByteUnits;
    CHECK(dlcost::formatBytes(512, ByteUnits::kBinary) == "512 B");
    CHECK(dlcost::formatBytes(1536, ByteUnits::kBinary) == "1.50 KiB");
    CHECK(dlcost::formatBytes(1536, ByteUnits::kDecimal) == "1.54 kB");
    CHECK(dlcost::formatBytes(int64_t{1} << 30, ByteUnits::kBinary) == "1.00 GiB");
    CHECK(dlcost::formatBytes(int64_t{1} << 30, ByteUnits::kDecimal) == "1.07 GB");
    CHECK(dlcost::formatBytes(-(int64_t{300} << 20), ByteUnits::kBinary) == "-300.0 MiB");
    CHECK(dlcost::formatCount(512) == "512");
    // resnet50's 25,557,032 parameters (torchvision's ResNet50_Weights metadata)
    CHECK(dlcost::formatCount(25557032) == "25.56 M");
    CHECK(dlcost::formatCount(4089184256, "MACs") == "4.09 GMACs");  // a value above 10^9
    // Scaled figures: two decimals, one from 100 up (dlcost::scaledDecimals).
    CHECK(dlcost::formatBytes(int64_t{99} << 20, ByteUnits::kBinary) == "99.00 MiB");
    CHECK(dlcost::formatBytes(int64_t{100} << 20, ByteUnits::kBinary) == "100.0 MiB");
    CHECK(dlcost::formatCount(99994999) == "99.99 M");
    CHECK(dlcost::formatCount(100049999) == "100.0 M");
  }
  SECTION("the exported tables") {
    const nlohmann::json j = dlcost::numberUnitsJson();
    CHECK(j["bytes"]["GiB"]["step"] == 1024);
    CHECK(j["bytes"]["GiB"]["bytes_per_unit"] == 1073741824.0);
    CHECK(j["bytes"]["GiB"]["names"][3] == "GiB");
    CHECK(j["bytes"]["GB"]["step"] == 1000);
    CHECK(j["bytes"]["GB"]["bytes_per_unit"] == 1e9);
    CHECK(j["bytes"]["GB"]["names"][1] == "kB");
    CHECK(j["count"]["names"][2] == "M");
    CHECK(j["scaled_decimals"] ==
          nlohmann::json{{"decimals", 2}, {"large_from", 100}, {"large_decimals", 1}});
    CHECK(dlcost::workloadSchemaJson()["number_units"] == j);
  }
}
