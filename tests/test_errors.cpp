// Bad input: every class of the issue gives one error naming the JSON path, a stable code
// and the reason, through the same text facade the CLI and the page use.
#include <catch2/catch.hpp>
#include <string>

#include "support.hpp"

using dlcost::ErrorCode;
using dlcost::errorCodeName;
using dlcost::test::errorOf;
using dlcost::test::errorOfText;
using nlohmann::json;

namespace {

struct BadInput {
  const char* what;
  std::string document;
  ErrorCode code;
  const char* path;
  const char* reason;  ///< a phrase the message must contain
};

// A model around one layer, on a [3, 8, 8] input.
std::string oneLayer(const std::string& layer) {
  return R"({"input": [3, 8, 8], "layers": [)" + layer + "]}";
}

// ResNet's basic block as a template (conv-bn-relu-conv-bn + identity), for argument errors.
const std::string kBlocks = R"("blocks": {"basic": {"params": {"c": null, "stride": 1}, "layers": [
    {"name": "conv1", "type": "conv2d", "out_channels": "$c", "kernel": 3, "stride": "$stride",
     "padding": 1, "bias": false},
    {"name": "bn1", "type": "batchnorm2d"}, {"type": "relu", "inplace": true},
    {"name": "conv2", "type": "conv2d", "out_channels": "$c", "kernel": 3, "padding": 1},
    {"name": "bn2", "type": "batchnorm2d"},
    {"name": "sum", "type": "add", "inputs": ["input", "bn2"]}]}})";

std::string withBlock(const std::string& group) {
  return R"({"input": [3, 16, 16], )" + kBlocks +
         R"(, "layers": [{"name": "stem", "type": "conv2d", "out_channels": 8, "kernel": 3,
             "padding": 1}, )" +
         group + "]}";
}

}  // namespace

