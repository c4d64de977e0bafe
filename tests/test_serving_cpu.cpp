// llama.cpp without a GPU (a CPU and its system RAM as the device) and with layers left in
// system RAM (partial offload): the CPU rows against their datasheets, what fits in RAM, the
// copies llama.cpp makes to the GPU, and decode speed against published CPU measurements.
#include <catch2/catch.hpp>

#include <cmath>

#include "dlcost/base/error.hpp"
#include "dlcost/gpu/gpu_json.hpp"
#include "dlcost/gpu/gpu_table.hpp"
#include "dlcost/gpu/interconnect_table.hpp"
#include "dlcost/gpu/time_model.hpp"
#include "dlcost/memory/quant_formats.hpp"
#include "dlcost/serving/serving.hpp"
#include "dlcost/types/gpu.hpp"
#include "dlcost/types/interconnect.hpp"
#include "input_error_path.hpp"
#include "transformer_test_util.hpp"

using Catch::Matchers::WithinRel;
using dlcost::findGpu;
using dlcost::Gpu;
using dlcost::MemoryKey;
using dlcost::Report;
using dlcost::testing::errorPath;
using dlcost::testing::runConfig;
using dlcost::testing::runPreset;
using nlohmann::json;

namespace {

constexpr int64_t kGiB = int64_t{1} << 30;
/// Products of datasheet figures: exact up to the double's rounding.
constexpr double kExact = 1e-12;

json withFields(json base, const json& extra) {
  for (auto it = extra.begin(); it != extra.end(); ++it) base[it.key()] = *it;
  return base;
}

/// Llama 3.1 8B in a Q4_K_M GGUF under llama.cpp: the common local-LLM case.
const json kLlamaQ4 = {{"mode", "infer"},       {"dtype", "fp16"},     {"engine", "llamacpp"},
                       {"quant", "gguf"},       {"context", 4096},     {"generated_tokens", 128},
                       {"gguf_type", "Q4_K_M"}, {"attention", "flash"}};

}  // namespace

TEST_CASE("CPU rows derive bandwidth from their memory channels and FP32 from cores x clock",
          "[gpu][presets][cpu]") {
  struct Row {
    const char* id;
    int channels;
    int mt_s;
    int cores;
    double base_ghz;
    int fp32_flops_per_cycle;
  };
  const Row row = GENERATE(
      // AMD Ryzen 9 7950X product page: 16 cores, 4.5 GHz base, 2 channels of DDR5-5200.
      // AMD Software Optimization Guide for Family 19h (Zen 4, pub. 57647): two 256-bit FMA
      // pipes per core = 2 x 8 FP32 lanes x 2 FLOPs.
      Row{"amd-ryzen-9-7950x", 2, 5200, 16, 4.5, 32},
      // AMD EPYC 9654 product page: 96 cores, 2.4 GHz base, 12 channels of DDR5-4800
      // ("460.8 GB/s per socket").
      Row{"amd-epyc-9654", 12, 4800, 96, 2.4, 32},
      // Intel ARK, Xeon Platinum 8480+: 56 cores, 2.0 GHz base, 8 channels of DDR5-4800; two
      // 512-bit FMA units per core (Intel Optimization Reference Manual) = 2 x 16 x 2.
      Row{"intel-xeon-platinum-8480plus", 8, 4800, 56, 2.0, 64});
  CAPTURE(row.id);
  const Gpu* g = findGpu(row.id);
  REQUIRE(g);
  CHECK(g->cpu);
  CHECK_FALSE(g->unified_memory);
  CHECK(g->memory_channels == row.channels);
  CHECK(g->memory_mt_s == row.mt_s);
  // A DDR5 channel moves 8 bytes per transfer (two 32-bit subchannels, JESD79-5).
  CHECK_THAT(g->bandwidth_bytes_per_s, WithinRel(row.channels * row.mt_s * 1e6 * 8, kExact));
  CHECK_THAT(g->fp32_flops,
             WithinRel(row.cores * row.base_ghz * 1e9 * row.fp32_flops_per_cycle, kExact));
  // A CPU row reads back from its JSON as the same CPU.
  const Gpu back = dlcost::parseGpu(dlcost::gpuToJson(*g), "/workload/gpu");
  CHECK(back.cpu);
  CHECK(back.memory_channels == row.channels);
}

