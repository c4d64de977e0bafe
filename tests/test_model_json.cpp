// Reading schema version 1: document forms, workload fields, layer naming, inputs, and the
// expansion of blocks, templates and repeats.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "support.hpp"

using dlcost::Config;
using dlcost::LayerGraph;
using dlcost::parseConfig;
using dlcost::Shape;
using dlcost::test::estimateDoc;
using dlcost::test::row;
using nlohmann::json;

namespace {

const LayerGraph& graphOf(const Config& c) {
  return std::get<LayerGraph>(c.model.body);
}

std::vector<std::string> namesOf(const Config& c) {
  std::vector<std::string> out;
  for (const auto& l : graphOf(c).layers) out.push_back(l.name);
  return out;
}

// The example block of the schema documentation (docs/model-schema.md): ResNet's basic
// block with the channel count and stride as parameters.
const json kBasic = json::parse(R"({"params": {"c": null, "stride": 1}, "layers": [
  {"name": "conv1", "type": "conv2d", "out_channels": "$c", "kernel": 3, "stride": "$stride",
   "padding": 1, "bias": false},
  {"name": "bn1", "type": "batchnorm2d"}, {"type": "relu", "inplace": true},
  {"name": "conv2", "type": "conv2d", "out_channels": "$c", "kernel": 3, "padding": 1,
   "bias": false},
  {"name": "bn2", "type": "batchnorm2d"},
  {"name": "sum", "type": "add", "inputs": ["input", "bn2"]}, {"type": "relu", "inplace": true}]})");

}  // namespace

TEST_CASE("the three document forms give the same estimate", "[model_json]") {
  const json model = json::parse(dlcost::presetJson("mlp_mnist"));
  const json workload = {{"batch", 32}, {"dtype", "bf16"}, {"optimizer", "sgd"}};
  json bare = model;
  bare["workload"] = workload;
  const auto a = estimateDoc(bare);
  const auto b = estimateDoc(json{{"model", model}, {"workload", workload}});
  const auto c = estimateDoc(json{{"model", {{"preset", "mlp_mnist"}}}, {"workload", workload}});
  CHECK(a.memory.total == b.memory.total);
  CHECK(b.memory.total == c.memory.total);
  CHECK(a.macs.forward == c.macs.forward);
  CHECK(c.workload.batch == 32);
  CHECK(c.model_name == "mlp_mnist");
}

TEST_CASE("a Hugging Face config.json is told by model_type or architectures",
          "[model_json][hf_config]") {
  // transformers' PretrainedConfig.to_json_file writes model_type (configuration_utils.py,
  // to_diff_dict); files saved by older versions may carry only architectures.
  struct Case {
    const char* what;
    json document;
    bool hf;
  };
  const auto c =
      GENERATE(Case{"model_type", {{"model_type", "llama"}, {"hidden_size", 64}}, true},
               Case{"architectures only", {{"architectures", {"LlamaForCausalLM"}}}, true},
               Case{"a null model_type", {{"model_type", nullptr}}, true},
               Case{"a dlcost document around it", {{"model", {{"model_type", "llama"}}}}, false},
               Case{"dlcost's hf_config form", {{"hf_config", {{"model_type", "llama"}}}}, false},
               Case{"a layer graph", {{"input", {4}}, {"layers", json::array()}}, false},
               Case{"an array", json::array({{{"model_type", "llama"}}}), false},
               Case{"a string", "model_type", false});
  CAPTURE(c.what);
  CHECK(dlcost::isHfConfig(c.document) == c.hf);
}

TEST_CASE("every published config.json and hf preset is a Hugging Face config, no CNN preset is",
          "[model_json][hf_config]") {
  int files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(DLCOST_FIXTURES) + "/hf-configs")) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    CAPTURE(entry.path().string());
    CHECK(dlcost::isHfConfig(json::parse(in)));
    ++files;
  }
  CHECK(files >= 20);
  for (const auto& p : dlcost::presetList()) {
    CAPTURE(p.name);
    CHECK(dlcost::isHfConfig(json::parse(dlcost::presetJson(p.name))) == (p.family == "hf"));
  }
}

