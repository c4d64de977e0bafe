// Fit on a GPU: per-GPU memory with ZeRO / tensor / pipeline parallelism, the largest batch,
// roofline step time and the advisor.
#include <catch2/catch.hpp>

#include <cmath>

#include "dlcost/api.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/explore/advisor.hpp"
#include "dlcost/gpu/fit.hpp"
#include "dlcost/gpu/gpu_table.hpp"
#include "dlcost/gpu/time_model.hpp"
#include "dlcost/report/estimate.hpp"
#include "dlcost/schema/config_json.hpp"
#include "dlcost/types/gpu.hpp"
#include "dlcost/types/parallel.hpp"

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using dlcost::Config;
using dlcost::estimate;
using dlcost::parseConfig;
using dlcost::Report;
using nlohmann::json;

namespace {

/// Floating-point sums of the same terms in another order.
constexpr double kSummationTolerance = 1e-9;

Report run(const json& doc) {
  const Config c = parseConfig(doc);
  return estimateWithAdvice(c.model, c.workload);
}

json withWorkload(json doc, const json& workload) {
  doc["workload"] = workload;
  return doc;
}

/// One linear layer of in x out weights (no bias): exactly in x out parameters.
json linearModel(int64_t in, int64_t out) {
  return {{"model",
           {{"input", {in}},
            {"layers", {{{"type", "linear"}, {"out_features", out}, {"bias", false}}}}}}};
}

int64_t modelStates(const dlcost::PerGpuMemory& m) {
  return m.bytesOf(dlcost::MemoryKey::kWeights) + m.bytesOf(dlcost::MemoryKey::kGradients) +
         m.bytesOf(dlcost::MemoryKey::kMasterWeights) +
         m.bytesOf(dlcost::MemoryKey::kOptimizerStates);
}

dlcost::InputError errorOf(const json& doc) {
  try {
    run(doc);
  } catch (const dlcost::InputError& e) {
    return e;
  }
  FAIL("no InputError for " << doc.dump());
  return dlcost::InputError(dlcost::ErrorCode::kValue, "", "");
}

}  // namespace

TEST_CASE("ZeRO stages 1-3 reproduce the ZeRO paper's 7.5B-parameter example on 64 GPUs",
          "[gpu][fit][zero]") {
  // Rajbhandari et al. 2020, Figure 1 / sec. 5: Psi = 7.5B, mixed-precision Adam (K = 12),
  // N_d = 64: baseline 120 GB, P_os 31.4 GB, P_os+g 16.6 GB, P_os+g+p 1.9 GB per GPU.
  const json model = linearModel(75000, 100000);  // 7.5e9 parameters
  struct Case {
    int zero;
    double expected_gb;
  };
  const Case c = GENERATE(Case{0, 120.0}, Case{1, 31.4}, Case{2, 16.6}, Case{3, 1.9});
  CAPTURE(c.zero);
  const Report r = run(withWorkload(model, {{"batch", 64},
                                            {"dtype", "mixed"},
                                            {"optimizer", "adam"},
                                            {"gpu", "h100-sxm"},
                                            {"gpus", 64},
                                            {"zero", c.zero}}));
  REQUIRE(r.params.total == 7500000000);
  REQUIRE(r.gpu_fit);
  // The paper rounds to 0.1 GB (10^9 bytes).
  CHECK_THAT(static_cast<double>(modelStates(r.gpu_fit->per_gpu)) / 1e9,
             WithinAbs(c.expected_gb, 0.05));
}

