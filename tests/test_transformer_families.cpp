// Families beyond the Llama layer: fine-grained and shared-expert MoE, multi-head latent
// attention, sliding-window and local/global attention, multimodal wrappers, and the
// refusal of model_types dlcost does not count exactly.
//
// Configs: the hf/ presets, the published files in tests/fixtures/hf-configs/ (SOURCES.md
// says where each copy came from; test_hf_config_fixtures.cpp counts each and checks the
// presets against them), or, for the few families whose file was not found verbatim
// (Qwen1.5-MoE, Phi-3.5-MoE, OLMo), inline configs reconstructed key by key. Each total is derived
// by hand from the family's modelling code (transformers' modeling_<model_type>.py) and checked
// against the figure the model card or paper publishes, cited beside it.
#include <catch2/catch.hpp>

#include "dlcost/api.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/report/report_json.hpp"
#include "transformer_test_util.hpp"

using dlcost::testing::fixtureConfig;
using dlcost::testing::presetConfig;
using dlcost::testing::row;
using dlcost::testing::runConfig;
using dlcost::testing::runPreset;
using nlohmann::json;

namespace {

/// A published figure rounded to `digits` significant places: |exact - published| is
/// within half a unit of its last place.
bool roundsTo(int64_t exact, double published, double unit) {
  return std::abs(static_cast<double>(exact) - published) <= unit / 2;
}

dlcost::Error errorOf(const json& config, const json& workload = json::object()) {
  try {
    (void)runConfig(config, workload);
  } catch (const dlcost::InputError& e) {
    return e.error();
  }
  FAIL("no error for " << config.dump());
  return {};
}

/// Qwen/Qwen1.5-MoE-A2.7B config.json (qwen2_moe), reconstructed key by key: no verbatim
/// copy of the file was found (SOURCES.md).
json qwen15MoeA27b() {
  return {{"architectures", {"Qwen2MoeForCausalLM"}},
          {"model_type", "qwen2_moe"},
          {"hidden_size", 2048},
          {"intermediate_size", 5632},
          {"num_hidden_layers", 24},
          {"num_attention_heads", 16},
          {"num_key_value_heads", 16},
          {"vocab_size", 151936},
          {"max_position_embeddings", 8192},
          {"decoder_sparse_step", 1},
          {"moe_intermediate_size", 1408},
          {"shared_expert_intermediate_size", 5632},
          {"num_experts_per_tok", 4},
          {"num_experts", 60},
          {"norm_topk_prob", false},
          {"use_sliding_window", false},
          {"sliding_window", 32768},
          {"max_window_layers", 21},
          {"tie_word_embeddings", false}};
}

/// microsoft/Phi-3.5-MoE-instruct config.json (phimoe), reconstructed key by key: no
/// verbatim copy of the file was found (SOURCES.md).
json phi35Moe() {
  return {{"architectures", {"PhiMoEForCausalLM"}},
          {"model_type", "phimoe"},
          {"hidden_size", 4096},
          {"intermediate_size", 6400},
          {"num_hidden_layers", 32},
          {"num_attention_heads", 32},
          {"num_key_value_heads", 8},
          {"vocab_size", 32064},
          {"max_position_embeddings", 131072},
          {"num_local_experts", 16},
          {"num_experts_per_tok", 2},
          {"attention_bias", true},
          {"lm_head_bias", true},
          {"sliding_window", 131072},
          {"tie_word_embeddings", false}};
}

}  // namespace