TEST_CASE("Sapphire Rapids' BF16 and INT8 rates are AMX's operations per cycle per core",
          "[gpu][presets][cpu]") {
  // Intel AMX overview: 1024 BF16 and 2048 INT8 operations per cycle per core; 56 cores at
  // the 2.0 GHz base frequency (Intel ARK, Xeon Platinum 8480+).
  const Gpu* g = findGpu("intel-xeon-platinum-8480plus");
  REQUIRE(g);
  CHECK_THAT(g->bf16_flops, WithinRel(56 * 2.0e9 * 1024, kExact));
  CHECK_THAT(g->int8_ops, WithinRel(56 * 2.0e9 * 2048, kExact));
  // Zen 4 has no matrix unit with a published rate: its 16-bit math falls back to FP32.
  CHECK(findGpu("amd-epyc-9654")->bf16_flops == 0);
}

TEST_CASE("On a CPU, llama.cpp keeps everything in system RAM less what the OS keeps",
          "[serving][cpu]") {
  const json w = withFields(kLlamaQ4, {{"gpu", "amd-ryzen-9-7950x"}, {"system_ram_gib", 16}});
  const Report r = runPreset("llama-3.1-8b", w);
  REQUIRE(r.gpu_fit);
  REQUIRE(r.serving);
  const dlcost::ServingPlan& p = *r.serving;
  // The machine's 16 GiB less the 4 GiB the OS keeps (Windows 11's and Ubuntu Desktop's
  // minimum RAM); no caching allocator, so no fragmentation allowance.
  CHECK(r.gpu_fit->capacity_bytes == 16 * kGiB);
  CHECK(r.gpu_fit->reserve_bytes == 4 * kGiB);
  CHECK(r.gpu_fit->fragmentation_bytes == 0);
  CHECK(r.gpu_fit->usable_bytes == 12 * kGiB);
  CHECK(p.on_cpu);
  CHECK(p.budget_bytes == 12 * kGiB);
  // Every GGUF tensor is in RAM (memory-mapped), the token embeddings too; nothing is "host".
  dlcost::Workload gguf;
  gguf.serving.quant = dlcost::QuantFormat::kGguf;
  gguf.serving.gguf_type = dlcost::GgufFileType::kQ4_K_M;
  const dlcost::Config c = dlcost::parseConfig(
      json{{"model", {{"preset", "llama-3.1-8b"}}}, {"workload", json::object()}});
  const auto& t = std::get<dlcost::Transformer>(c.model.body);
  CHECK(p.device.bytesOf(MemoryKey::kWeights) == dlcost::quantizedWeights(t, gguf).total);
  CHECK(p.host.total == 0);
  // 4096 cells x 32 layers x (K + V) x 8 KV heads x 128 x 2 bytes (f16).
  CHECK(p.device.bytesOf(MemoryKey::kKvCache) == int64_t{4096} * 32 * 2 * 1024 * 2);
  CHECK(p.gpu_layers == 0);
  CHECK(p.command.find("-ngl 0") != std::string::npos);
  CHECK(p.fits);
  // Decode reads the weights (less the embedding rows, gathered) and the KV cache at the
  // 83.2 GB/s of two DDR5-5200 channels, at llama.cpp's CPU share of that roofline.
  CHECK(p.speed.bound == std::string("memory"));
  CHECK(p.speed.step_bytes <
        p.device.bytesOf(MemoryKey::kWeights) + p.device.bytesOf(MemoryKey::kKvCache));
  const double share = dlcost::timeParams()
                           .families[static_cast<size_t>(dlcost::DeviceFamily::kCpu)]
                           .bandwidth_efficiency;
  CHECK_THAT(p.speed.tokens_per_s,
             WithinRel(share * 83.2e9 / static_cast<double>(p.speed.step_bytes), 1e-6));

  SECTION("8 GiB of RAM leaves 4 GiB: the 4.6 GiB Q4_K_M file does not fit") {
    const Report small = runPreset("llama-3.1-8b", withFields(w, {{"system_ram_gib", 8}}));
    CHECK_FALSE(small.serving->fits);
    CHECK(small.serving->max_users == 0);
  }
  SECTION("without system_ram_gib the row's default RAM (2 x 32 GB DIMMs) is used") {
    const Report def =
        runPreset("llama-3.1-8b", withFields(kLlamaQ4, {{"gpu", "amd-ryzen-9-7950x"}}));
    CHECK(def.gpu_fit->capacity_bytes == 64 * kGiB);
  }
}