TEST_CASE("every bad-input class names its JSON path, code and reason", "[errors]") {
  const auto c = GENERATE_COPY(
      // Malformed JSON: the parser's position is in the message.
      BadInput{"malformed JSON", R"({"input": [3, 8, 8], "layers": [)", ErrorCode::kParse, "",
               "not valid JSON"},
      BadInput{"not an object", "[1, 2]", ErrorCode::kType, "", "must be an object"},
      BadInput{"unknown layer type", oneLayer(R"({"type": "conv3d"})"), ErrorCode::kValue,
               "/layers/0/type", "unknown layer type 'conv3d'"},
      BadInput{"unknown field (a typo)",
               oneLayer(R"({"type": "conv2d", "out_channels": 4, "kernal": 3})"),
               ErrorCode::kUnknownField, "/layers/0/kernal", "unknown field 'kernal'"},
      BadInput{"unknown top-level field", R"({"input": [4], "layers": [{"type": "relu"}], "x": 1})",
               ErrorCode::kUnknownField, "/x", "unknown field 'x'"},
      BadInput{"missing field", oneLayer(R"({"type": "conv2d", "kernel": 3})"),
               ErrorCode::kMissingField, "/layers/0/out_channels",
               "required field 'out_channels' is missing"},
      BadInput{"missing input", R"({"layers": [{"type": "relu"}]})", ErrorCode::kMissingField,
               "/input", "'input' is missing"},
      BadInput{"missing type", oneLayer(R"({"name": "x"})"), ErrorCode::kMissingField,
               "/layers/0/type", "'type' is missing"},
      BadInput{"wrong-typed field (string)",
               oneLayer(R"({"type": "conv2d", "out_channels": "4", "kernel": 3})"),
               ErrorCode::kType, "/layers/0/out_channels", "must be an integer, not string"},
      BadInput{"wrong-typed field (boolean)",
               oneLayer(R"({"type": "conv2d", "out_channels": 4, "kernel": 3, "bias": 1})"),
               ErrorCode::kType, "/layers/0/bias", "must be true or false"},
      BadInput{"wrong-typed layers", R"({"input": [4], "layers": {"type": "relu"}})",
               ErrorCode::kType, "/layers", "must be an array of layers"},
      BadInput{"zero size", oneLayer(R"({"type": "conv2d", "out_channels": 0, "kernel": 3})"),
               ErrorCode::kValue, "/layers/0/out_channels", "must be at least 1, not 0"},
      BadInput{"negative size", oneLayer(R"({"type": "linear", "out_features": -10})"),
               ErrorCode::kValue, "/layers/0/out_features", "must be at least 1, not -10"},
      BadInput{"non-integer size",
               oneLayer(R"({"type": "conv2d", "out_channels": 4.5, "kernel": 3})"),
               ErrorCode::kType, "/layers/0/out_channels", "must be an integer, not 4.5"},
      BadInput{"zero input dimension", R"({"input": [3, 0, 8], "layers": [{"type": "relu"}]})",
               ErrorCode::kValue, "/input/1", "must be at least 1, not 0"},
      // A sample has at most 8 dimensions (dlcost::kMaxRank); an embedding adds one.
      BadInput{"output of more than 8 dimensions",
               R"({"input": [1, 1, 1, 1, 1, 1, 1, 2], "layers": [
                   {"type": "embedding", "num_embeddings": 10, "embedding_dim": 4}]})",
               ErrorCode::kShape, "/layers/0", "output of more than 8 dimensions per sample"},
      BadInput{"negative padding",
               oneLayer(R"({"type": "conv2d", "out_channels": 4, "kernel": 3, "padding": -1})"),
               ErrorCode::kValue, "/layers/0/padding", "must be at least 0, not -1"},
      BadInput{"kernel element zero",
               oneLayer(R"({"type": "conv2d", "out_channels": 4, "kernel": [3, 0]})"),
               ErrorCode::kValue, "/layers/0/kernel/1", "must be at least 1, not 0"},
      BadInput{"conv output <= 0",
               oneLayer(R"({"type": "conv2d", "out_channels": 4, "kernel": 9})"), ErrorCode::kShape,
               "/layers/0/kernel", "would be <= 0"},
      BadInput{"conv output <= 0 later in the net", oneLayer(R"({"type": "maxpool2d", "kernel": 4},
                           {"type": "conv2d", "out_channels": 4, "kernel": [1, 3]})"),
               ErrorCode::kShape, "/layers/1/kernel", "output width would be <= 0"},
      BadInput{"channels not divisible by groups",
               oneLayer(R"({"type": "conv2d", "out_channels": 4, "kernel": 3, "groups": 2})"),
               ErrorCode::kShape, "/layers/0/groups", "groups 2 must divide both in channels (3)"},
      BadInput{"in_channels mismatch",
               oneLayer(R"({"type": "conv2d", "in_channels": 64, "out_channels": 4, "kernel": 3})"),
               ErrorCode::kShape, "/layers/0/in_channels", "the input has 3 channels"},
      BadInput{"add of incompatible shapes",
               oneLayer(R"({"name": "c", "type": "conv2d", "out_channels": 4, "kernel": 1},
                           {"type": "add", "inputs": ["input", "c"]})"),
               ErrorCode::kShape, "/layers/1/inputs",
               "add of incompatible shapes [3, 8, 8] and [4, 8, 8]"},
      BadInput{"concat of incompatible shapes",
               oneLayer(R"({"name": "p", "type": "maxpool2d", "kernel": 2},
                           {"type": "concat", "inputs": ["input", "p"]})"),
               ErrorCode::kShape, "/layers/1/inputs",
               "concat needs shapes equal except along axis 0"},
      BadInput{"in-place add into a broadcast input",
               oneLayer(R"({"name": "p", "type": "global_avgpool2d"},
                           {"type": "add", "inputs": ["p", "input"], "inplace": true})"),
               ErrorCode::kShape, "/layers/1/inplace", "must have the result's shape [3, 8, 8]"},
      BadInput{"add with one input", oneLayer(R"({"type": "add"})"), ErrorCode::kValue,
               "/layers/0/inputs", "needs two or more inputs"},
      BadInput{"unknown inputs", oneLayer(R"({"type": "add", "inputs": ["input", "nope"]})"),
               ErrorCode::kGraph, "/layers/0/inputs/1", "unknown layer 'nope'"},
      BadInput{"forward reference (a cycle)",
               oneLayer(R"({"name": "a", "type": "add", "inputs": ["input", "b"]},
                           {"name": "b", "type": "relu", "inputs": "a"})"),
               ErrorCode::kGraph, "/layers/0/inputs/1", "cycles are not allowed"},
      BadInput{"self reference", oneLayer(R"({"name": "a", "type": "relu", "inputs": "a"})"),
               ErrorCode::kGraph, "/layers/0/inputs", "not defined before this layer"},
      BadInput{"duplicate name",
               oneLayer(R"({"name": "a", "type": "relu"}, {"name": "a", "type": "relu"})"),
               ErrorCode::kValue, "/layers/1/name", "duplicate layer name 'a'"},
      // 2^40 x 2^40 weights overflow 64-bit arithmetic (each size alone is allowed).
      BadInput{"overflowing linear",
               R"({"input": [1099511627776], "layers": [{"type": "linear",
                   "out_features": 1099511627776}]})",
               ErrorCode::kTooLarge, "/layers/0", "overflow 64-bit arithmetic"},
      BadInput{"overflowing input",
               R"({"input": [2147483648, 2147483648], "layers": [{"type": "relu"}]})",
               ErrorCode::kTooLarge, "/input", "overflows 64-bit arithmetic"},
      BadInput{"size above the limit", oneLayer(R"({"type": "linear", "out_features": 1e300})"),
               ErrorCode::kType, "/layers/0/out_features", "must be an integer"},
      BadInput{"integer above the limit",
               oneLayer(R"({"type": "linear", "out_features": 18446744073709551615})"),
               ErrorCode::kTooLarge, "/layers/0/out_features", "above the largest allowed"},
      // 2^30 x 1024 values per sample x 4 bytes x 2^32 samples overflows; batch 1 does not.
      BadInput{"batch that overflows",
               R"({"input": [1073741824, 1024], "layers": [{"type": "linear", "out_features": 4}],
                   "workload": {"batch": 4294967296}})",
               ErrorCode::kTooLarge, "/workload/batch", "makes the totals overflow"},
      BadInput{"batch above the limit",
               R"({"input": [4], "layers": [{"type": "relu"}], "workload": {"batch": 4294967297}})",
               ErrorCode::kTooLarge, "/workload/batch", "above the largest allowed"},
      BadInput{"repeat 10^6",
               R"({"input": [4], "layers": [{"repeat": 1000000, "layers": [{"type": "relu"}]}]})",
               ErrorCode::kTooLarge, "/layers/0/repeat", "above the largest allowed 100000"},
      BadInput{"expansion past the layer limit",
               R"({"input": [4], "layers": [{"repeat": 60000, "layers": [{"type": "relu"},
                   {"type": "relu"}]}]})",
               ErrorCode::kTooLarge, "/layers/0/layers/0", "more than 100000 layers"},
      BadInput{"nested repeats past the layer limit",
               R"({"input": [4], "layers": [{"repeat": 1000, "layers": [{"repeat": 1000,
                   "layers": [{"type": "relu"}]}]}]})",
               ErrorCode::kTooLarge, "/layers/0/layers/0/layers/0", "more than 100000 layers"},
      BadInput{"a block that uses itself",
               R"({"input": [4], "blocks": {"b": {"layers": [{"block": "b"}]}},
                   "layers": [{"block": "b"}]})",
               ErrorCode::kTooLarge, "/blocks/b/layers/0", "blocks nest deeper than 16"},
      BadInput{"deep JSON nesting",
               std::string(R"({"input": [4], "layers": [{"type": "relu", "comment": )") +
                   std::string(100, '[') + std::string(100, ']') + "}]}",
               ErrorCode::kTooLarge, "", "nests deeper than 64 levels"},
      BadInput{"very deep JSON nesting", std::string(100000, '[') + std::string(100000, ']'),
               ErrorCode::kTooLarge, "", "nests deeper than 64 levels"},
      BadInput{"bad block argument",
               withBlock(R"({"name": "l1", "block": "basic", "args": {"c": 0}})"),
               ErrorCode::kValue, "/layers/1/args/c", "must be at least 1, not 0"},
      BadInput{"wrong-typed block argument",
               withBlock(R"({"name": "l1", "block": "basic", "args": {"c": "wide"}})"),
               ErrorCode::kType, "/layers/1/args/c", "must be an integer, not string"},
      BadInput{"missing block argument", withBlock(R"({"name": "l1", "block": "basic"})"),
               ErrorCode::kMissingField, "/layers/1/args/c", "parameter 'c' has no default"},
      BadInput{"unknown block argument",
               withBlock(R"({"name": "l1", "block": "basic", "args": {"c": 8, "d": 1}})"),
               ErrorCode::kUnknownField, "/layers/1/args/d", "no parameter 'd'"},
      BadInput{"unknown block", withBlock(R"({"name": "l1", "block": "basik", "args": {"c": 8}})"),
               ErrorCode::kValue, "/layers/1/block", "unknown block 'basik'"},
      BadInput{"block argument that breaks a shape",
               withBlock(R"({"name": "l1", "block": "basic", "args": {"c": 8, "stride": 2}})"),
               ErrorCode::kShape, "/blocks/basic/layers/5/inputs",
               "layer 'l1.sum': add of incompatible shapes"},
      BadInput{"block argument that breaks groups",
               R"({"input": [3, 8, 8], "blocks": {"b": {"params": {"g": 1}, "layers": [
                   {"type": "conv2d", "out_channels": 2, "kernel": 1, "groups": "$g"}]}},
                   "layers": [{"block": "b", "args": {"g": 2}}]})",
               ErrorCode::kShape, "/layers/0/args/g", "groups 2 must divide"},
      BadInput{"block argument as an array element",
               R"({"input": [3, 8, 8], "blocks": {"b": {"params": {"k": 3}, "layers": [
                   {"type": "conv2d", "out_channels": 2, "kernel": ["$k", 1]}]}},
                   "layers": [{"block": "b", "args": {"k": 0}}]})",
               ErrorCode::kValue, "/layers/0/args/k", "must be at least 1, not 0"},
      BadInput{"literal next to an argument in an array",
               R"({"input": [3, 8, 8], "blocks": {"b": {"params": {"k": 3}, "layers": [
                   {"type": "conv2d", "out_channels": 2, "kernel": ["$k", 0]}]}},
                   "layers": [{"block": "b"}]})",
               ErrorCode::kValue, "/blocks/b/layers/0/kernel/1", "must be at least 1, not 0"},
      BadInput{"parameter outside a block", oneLayer(R"({"type": "linear", "out_features": "$n"})"),
               ErrorCode::kValue, "/layers/0/out_features", "not inside a block"},
      BadInput{"bad workload value",
               R"({"input": [4], "layers": [{"type": "relu"}], "workload": {"dtype": "fp8"}})",
               ErrorCode::kValue, "/workload/dtype",
               "must be one of fp32, fp16, bf16, mixed, autocast_fp16, autocast_bf16"},
      BadInput{"zero batch",
               R"({"input": [4], "layers": [{"type": "relu"}], "workload": {"batch": 0}})",
               ErrorCode::kValue, "/workload/batch", "must be at least 1"},
      BadInput{"unknown optimizer",
               R"({"input": [4], "layers": [{"type": "relu"}], "workload": {"optimizer": "lion"}})",
               ErrorCode::kValue, "/workload/optimizer", "not \"lion\""},
      BadInput{"unknown preset", R"({"model": {"preset": "resnet9000"}})", ErrorCode::kValue,
               "/model/preset", "unknown preset 'resnet9000'"},
      BadInput{"schema version 2", R"({"schema": 2, "input": [4], "layers": [{"type": "relu"}]})",
               ErrorCode::kValue, "/schema", "schema version 1"},
      BadInput{"gelu approximation", oneLayer(R"({"type": "gelu", "approximate": "erf"})"),
               ErrorCode::kValue, "/layers/0/approximate", "must be \"none\" or \"tanh\""},
      BadInput{"approximate on relu", oneLayer(R"({"type": "relu", "approximate": "tanh"})"),
               ErrorCode::kUnknownField, "/layers/0/approximate", "only gelu has it"},
      BadInput{"batchnorm on a vector", R"({"input": [4], "layers": [{"type": "batchnorm2d"}]})",
               ErrorCode::kShape, "/layers/0", "batchnorm2d needs a [C, H, W] (or [C, L]) input"},
      BadInput{"schema version 2 beside a model",
               R"({"schema": 2, "model": {"input": [4], "layers": [{"type": "relu"}]}})",
               ErrorCode::kValue, "/schema", "schema version 1"},
      BadInput{"pooling a vector",
               R"({"input": [4], "layers": [{"type": "maxpool2d", "kernel": 2}]})",
               ErrorCode::kShape, "/layers/0", "needs a 3-D input [C, H, W], got [4]"});
  CAPTURE(c.what);
  const dlcost::Error e = errorOfText(c.document);
  CHECK(std::string(errorCodeName(e.code)) == errorCodeName(c.code));
  CHECK(e.path == c.path);
  CHECK_THAT(e.message, Catch::Matchers::Contains(c.reason));
}