TEST_CASE("MoE families count every expert, shared expert and router exactly",
          "[transformer][params][families]") {
  struct Case {
    const char* what;
    json config;
    // Derived by hand from the modelling code (see the comments); active = total less
    // (E - k) experts in each MoE layer, embeddings and LM head included.
    int64_t total, active;
    double published_total, unit;  // the model card's rounded total
  };
  // Per layer, from modeling_<model_type>.py (h hidden, f expert width, E experts, k top-k):
  // attention q,k,v,o (+ biases) + E x 3hf experts + h x E router (+ shared expert, gates)
  // + norms; then embeddings, final norm, untied LM head.
  const std::vector<Case> cases = {
      // Qwen3-30B-A3B: 48 x (18,874,368 attn + 256 q/k norms + 128 x 4,718,592 experts
      // + 262,144 router + 4,096 norms) + 2 x 311,164,928 + 2,048 = 30,532,122,624.
      // Model card: "30.5B in total and 3.3B activated; 29.9B non-embedding".
      {"qwen3-30b-a3b", presetConfig("qwen3-30b-a3b"), 30532122624, 3353032704, 30.5e9, 0.1e9},
      // gpt-oss-20b: 24 x (26,550,144 attn with biases and 64 sinks + 32 x 24,891,840
      // experts with biases + 92,192 biased router + 5,760 norms) + 2 x 579,133,440 + 2,880
      // = 20,914,757,184. Model card (OpenAI 2025, table 1): 20.91B total.
      {"gpt-oss-20b", presetConfig("gpt-oss-20b"), 20914757184, 4187440704, 20.91e9, 0.01e9},
      // DeepSeek-V3: 3 dense layers x 583,483,392 + 58 MoE layers x 11,507,286,272 (MLA
      // 187,107,328 incl. its q_a/kv_a norms; 256 experts x 44,040,192 + shared 44,040,192
      // + router 1,835,008 + e_score_correction_bias 256; norms 14,336) + 2 x 926,679,040
      // + 7,168 = 671,026,419,200. Model card: "671B total parameters" (the 14B MTP module,
      // layer 61, is not loaded by transformers and not counted).
      {"deepseek-v3", presetConfig("deepseek-v3"), 671026419200, 37552297472, 671e9, 1e9},
      // Qwen1.5-MoE-A2.7B: 24 x (16,783,360 attn with q/k/v biases + 60 x 8,650,752 experts
      // + 122,880 router + 34,603,008 shared expert + 2,048 shared gate + 4,096 norms)
      // + 2 x 311,164,928 + 2,048 = 14,315,784,192. Model card: "14.3B in total, 2.7B
      // activated".
      {"qwen1.5-moe-a2.7b", qwen15MoeA27b(), 14315784192, 2689173504, 14.3e9, 0.1e9},
      // OLMoE-1B-7B: 16 x (16,777,216 attn + 4,096 full-width q/k norms + 64 x 6,291,456
      // experts + 131,072 router + 4,096 norms) + 2 x 103,022,592 + 2,048
      // = 6,919,161,856. Muennighoff et al. 2024 (OLMoE): "6.9B total, 1.3B active".
      {"olmoe-1b-7b", fixtureConfig("olmoe-1b-7b-0125-instruct"), 6919161856, 1282017280, 6.9e9,
       0.1e9},
      // Phi-3.5-MoE: 32 x (41,953,280 biased attn + 16 x 78,643,200 experts + 65,536 router
      // + 16,384 LayerNorm weights and biases) + 131,334,144 embeddings + 131,366,208
      // biased LM head + 8,192 = 41,873,153,344. Model card: "41.9B total, 6.6B active".
      {"phi-3.5-moe", phi35Moe(), 41873153344, 6640999744, 41.9e9, 0.1e9},
      // deepseek-moe-16b: layer 0 dense 84,021,248 + 27 x 587,862,016 (64 x 8,650,752
      // experts + 2 shared experts 17,301,504 + 131,072 router) + 2 x 209,715,200 + 2,048
      // = 16,375,728,128. Model card: "DeepSeekMoE 16B, 16.4B parameters".
      {"deepseek-moe-16b", fixtureConfig("deepseek-moe-16b-base"), 16375728128, 2828650496, 16.4e9,
       0.1e9},
      // DeepSeek-V2-Lite: layer 0 dense 81,007,104 + 26 x 584,847,872 (MLA without q
      // LoRA 13,763,072) + 2 x 209,715,200 + 2,048 = 15,706,484,224. Model card: "15.7B
      // total parameters, 2.4B activated".
      {"deepseek-v2-lite", fixtureConfig("deepseek-v2-lite-chat"), 15706484224, 2661150208, 15.7e9,
       0.1e9},
  };
  for (const Case& c : cases) {
    SECTION(c.what) {
      const dlcost::Report r = runConfig(c.config);
      REQUIRE(r.transformer);
      CHECK(r.params.total == c.total);
      CHECK(roundsTo(r.params.total, c.published_total, c.unit));
      CHECK(r.transformer->params.active_per_token == c.active);
      CHECK(!r.transformer->approximate);
    }
  }
}

TEST_CASE("published active-parameter figures follow from the counts",
          "[transformer][params][families]") {
  // gpt-oss model card, table 1: 3.61B active for 20b (the embedding lookup excluded),
  // 116.83B total for 120b (36 layers, 128 experts, the 20b's widths).
  const dlcost::Report r = runPreset("gpt-oss-20b");
  const dlcost::TransformerParams& p = r.transformer->params;
  CHECK(roundsTo(p.active_per_token - p.embeddings, 3.61e9, 0.01e9));
  json big = presetConfig("gpt-oss-20b");
  big["num_hidden_layers"] = 36;
  big["num_local_experts"] = 128;
  big["layer_types"] = json::array();
  for (int i = 0; i < 18; ++i) {
    big["layer_types"].push_back("sliding_attention");
    big["layer_types"].push_back("full_attention");
  }
  CHECK(runConfig(big).params.total == 116829156672);  // 116.83B, same derivation
  CHECK(roundsTo(runConfig(big).params.total, 116.83e9, 0.01e9));
  // Qwen3-30B-A3B model card: 29.9B non-embedding parameters.
  const dlcost::TransformerParams& q = runPreset("qwen3-30b-a3b").transformer->params;
  CHECK(roundsTo(q.total - q.embeddings - q.lm_head, 29.9e9, 0.1e9));
}