TEST_CASE("workload defaults: train, batch 1, fp32, adam, no overhead, no memory size",
          "[model_json][workload]") {
  const Config c = parseConfig(json{{"input", {4}}, {"layers", {{{"type", "relu"}}}}});
  CHECK(c.workload.mode == dlcost::Mode::kTrain);
  CHECK(c.workload.batch == 1);
  CHECK(c.workload.precision == dlcost::Precision::kFp32);
  CHECK(c.workload.optimizer == dlcost::Optimizer::kAdam);
  CHECK(c.workload.overhead_bytes == 0);
  CHECK_FALSE(c.workload.memory_bytes);
}

TEST_CASE("memory_gib is in units of 2^30 bytes: memory_bytes is exact", "[model_json][workload]") {
  const json model = {{"input", {4}}, {"layers", {{{"type", "relu"}}}}};
  CHECK(parseConfig(json{{"model", model}, {"workload", {{"memory_gib", 1.5}}}})
            .workload.memory_bytes == int64_t{3} << 29);
  CHECK(parseConfig(json{{"model", model}, {"workload", {{"memory_bytes", 12345}}}})
            .workload.memory_bytes == 12345);
  CHECK(parseConfig(json{{"model", model}, {"workload", {{"mode", "inference"}}}}).workload.mode ==
        dlcost::Mode::kInfer);
}

TEST_CASE("layers are named by their index unless named: inputs default to the previous layer",
          "[model_json][graph]") {
  const Config c = parseConfig(json::parse(R"({"input": [4], "layers": [
      {"type": "linear", "out_features": 4}, {"name": "act", "type": "relu"},
      {"type": "add", "inputs": ["0", "act"]}, {"type": "relu", "inputs": "input"}]})"));
  CHECK(namesOf(c) == std::vector<std::string>{"0", "act", "2", "3"});
  const auto& layers = graphOf(c).layers;
  CHECK(layers[0].inputs == std::vector<int>{dlcost::kModelInput});
  CHECK(layers[1].inputs == std::vector<int>{0});
  CHECK(layers[2].inputs == std::vector<int>{0, 1});
  CHECK(layers[3].inputs == std::vector<int>{dlcost::kModelInput});  // "input" and a string
  CHECK(layers[2].path == "/layers/2");
}

TEST_CASE("a repeated block expands to name.k.layer, and its name means its output",
          "[model_json][blocks]") {
  const json doc = {
      {"input", {3, 32, 32}},
      {"blocks", {{"basic", kBasic}}},
      {"layers",
       {{{"name", "stem"}, {"type", "conv2d"}, {"out_channels", 16}, {"kernel", 3}, {"padding", 1}},
        {{"name", "layer1"}, {"block", "basic"}, {"repeat", 2}, {"args", {{"c", 16}}}},
        {{"name", "head"}, {"type", "global_avgpool2d"}, {"inputs", "layer1"}}}}};
  const Config c = parseConfig(doc);
  const auto names = namesOf(c);
  REQUIRE(names.size() == 1 + 2 * 7 + 1);
  CHECK(names[1] == "layer1.0.conv1");
  CHECK(names[6] == "layer1.0.sum");
  CHECK(names[7] == "layer1.0.6");  // an unnamed layer takes its index in the block
  CHECK(names[8] == "layer1.1.conv1");
  CHECK(names[14] == "layer1.1.6");
  const auto& layers = graphOf(c).layers;
  // Inside repeat 0, "input" is the stem; inside repeat 1, the output of repeat 0.
  CHECK(layers[6].inputs == std::vector<int>{0, 5});
  CHECK(layers[13].inputs == std::vector<int>{7, 12});
  CHECK(layers[15].inputs == std::vector<int>{14});  // "layer1" = its last layer
  // Each template layer records where it is defined, for errors.
  CHECK(layers[1].path == "/blocks/basic/layers/0");
  // The parameter came from the group's args.
  CHECK(std::get<dlcost::Conv2d>(layers[1].spec).out_channels == 16);
  CHECK(std::get<dlcost::Conv2d>(layers[1].spec).stride.h == 1);  // the template's default
}

