// GGUF header reader: the ggml type table, a generated file of known contents, and every
// way a header can be wrong.
#include <catch2/catch.hpp>

#include "dlcost/base/error.hpp"
#include "dlcost/base/units.hpp"
#include "dlcost/model_files/gguf.hpp"
#include "dlcost/model_files/model_file.hpp"
#include "dlcost/report/estimate.hpp"
#include "dlcost/report/report_json.hpp"
#include "dlcost/schema/config_json.hpp"
#include "dlcost/types/ggml_types.hpp"
#include "model_file_writer.hpp"

using dlcost::test::GgufWriter;
using nlohmann::json;

namespace {

json inspect(const std::string& bytes, int64_t file_size = -2) {
  return dlcost::inspectModelFile(bytes,
                                  file_size == -2 ? static_cast<int64_t>(bytes.size()) : file_size);
}

dlcost::Error inspectError(const std::string& bytes, int64_t file_size = -2) {
  try {
    inspect(bytes, file_size);
  } catch (const dlcost::InputError& e) {
    return e.error();
  }
  FAIL("no InputError");
  return {};
}

/// A llama-like file: 2 layers, width 256, 4 heads, 2 KV heads; Q4_K, Q6_K, F32 tensors.
std::string smallLlama() {
  GgufWriter w;
  w.counts(4, 10);
  w.kvStr("general.architecture", "llama");
  w.kvStr("general.name", "tiny");
  w.kvU32("llama.context_length", 4096);
  w.kvU32("llama.embedding_length", 256);
  w.kvU32("llama.block_count", 2);
  w.kvU32("llama.feed_forward_length", 512);
  w.kvU32("llama.attention.head_count", 4);
  w.kvU32("llama.attention.head_count_kv", 2);
  w.kvF32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
  w.kvStrArray("tokenizer.ggml.tokens", {"<s>", "</s>", "a", "b"});
  // token_embd: 256 x 4 in Q4_K: 4 rows of one 256-value block, 144 bytes each = 576.
  w.tensor("token_embd.weight", {256, 4}, 12, 0);
  // blk.0.attn_q: 256 x 256 in Q6_K: 256 blocks x 210 bytes = 53760; starts at 576 (32-aligned).
  w.tensor("blk.0.attn_q.weight", {256, 256}, 14, 576);
  // norm: 256 F32 = 1024 bytes, at 576 + 53760 = 54336.
  w.tensor("blk.0.attn_norm.weight", {256}, 0, 54336);
  // a BF16 scalar-free 2-D tensor: 64 x 3 = 192 values, 384 bytes, at 55360.
  w.tensor("output.weight", {64, 3}, 30, 55360);
  return w.finish(55360 + 384);
}

}  // namespace

