// Serving engines and checkpoint quantization formats: exact bytes against published files,
// each engine's plan against its source's rules, speed against published measurements.
#include <catch2/catch.hpp>

#include <cmath>

#include "dlcost/error.hpp"
#include "dlcost/serving.hpp"
#include "transformer_test_util.hpp"

using dlcost::MemoryKey;
using dlcost::Report;
using dlcost::testing::presetConfig;
using dlcost::testing::runConfig;
using dlcost::testing::runPreset;
using nlohmann::json;

namespace {

int64_t weightBytes(const Report& r) {
  return r.memory.bytesOf(MemoryKey::kWeights) + r.memory.bytesOf(MemoryKey::kQuantScales);
}

constexpr double kGiB = 1073741824.0;

/// The InputError's JSON path from running `f`, or "" when it does not throw.
template <typename F>
std::string errorPath(F f) {
  try {
    f();
  } catch (const dlcost::InputError& e) {
    return e.error().path;
  }
  return "";
}

}  // namespace

TEST_CASE("GGUF weights match llama-bench's model sizes for LLaMA 7B", "[serving][quant]") {
  // llama.cpp PR #3084 ("Metal: PP speedup", M2 Ultra table), llama-bench's "size" column for
  // LLaMA 7B (32 layers, hidden 4096, ffn 11008, vocab 32000: Llama 2 7B's shapes), in GiB
  // to two decimals: half a hundredth of a GiB is the table's rounding.
  constexpr double kRounding = 0.005;
  struct Case {
    const char* type;
    double gib;
  };
  const Case c =
      GENERATE(Case{"F16", 12.55}, Case{"Q8_0", 6.67}, Case{"Q4_0", 3.56}, Case{"Q6_K", 5.15},
               Case{"Q5_K_M", 4.45}, Case{"Q4_K_M", 3.80}, Case{"Q4_K_S", 3.59});
  CAPTURE(c.type);
  const Report r = runPreset("llama-2-7b", {{"mode", "infer"},
                                            {"dtype", "fp16"},
                                            {"prompt_tokens", 512},
                                            {"quant", "gguf"},
                                            {"gguf_type", c.type}});
  CHECK_THAT(weightBytes(r) / kGiB, Catch::Matchers::WithinAbs(c.gib, kRounding));
}

TEST_CASE("GGUF Q4_K_M of Llama 2 7B is 4,080,263,168 bytes", "[serving][quant]") {
  // TheBloke/Llama-2-7B-GGUF lists llama-2-7b.Q4_K_M.gguf at 4.08 GB; the tensor data alone,
  // by llama-quant.cpp's rules (attn_v and ffn_down of 16 layers in Q6_K, output Q6_K, the
  // rest Q4_K, norms F32), is exactly this.
  const Report r = runPreset("llama-2-7b", {{"mode", "infer"},
                                            {"dtype", "fp16"},
                                            {"prompt_tokens", 512},
                                            {"quant", "gguf"},
                                            {"gguf_type", "Q4_K_M"}});
  CHECK(weightBytes(r) == 4080263168);
}

TEST_CASE("gpt-oss-20b in MXFP4 is its checkpoint's exact size", "[serving][quant]") {
  // openai/gpt-oss-20b model.safetensors.index.json: "total_size": 13761264768 (MXFP4 experts:
  // 16-byte blocks and one E8M0 scale per 32 values; attention, router, embeddings, LM head
  // in bf16).
  const Report r =
      runPreset("gpt-oss-20b",
                {{"mode", "infer"}, {"dtype", "bf16"}, {"prompt_tokens", 512}, {"quant", "mxfp4"}});
  CHECK(weightBytes(r) == 13761264768);
}