TEST_CASE("the largest batch is the closed form over usable memory, and one more does not fit",
          "[gpu][fit][max_batch]") {
  const char* gpu = GENERATE("rtx-3060-12gb", "t4", "a100-sxm4-40gb");
  const char* dtype = GENERATE("fp32", "mixed");
  CAPTURE(gpu, dtype);
  const json doc = {{"model", {{"preset", "alexnet"}}},
                    {"workload", {{"batch", 1}, {"dtype", dtype}, {"gpu", gpu}}}};
  const Report r = run(doc);
  REQUIRE(r.gpu_fit);
  const dlcost::GpuFit& f = *r.gpu_fit;
  // Usable = (nvidia-smi total - 1 GiB reserve) x (1 - 5 % fragmentation), the documented
  // defaults of dlcost/parallel.hpp.
  const int64_t capacity = dlcost::gpuCapacityBytes(*dlcost::findGpu(gpu));
  const int64_t after_reserve = capacity - dlcost::kDefaultReserveBytes;
  CHECK(f.usable_bytes == after_reserve - static_cast<int64_t>(std::ceil(
                                              after_reserve * dlcost::kDefaultFragmentation)));
  // One GPU, no parallelism: the per-GPU lines are the report's own.
  CHECK(f.per_gpu.fixed == r.memory.fixed);
  CHECK(f.per_gpu.per_sample == r.memory.per_sample);
  // floor((usable - fixed) / per_sample) for each line the training peak is the largest of
  // (backward steps, the optimizer step): the smallest.
  CHECK(f.max_batch == r.memory.maxBatch(f.usable_bytes));
  REQUIRE(f.max_batch > 1);

  json at_max = doc;
  at_max["workload"]["batch"] = f.max_batch;
  CHECK(run(at_max).gpu_fit->fits);
  json one_more = doc;
  one_more["workload"]["batch"] = f.max_batch + 1;
  const Report over = run(one_more);
  CHECK_FALSE(over.gpu_fit->fits);
  CHECK(over.gpu_fit->headroom_bytes < 0);
}

TEST_CASE("throughput rises with batch and then saturates at the compute roof",
          "[gpu][fit][roofline]") {
  // time(b) = sum over layers of max(FLOPs(b) / peak, bytes(b) / bandwidth) with
  // bytes = weights + b x activations: samples/s = b / time(b) never falls and tends to
  // 1 / sum(max(flops per sample / peak, activation bytes per sample / bandwidth)).
  const char* mode = GENERATE("train", "infer");
  CAPTURE(mode);
  double previous = 0;
  std::vector<double> rates;
  // Up to 65,536: plain PyTorch's fitted cost per forward (3.3 ms: launches, Python, the
  // optimizer's bookkeeping; docs/accuracy.md) is ~10 % of a 2,048-sample AlexNet step on an
  // A100, under 1 % at 65,536.
  for (int64_t b = 1; b <= 65536; b *= 2) {
    const Report r = run({{"model", {{"preset", "alexnet"}}},
                          {"workload",
                           {{"batch", b},
                            {"mode", mode},
                            {"dtype", "mixed"},
                            {"gpu", "a100-sxm4-80gb"},
                            {"memory_gib", 1e6}}}});
    const double rate = r.gpu_fit->time.samples_per_s;
    CAPTURE(b, rate);
    CHECK(rate >= previous * (1 - kSummationTolerance));
    previous = rate;
    rates.push_back(rate);
  }
  // Small batches are weight-bound (AlexNet's 61M parameters read every step) ...
  CHECK(rates.back() > 5 * rates.front());
  // ... and the last doublings gain under 2 %.
  CHECK(rates.back() / rates[rates.size() - 2] < 1.02);
}