TEST_CASE("dense families of the new presets count exactly", "[transformer][params][families]") {
  // Llama-3.1-8B: the Hub's safetensors parameter total, 8,030,261,248 (as Llama-3-8B:
  // the same layers; only rope_scaling differs).
  CHECK(runPreset("llama-3.1-8b").params.total == 8030261248);
  // Llama-3.2-1B: safetensors total 1,235,814,400 (tied embeddings: 16 x 60,821,504
  // + 128,256 x 2,048 + 2,048).
  CHECK(runPreset("llama-3.2-1b").params.total == 1235814400);
  // Gemma-3-4B's language model: 34 x 94,382,592 (attention 15,728,640, per-head q/k
  // norms 512, MLP 78,643,200, four norms 10,240) = 3,209,008,128 non-embedding, Gemma 3
  // Technical Report table 1: "3,209M non-embedding"; plus 262,208 x 2,560 tied
  // embeddings and the final norm. Heads, kv heads, head_dim and vocab are absent from its
  // text_config and take Gemma3TextConfig's defaults (8, 4, 256, 262,208).
  // Its vision tower and projector (test_transformer_vision.cpp) are counted beside it.
  const dlcost::Report g = runPreset("gemma-3-4b-it");
  const dlcost::TransformerParams& p = g.transformer->params;
  CHECK(p.total - p.vision - p.projector - p.embeddings - 2560 == 3209008128);
  CHECK(p.total - p.vision - p.projector == 3880263168);
}

TEST_CASE("the KV cache per token follows each attention kind's formula",
          "[transformer][memory][kv][families]") {
  const json infer = {{"mode", "infer"}, {"dtype", "bf16"}, {"batch", 1}};
  auto kvBytes = [&](const std::string& preset, int64_t tokens, json extra = json::object()) {
    json w = infer;
    w["prompt_tokens"] = tokens;
    for (auto& [k, v] : extra.items()) w[k] = v;
    return runPreset(preset, w).memory.bytesOf(dlcost::MemoryKey::kKvCache);
  };
  SECTION("full attention with GQA: 2 x layers x kv_heads x head_dim x tokens x 2 bytes") {
    // Llama-3.1-8B: 32 layers, 8 kv heads of 128.
    CHECK(kvBytes("llama-3.1-8b", 8192) == int64_t{2} * 32 * 8 * 128 * 8192 * 2);
  }
  SECTION("sliding window on every layer: tokens capped at the window (Mistral-7B-v0.1)") {
    // sliding_window 4096: HF's sliding cache keeps at most the window per layer.
    CHECK(kvBytes("mistral-7b", 16384) == int64_t{2} * 32 * 8 * 128 * 4096 * 2);
    CHECK(kvBytes("mistral-7b", 2048) == int64_t{2} * 32 * 8 * 128 * 2048 * 2);
  }
  SECTION("Gemma 2: even layers local (4096), odd layers global") {
    // gemma-2-9b: 42 layers, 8 kv heads of 256; 21 local, 21 global.
    const int64_t per_layer_token = int64_t{2} * 8 * 256 * 2;
    CHECK(kvBytes("gemma-2-9b", 8192) == per_layer_token * (21 * 8192 + 21 * 4096));
  }
  SECTION("Gemma 3: five local layers (1024) to one global") {
    // gemma-3-4b: 34 layers, global where (i + 1) % 6 == 0: 5 global, 29 local; 4 kv heads
    // of 256.
    const int64_t per_layer_token = int64_t{2} * 4 * 256 * 2;
    // Text alone (images 0): each image would add its 256 tokens.
    const json text = {{"images", 0}};
    CHECK(kvBytes("gemma-3-4b-it", 32768, text) == per_layer_token * (5 * 32768 + 29 * 1024));
    CHECK(kvBytes("gemma-3-4b-it", 512, text) == per_layer_token * 34 * 512);
  }
  SECTION("gpt-oss: alternating sliding (128) and full layers, 8 kv heads of 64") {
    const int64_t per_layer_token = int64_t{2} * 8 * 64 * 2;
    CHECK(kvBytes("gpt-oss-20b", 4096) == per_layer_token * (12 * 4096 + 12 * 128));
  }
  SECTION("MLA latent: (kv_lora_rank + qk_rope_head_dim) x layers, one copy for K and V") {
    // DeepSeek-V3: 61 x (512 + 64) x 2 bytes = 70,272 bytes per token, as vLLM and SGLang
    // keep it.
    CHECK(kvBytes("deepseek-v3", 1000) == int64_t{61} * (512 + 64) * 1000 * 2);
    CHECK(runPreset("deepseek-v3", infer).transformer->kv_cache_bytes_per_token == 70272);
  }
  SECTION("MLA decompressed: heads x (qk_nope + qk_rope + v_head_dim) x layers") {
    // HF's DeepseekV3Attention caches per-head keys (128 + 64) and values (128).
    CHECK(kvBytes("deepseek-v3", 1000, {{"mla_cache", "decompressed"}}) ==
          int64_t{61} * 128 * (192 + 128) * 1000 * 2);
  }
  SECTION("MQA (Falcon-7B): one kv head") {
    CHECK(kvBytes("falcon-7b", 2048) == int64_t{2} * 32 * 1 * 64 * 2048 * 2);
  }
}