TEST_CASE("ggml types have the block sizes of ggml-common.h", "[gguf]") {
  struct Row {
    uint32_t id;
    const char* name;
    int64_t block;
    int64_t bytes;
  };
  // Bytes per block from the static_asserts of ggml/src/ggml-common.h (ggml-org/llama.cpp
  // 01243c58); the structs' comments give the bits per weight checked below.
  const Row rows[] = {
      {0, "F32", 1, 4},         {1, "F16", 1, 2},         {2, "Q4_0", 32, 18},
      {3, "Q4_1", 32, 20},      {6, "Q5_0", 32, 22},      {7, "Q5_1", 32, 24},
      {8, "Q8_0", 32, 34},      {9, "Q8_1", 32, 36},      {10, "Q2_K", 256, 84},
      {11, "Q3_K", 256, 110},   {12, "Q4_K", 256, 144},   {13, "Q5_K", 256, 176},
      {14, "Q6_K", 256, 210},   {15, "Q8_K", 256, 292},   {16, "IQ2_XXS", 256, 66},
      {17, "IQ2_XS", 256, 74},  {18, "IQ3_XXS", 256, 98}, {19, "IQ1_S", 256, 50},
      {20, "IQ4_NL", 32, 18},   {21, "IQ3_S", 256, 110},  {22, "IQ2_S", 256, 82},
      {23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1},         {28, "F64", 1, 8},
      {29, "IQ1_M", 256, 56},   {30, "BF16", 1, 2},       {34, "TQ1_0", 256, 54},
      {35, "TQ2_0", 256, 66},   {39, "MXFP4", 32, 17},    {40, "NVFP4", 64, 36},
  };
  for (const Row& r : rows) {
    CAPTURE(r.name);
    const dlcost::GgmlType* t = dlcost::ggmlType(r.id);
    REQUIRE(t != nullptr);
    CHECK(std::string(t->name) == r.name);
    CHECK(t->block_size == r.block);
    CHECK(t->type_size == r.bytes);
  }
  SECTION("the bits per weight the ggml-common.h comments state") {
    struct Bpw {
      uint32_t id;
      double bits;
    };
    // "Effectively 4.5 bits per weight" (Q4_K), 2.625 (Q2_K), 3.4375 (Q3_K), 5.5 (Q5_K),
    // 6.5625 (Q6_K); "2.0625 bpw" (IQ2_XXS), "2.3125 bpw" (IQ2_XS), "2.5625 bpw" (IQ2_S),
    // "3.0625 bpw" (IQ3_XXS), "3.4375 bpw" (IQ3_S), "1.5625 bpw" (IQ1_S), "1.75 bpw" (IQ1_M),
    // "1.6875 bpw" (TQ1_0), "2.0625 bpw" (TQ2_0).
    const Bpw bpw[] = {{12, 4.5},    {10, 2.625},  {11, 3.4375}, {13, 5.5},    {14, 6.5625},
                       {16, 2.0625}, {17, 2.3125}, {22, 2.5625}, {18, 3.0625}, {21, 3.4375},
                       {19, 1.5625}, {29, 1.75},   {34, 1.6875}, {35, 2.0625}};
    for (const Bpw& b : bpw) {
      const dlcost::GgmlType* t = dlcost::ggmlType(b.id);
      CAPTURE(t->name);
      CHECK(static_cast<double>(t->type_size) * 8 / static_cast<double>(t->block_size) == b.bits);
    }
  }
  SECTION("removed and unknown enum values have no entry") {
    for (uint32_t id : {4u, 5u, 31u, 32u, 33u, 36u, 37u, 38u, 43u, 1000u}) {
      CAPTURE(id);
      CHECK(dlcost::ggmlType(id) == nullptr);
    }
  }
}