TEST_CASE("decode speed of a weight-bound model is its bytes at the achievable bandwidth",
          "[gpu][fit][decode]") {
  // At batch 1 every matrix-vector product does 1 FLOP per byte of fp16 weights, far below
  // the H100's ridge point (989 TFLOPS / 3.35 TB/s ~ 295 FLOP/B): each layer is bound by its
  // traffic, and a token takes its bytes at the bandwidth the device family reaches plus the
  // launches of its layers (dlcost/time_model.hpp).
  const json model = {
      {"input", {1}},
      {"layers",
       {{{"name", "embed"},
         {"type", "embedding"},
         {"num_embeddings", 32000},
         {"embedding_dim", 4096}},
        {{"name", "flat"}, {"type", "flatten"}},
        {{"name", "g"},
         {"repeat", 8},
         {"layers", {{{"type", "linear"}, {"out_features", 4096}, {"bias", false}}}}},
        {{"name", "head"}, {"type", "linear"}, {"out_features", 32000}, {"bias", false}}}}};
  const char* gpu = GENERATE("h100-sxm", "rtx-4090", "mi300x");
  CAPTURE(gpu);
  const Report r =
      run({{"model", model},
           {"workload", {{"batch", 1}, {"mode", "infer"}, {"dtype", "fp16"}, {"gpu", gpu}}}});
  REQUIRE(r.gpu_fit);
  REQUIRE(r.gpu_fit->time.tokens_per_s);
  int64_t bytes = 0;
  for (const auto& l : r.layers) bytes += l.bytes_accessed;
  // Weights dominate: 8 x 4096^2 + 4096 x 32000 fp16 values.
  CHECK(bytes >= 2 * (8 * 4096 * 4096 + 4096 * 32000));
  dlcost::TimeContext ctx;
  ctx.gpu = dlcost::findGpu(gpu);
  ctx.math = dlcost::MathFormat::kFp16;
  const double bw = dlcost::achievableBandwidth(ctx);
  CHECK(bw < ctx.gpu->bandwidth_bytes_per_s);  // never the datasheet's peak
  const int64_t layers = static_cast<int64_t>(r.layers.size()) - 1;
  const double step = static_cast<double>(bytes) / bw + dlcost::forwardOverhead(ctx, layers, true);
  CHECK_THAT(*r.gpu_fit->time.tokens_per_s, WithinRel(1 / step, kSummationTolerance));
  CHECK(r.gpu_fit->time.memory_s > r.gpu_fit->time.compute_s);
}

TEST_CASE("tensor and pipeline parallelism divide per-GPU memory by the documented rules",
          "[gpu][fit][parallel]") {
  // SGD: the backward pass, not Adam's step, is the peak phase whose per-sample bytes these
  // rules divide.
  const json base = {{"model", {{"preset", "mlp_mnist"}}},
                     {"workload", {{"batch", 64}, {"gpu", "a10"}, {"optimizer", "sgd"}}}};
  const Report one = run(base);
  // ceil(a / b) for b > 0, as the per-GPU split rounds (a may be negative).
  const auto ceilDiv = [](int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : a / b; };

  SECTION("tp with sequence parallelism splits states and activations by tp") {
    json d = base;  // mlp_mnist's 300/100/10 features: tp 2 divides all of them
    d["workload"].update({{"gpus", 2}, {"tp", 2}, {"sp", true}});
    const Report r = run(d);
    const auto& g = r.gpu_fit->per_gpu;
    CHECK(g.bytesOf(dlcost::MemoryKey::kWeights) ==
          (one.memory.bytesOf(dlcost::MemoryKey::kWeights) + 1) / 2);
    // Each backward-phase term rounds up on its own.
    int64_t expected = 0;
    for (const dlcost::MemoryTerm& t : one.memory.terms) {
      if (t.phase == dlcost::MemoryPhase::kBackward) expected += ceilDiv(t.per_sample, 2);
    }
    CHECK(g.phases[0].per_sample == expected);
  }
  SECTION("tp without sequence parallelism keeps 10 of 34 activation parts replicated") {
    // Korthikanti et al. 2022, eq. 2: sbh(10 + 24 / t) of 34 sbh per layer.
    json d = base;
    d["workload"].update({{"gpus", 2}, {"tp", 2}});
    // Each activation term rounds up on its own.
    int64_t expected = 0;
    for (const dlcost::MemoryTerm& t : one.memory.terms) {
      if (t.phase == dlcost::MemoryPhase::kOptimizerStep) continue;  // not in the peak phase
      expected += ceilDiv(t.per_sample * (10 * 2 + 24), 34 * 2);
    }
    CHECK(run(d).gpu_fit->per_gpu.per_sample == expected);
  }
  SECTION("the first pipeline stage holds pp micro-batches of 1/pp of the layers") {
    // 1F1B (Narayanan et al. 2021): min(pp, m) micro-batches of batch/m samples in flight on
    // 1/pp of the layers: per sample, min(2, 4) / (2 x 4) of the model's activations.
    json d = base;
    d["workload"].update({{"gpus", 2}, {"pp", 2}, {"microbatches", 4}});
    const Report r = run(d);
    const auto& f = *r.gpu_fit;
    int64_t expected = 0;  // the backward phase's terms, each rounded up
    for (const dlcost::MemoryTerm& t : one.memory.terms) {
      if (t.phase == dlcost::MemoryPhase::kBackward) expected += ceilDiv(t.per_sample * 2, 8);
    }
    CHECK(f.per_gpu.phases[0].per_sample == expected);
    CHECK(f.per_gpu.bytesOf(dlcost::MemoryKey::kWeights) ==
          (one.memory.bytesOf(dlcost::MemoryKey::kWeights) + 1) / 2);
  }
  SECTION("data parallelism splits the batch over the replicas") {
    json d = base;
    d["workload"].update({{"gpus", 4}});
    const Report r = run(d);
    const auto& f = *r.gpu_fit;
    CHECK(f.replica_batch == 16);
    // Each replica's activations are those of a 16-sample batch.
    json sixteen = base;
    sixteen["workload"]["batch"] = 16;
    const Report r16 = run(sixteen);
    CHECK(f.per_gpu.bytesOf(dlcost::MemoryKey::kActivations) +
              f.per_gpu.bytesOf(dlcost::MemoryKey::kBackwardPeakExtra) ==
          r16.memory.bytesOf(dlcost::MemoryKey::kActivations) +
              r16.memory.bytesOf(dlcost::MemoryKey::kBackwardPeakExtra));
  }
}