TEST_CASE("A CPU device refuses what it cannot run, naming the field", "[serving][cpu][errors]") {
  auto run = [](json extra) {
    return [extra] {
      runPreset("llama-3.1-8b",
                withFields(withFields(kLlamaQ4, {{"gpu", "amd-epyc-9654"}}), extra));
    };
  };
  CHECK(errorPath(run({{"engine", "vllm"}})) == "/workload/engine");
  CHECK(errorPath(run({{"n_gpu_layers", 8}})) == "/workload/n_gpu_layers");
  CHECK(errorPath(run({{"gpus", 2}, {"batch", 2}})) == "/workload/gpus");
  CHECK(errorPath(run({{"system_ram_gib", 0}})) == "/workload/system_ram_gib");
  CHECK(errorPath(run({{"system_ram_gib", "lots"}})) == "/workload/system_ram_gib");
  // -ngl 0 is what a CPU runs anyway.
  CHECK(errorPath(run({{"n_gpu_layers", 0}})).empty());
}

TEST_CASE("llama.cpp copies the CPU layers' weights to the GPU for each prompt micro-batch",
          "[serving][llamacpp][offload]") {
  // ggml-cuda.cu, ggml_backend_cuda_device_offload_op: a matmul whose weights sit in system
  // RAM runs on the GPU when its batch has >= 32 tokens (min_batch_size), the weights copied
  // over PCIe first; llama.cpp processes a prompt in micro-batches of n_ubatch = 512 tokens.
  // RTX 4090: PCIe 4.0 x16, 16 GT/s x 16 lanes x 128/130 / 8 = 31.5 GB/s (PCI-SIG).
  const json base = withFields(kLlamaQ4, {{"gpu", "rtx-4090"}, {"n_gpu_layers", 16}});
  auto plan = [&](int64_t prompt) {
    return *runPreset("llama-3.1-8b", withFields(base, {{"prompt_tokens", prompt}})).serving;
  };
  const dlcost::ServingPlan p = plan(1000);
  // The 16 CPU layers' bytes: system RAM's weights less the token embeddings and the output
  // layer (its matmul computes only the last token's logits, below the threshold).
  dlcost::Workload gguf;
  gguf.serving.quant = dlcost::QuantFormat::kGguf;
  gguf.serving.gguf_type = dlcost::GgufFileType::kQ4_K_M;
  const dlcost::Config c = dlcost::parseConfig(
      json{{"model", {{"preset", "llama-3.1-8b"}}}, {"workload", json::object()}});
  const dlcost::QuantizedWeights q =
      dlcost::quantizedWeights(std::get<dlcost::Transformer>(c.model.body), gguf);
  int64_t cpu_layers = 0;
  for (int i = 0; i < 16; ++i) cpu_layers += q.layer_bytes[static_cast<size_t>(i)];
  CHECK(p.host.bytesOf(MemoryKey::kWeights) == q.input_bytes + cpu_layers + q.output_bytes);
  // 1000 tokens: a full 512-token micro-batch and one of 488, both copy.
  CHECK(p.speed.prefill_copy_bytes == 2 * cpu_layers);
  const double pcie4 = dlcost::findInterconnect("pcie4-x16")->bandwidth_bytes_per_s;
  CHECK_THAT(pcie4, WithinRel(16e9 * 16 * 128 / 130 / 8, kExact));
  CHECK(p.speed.ttft_s > 2 * cpu_layers / pcie4);
  // 520 tokens: one copy, and the 8-token tail runs the CPU layers on the CPU.
  CHECK(plan(520).speed.prefill_copy_bytes == cpu_layers);
  CHECK(plan(512).speed.prefill_copy_bytes == cpu_layers);
  // A prompt of fewer than 32 tokens never leaves the CPU.
  CHECK(plan(31).speed.prefill_copy_bytes == 0);
  CHECK(plan(32).speed.prefill_copy_bytes == cpu_layers);
  // All layers on the GPU: nothing to copy.
  const Report all = runPreset(
      "llama-3.1-8b", withFields(kLlamaQ4, {{"gpu", "rtx-4090"}, {"prompt_tokens", 1000}}));
  CHECK(all.serving->speed.prefill_copy_bytes == 0);
}

TEST_CASE("Decode steps of 32+ users copy the CPU layers to the GPU instead of reading them",
          "[serving][llamacpp][offload]") {
  const json base = withFields(
      kLlamaQ4,
      {{"gpu", "rtx-4090"}, {"n_gpu_layers", 16}, {"context", 1024}, {"prompt_tokens", 896}});
  const dlcost::ServingSpeed below =
      runPreset("llama-3.1-8b", withFields(base, {{"users", 31}})).serving->speed;
  const dlcost::ServingSpeed at =
      runPreset("llama-3.1-8b", withFields(base, {{"users", 32}})).serving->speed;
  // The weights move at PCIe 4.0's 31.5 GB/s instead of the 76.8 GB/s the CPU reads at: the
  // 32nd user makes every step slower, not just one user's share.
  CHECK(at.itl_s > below.itl_s * 32 / 31);
}

