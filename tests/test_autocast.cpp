// torch.autocast as a precision of its own (issue #29, item 5): fp32 model states, autocast's
// op lists, the 16-bit weight copies it saves, GradScaler's state. The measured figures come
// from the project's harness on Debian's python3-torch 1.13.1 (CPU, bf16 autocast, batch 8,
// one thread):
//   /usr/bin/python3 scripts/validate_torch.py --models resnet50,vit_s16 --batches 8 \
//       --optimizers sgd,adam --dtype autocast_bf16
// (scripts/validate-torch passes the same options; vit_s16 is scripts/validate_vit.py's
// ViT-S/16, whose weight-stripped export is tests/fixtures/onnx/vit_s16.onnx).

#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <sstream>

#include "dlcost/api.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/model_files/onnx.hpp"
#include "dlcost/model_files/onnx_graph.hpp"
#include "dlcost/report/share_link.hpp"
#include "dlcost/types/precision.hpp"
#include "support.hpp"

using dlcost::MemoryKey;
using dlcost::test::json;
using dlcost::test::runPreset;

namespace {

/// The targets, as fractions of the measured figure: saved bytes, step peaks and
/// the inference peak.
constexpr double kSavedTolerance = 0.015;
constexpr double kStepTolerance = 0.03;
constexpr double kInferTolerance = 0.05;

json autocastWorkload(const std::string& mode, const std::string& optimizer = "sgd",
                      const std::string& zero_grad = "set_to_none") {
  return {{"batch", 8},
          {"dtype", "autocast_bf16"},
          {"mode", mode},
          {"optimizer", optimizer},
          {"zero_grad", zero_grad},
          {"optimizer_impl", "for_loop"}};
}

dlcost::Report estimateVit(const json& workload) {
  std::ifstream in(std::string(DLCOST_FIXTURES) + "/onnx/vit_s16.onnx", std::ios::binary);
  REQUIRE(in);
  std::stringstream s;
  s << in.rdbuf();
  const std::string bytes = s.str();
  const dlcost::MemorySource src(reinterpret_cast<const uint8_t*>(bytes.data()),
                                 static_cast<int64_t>(bytes.size()));
  const dlcost::OnnxGraphImport g = dlcost::onnxLayerGraph(dlcost::readOnnx(src));
  return dlcost::test::estimateDoc(json{{"model", g.model}, {"workload", workload}});
}

/// One model's measurement: saved bytes, the inference peak, and the step peaks of SGD and
/// Adam at step 2 (zero_grad set_to_none) and step 3 (gradients kept), with PyTorch 2.x's
/// gradient accumulation (validate_common.py's peak_2x, what the engine models).
struct Measured {
  int64_t saved, infer, sgd_none, sgd_kept, adam_none, adam_kept;
};

void checkAgainst(const Measured& m, const std::function<dlcost::Report(const json&)>& run) {
  using Catch::Matchers::WithinRel;
  const int64_t saved = dlcost::test::saved(run(autocastWorkload("train")));
  CHECK_THAT(static_cast<double>(saved), WithinRel(static_cast<double>(m.saved), kSavedTolerance));
  CHECK_THAT(static_cast<double>(run(autocastWorkload("infer")).memory.total),
             WithinRel(static_cast<double>(m.infer), kInferTolerance));
  const std::pair<json, int64_t> steps[] = {
      {autocastWorkload("train", "sgd"), m.sgd_none},
      {autocastWorkload("train", "sgd", "zero"), m.sgd_kept},
      {autocastWorkload("train", "adam"), m.adam_none},
      {autocastWorkload("train", "adam", "zero"), m.adam_kept}};
  for (const auto& [workload, measured] : steps) {
    CAPTURE(workload.dump());
    CHECK_THAT(static_cast<double>(run(workload).memory.total),
               WithinRel(static_cast<double>(measured), kStepTolerance));
  }
}

}  // namespace

TEST_CASE("autocast's names parse and mixed keeps its own", "[autocast][precision]") {
  CHECK(dlcost::parsePrecision("autocast_bf16") == dlcost::Precision::kAutocastBf16);
  CHECK(dlcost::parsePrecision("autocast_fp16") == dlcost::Precision::kAutocastFp16);
  const dlcost::PrecisionLayout a = dlcost::layoutOf(dlcost::Precision::kAutocastBf16);
  CHECK(a.weights == dlcost::DType::kFp32);
  CHECK(a.gradients == dlcost::DType::kFp32);
  CHECK(a.optimizer_states == dlcost::DType::kFp32);
  CHECK(a.activations == dlcost::DType::kBf16);
  CHECK_FALSE(a.master_weights);
  const dlcost::PrecisionLayout mixed = dlcost::layoutOf(dlcost::Precision::kMixed);
  CHECK(mixed.weights == dlcost::DType::kFp16);
  CHECK(mixed.master_weights);
  CHECK_FALSE(mixed.autocast);
}