TEST_CASE("every piece of advice fits when applied", "[gpu][fit][advisor]") {
  struct Case {
    const char* what;
    json doc;
  };
  const Case c = GENERATE(
      // AlexNet at batch 4096 in fp32 needs ~16 GB on a 12 GB card.
      Case{"batch too large",
           {{"model", {{"preset", "alexnet"}}},
            {"workload", {{"batch", 4096}, {"dtype", "fp32"}, {"gpu", "rtx-3060-12gb"}}}}},
      // 7.5B parameters with Adam on 8 x 80 GB: 120 GB of states, fits only with ZeRO.
      Case{"model states too large",
           {{"model", linearModel(75000, 100000)["model"]},
            {"workload",
             {{"batch", 8}, {"dtype", "mixed"}, {"gpu", "a100-sxm4-80gb"}, {"gpus", 8}}}}},
      // Llama-2-7B (6,738,415,616 params, meta-llama/Llama-2-7b-hf) full training in mixed
      // precision needs 16 B/param = ~100 GiB of states alone on one 80 GB card.
      Case{"LLM training states too large",
           {{"model", {{"preset", "llama-2-7b"}}},
            {"workload",
             {{"mode", "train"},
              {"batch", 2},
              {"seq_len", 2048},
              {"dtype", "mixed"},
              {"gpu", "a100-sxm4-80gb"}}}}},
      // Llama-2-13B in fp16 is ~24 GiB of weights alone, more than a 24 GB card can use.
      Case{"LLM inference weights too large",
           {{"model", {{"preset", "llama-2-13b"}}},
            {"workload", {{"mode", "infer"}, {"dtype", "fp16"}, {"gpu", "rtx-4090"}}}}});
  CAPTURE(c.what);
  const Report r = run(c.doc);
  REQUIRE(r.gpu_fit);
  REQUIRE_FALSE(r.gpu_fit->fits);
  REQUIRE_FALSE(r.gpu_fit->advice.empty());
  for (const dlcost::Advice& a : r.gpu_fit->advice) {
    CAPTURE(a.change, a.change_zh);
    // Every piece of advice is written in Chinese too, with the same numbers.
    CHECK(a.change_zh.find_first_of("\xe4\xe5\xe6\xe7\xe8\xe9") != std::string::npos);
    for (size_t i = 0; i < a.change.size();) {
      const size_t start = a.change.find_first_of("0123456789", i);
      if (start == std::string::npos) break;
      const size_t end = a.change.find_first_not_of("0123456789", start);
      CHECK(a.change_zh.find(a.change.substr(start, end - start)) != std::string::npos);
      i = end == std::string::npos ? a.change.size() : end;
    }
    const Report applied = estimate(parseConfig(c.doc).model, a.workload);
    CHECK(applied.gpu_fit->fits);
    CHECK(applied.gpu_fit->per_gpu.total == a.per_gpu_bytes);
  }
  // The JSON form: merging each advice's "set" into the document's workload fits too.
  const json report = dlcost::estimateDocument(c.doc);
  REQUIRE(report["gpu_fit"]["advice"].size() == r.gpu_fit->advice.size());
  for (const json& a : report["gpu_fit"]["advice"]) {
    CAPTURE(a.dump());
    json d = c.doc;
    d["workload"].update(a["set"]);
    CHECK(dlcost::estimateDocument(d)["gpu_fit"]["fits"] == true);
  }
}