TEST_CASE("With system RAM given, llama.cpp's CPU layers must fit in it", "[serving][llamacpp]") {
  const json base = withFields(kLlamaQ4, {{"gpu", "rtx-4090"}, {"n_gpu_layers", 0}});
  CHECK(runPreset("llama-3.1-8b", withFields(base, {{"system_ram_gib", 32}})).serving->fits);
  // 8 GiB less 4 GiB for the OS cannot hold the 4.6 GiB of weights.
  CHECK_FALSE(runPreset("llama-3.1-8b", withFields(base, {{"system_ram_gib", 8}})).serving->fits);
}

namespace {

/// microsoft/phi-4's config.json (Phi3ForCausalLM): 40 layers of 5120, 40 heads with 10 KV
/// heads, SwiGLU of 17920, vocabulary 100352, untied LM head.
const json kPhi4 = {{"architectures", {"Phi3ForCausalLM"}},
                    {"model_type", "phi3"},
                    {"hidden_size", 5120},
                    {"intermediate_size", 17920},
                    {"num_hidden_layers", 40},
                    {"num_attention_heads", 40},
                    {"num_key_value_heads", 10},
                    {"vocab_size", 100352},
                    {"max_position_embeddings", 16384},
                    {"tie_word_embeddings", false},
                    {"rms_norm_eps", 1e-5}};

/// llama-bench's decode test ("tg 128", 128 tokens of context, one sequence) of Phi-4 on one
/// socket of a 64-core EPYC 9554: Zen 4 with 12 channels of DDR5-4800 like the EPYC 9654 row
/// (the test system's DDR5-5600 DIMMs run at the CPU's 4800 MT/s: "theoretical memory
/// bandwidth 460.8 GB/s"), 64 cores at 3.1 GHz base.
Report phi4OnEpyc(const char* gguf_type) {
  const json epyc_9554 = {
      {"base", "amd-epyc-9654"}, {"name", "AMD EPYC 9554"}, {"fp32_flops", 64 * 3.1e9 * 32}};
  return runConfig(kPhi4, {{"mode", "infer"},
                           {"dtype", "fp16"},
                           {"engine", "llamacpp"},
                           {"quant", "gguf"},
                           {"gguf_type", gguf_type},
                           {"prompt_tokens", 1},
                           {"context", 128},
                           {"gpu", epyc_9554},
                           {"system_ram_gib", 192}});
}

}  // namespace

TEST_CASE("llama.cpp decode on an EPYC CPU is within 10 % of llama-bench",
          "[serving][cpu][speed]") {
  // ahelpme.com, "CPU-only inference with AMD Epyc 9554: Phi-4 14B" (llama-bench, single
  // socket, 12 x 16 GB DDR5): tg t/s and llama-bench's model size per GGUF type. The cpu
  // family's bandwidth share (core/hardware/time_params.json, 0.59) comes from these three
  // points, which reach 0.55 (Q4_K_M), 0.59 (Q6_K) and 0.63 (Q8_0) of the 460.8 GB/s
  // roofline: the CPU's dequantizing dot products cost part of each step.
  constexpr double kTolerance = 0.10;
  /// llama-bench prints sizes to 0.01 GiB (0.06 % of the smallest here).
  constexpr double kSizeTolerance = 0.001;
  struct Case {
    const char* type;
    double size_gib;
    double tokens_per_s;
  };
  const Case c = GENERATE(Case{"Q4_K_M", 8.43, 28.74}, Case{"Q6_K", 11.20, 23.246},
                          Case{"Q8_0", 14.51, 19.194});
  CAPTURE(c.type);
  const Report r = phi4OnEpyc(c.type);
  REQUIRE(r.serving);
  CHECK(r.serving->fits);
  const double gib = static_cast<double>(r.serving->device.bytesOf(MemoryKey::kWeights)) / kGiB;
  CHECK_THAT(gib, WithinRel(c.size_gib, kSizeTolerance));
  CHECK(std::abs(r.serving->speed.tokens_per_s / c.tokens_per_s - 1) <= kTolerance);
}