TEST_CASE("local layers attend within their window in MACs", "[transformer][flops][families]") {
  // Gemma-3-4B prefill of 8192 tokens: each local layer's QK^T and AV cover 1024 keys
  // per query, each global layer's 8192; per key q width + heads x head_dim = 2 x 8 x 256.
  const json w = {{"mode", "infer"}, {"prompt_tokens", 8192}, {"images", 0}};
  const dlcost::Report r = runPreset("gemma-3-4b-it", w);
  const int64_t core_local = int64_t{8192} * 1024 * 2 * 8 * 256;
  const int64_t core_global = int64_t{8192} * 8192 * 2 * 8 * 256;
  const int64_t linear = int64_t{8192} * (15728640 + 78643200);
  CHECK(row(r, "layers.0.attention").macs == int64_t{8192} * 15728640 + core_local);
  CHECK(row(r, "layers.5.attention").macs == int64_t{8192} * 15728640 + core_global);
  CHECK(row(r, "layers.0.mlp").macs == int64_t{8192} * 78643200);
  (void)linear;
}

TEST_CASE("MoE rows: dense layers before the first MoE layer (DeepSeek-V3)",
          "[transformer][params][families]") {
  const dlcost::Report r = runPreset("deepseek-v3");
  CHECK(row(r, "layers.2.mlp").params == 396361728 + 7168);    // 3 x 7168 x 18432 + norm
  CHECK(row(r, "layers.3.moe").params == 11320164608 + 7168);  // experts, shared, router
  CHECK(row(r, "layers.3.moe").macs ==
        int64_t{r.transformer->seq_len} * (9 * int64_t{44040192} + 1835008));  // 8 + shared
}

TEST_CASE("model_types not counted exactly are refused with the supported list",
          "[transformer][errors][families]") {
  SECTION("an unknown model_type") {
    json cfg = presetConfig("llama-2-7b");
    cfg["model_type"] = "mamba2";
    const dlcost::Error e = errorOf(cfg);
    CHECK(e.code == dlcost::ErrorCode::kValue);
    CHECK(e.path == "/model/hf_config/model_type");
    CHECK_THAT(e.message,
               Catch::Matchers::StartsWith("model_type 'mamba2' is not one dlcost counts exactly; "
                                           "supported: llama, mistral, mixtral") &&
                   Catch::Matchers::Contains("\"approximate\": true") &&
                   Catch::Matchers::Contains("--approximate"));
  }
  SECTION("a multimodal wrapper dlcost does not know") {
    const json cfg = {{"model_type", "idefics3"},
                      {"text_config", presetConfig("llama-2-7b")},
                      {"vision_config", {{"hidden_size", 1152}}}};
    const dlcost::Error e = errorOf(cfg);
    CHECK(e.path == "/model/hf_config/model_type");
    CHECK_THAT(e.message, Catch::Matchers::StartsWith("multimodal model_type 'idefics3' is not "
                                                      "one dlcost models"));
  }
  SECTION("a known model_type missing a key its class cannot default at the top level") {
    json cfg = presetConfig("qwen3-30b-a3b");
    cfg.erase("hidden_size");
    const dlcost::Error e = errorOf(cfg);
    CHECK(e.code == dlcost::ErrorCode::kMissingField);
    CHECK(e.path == "/model/hf_config/hidden_size");
    CHECK(e.message ==
          "model_type 'qwen3_moe' needs hidden_size, which is missing from the config");
  }
  SECTION("layer_types that do not match the layers") {
    json cfg = presetConfig("gpt-oss-20b");
    cfg["layer_types"] = {"sliding_attention", "full_attention"};
    CHECK(errorOf(cfg).path == "/model/hf_config/layer_types");
    cfg["layer_types"] = json::array();
    for (int i = 0; i < 24; ++i) cfg["layer_types"].push_back("chunked_attention");
    CHECK(errorOf(cfg).path == "/model/hf_config/layer_types/0");
  }
  SECTION("the text facade refuses as a value, exit-2 style") {
    json cfg = presetConfig("llama-2-7b");
    cfg["model_type"] = "rwkv";
    const json out = json::parse(dlcost::estimateText(cfg.dump()));
    REQUIRE(out.contains("error"));
    CHECK(out["error"]["path"] == "/model_type");
    CHECK(out["error"]["code"] == "value");
  }
}

