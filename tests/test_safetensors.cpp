// safetensors header reader and model.safetensors.index.json: generated files of known
// contents, and the checks the safetensors library makes before it loads a file.
#include <catch2/catch.hpp>

#include "dlcost/base/error.hpp"
#include "dlcost/model_files/model_file.hpp"
#include "dlcost/model_files/safetensors.hpp"
#include "model_file_writer.hpp"

using dlcost::test::safetensorsFile;
using nlohmann::json;

namespace {

json inspect(const std::string& bytes) {
  return dlcost::inspectModelFile(bytes, static_cast<int64_t>(bytes.size()));
}

dlcost::Error inspectError(const std::string& bytes, int64_t file_size = -2) {
  try {
    dlcost::inspectModelFile(bytes,
                             file_size == -2 ? static_cast<int64_t>(bytes.size()) : file_size);
  } catch (const dlcost::InputError& e) {
    return e.error();
  }
  FAIL("no InputError");
  return {};
}

/// Two BF16 matrices, an F32 vector and an F8_E4M3 matrix, as torch's save_file lays them
/// out (sorted by offset, no gaps).
const char* const kHeader = R"({
  "__metadata__": {"format": "pt"},
  "model.embed_tokens.weight": {"dtype": "BF16", "shape": [32, 16], "data_offsets": [0, 1024]},
  "model.layers.0.mlp.up_proj.weight": {"dtype": "BF16", "shape": [64, 16], "data_offsets": [1024, 3072]},
  "model.norm.weight": {"dtype": "F32", "shape": [16], "data_offsets": [3072, 3136]},
  "lm_head.weight": {"dtype": "F8_E4M3", "shape": [32, 16], "data_offsets": [3136, 3648]}
})";

}  // namespace

TEST_CASE("a generated safetensors file is summarised exactly", "[safetensors]") {
  const std::string file = safetensorsFile(kHeader, 3648);
  const json s = inspect(file);
  CHECK(s["format"] == "safetensors");
  // 512 + 1024 + 16 + 512 values; bytes as the data_offsets say (2, 2, 4, 1 per value).
  CHECK(s["parameters"] == 512 + 1024 + 16 + 512);
  CHECK(s["weight_bytes"] == 3648);
  CHECK(s["tensor_count"] == 4);
  CHECK(s["header_bytes"] == 8 + std::string(kHeader).size());
  CHECK(s["safetensors"]["metadata"] == json{{"format", "pt"}});
  const json& t = s["by_dtype"];
  REQUIRE(t.size() == 3);
  CHECK(t[0] == json{{"dtype", "BF16"},
                     {"tensors", 2},
                     {"parameters", 1536},
                     {"bytes", 3072},
                     {"bits_per_weight", 16.0}});
  CHECK(t[1]["dtype"] == "F8_E4M3");
  CHECK(t[2]["dtype"] == "F32");
  SECTION("a prefix of the header asks for the rest") {
    try {
      dlcost::inspectModelFile(file.substr(0, 100), int64_t{20} << 30);
      FAIL("no HeaderIncomplete");
    } catch (const dlcost::HeaderIncomplete& e) {
      CHECK(e.wanted_bytes() >= static_cast<int64_t>(8 + std::string(kHeader).size()));
    }
  }
  SECTION("sub-byte dtypes pack values (F4: 4 bits, safetensors Dtype::bitsize)") {
    const json f4 = inspect(
        safetensorsFile(R"({"w": {"dtype": "F4", "shape": [8, 3], "data_offsets": [0, 12]}})", 12));
    CHECK(f4["parameters"] == 24);
    CHECK(f4["weight_bytes"] == 12);
  }
}

TEST_CASE("bad safetensors headers get a clear error", "[safetensors]") {
  struct Case {
    const char* what;
    std::string bytes;
    const char* path;
    const char* message;
  };
  std::string huge(8, '\0');
  const uint64_t n = uint64_t{1} << 60;
  std::memcpy(&huge[0], &n, 8);
  huge += "{}";
  const std::vector<Case> cases = {
      {"a 2^60-byte header", huge, "/header_size", "at most 100,000,000"},
      {"not JSON", safetensorsFile("{nope", 0), "/header", "not valid JSON"},
      {"unknown dtype",
       safetensorsFile(R"({"w": {"dtype": "Q4", "shape": [2], "data_offsets": [0, 2]}})", 2),
       "/header/w/dtype", "unknown safetensors dtype 'Q4'"},
      {"no shape", safetensorsFile(R"({"w": {"dtype": "F32", "data_offsets": [0, 4]}})", 4),
       "/header/w/shape", "has no shape"},
      {"negative dimension",
       safetensorsFile(R"({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", 4),
       "/header/w/shape/0", "non-negative integer"},
      {"size and offsets disagree",
       safetensorsFile(R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}})", 4),
       "/header/w/data_offsets", "need 8 bytes"},
      {"a gap",
       safetensorsFile(R"({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},
                           "b": {"dtype": "U8", "shape": [4], "data_offsets": [8, 12]}})",
                       12),
       "/header/b/data_offsets", "a gap or an overlap"},
      {"odd F4 count",
       safetensorsFile(R"({"w": {"dtype": "F4", "shape": [3], "data_offsets": [0, 2]}})", 2),
       "/header/w/shape", "not a whole number of bytes"},
      {"2^80 values",
       safetensorsFile(
           R"({"w": {"dtype": "F32", "shape": [1099511627776, 1099511627776], "data_offsets": [0, 4]}})",
           4),
       "/header/w/shape", "overflow"},
      {"truncated data",
       safetensorsFile(R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", 5),
       "/header", "truncated"},
      {"metadata not strings", safetensorsFile(R"({"__metadata__": {"a": 1}})", 0),
       "/header/__metadata__/a", "must be a string"},
  };
  for (const Case& c : cases) {
    SECTION(c.what) {
      const dlcost::Error e = inspectError(c.bytes);
      CHECK(e.path == c.path);
      CHECK_THAT(e.message, Catch::Contains(c.message));
    }
  }
}