TEST_CASE("for transformers the advisor offers LoRA in training and quantized weights in inference",
          "[gpu][fit][advisor]") {
  const Report train = run({{"model", {{"preset", "llama-2-7b"}}},
                            {"workload",
                             {{"mode", "train"},
                              {"batch", 2},
                              {"seq_len", 2048},
                              {"dtype", "mixed"},
                              {"gpu", "a100-sxm4-80gb"}}}});
  bool lora = false;
  for (const auto& a : train.gpu_fit->advice)
    lora = lora || a.workload.finetune == dlcost::Finetune::kLora;
  CHECK(lora);
  const Report infer =
      run({{"model", {{"preset", "llama-2-13b"}}},
           {"workload", {{"mode", "infer"}, {"dtype", "fp16"}, {"gpu", "rtx-4090"}}}});
  bool int8 = false;
  for (const auto& a : infer.gpu_fit->advice) {
    int8 = int8 || (a.workload.weight_dtype && *a.workload.weight_dtype == dlcost::DType::kInt8);
  }
  CHECK(int8);
}

TEST_CASE("the advisor offers ZeRO when the states do not fit data-parallel GPUs",
          "[gpu][fit][advisor]") {
  const Report r = run(
      {{"model", linearModel(75000, 100000)["model"]},
       {"workload", {{"batch", 8}, {"dtype", "mixed"}, {"gpu", "a100-sxm4-80gb"}, {"gpus", 8}}}});
  bool zero = false;
  for (const auto& a : r.gpu_fit->advice) zero = zero || a.workload.hardware.parallel.zero > 0;
  CHECK(zero);
}

TEST_CASE("bad GPU settings are input errors naming the field", "[gpu][fit][errors]") {
  struct Case {
    json workload;
    const char* path;
  };
  const Case c =
      GENERATE(Case{{{"gpu", "h100"}}, "/workload/gpu"}, Case{{{"gpu", 7}}, "/workload/gpu"},
               Case{{{"gpu", "a10"}, {"gpus", 0}}, "/workload/gpus"},
               Case{{{"gpu", "a10"}, {"gpus", 4}, {"tp", 3}}, "/workload/tp"},
               Case{{{"gpu", "a10"}, {"utilization", -0.1}}, "/workload/utilization"},
               Case{{{"gpu", "a10"}, {"utilization", 0}}, "/workload/utilization"},
               Case{{{"gpu", "a10"}, {"utilization", 1.5}}, "/workload/utilization"},
               Case{{{"gpu", "a10"}, {"zero", 4}}, "/workload/zero"},
               Case{{{"gpu", "a10"}, {"gpu_dtype", "fp4"}}, "/workload/gpu_dtype"},
               Case{{{"gpu", "a10"}, {"gpus", 3}, {"batch", 64}}, "/workload/batch"},
               // fc1 has 300 features: 8 GPUs of tensor parallelism cannot split them.
               Case{{{"gpu", "a10"}, {"gpus", 8}, {"tp", 8}}, "/model/layers/0/out_features"},
               Case{{{"gpu", {{"name", "x"}, {"memory_gib", 8}, {"fp32_flops", 1e13}}}},
                    "/workload/gpu/bandwidth_bytes_per_s"},
               Case{{{"gpu", {{"base", "h100-sxm"}, {"bandwidth_bytes_per_s", -1}}}},
                    "/workload/gpu/bandwidth_bytes_per_s"});
  CAPTURE(c.workload.dump());
  // LeNet-300-100 written out, so that layer paths point into this document.
  const json model = {{"input", {784}},
                      {"layers",
                       {{{"type", "linear"}, {"out_features", 300}},
                        {{"type", "relu"}},
                        {{"type", "linear"}, {"out_features", 100}},
                        {{"type", "relu"}},
                        {{"type", "linear"}, {"out_features", 10}}}}};
  const auto e = errorOf({{"model", model}, {"workload", c.workload}});
  CHECK(e.error().path == c.path);
  CHECK_FALSE(e.error().message.empty());
}