TEST_CASE("absent and null keys take their config class's defaults",
          "[transformer][params][families]") {
  // Published files that leave a key out (or write null) and what the family's
  // configuration_<model_type>.py gives it; the totals these files count to are checked in
  // test_hf_config_fixtures.cpp.
  SECTION("tie_word_embeddings absent: true for BLOOM, GPT-BigCode, StarCoder2, Cohere") {
    for (const char* file :
         {"bloom-560m", "gpt-bigcode-santacoder", "starcoder2-3b", "command-r-08-2024"}) {
      CAPTURE(file);
      const json cfg = fixtureConfig(file);
      REQUIRE(!cfg.contains("tie_word_embeddings"));
      CHECK(runConfig(cfg).transformer->params.lm_head == 0);
    }
  }
  SECTION("n_inner null: 4 x hidden for GPT-J and BLOOM") {
    // GPT-J-6B: fc_in 4,096 x 16,384 + bias, fc_out 16,384 x 4,096 + bias per layer (its
    // one LayerNorm is in the attention row).
    const json gptj = fixtureConfig("gpt-j-6b");
    REQUIRE(gptj["n_inner"].is_null());
    CHECK(row(runConfig(gptj), "layers.0.mlp").params == int64_t{2} * 4096 * 16384 + 16384 + 4096);
    const json bloom = fixtureConfig("bloom-560m");
    REQUIRE(bloom["n_inner"].is_null());
    // BLOOM's row holds the post-attention LayerNorm (weight and bias) too.
    CHECK(row(runConfig(bloom), "layers.0.mlp").params ==
          int64_t{2} * 1024 * 4096 + 4096 + 1024 + 2 * 1024);
  }
  SECTION("n_inner null for GPT-2 as well") {
    json gpt2 = presetConfig("gpt2");
    gpt2["n_inner"] = nullptr;
    CHECK(runConfig(gpt2).params.total == runPreset("gpt2").params.total);
  }
}

TEST_CASE("families without a published file found count from reconstructed configs",
          "[transformer][params][families]") {
  // allenai/OLMo-1B-hf (olmo), reconstructed key by key (no verbatim copy was found, see
  // SOURCES.md): 16 x (4 x 2048^2 + 3 x 2,048 x 8,192), LayerNorms without parameters,
  // 50,304 x 2,048 tied = 1,176,764,416 (Groeneveld et al. 2024, OLMo: 1.18B).
  const json olmo1b = {{"model_type", "olmo"},       {"hidden_size", 2048},
                       {"num_hidden_layers", 16},    {"num_attention_heads", 16},
                       {"num_key_value_heads", 16},  {"intermediate_size", 8192},
                       {"vocab_size", 50304},        {"max_position_embeddings", 2048},
                       {"tie_word_embeddings", true}};
  const dlcost::Report r = runConfig(olmo1b);
  CHECK(r.params.total == 1176764416);
  CHECK(roundsTo(r.params.total, 1.18e9, 0.01e9));
}

TEST_CASE("OPT-350m's projected embeddings: project_in and project_out, a 512-wide head",
          "[transformer][params][families]") {
  // tests/fixtures/hf-configs/opt-350m.json; totals in test_hf_config_fixtures.cpp
  // (331,196,416). project_in and project_out: 512 x 1,024 each, bias-free (modeling_opt.py).
  const json cfg = fixtureConfig("opt-350m");
  const dlcost::Report r = runConfig(cfg, {{"mode", "train"}, {"seq_len", 128}});
  CHECK(r.params.total == 331196416);
  CHECK(r.transformer->params.embeddings == int64_t{50272} * 512 + int64_t{2050} * 1024);
  CHECK(r.transformer->params.other == int64_t{2} * 512 * 1024);
  CHECK(row(r, "project_in").params == 512 * 1024);
  CHECK(row(r, "project_out").params == 512 * 1024);
  // MACs of one sequence of 128 tokens: project_in on every token, project_out and the
  // 512-wide tied head on every token in training (50,272 x 512 each).
  CHECK(row(r, "project_in").macs == int64_t{128} * 512 * 1024);
  CHECK(row(r, "lm_head").macs == int64_t{128} * 50272 * 512);
  // The same config without the projection counts 1,024-wide tables and no projections.
  json plain = cfg;
  plain["word_embed_proj_dim"] = 1024;
  const dlcost::Report p = runConfig(plain, {{"mode", "train"}, {"seq_len", 128}});
  CHECK(p.params.total == r.params.total + int64_t{50272} * 512 - int64_t{2} * 512 * 1024);
  // Quantized checkpoints: which projections a quantizer converts is not modelled.
  CHECK(errorOf(cfg, {{"mode", "infer"}, {"weight_dtype", "int4"}}).path ==
        "/workload/weight_dtype");
}

TEST_CASE("the MLA cache form reads back from the report's workload",
          "[transformer][memory][kv][families]") {
  const json w = {{"mode", "infer"}, {"mla_cache", "decompressed"}, {"prompt_tokens", 100}};
  const dlcost::Report r = runPreset("deepseek-v3", w);
  const json back = dlcost::reportToJson(r)["workload"];
  CHECK(back["mla_cache"] == "decompressed");
  CHECK(runPreset("deepseek-v3", back).memory.bytesOf(dlcost::MemoryKey::kKvCache) ==
        r.memory.bytesOf(dlcost::MemoryKey::kKvCache));
  // A bad form names the field.
  try {
    (void)runPreset("deepseek-v3", {{"mla_cache", "compressed"}});
    FAIL("accepted");
  } catch (const dlcost::InputError& e) {
    CHECK(e.error().path == "/workload/mla_cache");
  }
}