TEST_CASE("a generated llama GGUF is summarised exactly", "[gguf]") {
  const std::string file = smallLlama();
  const json s = inspect(file);
  CHECK(s["format"] == "gguf");
  // 1024 + 65536 + 256 + 192 values; 576 + 53760 + 1024 + 384 bytes (layouts in smallLlama).
  CHECK(s["parameters"] == 1024 + 65536 + 256 + 192);
  CHECK(s["weight_bytes"] == 576 + 53760 + 1024 + 384);
  CHECK(s["tensor_count"] == 4);
  CHECK(s["file_size"] == file.size());
  const json& g = s["gguf"];
  CHECK(g["version"] == 3);
  CHECK(g["architecture"] == "llama");
  CHECK(g["name"] == "tiny");
  CHECK(g["data_bytes"] == 55360 + 384);
  CHECK(g["data_offset"].get<int64_t>() % 32 == 0);
  CHECK(g["model"] == json{{"context_length", 4096},
                           {"embedding_width", 256},
                           {"layers", 2},
                           {"feed_forward_width", 512},
                           {"heads", 4},
                           {"kv_heads", 2},
                           {"vocab_size", 4}});
  CHECK(g["hyperparameters"]["attention.head_count_kv"] == 2);
  CHECK(g["metadata"]["tokenizer.ggml.tokens"] == json{"<s>", "</s>", "a", "b"});
  SECTION("by type, largest first, with the bits per weight") {
    const json& t = s["by_dtype"];
    REQUIRE(t.size() == 4);
    CHECK(t[0] == json{{"dtype", "Q6_K"},
                       {"tensors", 1},
                       {"parameters", 65536},
                       {"bytes", 53760},
                       {"bits_per_weight", 6.5625}});
    CHECK(t[1]["dtype"] == "F32");
    CHECK(t[2]["dtype"] == "Q4_K");
    CHECK(t[2]["bits_per_weight"] == 4.5);
    CHECK(t[3]["dtype"] == "BF16");
  }
  SECTION("per tensor, shapes in ggml order") {
    const json& t = s["tensors"][1];
    CHECK(t == json{{"name", "blk.0.attn_q.weight"},
                    {"dtype", "Q6_K"},
                    {"shape", {256, 256}},
                    {"parameters", 65536},
                    {"bytes", 53760},
                    {"offset", 576}});
  }
  SECTION("a prefix asks for more; the header alone is enough") {
    try {
      inspect(file.substr(0, 40), static_cast<int64_t>(file.size()));
      FAIL("no HeaderIncomplete");
    } catch (const dlcost::HeaderIncomplete& e) {
      CHECK(e.wanted_bytes() > 40);
      CHECK(e.wanted_bytes() <= static_cast<int64_t>(file.size()));
    }
    const int64_t header = s["header_bytes"].get<int64_t>();
    CHECK(inspect(file.substr(0, header), static_cast<int64_t>(file.size())) == s);
    CHECK(dlcost::inspectModelFileText(file.substr(0, 40), static_cast<double>(file.size()))
              .find("\"need_bytes\"") != std::string::npos);
  }
  SECTION("a download that stops inside the tensor data is named") {
    const dlcost::Error e = inspectError(file.substr(0, file.size() - 1));
    CHECK(e.path == "/tensors");
    CHECK_THAT(e.message, Catch::Contains("incomplete download"));
  }
}

TEST_CASE("a llama GGUF maps back to its config.json, and the engine counts the file's parameters",
          "[gguf]") {
  const json s = inspect(smallLlama());
  const json& g = s["gguf"];
  // smallLlama has an output.weight: an untied LM head.
  CHECK(g["hf_config"]["tie_word_embeddings"] == false);
  CHECK(g["hf_config"]["model_type"] == "llama");
  CHECK(g["hf_config"]["hidden_size"] == 256);
  CHECK(g["hf_config"]["num_key_value_heads"] == 2);
  CHECK(g["hf_config"]["max_position_embeddings"] == 4096);
  CHECK(g["hf_config"]["vocab_size"] == 4);
  CHECK(g["config_check"]["file_parameters"] == s["parameters"]);
  SECTION("an architecture without a mapping says so and keeps the exact figures") {
    GgufWriter w;
    w.counts(0, 1);
    w.kvStr("general.architecture", "rwkv6");
    const json r = inspect(w.finish(0));
    CHECK(r["gguf"]["hf_config"].is_null());
    CHECK(r["gguf"]["hf_config_error"]["path"] == "/metadata/general.architecture");
    CHECK_THAT(r["gguf"]["hf_config_error"]["message"].get<std::string>(),
               Catch::Contains("'rwkv6' has no config mapping"));
  }
  SECTION("a per-layer head count is not one number") {
    GgufWriter w;
    w.counts(0, 5);
    w.kvStr("general.architecture", "llama");
    w.kvU32("llama.embedding_length", 64);
    w.kvU32("llama.block_count", 2);
    w.kvU32("llama.feed_forward_length", 128);
    w.str("llama.attention.head_count");
    w.put<uint32_t>(9);
    w.put<uint32_t>(4);
    w.put<uint64_t>(2);
    w.put<uint32_t>(4);
    w.put<uint32_t>(8);
    const json r = inspect(w.finish(0));
    CHECK(r["gguf"]["hf_config_error"]["path"] == "/metadata/llama.attention.head_count");
  }
}