TEST_CASE("a model.safetensors.index.json lists shards and the total size", "[safetensors]") {
  // The shape transformers writes (modeling_utils save_pretrained): metadata.total_size is
  // the sum of the tensors' bytes, weight_map maps each tensor to its shard.
  const std::string text = R"({
    "metadata": {"total_size": 16060522496},
    "weight_map": {
      "lm_head.weight": "model-00004-of-00004.safetensors",
      "model.embed_tokens.weight": "model-00001-of-00004.safetensors",
      "model.layers.0.mlp.up_proj.weight": "model-00001-of-00004.safetensors"
    }})";
  const json s = inspect(text);
  CHECK(s["format"] == "safetensors_index");
  CHECK(s["weight_bytes"] == 16060522496);
  CHECK(s["tensor_count"] == 3);
  CHECK(s["parameters"].is_null());
  CHECK(s["shards"] == json::parse(R"([{"file": "model-00001-of-00004.safetensors", "tensors": 2},
                                       {"file": "model-00004-of-00004.safetensors", "tensors": 1}])"));
  SECTION("errors") {
    CHECK(inspectError(R"({"metadata": {}})").path == "/weight_map");
    CHECK(inspectError(R"({"weight_map": {"a": 3}})").path == "/weight_map/a");
    CHECK(inspectError(R"({"weight_map": {}, "metadata": {"total_size": -1}})").path ==
          "/metadata/total_size");
  }
}

TEST_CASE("an index and its shards give exact totals, checked against each other",
          "[safetensors]") {
  const json shard1 = inspect(
      safetensorsFile(R"({"a": {"dtype": "BF16", "shape": [4, 2], "data_offsets": [0, 16]}})", 16));
  const json shard2 = inspect(
      safetensorsFile(R"({"b": {"dtype": "F32", "shape": [3], "data_offsets": [0, 12]}})", 12));
  json index = json::parse(R"({"metadata": {"total_size": 28},
      "weight_map": {"a": "m-1.safetensors", "b": "m-2.safetensors"}})");
  const std::map<std::string, json> shards = {{"m-1.safetensors", shard1},
                                              {"m-2.safetensors", shard2}};
  // 8 BF16 values (16 bytes) + 3 F32 values (12 bytes) = 28 bytes, as total_size says.
  const json s = dlcost::safetensorsShardedSummary(index, shards);
  CHECK(s["parameters"] == 11);
  CHECK(s["weight_bytes"] == 28);
  CHECK(s["tensors"][1]["file"] == "m-2.safetensors");
  auto error = [&](const json& idx, const std::map<std::string, json>& sh) {
    try {
      dlcost::safetensorsShardedSummary(idx, sh);
    } catch (const dlcost::InputError& e) {
      return e.error();
    }
    FAIL("no InputError");
    return dlcost::Error{};
  };
  SECTION("total_size that disagrees") {
    index["metadata"]["total_size"] = 30;
    CHECK(error(index, shards).path == "/metadata/total_size");
  }
  SECTION("a missing shard") {
    CHECK(error(index, {{"m-1.safetensors", shard1}}).path == "/shards/m-2.safetensors");
  }
  SECTION("a tensor in another shard than the weight_map says") {
    index["weight_map"]["b"] = "m-1.safetensors";
    CHECK(error(index, shards).path == "/weight_map/b");
  }
  SECTION("a weight_map tensor no shard has") {
    index["weight_map"]["c"] = "m-1.safetensors";
    CHECK(error(index, shards).path == "/weight_map/c");
  }
}

TEST_CASE("the bindings' sharded summary takes JSON text and never throws", "[safetensors]") {
  const json shard = inspect(
      safetensorsFile(R"({"a": {"dtype": "BF16", "shape": [4, 2], "data_offsets": [0, 16]}})", 16));
  const std::string index = R"({"weight_map": {"a": "m.safetensors"}})";
  const json ok =
      json::parse(dlcost::shardedSummaryText(index, json{{"m.safetensors", shard}}.dump()));
  CHECK(ok["parameters"] == 8);
  CHECK(json::parse(dlcost::shardedSummaryText("{", "{}"))["error"]["code"] == "parse");
  CHECK(json::parse(dlcost::shardedSummaryText(index, "[]"))["error"]["path"] == "/shards");
  CHECK(json::parse(dlcost::shardedSummaryText(
            index, R"({"m.safetensors": {"format": "gguf"}})"))["error"]["path"] ==
        "/shards/m.safetensors");
}