TEST_CASE("InternLM2 and Baichuan 2 count as Llama's layer with fused q, k, v",
          "[transformer][params][families]") {
  // Configs reconstructed key by key from the released config.json files (no verbatim copy
  // was reachable offline: the counts below are derived from the remote modelling code and
  // checked only against the rounded totals the Hub shows, 7.74B and 7.51B: unverified to
  // the parameter).
  SECTION("internlm2_5-7b: wqkv without bias (bias false), untied output") {
    const json cfg = {{"architectures", json::array({"InternLM2ForCausalLM"})},
                      {"model_type", "internlm2"},
                      {"bias", false},
                      {"hidden_size", 4096},
                      {"intermediate_size", 14336},
                      {"max_position_embeddings", 32768},
                      {"num_attention_heads", 32},
                      {"num_hidden_layers", 32},
                      {"num_key_value_heads", 8},
                      {"rms_norm_eps", 1e-5},
                      {"tie_word_embeddings", false},
                      {"vocab_size", 92544}};
    // 32 x (41,943,040 attention + 176,160,768 MLP + 8,192 norms) + 2 x 92,544 x 4,096
    // + 4,096.
    const dlcost::Report r = runConfig(cfg);
    CHECK(r.params.total == 7737708544);
    CHECK(!r.transformer->approximate);
    // LoRA names its fused module as the remote code does: wqkv (4,096 in, 6,144 out).
    const dlcost::Report lora = runConfig(
        cfg, {{"finetune", "lora"}, {"lora_rank", 8}, {"lora_targets", json::array({"wqkv"})}});
    CHECK(lora.params.adapters == int64_t{32} * 8 * (4096 + 6144));
  }
  SECTION("Baichuan2-7B: W_pack, multi-head attention, untied NormHead") {
    const json cfg = {{"architectures", json::array({"BaichuanForCausalLM"})},
                      {"model_type", "baichuan"},
                      {"hidden_size", 4096},
                      {"intermediate_size", 11008},
                      {"max_position_embeddings", 4096},
                      {"num_attention_heads", 32},
                      {"num_hidden_layers", 32},
                      {"rms_norm_eps", 1e-6},
                      {"tie_word_embeddings", false},
                      {"vocab_size", 125696}};
    // 32 x (67,108,864 + 135,266,304 + 8,192) + 2 x 125,696 x 4,096 + 4,096.
    CHECK(runConfig(cfg).params.total == 7505973248);
    // Without max_position_embeddings: the 13B's ALiBi variant, refused.
    json alibi = cfg;
    alibi.erase("max_position_embeddings");
    const dlcost::Error e = errorOf(alibi);
    CHECK(e.path == "/model/hf_config/max_position_embeddings");
    CHECK_THAT(e.message, Catch::Matchers::Contains("ALiBi"));
  }
}

TEST_CASE("Stable LM 2 counts to its checkpoints' safetensors totals",
          "[transformer][params][families]") {
  // Configs reconstructed key by key from the released config.json files (no verbatim copy
  // was reachable offline: the keys of stablelm-2-1_6b are those a public test quotes for it,
  // code-search id 58699753477). Each total is derived from transformers'
  // modeling_stablelm.py and matches the checkpoint's safetensors total to the parameter.
  struct Case {
    const char* name;
    json config;
    int64_t total;
  };
  const json base = {{"architectures", json::array({"StableLmForCausalLM"})},
                     {"model_type", "stablelm"},
                     {"hidden_act", "silu"},
                     {"layer_norm_eps", 1e-5},
                     {"max_position_embeddings", 4096},
                     {"partial_rotary_factor", 0.25},
                     {"rope_theta", 10000},
                     {"tie_word_embeddings", false},
                     {"vocab_size", 100352}};
  json small = base;
  small.update({{"hidden_size", 2048},
                {"intermediate_size", 5632},
                {"num_attention_heads", 32},
                {"num_hidden_layers", 24},
                {"num_key_value_heads", 32},
                {"use_qkv_bias", true}});
  json large = base;
  large.update({{"hidden_size", 5120},
                {"intermediate_size", 13824},
                {"num_attention_heads", 32},
                {"num_hidden_layers", 40},
                {"num_key_value_heads", 8},
                {"qk_layernorm", true},
                {"use_parallel_residual", true},
                {"use_qkv_bias", false}});
  const Case c = GENERATE_COPY(
      // stablelm-2-1_6b: 24 x (12,589,056 biased q/k/v + 4,194,304 o_proj + 34,603,008 MLP
      // + 8,192 two LayerNorms with bias) + 2 x 100,352 x 2,048 + 4,096. Published:
      // 1,644,515,328 parameters (safetensors metadata of stabilityai/stablelm-2-1_6b at
      // f499ead7, a public model-card summary, code-search id 65849527990). The model card's
      // table (huggingface.co/stabilityai/stablelm-2-1_6b, "Model Architecture") says
      // 1,644,417,024: 98,304 = 24 x 2 x 2,048 fewer, the layers' LayerNorm biases, which the
      // checkpoint holds (input_layernorm.bias, post_attention_layernorm.bias).
      Case{"stablelm-2-1_6b", small, 1644515328},
      // stablelm-2-12b: 40 x (26,214,400 q + 13,107,200 k/v + 26,214,400 o_proj + 212,336,640
      // MLP + 10,240 one input_layernorm (parallel residual) + 6,400 per-head q/k LayerNorms,
      // 32 x 160 + 8 x 160 weights without bias) + 2 x 100,352 x 5,120 + 10,240. Published:
      // 12,143,185,920 parameters (safetensors metadata of stabilityai/stablelm-2-12b-chat at
      // b6b62cd4, code-search id 65720588292).
      Case{"stablelm-2-12b", large, 12143185920});
  CAPTURE(c.name);
  const dlcost::Report r = runConfig(c.config);
  CHECK(r.params.total == c.total);
  CHECK(!r.transformer->approximate);
}