TEST_CASE("a block count beyond the engine's limit is refused before any per-layer table",
          "[gguf]") {
  // Found by fuzz_gguf (tests/fixtures/fuzz-regressions/gguf-huge-block-count): 2^40 layers
  // reached the sliding-window table, which was sized before the layer count was checked.
  GgufWriter w;
  w.counts(0, 6);
  w.kvStr("general.architecture", "llama");
  w.kvU32("llama.embedding_length", 64);
  w.kvU64("llama.block_count", uint64_t{1} << 40);
  w.kvU32("llama.feed_forward_length", 128);
  w.kvU32("llama.attention.head_count", 4);
  w.kvU32("llama.vocab_size", 32);
  const json r = inspect(w.finish(0));
  const json& e = r["gguf"]["hf_config_error"];
  CHECK(e["code"] == "too_large");
  CHECK(e["path"] == "/gguf/hf_config/num_hidden_layers");
  CHECK_THAT(e["message"].get<std::string>(), Catch::Contains("largest allowed 100000"));
  CHECK(r["parameters"] == 0);  // the file's own figures stay
}

TEST_CASE("long arrays keep their type and length only", "[gguf]") {
  GgufWriter w;
  w.counts(0, 1);
  std::vector<std::string> tokens(100, "t");
  w.kvStrArray("tokenizer.ggml.tokens", tokens);
  const json s = inspect(w.finish(0));
  CHECK(s["gguf"]["metadata"]["tokenizer.ggml.tokens"] ==
        json{{"array_of", "string"}, {"length", 100}});
  CHECK(s["parameters"] == 0);
}

TEST_CASE("bad GGUF headers get a clear error, never a huge allocation", "[gguf]") {
  struct Case {
    const char* what;
    std::string bytes;
    const char* path;
    const char* message;
  };
  auto header = [](uint32_t version) { return GgufWriter(version); };
  std::vector<Case> cases;
  {
    cases.push_back({"wrong magic", "GGUX" + std::string(20, '\0'), "", "not a kind dlcost reads"});
  }
  {
    GgufWriter w = header(1);
    w.counts(0, 0);
    cases.push_back({"version 1", w.bytes(), "/version", "version 1"});
  }
  {
    GgufWriter w = header(0x03000000);
    w.counts(0, 0);
    cases.push_back({"big-endian", w.bytes(), "/version", "big-endian"});
  }
  {
    GgufWriter w;
    w.counts(uint64_t{1} << 60, 0);
    cases.push_back({"2^60 tensors", w.bytes(), "/tensor_count", "beyond any real file"});
  }
  {
    GgufWriter w;
    w.counts(0, 1);
    w.put<uint64_t>(uint64_t{1} << 60);  // key length
    cases.push_back({"a 2^60-byte key", w.bytes(), "/metadata/0", "at most 128 MiB"});
  }
  {
    GgufWriter w;
    w.counts(0, 1);
    w.str("k");
    w.put<uint32_t>(9);
    w.put<uint32_t>(0);
    w.put<uint64_t>(uint64_t{1} << 60);
    cases.push_back({"a 2^60-element array", w.bytes(), "/metadata/k", "beyond any real file"});
  }
  {
    GgufWriter w;
    w.counts(0, 1);
    w.str("k");
    w.put<uint32_t>(13);
    cases.push_back({"unknown value type", w.bytes(), "/metadata/k", "unknown GGUF value type 13"});
  }
  {
    GgufWriter w;
    w.counts(0, 1);
    w.str("k");
    w.put<uint32_t>(7);
    w.put<uint8_t>(2);
    cases.push_back({"bool 2", w.bytes(), "/metadata/k", "0 or 1"});
  }
  {
    GgufWriter w;
    w.counts(0, 2);
    w.kvU32("k", 1);
    w.kvU32("k", 2);
    cases.push_back({"duplicate key", w.bytes(), "/metadata/k", "appears twice"});
  }
  {
    GgufWriter w;
    w.counts(0, 1);
    w.kvU32("general.alignment", 24);
    cases.push_back({"alignment 24", w.bytes(), "/metadata/general.alignment", "power of two"});
  }
  {
    GgufWriter w;
    w.counts(1, 0);
    w.tensor("t", {256}, 31, 0);
    cases.push_back({"removed ggml type", w.finish(512), "/tensors/0/type", "ggml type 31"});
  }
  {
    GgufWriter w;
    w.counts(1, 0);
    w.tensor("t", {100, 2}, 12, 0);
    cases.push_back({"row not a whole block", w.finish(512), "/tensors/0/shape/0", "block of 256"});
  }
  {
    GgufWriter w;
    w.counts(1, 0);
    w.tensor("t", {1, 2, 3, 4, 5}, 0, 0);
    cases.push_back({"5 dimensions", w.finish(512), "/tensors/0/n_dims", "at most 4"});
  }
  {
    GgufWriter w;
    w.counts(1, 0);
    w.tensor("t", {int64_t{1} << 40, int64_t{1} << 40}, 0, 0);
    cases.push_back({"2^80 values", w.finish(0), "/tensors/0/shape", "overflow"});
  }
  {
    GgufWriter w;
    w.counts(2, 0);
    w.tensor("a", {8}, 0, 0);
    w.tensor("b", {8}, 0, 40);  // a ends at 32, padded to 32: b must start there
    cases.push_back({"gap between tensors", w.finish(72), "/tensors/1/offset", "end at 32"});
  }
  {
    GgufWriter w;
    w.counts(1, 0);
    w.tensor("t", {8}, 0, 0);
    cases.push_back({"truncated header", w.bytes().substr(0, w.bytes().size() - 3),
                     "/tensors/0/offset", "the file ends"});
  }
  for (const Case& c : cases) {
    SECTION(c.what) {
      const dlcost::Error e = inspectError(c.bytes);
      CHECK(e.path == c.path);
      CHECK_THAT(e.message, Catch::Contains(c.message));
    }
  }
}