TEST_CASE("a block used once drops the repeat index from names", "[model_json][blocks]") {
  const json doc = {{"input", {8, 8, 8}},
                    {"blocks", {{"basic", kBasic}}},
                    {"layers", {{{"name", "b"}, {"block", "basic"}, {"args", {{"c", 8}}}}}}};
  CHECK(namesOf(parseConfig(doc))[0] == "b.conv1");
}

TEST_CASE("inline groups repeat their layers", "[model_json][blocks]") {
  const Config c = parseConfig(json::parse(R"({"input": [4], "layers": [
      {"name": "mlp", "repeat": 3, "layers": [{"name": "fc", "type": "linear", "out_features": 4},
                                              {"type": "relu"}]}]})"));
  CHECK(namesOf(c) == std::vector<std::string>{"mlp.0.fc", "mlp.0.1", "mlp.1.fc", "mlp.1.1",
                                               "mlp.2.fc", "mlp.2.1"});
  const auto r = estimateDoc(json::parse(R"({"input": [4], "layers": [
      {"name": "mlp", "repeat": 3, "layers": [{"name": "fc", "type": "linear", "out_features": 4},
                                              {"type": "relu"}]}]})"));
  CHECK(r.params.total == 3 * (4 * 4 + 4));
}

TEST_CASE("blocks nest and pass their parameters down", "[model_json][blocks]") {
  // stage(c) = two basic(c) blocks; the outer argument flows into the inner template.
  json blocks = {
      {"basic", kBasic},
      {"stage",
       {{"params", {{"c", nullptr}}},
        {"layers",
         {{{"name", "b"}, {"block", "basic"}, {"repeat", 2}, {"args", {{"c", "$c"}}}}}}}}};
  const json doc = {{"input", {8, 8, 8}},
                    {"blocks", blocks},
                    {"layers", {{{"name", "s"}, {"block", "stage"}, {"args", {{"c", 8}}}}}}};
  const Config c = parseConfig(doc);
  CHECK(namesOf(c)[0] == "s.b.0.conv1");
  CHECK(namesOf(c).size() == 14);
  // 2 blocks x (2 convs 3x3x8x8 + 2 batchnorms 2x8) parameters.
  CHECK(estimateDoc(doc).params.total == 2 * (2 * 9 * 8 * 8 + 2 * 2 * 8));
}

TEST_CASE("a group may read any earlier layer through inputs", "[model_json][blocks]") {
  const Config c = parseConfig(json::parse(R"({"input": [4], "layers": [
      {"name": "a", "type": "linear", "out_features": 4},
      {"name": "b", "type": "linear", "out_features": 4},
      {"name": "g", "inputs": "a", "layers": [{"type": "relu"},
                                             {"type": "add", "inputs": ["input", "b"]}]}]})"));
  const auto& layers = graphOf(c).layers;
  CHECK(layers[2].inputs == std::vector<int>{0});     // the group's input is a
  CHECK(layers[3].inputs == std::vector<int>{0, 1});  // "input" is a; b from the outer scope
}

TEST_CASE("an embedding on the model input makes the input token ids", "[model_json]") {
  const Config c = parseConfig(json::parse(R"({"input": [16], "layers": [
      {"type": "embedding", "num_embeddings": 100, "embedding_dim": 8}]})"));
  CHECK(graphOf(c).input_kind == dlcost::InputKind::kTokenIds);
}

TEST_CASE("comment fields are allowed on models, layers, groups, blocks and workloads",
          "[model_json]") {
  const json doc = json::parse(R"({"comment": "x", "name": "n", "description": "d", "source": "s",
      "source_zh": "s", "schema": 1, "input": [4],
      "blocks": {"b": {"comment": "x", "layers": [{"type": "relu", "comment": "x"}]}},
      "layers": [{"comment": "x", "block": "b"}], "workload": {"comment": "x"}})");
  CHECK(estimateDoc(doc).model_name == "n");
}

TEST_CASE("every preset's printed JSON is accepted back by estimate", "[model_json][presets]") {
  for (const auto& p : dlcost::presetList()) {
    CAPTURE(p.name);
    const json doc = json::parse(dlcost::presetJson(p.name));
    CHECK(estimateDoc(doc).params.total ==
          estimateDoc(json{{"model", {{"preset", p.name}}}}).params.total);
    CHECK_FALSE(p.source.empty());
  }
}