TEST_CASE("errors thrown by the engine are values with no partial report", "[errors]") {
  // estimateText returns exactly one object: the error, with no report fields beside it.
  const json out =
      json::parse(dlcost::estimateText(oneLayer(R"({"type": "conv2d", "kernel": 3})")));
  REQUIRE(out.contains("error"));
  CHECK(out.size() == 1);
  // code, path, message and (this one is written in both languages) message_zh
  CHECK(out["error"].size() == 4);
  CHECK(out["error"].contains("message_zh"));
}

TEST_CASE("estimateDocument throws InputError with the same path", "[errors]") {
  const dlcost::Error e =
      errorOf(json{{"input", {3, 8, 8}},
                   {"layers", {{{"type", "conv2d"}, {"out_channels", 4}, {"kernel", 9}}}}});
  CHECK(e.code == ErrorCode::kShape);
  CHECK(e.path == "/layers/0/kernel");
}

TEST_CASE("paths inside a {model, workload} document start at /model", "[errors]") {
  const dlcost::Error e = errorOfText(R"({"model": {"input": [4], "layers": [{"type": "relu",
      "inplace": "yes"}]}, "workload": {"batch": 2}})");
  CHECK(e.code == ErrorCode::kType);
  CHECK(e.path == "/model/layers/0/inplace");
}