TEST_CASE("Each format stores one matrix as its tooling lays it out", "[serving][quant]") {
  // A generic decoder with one 256 x 256 matrix per projection lets the bytes be counted by
  // hand: q, k, v, o, gate, up, down = 7 matrices of 65,536 weights (in = 256), 1 layer.
  const json form = {{"layers", 1},       {"hidden", 256}, {"heads", 4},
                     {"ffn", 256},        {"vocab", 512},  {"gated_mlp", true},
                     {"norm", "rmsnorm"}, {"bias", false}, {"max_positions", 4096}};
  const int64_t n = 7 * 65536;
  // 16-bit rest: embeddings 512 x 256, LM head 512 x 256, 3 norms of 256.
  const int64_t rest = 2 * (2 * 512 * 256 + 3 * 256);
  struct Case {
    json workload;
    int64_t expected;
  };
  const Case c = GENERATE_COPY(
      // GPTQ 4-bit, group 128: qweight n/2, per matrix qzeros 2 x 256 x 4/8, scales 2 x 256 x 2,
      // g_idx 256 x 4.
      Case{{{"quant", "gptq"}}, n / 2 + 7 * (256 + 1024 + 1024) + rest},
      // AWQ: no g_idx.
      Case{{{"quant", "awq"}}, n / 2 + 7 * (256 + 1024) + rest},
      // NF4: n/2, fp32 absmax per 64 values, 64-byte code per matrix.
      Case{{{"quant", "bnb-nf4"}}, n / 2 + n / 64 * 4 + 7 * 64 + rest},
      // NF4 with double quant: byte absmax, fp32 per 256 blocks (1024 blocks -> 4), offset.
      Case{{{"quant", "bnb-nf4"}, {"bnb_double_quant", true}},
           n / 2 + n / 64 + 7 * (4 * 4 + 4 + 64) + rest},
      Case{{{"quant", "fp8-tensor"}}, n + 7 * 4 + rest},
      Case{{{"quant", "fp8-channel"}}, n + 7 * 256 * 4 + rest},
      Case{{{"quant", "fp8-block"}}, n + 7 * 2 * 2 * 4 + rest},
      Case{{{"quant", "mxfp4"}}, n / 2 + n / 32 + rest},
      Case{{{"quant", "nvfp4"}}, n / 2 + n / 16 + 7 * 8 + rest});
  json w = c.workload;
  w["mode"] = "infer";
  w["dtype"] = "fp16";
  w["prompt_tokens"] = 16;
  CAPTURE(w.dump());
  const dlcost::Config cfg =
      dlcost::parseConfig(json{{"model", {{"transformer", form}}}, {"workload", w}});
  CHECK(weightBytes(dlcost::estimate(cfg.model, cfg.workload)) == c.expected);
}

TEST_CASE("vLLM splits what its budget leaves into 16-token blocks", "[serving][vllm]") {
  const Report r = runPreset("llama-3.1-8b", {{"mode", "infer"},
                                              {"dtype", "bf16"},
                                              {"engine", "vllm"},
                                              {"gpu", "h100-sxm"},
                                              {"context", 8192},
                                              {"users", 32}});
  REQUIRE(r.serving);
  const dlcost::ServingPlan& p = *r.serving;
  // K and V: 2 x 32 layers x 8 KV heads x 128 x 2 bytes per token.
  CHECK(p.kv_bytes_per_token == 131072);
  CHECK(p.block_size == 16);
  CHECK(p.block_bytes == 16 * 131072);
  // requested_memory = ceil(total x 0.9); the pool is what weights and the profiled peak
  // leave, in whole blocks.
  CHECK(p.budget_bytes ==
        static_cast<int64_t>(std::ceil(static_cast<double>(p.capacity_bytes) * 0.9)));
  const int64_t pool = p.budget_bytes - p.device.bytesOf(MemoryKey::kWeights) -
                       p.device.bytesOf(MemoryKey::kActivations);
  CHECK(p.num_blocks == pool / p.block_bytes);
  CHECK(p.kv_tokens == p.num_blocks * 16);
  // Maximum concurrency = num_blocks / cdiv(max_model_len, block_size).
  CHECK(p.max_concurrency == Approx(static_cast<double>(p.num_blocks) / 512.0));
  // H100 (80 GiB, not an A100): max_num_seqs 1024, 8192 batched tokens.
  CHECK(p.max_num_seqs == 1024);
  CHECK(p.max_num_batched_tokens == 8192);
  CHECK(p.fits);
  CHECK(p.command.find("--max-model-len 8192") != std::string::npos);
  CHECK(p.command.find("--gpu-memory-utilization 0.9") != std::string::npos);
}

TEST_CASE("llama.cpp pads n_ctx, quantizes the cache and offloads layers", "[serving][llamacpp]") {
  const json base = {{"mode", "infer"}, {"dtype", "fp16"},       {"engine", "llamacpp"},
                     {"quant", "gguf"}, {"gguf_type", "Q4_K_M"}, {"context", 4000},
                     {"users", 2},      {"gpu", "rtx-4090"}};
  SECTION("n_ctx covers every slot, padded to 256 cells") {
    const Report r = runPreset("llama-3.1-8b", base);
    CHECK(r.serving->n_ctx == 8192);
    // f16 K and V rows of 8 x 128 values per cell and layer.
    CHECK(r.serving->device.bytesOf(MemoryKey::kKvCache) == int64_t{8192} * 32 * 2 * 1024 * 2);
    CHECK(r.serving->gpu_layers == 33);
    CHECK(r.serving->command.find("-c 8192 -np 2 -ngl 33") != std::string::npos);
  }
  SECTION("q8_0 cells are 34 bytes per 32 values") {
    json w = base;
    w["cache_type"] = "q8_0";
    const Report r = runPreset("llama-3.1-8b", w);
    CHECK(r.serving->device.bytesOf(MemoryKey::kKvCache) ==
          int64_t{8192} * 32 * 2 * (1024 / 32 * 34));
    CHECK(r.serving->command.find("--cache-type-k q8_0 --cache-type-v q8_0") != std::string::npos);
  }
  SECTION("layers left off the GPU sit in system RAM and slow the step") {
    json w = base;
    w["n_gpu_layers"] = 16;
    const Report part = runPreset("llama-3.1-8b", w);
    const Report all = runPreset("llama-3.1-8b", base);
    CHECK(part.serving->host.bytesOf(MemoryKey::kWeights) >
          all.serving->host.bytesOf(MemoryKey::kWeights));
    CHECK(part.serving->speed.tokens_per_s < all.serving->speed.tokens_per_s / 4);
  }
}