TEST_CASE("resnet50 under bf16 autocast saves the 16-bit weight copies beside mixed's bytes",
          "[autocast][memory]") {
  // Issue #29 measured 401,278,848 saved bytes: 16-bit activations 341,311,488 + weight
  // copies 46,909,824 + int64 indices 12,845,056 + fp32 batchnorm statistics 212,480, where
  // `mixed` says 350,273,024. The difference is one bf16 copy of every conv and fc weight
  // (25,502,912 values; the fc bias is cast but addmm keeps no bias): 51,005,824 bytes.
  const auto ac = runPreset("resnet50", autocastWorkload("train"));
  const auto mixed = runPreset("resnet50", {{"batch", 8}, {"dtype", "mixed"}});
  CHECK(dlcost::test::saved(mixed) == 350273024);
  CHECK(dlcost::test::saved(ac) == 401278848);
  // fp32 model states: weights, gradients (SGD: no optimizer states).
  CHECK(ac.memory.bytesOf(MemoryKey::kWeights) == 4 * ac.params.total);
  CHECK(ac.memory.bytesOf(MemoryKey::kGradients) == 4 * ac.params.trainable);
  CHECK(ac.memory.find(MemoryKey::kMasterWeights) == nullptr);
}

TEST_CASE("resnet50 under bf16 autocast: saved bytes and peaks within the harness's bounds",
          "[autocast][memory][measured]") {
  // Harness (see the top of the file), resnet50, batch 8, PyTorch 1.13.1 CPU bf16 autocast.
  const Measured m{401278848, 162195912, 535737900, 618974972, 740194800, 823431872};
  checkAgainst(m, [](const json& w) { return runPreset("resnet50", w); });
}

TEST_CASE("fp16 autocast adds GradScaler's scale and growth tracker to the optimizer states",
          "[autocast][memory]") {
  json w = autocastWorkload("train", "adam");
  const auto bf16 = runPreset("resnet18", w);
  w["dtype"] = "autocast_fp16";
  const auto fp16 = runPreset("resnet18", w);
  CHECK(fp16.memory.bytesOf(MemoryKey::kOptimizerStates) ==
        bf16.memory.bytesOf(MemoryKey::kOptimizerStates) + 8);
}

TEST_CASE("autocast's op lists: a 16-bit op keeps the cast of an fp32 input, not the input",
          "[autocast][memory][policy]") {
  // Linear(8 -> 8) -> + a learned [4, 8] embedding (fp32: the sum is fp32) -> LayerNorm
  // (runs in fp32 on CPU) -> Linear(8 -> 8). Per sample of [4, 8] = 32 values:
  //   linear1 keeps its input's bf16 cast (the fp32 model input): 64 B; its weight copy
  //   64 values x 2 = 128 B per batch;
  //   layernorm keeps its fp32 input 128 B and fp32 mean and rstd 2 x 4 x 4 = 32 B;
  //   linear2 keeps the bf16 cast of the fp32 layernorm output 64 B; weight copy 128 B.
  const json layers = json::array({{{"name", "fc1"}, {"type", "linear"}, {"out_features", 8}},
                                   {{"name", "pos"}, {"type", "add"}, {"parameter", {4, 8}}},
                                   {{"name", "norm"}, {"type", "layernorm"}},
                                   {{"name", "fc2"}, {"type", "linear"}, {"out_features", 8}}});
  const auto r = dlcost::test::run(layers, {4, 8},
                                   {{"batch", 1}, {"dtype", "autocast_bf16"}, {"mode", "train"}});
  CHECK(dlcost::test::saved(r) == 64 + 128 + 128 + 32 + 64 + 128);
  // At inference the cast cache holds both weights' and biases' bf16 copies: 2 x 72 x 2 B.
  const auto inf = dlcost::test::run(layers, {4, 8},
                                     {{"batch", 1}, {"dtype", "autocast_bf16"}, {"mode", "infer"}});
  CHECK(inf.memory.find(MemoryKey::kActivations)->fixed == 2 * 72 * 2);
}

TEST_CASE("a ViT-S/16 under bf16 autocast: its fp32 residual stream, within the bounds",
          "[autocast][memory][measured][vit]") {
  // Harness (see the top of the file), vit_s16, batch 8, PyTorch 1.13.1 CPU bf16 autocast.
  // The class token and position embedding are fp32 parameters, so the residual stream is
  // fp32 and every LayerNorm keeps an fp32 input; each linear reading it keeps its own bf16
  // cast (query, key and value one each: autocast caches only the weights' casts).
  const Measured m{384172064, 154345888, 485196164, 571855748, 661602276, 748261860};
  checkAgainst(m, estimateVit);
}

TEST_CASE("a share link carries autocast like any other precision", "[autocast][link]") {
  // Links hold the workload's JSON, so a new dtype name needs no codec change, and links made
  // before it (tests/test_share_link.cpp's golden `mixed` link) decode as they did.
  const json doc = {{"model", {{"preset", "resnet18"}}},
                    {"workload", {{"batch", 8}, {"dtype", "autocast_bf16"}}}};
  const json state = {{"doc", doc}};
  const json decoded = dlcost::decodeShareLink(dlcost::encodeShareLink(state));
  CHECK(decoded == state);
  CHECK(dlcost::estimateDocument(decoded["doc"]) == dlcost::estimateDocument(doc));
}

TEST_CASE("torch.autocast on a transformer is refused at the dtype, not approximated",
          "[autocast][errors]") {
  // The transformer estimator does not follow autocast's op lists or its weight-cast cache.
  for (const char* dtype : {"autocast_bf16", "autocast_fp16"}) {
    CAPTURE(dtype);
    try {
      dlcost::estimateDocument({{"model", {{"preset", "gpt2"}}}, {"workload", {{"dtype", dtype}}}});
      FAIL("autocast on a transformer estimated");
    } catch (const dlcost::InputError& e) {
      CHECK(e.error().path == "/workload/dtype");
    }
  }
}