TEST_CASE("a front end may start with no bytes: the engine names the first read", "[gguf]") {
  try {
    dlcost::inspectModelFile("", int64_t{20} << 30);
    FAIL("no HeaderIncomplete");
  } catch (const dlcost::HeaderIncomplete& e) {
    CHECK(e.wanted_bytes() == dlcost::kModelHeaderFirstRead);
  }
  try {
    dlcost::inspectModelFile("", 100);
    FAIL("no HeaderIncomplete");
  } catch (const dlcost::HeaderIncomplete& e) {
    CHECK(e.wanted_bytes() == 100);  // never past the file's end
  }
}

TEST_CASE("a huge claimed length in a long file asks for at most 128 MiB", "[gguf]") {
  GgufWriter w;
  w.counts(0, 1);
  w.put<uint64_t>(uint64_t{100} << 20);  // a 100 MiB key: plausible, so read on
  try {
    inspect(w.bytes(), int64_t{20} << 30);  // a 20 GiB file
    FAIL("no HeaderIncomplete");
  } catch (const dlcost::HeaderIncomplete& e) {
    CHECK(e.wanted_bytes() <= dlcost::kMaxModelHeaderBytes);
  }
}

TEST_CASE("the weights term is the GGUF file's tensor bytes, each in its own type",
          "[gguf][memory]") {
  const json s = inspect(smallLlama());
  // The layouts of smallLlama: 67,008 values in 55,744 bytes (F32, Q6_K, Q4_K with its block
  // scales, BF16).
  CHECK(s["weights_file"] ==
        json{{"format", "gguf"}, {"weight_bytes", 55744}, {"parameters", 67008}});
  const json model = {{"hf_config", s["gguf"]["hf_config"]}, {"weights_file", s["weights_file"]}};
  // int4 asks for 4-bit weights with fp16 group scales; the file's own bytes win.
  const dlcost::Config c = dlcost::parseConfig(
      {{"model", model}, {"workload", {{"mode", "infer"}, {"weight_dtype", "int4"}}}});
  const dlcost::Report r = dlcost::estimate(c.model, c.workload);
  const dlcost::MemoryTerm* w = r.memory.find(dlcost::MemoryKey::kWeights);
  REQUIRE(w);
  CHECK(w->bytes == 55744);
  CHECK_THAT(w->formula, Catch::Contains("gguf file"));
  REQUIRE(w->inputs.size() == 2);
  CHECK(w->inputs[0].name == "weight_bytes");
  CHECK(w->inputs[0].note == "gguf file");
  CHECK(r.memory.find(dlcost::MemoryKey::kQuantScales) == nullptr);
  // smallLlama holds four of a llama's tensors, so the config counts more than the file: the
  // report says so (and the other terms follow the config's count).
  REQUIRE(!r.warnings.empty());
  CHECK_THAT(r.warnings.back(),
             Catch::Contains("the gguf file holds 67,008 parameters") &&
                 Catch::Contains("the config counts " + dlcost::groupDigits(r.params.total)));
  SECTION("a file with the config's count adds no warning") {
    json same = model;
    same["weights_file"]["parameters"] = r.params.total;
    const dlcost::Config d = dlcost::parseConfig({{"model", same}});
    CHECK(dlcost::estimate(d.model, d.workload).warnings.empty());
  }
  SECTION("the file's term reads back from the report's JSON") {
    const json j = dlcost::reportToJson(r);
    CHECK(j["memory"]["terms"][0]["key"] == "weights");
    CHECK(j["memory"]["terms"][0]["bytes"] == 55744);
  }
}