TEST_CASE("Serving inputs the engine cannot run are errors at their field", "[serving][errors]") {
  const json base = {{"mode", "infer"}, {"dtype", "fp16"}, {"gpu", "rtx-4090"}};
  auto with = [&](json extra) {
    json w = base;
    for (auto it = extra.begin(); it != extra.end(); ++it) w[it.key()] = *it;
    return [w] { runPreset("llama-3.1-8b", w); };
  };
  // Llama 3.1's max_position_embeddings is 131072.
  CHECK(errorPath(with({{"engine", "vllm"}, {"context", 200000}})) == "/workload/context");
  CHECK(errorPath(with({{"engine", "llamacpp"}, {"quant", "gptq"}})) == "/workload/quant");
  CHECK(errorPath(with({{"engine", "hf"}, {"quant", "gguf"}})) == "/workload/quant");
  CHECK(errorPath(with({{"engine", "vllm"}, {"users", 0}})) == "/workload/users");
  CHECK(errorPath(with({{"engine", "llamacpp"}, {"cache_type", "q4_0"}, {"attention", "eager"}})) ==
        "/workload/cache_type");
  CHECK(errorPath(with({{"quant", "awq"}, {"quant_bits", 3}})) == "/workload/quant_bits");
  CHECK(errorPath([] {
          runPreset("llama-3.1-8b", {{"engine", "vllm"}, {"gpu", "h100-sxm"}});
        }) == "/workload/engine");
}

TEST_CASE("llama.cpp decode speed on an RTX 4090 is within 10 % of llama-bench",
          "[serving][speed]") {
  // llama.cpp PR #4766 ("ggml-backend integration"), RTX 4090, codellama-7b (Llama 2 7B shapes,
  // vocab 32016), tg 128: F16 61.03 t/s, Q8_0 98.13 t/s. engineEfficiency is calibrated on
  // these two (0.74 of the bandwidth roofline), which leaves each within 9 %.
  constexpr double kTolerance = 0.10;
  json config = presetConfig("llama-2-7b");
  config["vocab_size"] = 32016;
  struct Case {
    const char* type;
    double measured;
  };
  const Case c = GENERATE(Case{"F16", 61.03}, Case{"Q8_0", 98.13});
  CAPTURE(c.type);
  const Report r = runConfig(config, {{"mode", "infer"},
                                      {"dtype", "fp16"},
                                      {"engine", "llamacpp"},
                                      {"quant", "gguf"},
                                      {"gguf_type", c.type},
                                      {"prompt_tokens", 1},
                                      {"context", 128},
                                      {"gpu", "rtx-4090"}});
  CHECK(std::abs(r.serving->speed.tokens_per_s / c.measured - 1) <= kTolerance);
}

TEST_CASE("Decode throughput grows with users until compute bounds it", "[serving][speed]") {
  auto speed = [](int64_t users) {
    return runPreset("llama-3.1-8b", {{"mode", "infer"},
                                      {"dtype", "bf16"},
                                      {"engine", "vllm"},
                                      {"gpu", "h100-sxm"},
                                      {"context", 2048},
                                      {"users", users}})
        .serving->speed;
  };
  const dlcost::ServingSpeed one = speed(1), many = speed(64);
  CHECK(std::string(one.bound) == "memory");
  CHECK(many.tokens_per_s > 20 * one.tokens_per_s);
  CHECK(many.tokens_per_s_per_user < one.tokens_per_s_per_user);
  CHECK(one.ttft_s > 0);
}