TEST_CASE("a custom GPU in the preset form is used as given", "[gpu][fit]") {
  const Report r = run({{"model", {{"preset", "mlp_mnist"}}},
                        {"workload",
                         {{"batch", 32},
                          {"gpu",
                           {{"name", "lab card"},
                            {"memory_gib", 8},
                            {"bandwidth_bytes_per_s", 5e11},
                            {"fp32_flops", 2e13}}}}}});
  REQUIRE(r.gpu_fit);
  CHECK(r.gpu_fit->capacity_bytes == int64_t{8} << 30);
  CHECK(r.gpu_fit->peak_flops == 2e13);
  CHECK(r.gpu_fit->fits);
  // The report's workload carries the custom GPU in full, so it can be estimated again.
  const json report = dlcost::estimateDocument({{"model", {{"preset", "mlp_mnist"}}},
                                                {"workload",
                                                 {{"batch", 32},
                                                  {"gpu",
                                                   {{"name", "lab card"},
                                                    {"memory_gib", 8},
                                                    {"bandwidth_bytes_per_s", 5e11},
                                                    {"fp32_flops", 2e13}}}}}});
  const json again = dlcost::estimateDocument(
      {{"model", {{"preset", "mlp_mnist"}}}, {"workload", report["workload"]}});
  CHECK(again["gpu_fit"]["step_time_s"] == report["gpu_fit"]["step_time_s"]);
}

TEST_CASE("8-bit Adam keeps two 1-byte states per parameter", "[gpu][fit][optimizer]") {
  // Dettmers et al. 2022 (8-bit Optimizers via Block-wise Quantization): Adam's two states
  // quantized to 8 bits, 2 bytes per parameter instead of 8 in fp32; block-wise scales are
  // left out (one fp32 per 2048 values, under 0.1 %).
  const json model = linearModel(1000, 1000);
  const char* dtype = GENERATE("fp32", "mixed", "bf16");
  CAPTURE(dtype);
  const Report r = run(withWorkload(model, {{"optimizer", "adam8bit"}, {"dtype", dtype}}));
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kOptimizerStates) == 2 * 1000 * 1000);
}