TEST_CASE("a weights_file names its bad field", "[gguf][errors]") {
  const json cfg = inspect(smallLlama())["gguf"]["hf_config"];
  struct Case {
    json weights_file;
    std::string path;
  };
  const std::vector<Case> cases = {
      {{{"format", "pt"}, {"weight_bytes", 1}, {"parameters", 1}}, "/model/weights_file/format"},
      {{{"format", "gguf"}, {"weight_bytes", -1}, {"parameters", 1}},
       "/model/weights_file/weight_bytes"},
      {{{"format", "gguf"}, {"weight_bytes", 1}}, "/model/weights_file/parameters"},
      {{{"format", "gguf"}, {"weight_bytes", 1}, {"parameters", 1}, {"dtype", "Q4_K"}},
       "/model/weights_file/dtype"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.path);
    try {
      (void)dlcost::parseConfig(
          {{"model", {{"hf_config", cfg}, {"weights_file", c.weights_file}}}});
      FAIL("accepted");
    } catch (const dlcost::InputError& e) {
      CHECK(e.error().path == c.path);
    }
  }
}

TEST_CASE("model files are told apart by their first bytes, not their names",
          "[model_files][detect]") {
  using dlcost::detectModelFile;
  using dlcost::ModelFileKind;
  CHECK(detectModelFile("GGUF\x03\0\0\0") == ModelFileKind::kGguf);
  // safetensors: an 8-byte little-endian header length, then the header's '{'.
  CHECK(detectModelFile(std::string("\x40\0\0\0\0\0\0\0{\"a\"", 12)) ==
        ModelFileKind::kSafetensors);
  // A length whose low byte is '{' is still safetensors (JSON text has no NUL).
  CHECK(detectModelFile(std::string("{\x01\0\0\0\0\0\0{\"a\"", 12)) == ModelFileKind::kSafetensors);
  CHECK(detectModelFile("  {\"model_type\": \"llama\"") == ModelFileKind::kJson);
  CHECK(detectModelFile("{\"weight_map\": {}}") == ModelFileKind::kJson);
  // ONNX: ModelProto's ir_version field (tag 0x08, varint 8), then producer_name (0x12).
  CHECK(detectModelFile("\x08\x08\x12\x07pytorch") == ModelFileKind::kOnnx);
  CHECK(detectModelFile("PK\x03\x04") == ModelFileKind::kUnknown);
  CHECK(detectModelFile("") == ModelFileKind::kUnknown);
  CHECK_THAT(dlcost::unknownModelFileMessage("PK\x03\x04zip"),
             Catch::Matchers::StartsWith("the file starts with 50 4B 03 04 7A 69 70 ('PK..zip')") &&
                 Catch::Matchers::Contains("GGUF") && Catch::Matchers::Contains("ONNX"));
  CHECK(dlcost::unknownModelFileMessage("").rfind("the file is empty", 0) == 0);
}
