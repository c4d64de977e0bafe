// Properties that hold for every model, checked over generated ones (a seeded PRNG, so a
// failure reproduces): random conv/bn/relu/pool/linear chains, residual graphs, and random
// transformers in the generic {"model": {"transformer": {...}}} form. No figure here is
// asserted against a source: each check compares the engine with itself under a change that
// must (or must not) move a figure, which is what the cost model's definitions imply.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "dlcost/report/report_json.hpp"
#include "support.hpp"

namespace {

using dlcost::InputError;
using dlcost::Report;
using dlcost::test::estimateDoc;
using nlohmann::json;

constexpr int kModelsPerKind = 12;  // generated models per kind and property
constexpr uint32_t kSeed = 20261202;

int pick(std::mt19937& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

/// A chain of conv/bn/relu/pool stages ending in global pooling and a linear classifier;
/// with `residual`, some stages are conv-bn blocks added back to their input.
json randomCnn(std::mt19937& rng, bool residual) {
  int channels = pick(rng, 1, 8);
  const int input_channels = channels;
  int size = 8 << pick(rng, 0, 3);  // 8 ... 64
  const int size0 = size;
  json layers = json::array();
  int n = 0;
  auto name = [&](const char* base) { return std::string(base) + std::to_string(n++); };
  const int stages = pick(rng, 1, 6);
  for (int s = 0; s < stages; ++s) {
    const int kind = pick(rng, 0, residual ? 4 : 3);
    if (kind == 4) {
      // conv 3x3 keeping the shape, bn, then add to the stage input.
      const std::string in = layers.empty() ? "input" : layers.back()["name"].get<std::string>();
      const std::string conv = name("rconv");
      const std::string bn = name("rbn");
      layers.push_back({{"name", conv},
                        {"type", "conv2d"},
                        {"out_channels", channels},
                        {"kernel", 3},
                        {"padding", 1},
                        {"bias", false}});
      layers.push_back({{"name", bn}, {"type", "batchnorm2d"}});
      layers.push_back({{"name", name("sum")}, {"type", "add"}, {"inputs", {in, bn}}});
      layers.push_back({{"name", name("relu")}, {"type", "relu"}});
      continue;
    }
    if (kind == 3 && size >= 4) {
      layers.push_back({{"name", name("pool")}, {"type", "maxpool2d"}, {"kernel", 2}});
      size /= 2;
      continue;
    }
    const int kernel = pick(rng, 0, 1) ? 3 : 1;
    const int stride = size >= 8 && pick(rng, 0, 3) == 0 ? 2 : 1;
    channels = pick(rng, 1, 32);
    layers.push_back({{"name", name("conv")},
                      {"type", "conv2d"},
                      {"out_channels", channels},
                      {"kernel", kernel},
                      {"stride", stride},
                      {"padding", kernel / 2}});
    size = (size + 2 * (kernel / 2) - kernel) / stride + 1;
    if (pick(rng, 0, 1)) layers.push_back({{"name", name("bn")}, {"type", "batchnorm2d"}});
    layers.push_back({{"name", name("relu")}, {"type", "relu"}, {"inplace", pick(rng, 0, 1) == 1}});
  }
  layers.push_back({{"name", name("gap")}, {"type", "global_avgpool2d"}});
  layers.push_back({{"name", name("flat")}, {"type", "flatten"}});
  layers.push_back({{"name", name("fc")}, {"type", "linear"}, {"out_features", pick(rng, 1, 100)}});
  return {{"name", "generated"}, {"input", {input_channels, size0, size0}}, {"layers", layers}};
}

/// A transformer in dlcost's generic form: heads divide hidden, kv_heads divide heads.
json randomTransformer(std::mt19937& rng) {
  const int head_dim = 16 << pick(rng, 0, 2);
  const int heads = 1 << pick(rng, 0, 4);
  const int kv_heads = heads >> pick(rng, 0, 2 < heads ? 2 : 0);
  json t = {{"layers", pick(rng, 1, 6)},
            {"hidden", head_dim * heads},
            {"heads", heads},
            {"kv_heads", std::max(1, kv_heads)},
            {"ffn", 32 * pick(rng, 1, 16)},
            {"vocab", pick(rng, 100, 5000)},
            {"gated_mlp", pick(rng, 0, 1) == 1},
            {"norm", pick(rng, 0, 1) ? "rmsnorm" : "layernorm"},
            {"positions", pick(rng, 0, 1) ? "rotary" : "learned"},
            {"max_positions", 64 << pick(rng, 0, 4)}};
  return {{"transformer", t}};
}

/// Every generated model: CNN chains, residual graphs, transformers.
std::vector<json> generatedModels() {
  std::mt19937 rng(kSeed);
  std::vector<json> models;
  for (int i = 0; i < kModelsPerKind; ++i) models.push_back(randomCnn(rng, false));
  for (int i = 0; i < kModelsPerKind; ++i) models.push_back(randomCnn(rng, true));
  for (int i = 0; i < kModelsPerKind; ++i) models.push_back(randomTransformer(rng));
  return models;
}

Report estimateWith(const json& model, json workload) {
  return estimateDoc(json{{"model", model}, {"workload", std::move(workload)}});
}

}  // namespace

TEST_CASE("memory never decreases as the batch grows, and parameters do not change with it",
          "[properties]") {
  const std::vector<json> models = generatedModels();
  const auto index = GENERATE_COPY(range(size_t{0}, models.size()));
  const json& model = models[index];
  const std::string mode = GENERATE("train", "infer");
  CAPTURE(model.dump(), mode);
  int64_t previous = 0;
  int64_t params = -1;
  for (int64_t batch : {1, 2, 3, 8, 17, 64, 256}) {
    const Report r = estimateWith(model, {{"mode", mode}, {"batch", batch}});
    CAPTURE(batch);
    CHECK(r.memory.total >= previous);
    if (params >= 0) CHECK(r.params.total == params);
    previous = r.memory.total;
    params = r.params.total;
  }
}

TEST_CASE("fp16 weights take exactly half the bytes of fp32 weights", "[properties]") {
  const std::vector<json> models = generatedModels();
  const auto index = GENERATE_COPY(range(size_t{0}, models.size()));
  CAPTURE(models[index].dump());
  const Report fp32 = estimateWith(models[index], {{"dtype", "fp32"}, {"mode", "infer"}});
  const Report fp16 = estimateWith(models[index], {{"dtype", "fp16"}, {"mode", "infer"}});
  CHECK(fp16.memory.bytesOf(dlcost::MemoryKey::kWeights) * 2 ==
        fp32.memory.bytesOf(dlcost::MemoryKey::kWeights));
  CHECK(fp16.params.total == fp32.params.total);
}

TEST_CASE("training never needs less memory than inference of the same batch", "[properties]") {
  const std::vector<json> models = generatedModels();
  const auto index = GENERATE_COPY(range(size_t{0}, models.size()));
  const std::string dtype = GENERATE("fp32", "mixed");
  const int64_t batch = GENERATE(1, 16);
  CAPTURE(models[index].dump(), dtype, batch);
  const Report train =
      estimateWith(models[index], {{"mode", "train"}, {"batch", batch}, {"dtype", dtype}});
  const Report infer =
      estimateWith(models[index], {{"mode", "infer"}, {"batch", batch}, {"dtype", dtype}});
  CHECK(train.memory.total >= infer.memory.total);
}

TEST_CASE("the reported largest batch fits and one more sample does not", "[properties]") {
  const std::vector<json> models = generatedModels();
  const auto index = GENERATE_COPY(range(size_t{0}, models.size()));
  const std::string mode = GENERATE("train", "infer");
  const json& model = models[index];
  // A capacity somewhere between the batch-1 total and 1,000 samples more.
  const Report one = estimateWith(model, {{"mode", mode}, {"batch", 1}});
  const int64_t memory = one.memory.total + one.memory.per_sample * 100 + 12345;
  CAPTURE(model.dump(), mode, memory);
  const Report r = estimateWith(model, {{"mode", mode}, {"memory_bytes", memory}});
  REQUIRE(r.max_batch.has_value());
  REQUIRE(*r.max_batch >= 1);
  const Report at = estimateWith(model, {{"mode", mode}, {"batch", *r.max_batch}});
  const Report over = estimateWith(model, {{"mode", mode}, {"batch", *r.max_batch + 1}});
  CHECK(at.memory.total <= memory);
  CHECK(over.memory.total > memory);
}

TEST_CASE("a model's JSON, printed and read back, gives the same report: so does a preset's",
          "[properties]") {
  const std::vector<json> models = generatedModels();
  for (const json& model : models) {
    CAPTURE(model.dump());
    const json again = json::parse(model.dump(2));
    CHECK(dlcost::reportToJson(estimateWith(again, {{"batch", 3}})) ==
          dlcost::reportToJson(estimateWith(model, {{"batch", 3}})));
  }
  // A preset by name and the model JSON `dlcost preset NAME` prints are the same model.
  for (const dlcost::PresetInfo& info : dlcost::presetList()) {
    const std::string& name = info.name;
    CAPTURE(name);
    const json doc = json::parse(dlcost::presetJson(name));
    CHECK(dlcost::reportToJson(estimateWith(doc, {{"batch", 2}})) ==
          dlcost::reportToJson(estimateWith({{"preset", name}}, {{"batch", 2}})));
  }
}

TEST_CASE("a report's workload, estimated again, gives the same report", "[properties]") {
  // The report echoes the workload as the schema writes it (the fields that apply), so a
  // report can be re-run from itself: every preset, trained and served, on one GPU and on 8
  // with ZeRO-3, LoRA on the transformers.
  const std::vector<json> workloads = {
      {{"batch", 2}},
      {{"batch", 2}, {"mode", "infer"}, {"dtype", "fp16"}},
      {{"batch", 16}, {"gpu", "h100-sxm"}, {"gpus", 8}, {"zero", 3}, {"dtype", "bf16"}},
  };
  for (const dlcost::PresetInfo& info : dlcost::presetList()) {
    for (json workload : workloads) {
      if (info.family == "hf" && !workload.contains("mode")) {
        workload.update({{"finetune", "lora"}, {"seq_len", 128}});
      }
      CAPTURE(info.name, workload.dump());
      const json model = {{"preset", info.name}};
      const json first = dlcost::reportToJson(estimateWith(model, workload));
      CHECK(dlcost::reportToJson(estimateWith(model, first["workload"])) == first);
    }
  }
}

namespace {

/// Whether `path` names a place in `doc`: it resolves, or it names a missing member of an
/// object that exists (a required field left out).
bool pathResolves(const json& doc, const std::string& path) {
  if (path.empty() || path.rfind("--", 0) == 0) return true;
  try {
    const json::json_pointer p(path);
    if (doc.contains(p)) return true;
    return doc.contains(p.parent_pointer()) && doc.at(p.parent_pointer()).is_object();
  } catch (const json::exception&) {
    return false;
  }
}

/// Every scalar's JSON pointer in `doc`, and every object's.
void collectPaths(const json& doc, const std::string& path, std::vector<std::string>& out) {
  out.push_back(path);
  if (doc.is_object()) {
    for (const auto& [key, value] : doc.items()) collectPaths(value, path + "/" + key, out);
  } else if (doc.is_array()) {
    for (size_t i = 0; i < doc.size(); ++i)
      collectPaths(doc[i], path + "/" + std::to_string(i), out);
  }
}

}  // namespace

TEST_CASE("every error from a mutated input names a JSON path that exists in that input",
          "[properties][errors]") {
  std::mt19937 rng(kSeed + 1);
  const std::vector<json> mutations = {
      -1, 0, 1e300, "x", true, nullptr, json::array(), json::object(), 9223372036854775807LL};
  int errors = 0;
  for (const json& model : generatedModels()) {
    const json valid = {{"model", model}, {"workload", {{"batch", 2}, {"mode", "train"}}}};
    std::vector<std::string> paths;
    collectPaths(valid, "", paths);
    for (int i = 0; i < 20; ++i) {
      json doc = valid;
      const std::string where =
          paths[static_cast<size_t>(pick(rng, 1, static_cast<int>(paths.size()) - 1))];
      const json::json_pointer p(where);
      const int how = pick(rng, 0, 2);
      if (how == 0) {
        doc[p] =
            mutations[static_cast<size_t>(pick(rng, 0, static_cast<int>(mutations.size()) - 1))];
      } else if (how == 1 && doc.at(p.parent_pointer()).is_object()) {
        doc.at(p.parent_pointer()).erase(p.back());
      } else if (doc.at(p).is_object()) {
        doc.at(p)["no_such_field"] = 1;
      } else {
        doc[p] = "x";
      }
      CAPTURE(where, how, doc.dump());
      try {
        estimateDoc(doc);
      } catch (const InputError& e) {
        ++errors;
        CAPTURE(e.error().path, e.error().message);
        CHECK(pathResolves(doc, e.error().path));
        CHECK_FALSE(e.error().message.empty());
      }
    }
  }
  // Most mutations break the document; the property must have been exercised.
  CHECK(errors > 100);
}