TEST_CASE("JSON pointers escape '~' and '/' in field names", "[errors]") {
  // RFC 6901 section 3: '~' is written "~0" and '/' "~1".
  const dlcost::Error e =
      errorOfText(R"({"input": [4], "layers": [{"type": "relu", "a/b~c": 1}]})");
  CHECK(e.code == ErrorCode::kUnknownField);
  CHECK(e.path == "/layers/0/a~1b~0c");
}

TEST_CASE("a number literal beyond double's range is a parse error, not an internal one",
          "[errors][fuzz]") {
  // Found by fuzz_config (kept as tests/fixtures/fuzz-regressions/config-number-overflow-*):
  // nlohmann/json reports 1e1400 as out_of_range, not parse_error.
  const nlohmann::json out = nlohmann::json::parse(dlcost::estimateText("{\"input\": [1e1400]}"));
  CHECK(out["error"]["code"] == "parse");
  CHECK(out["error"]["path"] == "");
  CHECK_THAT(out["error"]["message"].get<std::string>(), Catch::Matchers::Contains("overflow"));
}

TEST_CASE("the errors a form or a layer row meets are written in Chinese too", "[errors][zh]") {
  struct Case {
    const char* what;
    std::string document;
    const char* zh;  ///< a phrase of the Chinese message
  };
  const Case c = GENERATE(
      Case{"batch below its minimum",
           R"({"model": {"preset": "alexnet"}, "workload": {"batch": 0}})",
           "必须至少为 1，而不是 0"},
      Case{"memory below zero",
           R"({"model": {"preset": "alexnet"}, "workload": {"memory_gib": -1}})", "GiB"},
      Case{"an enum value", R"({"model": {"preset": "alexnet"}, "workload": {"dtype": "fp7"}})",
           "之一，而不是 \"fp7\""},
      Case{"an unknown workload field",
           R"({"model": {"preset": "alexnet"}, "workload": {"batchsize": 2}})", "未知字段"},
      Case{"a layer field below its minimum",
           oneLayer(R"({"type": "conv2d", "out_channels": 0, "kernel": 3})"), "必须至少为 1"},
      Case{"a kernel larger than the input",
           oneLayer(R"({"type": "conv2d", "out_channels": 4, "kernel": 9})"), "小于卷积核的跨度"},
      Case{"a linear layer on the wrong width",
           oneLayer(R"({"type": "linear", "in_features": 5, "out_features": 2})"),
           "in_features 为 5"},
      Case{"a missing required field", oneLayer(R"({"type": "linear"})"),
           "缺少必填字段 'out_features'"});
  CAPTURE(c.what);
  const json out = json::parse(dlcost::estimateText(c.document));
  REQUIRE(out.contains("error"));
  const json& e = out["error"];
  CAPTURE(e.dump());
  // The English message stays the CLI's; the Chinese one says the same with the same numbers.
  CHECK(e["message"].get<std::string>().find_first_of("\xe4\xe5\xe6\xe7\xe8\xe9") ==
        std::string::npos);
  REQUIRE(e.contains("message_zh"));
  CHECK(e["message_zh"].get<std::string>().find(c.zh) != std::string::npos);
}