TEST_CASE("Stable LM's per-head q/k LayerNorms carry no bias and a parallel block one norm",
          "[transformer][params][families]") {
  const json cfg = {{"model_type", "stablelm"}, {"hidden_size", 256},
                    {"intermediate_size", 512}, {"num_attention_heads", 4},
                    {"num_key_value_heads", 2}, {"num_hidden_layers", 2},
                    {"vocab_size", 1000}};
  const dlcost::Report plain = runConfig(cfg);
  json qk = cfg;
  qk["qk_layernorm"] = true;
  // StableLmLayerNormPerHead: 4 query heads and 2 key heads of LayerNorm(64, bias=False).
  CHECK(runConfig(qk).params.total == plain.params.total + 2 * (4 + 2) * 64);
  json parallel = cfg;
  parallel["use_parallel_residual"] = true;
  // No post_attention_layernorm: one LayerNorm (weight and bias) fewer per layer.
  CHECK(runConfig(parallel).params.total == plain.params.total - 2 * 2 * 256);
  json bias = cfg;
  bias["use_qkv_bias"] = true;
  CHECK(runConfig(bias).params.total == plain.params.total + 2 * (256 + 2 * 128));
}

namespace {

/// The model section of llm-foundry's scripts/train/yamls/pretrain/mpt-<size>.yaml at commit
/// 49521837 (the commit of the benchmarking README whose table the llm-foundry calibration
/// rows come from) as the MPTConfig config.json it builds: d_model, n_heads, n_layers,
/// expansion_ratio 4, vocab_size 50,368, max_seq_len the run's; everything else MPTConfig's
/// defaults (learned_pos_emb true, no_bias false, attn_config.alibi false), written out.
json llmFoundryMpt(int64_t d_model, int64_t heads, int64_t layers, int64_t seq) {
  return {{"model_type", "mpt"},
          {"architectures", {"MPTForCausalLM"}},
          {"d_model", d_model},
          {"n_heads", heads},
          {"n_layers", layers},
          {"expansion_ratio", 4},
          {"max_seq_len", seq},
          {"vocab_size", 50368},
          {"learned_pos_emb", true},
          {"no_bias", false},
          {"norm_type", "low_precision_layernorm"},
          {"attn_config", {{"attn_type", "multihead_attention"}, {"alibi", false}}},
          {"ffn_config", {{"ffn_type", "mptmlp"}}}};
}

}  // namespace

TEST_CASE("MPT counts as llm-foundry builds it", "[transformer][params][families][mpt]") {
  struct Case {
    const char* size;
    int64_t d_model, heads, layers, seq;
    int64_t total;
  };
  // llm-foundry's scripts/train/benchmarking/README.md (commit 49521837) gives each run's
  // parameters at its sequence length (tests/fixtures/speed/speed-calibration.json keeps
  // them): per layer 12 d^2 + 13 d (biased Wqkv, out_proj, up_proj, down_proj; norm_1 and
  // norm_2 with bias), plus wte 50,368 d, wpe seq x d and norm_f 2d.
  const Case c = GENERATE(values<Case>({
      {"125m", 768, 12, 12, 2048, 125311488},
      {"350m", 1024, 16, 24, 2048, 355985408},
      {"760m", 1536, 12, 24, 2048, 760470528},
      {"1b", 2048, 16, 24, 1024, 1313853440},
      {"3b", 2560, 20, 32, 2048, 2651837440},
      {"7b", 4096, 32, 32, 4096, 6667247616},
      {"7b at 65,536 positions", 4096, 32, 32, 65536, 6918905856},
      {"13b", 5120, 40, 40, 2048, 12853954560},
      {"30b", 7168, 56, 48, 2048, 29975214080},
  }));
  CAPTURE(c.size);
  const dlcost::Report r = runConfig(llmFoundryMpt(c.d_model, c.heads, c.layers, c.seq));
  CHECK(r.params.total == c.total);
  CHECK(r.transformer->params.embeddings == (50368 + c.seq) * c.d_model);
  CHECK(!r.transformer->approximate);
}