TEST_CASE("the report JSON carries every field of the CLI contract", "[model_json][report]") {
  const json j = dlcost::estimateDocument(
      json{{"model", {{"preset", "alexnet"}}}, {"workload", {{"batch", 4}, {"memory_gib", 8}}}});
  for (const char* key : {"total", "trainable", "non_trainable", "buffers"})
    CHECK(j["params"].contains(key));
  for (const char* key : {"forward", "backward", "total", "convention"}) {
    CHECK(j["macs"].contains(key));
    CHECK(j["flops"].contains(key));
  }
  CHECK(j["schema"] == "dlcost.report/2");
  for (const char* key : {"total", "fixed", "per_sample"}) {
    CAPTURE(key);
    CHECK(j["memory"][key].is_number_integer());
  }
  // Training a CNN: every model state, the saved activations and the backward peak, in order.
  std::vector<std::string> keys;
  int64_t sum = 0;
  for (const json& term : j["memory"]["terms"]) {
    keys.push_back(term["key"]);
    CHECK(term["bytes"] == term["fixed"].get<int64_t>() + 4 * term["per_sample"].get<int64_t>());
    CHECK(term["inputs"].is_array());
    sum += term["bytes"].get<int64_t>();
  }
  CHECK(keys == std::vector<std::string>{"weights", "buffers", "gradients", "optimizer_states",
                                         "optimizer_step", "activations", "backward_peak_extra",
                                         "backward_gradient_delta", "overhead"});
  // The total is the larger phase's: the terms of every phase and of the peak one.
  const std::string peak = j["memory"]["peak_phase"];
  int64_t in_peak = 0;
  for (const json& term : j["memory"]["terms"]) {
    if (term["phase"] == "always" || term["phase"] == peak) in_peak += term["bytes"].get<int64_t>();
  }
  CHECK(in_peak == j["memory"]["total"]);
  CHECK(sum > in_peak);
  CHECK(j["memory_fit"]["max_batch"].is_number_integer());
  CHECK(j["memory_fit"]["fits"] == true);
  CHECK(j["workload"]["batch"] == 4);
  CHECK(j["layers"].size() == 23);  // the input and AlexNet's 22 layers
  for (const char* key : {"name", "type", "output_shape", "params", "macs", "activation_bytes"})
    CHECK(j["layers"][1].contains(key));
  CHECK(j["layers"][1]["output_shape"] == json({64, 55, 55}));
  CHECK(j["layers"][1]["macs"] == 4 * 70276800);  // rows are at the workload's batch
}

TEST_CASE("each layer row names the rows it reads: a residual add reads two",
          "[model_json][report]") {
  // The schema's basic block once, on a 4-channel input: rows 0 input, 1 conv1, 2 bn1, 3 relu,
  // 4 conv2, 5 bn2, 6 sum, 7 relu; "input" inside the block is the block's input (row 0).
  const json j = dlcost::estimateDocument(
      json{{"input", {4, 8, 8}},
           {"blocks", {{"basic", kBasic}}},
           {"layers", {{{"name", "b"}, {"block", "basic"}, {"args", {{"c", 4}}}}}}});
  const json& rows = j["layers"];
  REQUIRE(rows.size() == 8);
  CHECK(rows[0]["inputs"] == json::array());
  CHECK(rows[1]["inputs"] == json({0}));
  CHECK(rows[4]["inputs"] == json({3}));
  CHECK(rows[6]["type"] == "add");
  CHECK(rows[6]["inputs"] == json({0, 5}));
  CHECK(rows[7]["inputs"] == json({6}));
  CHECK(j["schema"] == "dlcost.report/2");  // an added field: the schema stays
}

TEST_CASE("transformer rows carry no inputs: the page draws them as blocks",
          "[model_json][report]") {
  const json j = dlcost::estimateDocument(json{{"model", {{"preset", "gpt2"}}}});
  REQUIRE(j["layers"].size() > 1);
  for (const json& row : j["layers"]) CHECK_FALSE(row.contains("inputs"));
}