TEST_CASE("phase-level reports: prefill sets the step time, decode the tokens per second",
          "[gpu][fit][roofline][decode]") {
  // The contract for model kinds that report phases instead of layers (LLMs): "decode" is one
  // generated token for every sequence of the batch, one forward of the time model
  // (max(FLOPs / (peak x efficiency(8 rows)), bytes / achievable bandwidth) + launches); the
  // other phases make up the step, their GEMMs at the efficiency of their 4096 rows.
  Report r;
  r.model_kind = "transformer";
  r.workload.mode = dlcost::Mode::kInfer;
  r.workload.batch = 8;
  const int64_t weights = int64_t{14} * 1000 * 1000 * 1000;  // 7B parameters in fp16
  r.phases = {{"prefill", int64_t{2} * 7000000000 * 8 * 512, weights, 8 * 512},
              {"decode", int64_t{2} * 7000000000 * 8, weights + 8 * 1000000, 8}};
  dlcost::TimeContext ctx;
  ctx.gpu = dlcost::findGpu("h100-sxm");
  ctx.math = dlcost::MathFormat::kFp16;
  ctx.utilization = 0.5;  // as a workload's "utilization" gives it
  const dlcost::ModelShape shape{32, 4096};
  const dlcost::StepTime t =
      dlcost::rooflineStep(r, dlcost::Parallelism{}, dlcost::PerGpuMemory{}, ctx, shape);
  const double peak = ctx.gpu->fp16_flops;
  const double prefill =
      std::max(2.0 * 7e9 * 8 * 512 / (peak * dlcost::gemmEfficiency(ctx, 8 * 512)),
               static_cast<double>(weights) / dlcost::achievableBandwidth(ctx)) +
      dlcost::forwardOverhead(ctx, 32, true);
  CHECK_THAT(t.step_s, WithinRel(prefill, kSummationTolerance));
  // The utilization given is the large-GEMM share; 4096 rows come close to it.
  CHECK(dlcost::largeGemmEfficiency(ctx) == 0.5);
  CHECK(dlcost::gemmEfficiency(ctx, 8 * 512) < 0.5);
  CHECK(dlcost::gemmEfficiency(ctx, 8 * 512) > 0.45);
  REQUIRE(t.tokens_per_s);
  const double decode =
      static_cast<double>(weights + 8 * 1000000) / dlcost::achievableBandwidth(ctx) +
      dlcost::forwardOverhead(ctx, 32, false);
  CHECK_THAT(*t.tokens_per_s, WithinRel(8 / decode, kSummationTolerance));
}

TEST_CASE("GEMM efficiency falls for few rows and FP8 gains less than its peak's 2x",
          "[gpu][fit][time_model]") {
  // Properties of the time model (dlcost/time_model.hpp), not fitted values: efficiency
  // rises with the rows of a GEMM towards the large-GEMM share; FP8 math is faster than
  // 16-bit math but by less than the datasheet's 2x (torchtitan's Llama 3.1 8B: 1.28x from
  // Float8; llm-foundry's MPT on H100: 1.00-1.31x; tests/fixtures/speed/SOURCES.md).
  dlcost::TimeContext ctx;
  ctx.gpu = dlcost::findGpu("h100-sxm");
  ctx.math = dlcost::MathFormat::kBf16;
  double previous = 0;
  for (double rows : {1.0, 8.0, 64.0, 512.0, 4096.0, 65536.0}) {
    const double e = dlcost::gemmEfficiency(ctx, rows);
    CAPTURE(rows, e);
    CHECK(e > previous);
    CHECK(e <= 1.0);
    previous = e;
  }
  const double bf16 = dlcost::mathPeak(ctx);
  ctx.math = dlcost::MathFormat::kFp8;
  const double fp8 = dlcost::mathPeak(ctx);
  CHECK(fp8 > bf16);
  CHECK(fp8 < 2 * bf16);
}

TEST_CASE("a layer's traffic is its weights read, inputs read and output written",
          "[gpu][fit][roofline]") {
  // The roofline's byte count per layer (LayerReport::bytes_accessed, at the batch).
  const int64_t b = GENERATE(1, 7, 64);
  const char* dtype = GENERATE("fp32", "fp16");
  CAPTURE(b, dtype);
  const int64_t bytes = std::string(dtype) == "fp32" ? 4 : 2;
  const Report r = run({{"model",
                         {{"input", {512}},
                          {"layers",
                           {{{"type", "linear"}, {"out_features", 256}},
                            {{"type", "relu"}, {"inplace", true}},
                            {{"type", "flatten"}}}}}},
                        {"workload", {{"batch", b}, {"dtype", dtype}, {"mode", "infer"}}}});
  // linear: (512 x 256 + 256) weights, 512 inputs and 256 outputs per sample.
  CHECK(r.layers[1].bytes_accessed == (512 * 256 + 256) * bytes + b * (512 + 256) * bytes);
  // in-place ReLU still reads and writes its tensor; flatten is a view and moves nothing.
  CHECK(r.layers[2].bytes_accessed == b * 2 * 256 * bytes);
  CHECK(r.layers[3].bytes_accessed == 0);
}