TEST_CASE("MPT's attention, MLP and head options change the count as the module tree does",
          "[transformer][params][families][mpt]") {
  // From mpt-7b-instruct (6,649,286,656; test_hf_config_fixtures.cpp).
  const json base = fixtureConfig("mpt-7b-instruct");
  struct Case {
    const char* what;
    json patch;  // merged into the config
    int64_t total;
  };
  const Case c = GENERATE_COPY(values<Case>({
      // Wqkv 4,096 x (4,096 + 2 x 8 x 128): 25,165,824 fewer a layer.
      {"GQA with 8 kv heads",
       {{"attn_config", {{"attn_type", "grouped_query_attention"}, {"kv_n_heads", 8}}}},
       int64_t{6649286656} - 32 * int64_t{25165824}},
      // q_ln over 4,096 and k_ln over 8 x 128, weight only (no_bias).
      {"GQA with qk_ln",
       {{"attn_config",
         {{"attn_type", "grouped_query_attention"}, {"kv_n_heads", 8}, {"qk_ln", true}}}},
       int64_t{6649286656} - 32 * int64_t{25165824} + 32 * (4096 + 1024)},
      {"multi-query",
       {{"attn_config", {{"attn_type", "multiquery_attention"}}}},
       int64_t{6649286656} - 32 * int64_t{4096} * (2 * 4096 - 2 * 128)},
      // A gate_proj of 4,096 x 16,384 in each layer.
      {"mptglu",
       {{"ffn_config", {{"ffn_type", "mptglu"}}}},
       int64_t{6649286656} + 32 * int64_t{67108864}},
      {"ffn_hidden_size",
       {{"ffn_config", {{"ffn_type", "mptmlp"}, {"ffn_hidden_size", 8192}}}},
       int64_t{6649286656} - 32 * 2 * int64_t{4096} * 8192},
      {"untied head", {{"tie_word_embeddings", false}}, int64_t{6649286656} + 50432 * 4096},
      // Without ALiBi, learned_pos_emb adds wpe: 2,048 x 4,096.
      {"learned positions",
       {{"attn_config", {{"alibi", false}}}},
       int64_t{6649286656} + 2048 * 4096},
      {"rope", {{"attn_config", {{"alibi", false}, {"rope", true}}}}, int64_t{6649286656}},
  }));
  CAPTURE(c.what);
  json cfg = base;
  cfg.merge_patch(c.patch);
  CHECK(runConfig(cfg).params.total == c.total);
}

TEST_CASE("MPT options dlcost does not model are refused by name",
          "[transformer][errors][families][mpt]") {
  struct Case {
    const char* what;
    json patch;
    const char* path;
  };
  const Case c = GENERATE_COPY(values<Case>({
      {"MegaBlocks MoE",
       {{"ffn_config", {{"ffn_type", "mb_moe"}}}},
       "/model/hf_config/ffn_config/ffn_type"},
      {"Transformer Engine's fused LayerNorm MLP",
       {{"ffn_config", {{"ffn_type", "te_ln_mlp"}}}},
       "/model/hf_config/ffn_config/ffn_type"},
      {"an unknown attention type",
       {{"attn_config", {{"attn_type", "cross_attention"}}}},
       "/model/hf_config/attn_config/attn_type"},
      {"sliding window",
       {{"attn_config", {{"sliding_window_size", 1024}}}},
       "/model/hf_config/attn_config/sliding_window_size"},
      {"qk_ln with qk_gn",
       {{"attn_config", {{"qk_ln", true}, {"qk_gn", true}}}},
       "/model/hf_config/attn_config/qk_gn"},
      {"alibi absent (defaults differ)",
       {{"attn_config", {{"alibi", nullptr}}}},
       "/model/hf_config/attn_config/alibi"},
      {"GQA without kv_n_heads",
       {{"attn_config", {{"attn_type", "grouped_query_attention"}}}},
       "/model/hf_config/attn_config/kv_n_heads"},
      {"block_overrides",
       {{"block_overrides", {{"order", json::array()}}}},
       "/model/hf_config/block_overrides"},
      {"an unknown norm", {{"norm_type", "groupnorm"}}, "/model/hf_config/norm_type"},
      {"a fractional MLP width", {{"expansion_ratio", 2.6667}}, "/model/hf_config/expansion_ratio"},
  }));
  CAPTURE(c.what);
  json cfg = fixtureConfig("mpt-7b-instruct");
  cfg.merge_patch(c.patch);
  const dlcost::Error e = errorOf(cfg);
  CHECK(e.path == c.path);
  CHECK_THAT(e.message, Catch::Matchers::Contains("mpt"));
}