TEST_CASE("vLLM's KV pool on an RTX 3090 is within 10 % of its logged block count",
          "[serving][vllm]") {
  // vLLM issue #10517 (V0, Dec 2024): meta-llama/Llama-3.1-8B-Instruct on an RTX 3090,
  // total_gpu_memory=23.58GiB, gpu_memory_utilization=0.90, no chunked prefill (the profile
  // runs max_model_len tokens), 256 sequences: "# GPU blocks: 1952" at max_model_len 20000,
  // 1478 at 29000 (then "max seq len (29000) is larger than ... KV cache (23648)").
  constexpr double kTolerance = 0.10;
  struct Case {
    int64_t context;
    int64_t blocks;
    bool fits;
  };
  const Case c = GENERATE(Case{20000, 1952, true}, Case{29000, 1478, false});
  CAPTURE(c.context);
  const Report r = runPreset("llama-3.1-8b", {{"mode", "infer"},
                                              {"dtype", "bf16"},
                                              {"engine", "vllm"},
                                              {"memory_gib", 23.58},
                                              {"context", c.context},
                                              {"max_num_batched_tokens", c.context},
                                              {"max_num_seqs", 256}});
  CHECK(std::abs(static_cast<double>(r.serving->num_blocks) / static_cast<double>(c.blocks) - 1) <=
        kTolerance);
  CHECK(r.serving->fits == c.fits);
}

TEST_CASE("Apple silicon serves through llama.cpp within macOS's GPU share", "[serving][apple]") {
  const json w = {
      {"mode", "infer"},       {"dtype", "fp16"}, {"engine", "llamacpp"},         {"quant", "gguf"},
      {"gguf_type", "Q4_K_M"}, {"context", 8192}, {"gpu", "apple-m2-ultra-192gb"}};
  const Report r = runPreset("llama-3.1-8b", w);
  REQUIRE(r.serving);
  CHECK(r.serving->fits);
  CHECK(r.serving->gpu_layers == 33);
  // The wired-limit note tells how to raise the GPU's share.
  bool noted = false;
  for (const std::string& n : r.serving->notes)
    noted = noted || n.find("iogpu.wired_limit_mb") != std::string::npos;
  CHECK(noted);
  CHECK(errorPath([&] {
          json v = w;
          v["engine"] = "vllm";
          runPreset("llama-3.1-8b", v);
        }) == "/workload/engine");
}

TEST_CASE("SGLang fills total x mem_fraction_static less weights with 1-token pages",
          "[serving][sglang]") {
  const Report r = runPreset("llama-3.1-8b", {{"mode", "infer"},
                                              {"dtype", "bf16"},
                                              {"engine", "sglang"},
                                              {"gpu", "h100-sxm"},
                                              {"context", 8192}});
  const dlcost::ServingPlan& p = *r.serving;
  // server_args.py: mem_fraction_static 0.88 at tp 1; model_runner.profile_max_num_token:
  // (free after loading - total x 0.12) // cell_size, the CUDA context (512 MiB) in use.
  CHECK(*p.memory_fraction == 0.88);
  CHECK(p.block_size == 1);
  const int64_t rest =
      static_cast<int64_t>(std::ceil(static_cast<double>(p.capacity_bytes) * 0.88)) -
      (int64_t{512} << 20) - p.device.bytesOf(MemoryKey::kWeights);
  CHECK(p.kv_tokens == rest / 131072);
  CHECK(p.command.find("--mem-fraction-static 0.88") != std::string::npos);
}

TEST_CASE("HF transformers holds weights, a cache per user and the prefill's activations",
          "[serving][hf]") {
  const json w = {{"mode", "infer"}, {"dtype", "bf16"}, {"engine", "hf"},
                  {"gpu", "l40s"},   {"context", 4096}, {"users", 4}};
  const Report r = runPreset("llama-3.1-8b", w);
  const dlcost::ServingPlan& p = *r.serving;
  // The cache grows to 4 x 4096 tokens of 128 KiB.
  CHECK(p.device.bytesOf(MemoryKey::kKvCache) == int64_t{4} * 4096 * 131072);
  CHECK(p.fits);
  // One more user than max_users does not fit in the GPU's usable memory.
  json more = w;
  more["users"] = p.max_users + 1;
  CHECK_FALSE(runPreset("llama-3.1-8b", more).serving->fits);
}

TEST_CASE("Tensor parallelism splits vLLM's weights and KV heads over the GPUs",
          "[serving][vllm]") {
  const json one = {
      {"mode", "infer"}, {"dtype", "bf16"}, {"engine", "vllm"}, {"gpu", "l40s"}, {"context", 8192}};
  json two = one;
  two["gpus"] = 2;
  two["tp"] = 2;
  const Report a = runPreset("llama-3.1-8b", one), b = runPreset("llama-3.1-8b", two);
  CHECK(b.serving->kv_bytes_per_token * 2 == a.serving->kv_bytes_per_token);
  CHECK(b.serving->device.bytesOf(MemoryKey::kWeights) * 2 >=
        a.serving->device.bytesOf(MemoryKey::kWeights));
  CHECK(b.serving->command.find("--tensor-parallel-size 2") != std::string::npos);
}
