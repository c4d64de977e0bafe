// Published config.json files, as the Hub serves them (tests/fixtures/hf-configs/SOURCES.md
// says where each copy came from), counted by the engine and checked against the figures the
// model's publishers give. The presets built from the same files must hold the same keys.
#include <catch2/catch.hpp>

#include <cmath>

#include "transformer_test_util.hpp"

using dlcost::testing::fixtureConfig;
using dlcost::testing::presetConfig;
using dlcost::testing::runConfig;
using nlohmann::json;

namespace {

/// The preset without the keys dlcost adds (_source, _source_zh, _name_or_path).
json presetAsPublished(const std::string& name) {
  json p = presetConfig(name);
  p.erase("_source");
  p.erase("_source_zh");
  p.erase("_name_or_path");
  return p;
}

}  // namespace

TEST_CASE("published config.json files count to their publishers' totals",
          "[transformer][params][families][fixtures]") {
  struct Case {
    const char* file;
    int64_t total;  // the engine's count; the comment gives the published figure
  };
  // Each total is derived from the family's module tree (transformers' modeling_<type>.py);
  // the comment gives the primary figure it is checked against. Keys a file leaves out take
  // its config class's default, which the counts below depend on (noted where they do).
  const std::vector<Case> cases = {
      // The Hub's safetensors parameter total for meta-llama/Llama-3.1-8B: 8,030,261,248.
      {"llama-3.1-8b", 8030261248},
      // Llama-3.2-3B (tied head, head_dim 128): 28 x 100,669,440 + 128,256 x 3,072 + 3,072
      // = 3,212,749,824, the Hub's safetensors total for meta-llama/Llama-3.2-3B-Instruct
      // ("3.21B params").
      {"llama-3.2-3b-instruct", 3212749824},
      // Model card: "Number of Parameters: 30.5B in total"; the derivation is in
      // test_transformer_families.cpp.
      {"qwen3-30b-a3b", 30532122624},
      // gpt-oss model card (OpenAI 2025), table 1: 20.91B total.
      {"gpt-oss-20b", 20914757184},
      // Model card: 671B main-model parameters; the 14B multi-token-prediction module
      // (num_nextn_predict_layers: 1) is not loaded by transformers and not counted.
      {"deepseek-v3", 671026419200},
      // DeepSeek-V2-Lite(-Chat), q_lora_rank null (q_proj): layer 0 dense 81,007,104
      // + 26 x 584,847,872 (MLA 13,763,072 with kv_a_layernorm; 64 routed + 2 shared experts
      // of 8,650,752; router 131,072; norms 4,096) + 2 x 209,715,200 + 2,048
      // = 15,706,484,224. Model card: "15.7B total parameters, 2.4B activated".
      {"deepseek-v2-lite-chat", 15706484224},
      // deepseek-moe-16b: layer 0 dense 84,021,248 + 27 x 587,862,016 + 2 x 209,715,200
      // + 2,048 = 16,375,728,128. Model card: "DeepSeekMoE 16B ... 16.4B parameters".
      {"deepseek-moe-16b-base", 16375728128},
      // OLMoE-1B-7B: 16 x (16,777,216 attn + 4,096 full-width q/k norms + 64 x 6,291,456
      // experts + 131,072 router + 4,096 norms) + 2 x 103,022,592 + 2,048 = 6,919,161,856.
      // Muennighoff et al. 2024 (OLMoE): "6.9B total, 1.3B active"; the Hub: 6.92B.
      {"olmoe-1b-7b-0125-instruct", 6919161856},
      // Mixtral-8x7B: keras-hub mixtral_8_7b_en metadata and the Hub's safetensors total
      // of Mixtral-8x7B-Instruct-v0.1: 46,702,792,704.
      {"mixtral-8x7b", 46702792704},
      // Mistral-7B-v0.1: safetensors index total_size / 2 bytes = 7,241,732,096.
      {"mistral-7b", 7241732096},
      // Qwen2.5-0.5B (q/k/v biases, tied head): 24 x 14,912,384 + 151,936 x 896 + 896
      // = 494,032,768; model card: "Number of Parameters: 0.49B; (Non-Embedding): 0.36B",
      // 357,898,112 without the embeddings.
      {"qwen2.5-0.5b", 494032768},
      // Gemma-2-2B: 26 x 77,865,984 = 2,024,515,584 non-embedding (four RMSNorms a layer)
      // + 256,000 x 2,304 = 589,824,000 tied embeddings + 2,304; Gemma 2 report (Gemma Team
      // 2024), table 1: 2,024M non-embedding and 590M embedding parameters.
      {"gemma-2-2b-it", 2614341888},
      // Gemma-2-9B: the Hub's safetensors total for google/gemma-2-9b, 9,241,705,984; Gemma 2
      // report table 1: 8,324M non-embedding + 917M embedding (256,000 x 3,584).
      {"gemma-2-9b", 9241705984},
      // Gemma-3-1B (gemma3_text at the top level, one kv head): 26 x 26,842,112 (attention
      // 2,949,120, per-head q/k norms 512, MLP 23,887,872, four norms 4,608) + the final
      // norm 1,152 = 697,896,064 non-embedding, plus 262,144 x 1,152 = 301,989,888 tied
      // embeddings: Gemma 3 report table 1, 1B: 302M embedding, 698M non-embedding.
      {"gemma-3-1b", 999885952},
      // Falcon-7B (multi-query, parallel block, tied head): 32 x 207,070,080 + 65,024 x 4,544
      // + 9,088 = 6,921,720,704; the Hub's "7.22B" stores the tied head a second time
      // (+ 295,469,056 = 7,217,189,760).
      {"falcon-7b", 6921720704},
      // GPT-J-6B: HF GPTJForCausalLM's module tree; the card's 6,053,381,344 counts sharded
      // copies, see the next test.
      {"gpt-j-6b", 6050882784},
      // bigscience/bloom-560m (n_embed, no tie key: BloomConfig ties): 24 x 12,596,224
      // + 250,880 x 1,024 + embedding and final LayerNorms 2 x 2,048 = 559,214,592, the
      // model card's "559,214,592 parameters".
      {"bloom-560m", 559214592},
      // mosaicml/mpt-7b-instruct (mpt-7b's shapes; ALiBi, so no wpe despite
      // learned_pos_emb; no_bias: weight-only LayerNorms; logits from wte): 32 x 201,334,784
      // (Wqkv 50,331,648, out_proj 16,777,216, up_proj and down_proj 2 x 67,108,864, norm_1
      // and norm_2 8,192) + 50,432 x 4,096 + norm_f 4,096 = 6,649,286,656. An MPT-7B
      // repository's pytorch_model.bin.index.json: total_size 13,298,573,312 bytes of bf16
      // = 2 x 6,649,286,656 (quoted in a public model-card analysis, code-search id
      // 54028930474); the model card: 6.7B.
      {"mpt-7b-instruct", 6649286656},
      // bigcode/gpt_bigcode-santacoder (multi_query, no tie key: GPTBigCodeConfig ties):
      // 24 x 42,490,112 (c_attn 2,048 x 2,304 + bias, c_proj, c_fc/c_proj with biases, two
      // LayerNorms) + 49,280 x 2,048 + 2,048 x 2,048 positions + 4,096 = 1,124,886,528;
      // the Hub shows 1.12B; Allal et al. 2023 (SantaCoder): 1.1B.
      {"gpt-bigcode-santacoder", 1124886528},
      // bigcode/starcoder2-3b (no tie key: Starcoder2Config ties): 30 x 95,979,008 (biased
      // GQA attention 20,453,888, biased c_fc/c_proj 75,512,832, LayerNorms 12,288)
      // + 49,152 x 3,072 + 6,144 = 3,030,371,328; the Hub shows 3.03B.
      {"starcoder2-3b", 3030371328},
      // facebook/opt-125m: 12 x 7,087,872 + 50,272 x 768 + (2,048 + 2) x 768 positions
      // + 1,536 = 125,239,296 (Zhang et al. 2022, OPT, table 1: 125M).
      {"opt-125m", 125239296},
      // facebook/opt-350m (word_embed_proj_dim 512, post-LN, no final LayerNorm): 24 x
      // 12,596,224 + 50,272 x 512 tied + 2,050 x 1,024 positions + project_in and project_out
      // 2 x 512 x 1,024 = 331,196,416: the module tree of modeling_opt.py built in torch
      // 1.13.1 from this config (sum of numel: 331,196,416); Zhang et al. 2022, OPT, table 1:
      // 350M; the Hub's fp16 checkpoint 662,392,832 bytes = 2 x 331,196,416 (as a public
      // test of OPT assets, code-search id 58700902353, records it).
      {"opt-350m", 331196416},
      // c4ai-command-r-08-2024 (GQA, 8 kv heads; no tie key: CohereConfig ties): 40 x
      // (150,994,944 attention + 603,979,776 MLP + 8,192 one LayerNorm) + 256,000 x 8,192
      // + 8,192 = 32,296,476,672; model card: "32 billion parameters".
      {"command-r-08-2024", 32296476672},
      // OLMo 2 1124 7B: 32 x (67,108,864 + 8,192 full-width q/k norms + 135,266,304 + 8,192)
      // + 2 x 100,352 x 4,096 + 4,096 = 7,298,617,344 (OLMo 2 paper, Team OLMo 2024: 7B,
      // the Hub: 7.3B).
      {"olmo-2-1124-7b", 7298617344},
      // distilbert-base-uncased as DistilBertModel (dim, n_layers, n_heads, hidden_dim):
      // 6 x 7,087,872 + 30,522 x 768 + 512 x 768 + 1,536 = 66,362,880 (Sanh et al. 2019:
      // 66M).
      {"distilbert-base-uncased", 66362880},
  };
  for (const Case& c : cases) {
    SECTION(c.file) {
      const dlcost::Report r = runConfig(fixtureConfig(c.file));
      CHECK(r.params.total == c.total);
      REQUIRE(r.transformer);
      CHECK(!r.transformer->approximate);
    }
  }
}

TEST_CASE("published totals split as their publishers split them",
          "[transformer][params][families][fixtures]") {
  auto params = [](const char* file) { return runConfig(fixtureConfig(file)).transformer->params; };
  SECTION("Gemma 3 1B: 302M embedding, 698M non-embedding (Gemma 3 report, table 1)") {
    const dlcost::TransformerParams p = params("gemma-3-1b");
    CHECK(p.embeddings == int64_t{262144} * 1152);
    CHECK(std::llround((p.total - p.embeddings) / 1e6) == 698);
  }
  SECTION("Gemma 2 9B: 8,324M non-embedding, 917M embedding (Gemma 2 report, table 1)") {
    const dlcost::TransformerParams p = params("gemma-2-9b");
    CHECK(p.embeddings == int64_t{256000} * 3584);  // 917,504,000
    CHECK(std::llround((p.total - p.embeddings) / 1e6) == 8324);
  }
  SECTION("OLMoE: 1.3B active (Muennighoff et al. 2024)") {
    CHECK(std::llround(params("olmoe-1b-7b-0125-instruct").active_per_token / 1e8) == 13);
  }
}

TEST_CASE("the KV cache of published configs follows each attention kind's formula",
          "[transformer][memory][kv][families][fixtures]") {
  auto kvBytes = [](const char* file, int64_t tokens) {
    const json w = {{"mode", "infer"}, {"dtype", "bf16"}, {"batch", 1}, {"prompt_tokens", tokens}};
    return runConfig(fixtureConfig(file), w).memory.bytesOf(dlcost::MemoryKey::kKvCache);
  };
  SECTION("full multi-head (OLMo 2 7B): 2 x layers x heads x head_dim x tokens x 2 bytes") {
    CHECK(kvBytes("olmo-2-1124-7b", 4096) == int64_t{2} * 32 * 32 * 128 * 4096 * 2);
  }
  SECTION("multi-head with ALiBi (MPT-7B): 2 x 32 layers x 32 heads x 128 x 2 bytes a token") {
    CHECK(kvBytes("mpt-7b-instruct", 1) == int64_t{2} * 32 * 32 * 128 * 2);  // 524,288 bytes
    CHECK(kvBytes("mpt-7b-instruct", 2048) == int64_t{2} * 32 * 32 * 128 * 2048 * 2);
  }
  SECTION("multi-query with learned positions (SantaCoder): one kv head of 128") {
    CHECK(kvBytes("gpt-bigcode-santacoder", 2048) == int64_t{2} * 24 * 1 * 128 * 2048 * 2);
  }
  SECTION("sliding window on every layer (StarCoder2-3B): capped at 4,096 tokens") {
    CHECK(kvBytes("starcoder2-3b", 16384) == int64_t{2} * 30 * 2 * 128 * 4096 * 2);
  }
  SECTION("local/global with one kv head (Gemma 3 1B): 22 local layers at 512, 4 global") {
    // sliding_window_pattern 6: layers 5, 11, 17, 23 are global.
    CHECK(kvBytes("gemma-3-1b", 8192) == int64_t{2} * 1 * 256 * 2 * (4 * 8192 + 22 * 512));
  }
  SECTION("MLA latent (DeepSeek-V2-Lite): kv_lora_rank + qk_rope_head_dim per layer") {
    CHECK(kvBytes("deepseek-v2-lite-chat", 1000) == int64_t{27} * (512 + 64) * 1000 * 2);
  }
}

TEST_CASE("GPT-J's card total counts the JAX checkpoint's per-shard copies",
          "[transformer][params][families][fixtures]") {
  // The gpt-j-6b card's n_parameters, 6,053,381,344, is mesh-transformer-jax's
  // "Total parameters" (transformer_shard.py: hk.data_structures.tree_size of the params
  // with their leading shard axis, cores_per_replica 8 in configs/6B_roto_256.json). Three
  // kinds of tensor exist once per shard there and once in HF's GPTJForCausalLM
  // (to_hf_weights.py's reshard: layer norms keep shard 0, the fc_out and embedding biases
  // are summed over shards, and the embedding bias is then folded into wte.weight):
  //   each layer's ReplicatedLayerNorm (scale + offset, 2 x 4,096) and fc_out bias (4,096),
  //   seven extra copies: 28 x 7 x 12,288 = 2,408,448;
  //   the final layer norm, seven extra copies: 7 x 8,192 = 57,344;
  //   the embedding's bias (EmbeddingShard's hk.Linear), eight copies: 8 x 4,096 = 32,768.
  const int64_t shard_copies = 28 * 7 * 12288 + 7 * 8192 + 8 * 4096;
  CHECK(shard_copies == 2498560);
  CHECK(runConfig(fixtureConfig("gpt-j-6b")).params.total + shard_copies == 6053381344);
}

TEST_CASE("presets hold the published config.json's keys and values",
          "[transformer][presets][fixtures]") {
  for (const char* name : {"llama-3.1-8b", "llama-3.2-3b-instruct", "qwen3-30b-a3b", "gpt-oss-20b",
                           "mistral-7b", "mixtral-8x7b", "gemma-2-9b", "gemma-3-1b"}) {
    CAPTURE(name);
    CHECK(presetAsPublished(name) == fixtureConfig(name));
  }
  // The DeepSeek-V3 preset leaves out auto_map (remote-code class names) and the fp8
  // quantization_config, which dlcost does not read; the Falcon-7B preset leaves out
  // auto_map (its in-library FalconForCausalLM needs no remote code).
  json published = fixtureConfig("deepseek-v3");
  published.erase("auto_map");
  published.erase("quantization_config");
  CHECK(presetAsPublished("deepseek-v3") == published);
  json falcon = fixtureConfig("falcon-7b");
  falcon.erase("auto_map");
  CHECK(presetAsPublished("falcon-7b") == falcon);
}

TEST_CASE("DeepSeek-V2-Lite's +0.27 % is a config without q_lora_rank",
          "[transformer][params][families][fixtures]") {
  // Issue #29 measured 15,748,993,024 against the checkpoint's 15,706,484,224. The published
  // file says "q_lora_rank": null (q_proj straight from h) and counts exactly (above). A copy
  // without the key takes DeepseekV2Config's default 1,536: q_a_proj 2,048 x 1,536, q_b_proj
  // 1,536 x 3,072 and q_a_layernorm 1,536 in place of q_proj 2,048 x 3,072, in each of the 27
  // layers: 27 x 1,574,400 = 42,508,800 more, the whole difference. transformers builds the
  // same model from such a copy, so the engine follows it; the fault is the copy's.
  json cfg = fixtureConfig("deepseek-v2-lite-chat");
  REQUIRE(cfg.contains("q_lora_rank"));
  CHECK(cfg["q_lora_rank"].is_null());
  cfg.erase("q_lora_rank");
  const int64_t per_layer =
      int64_t{2048} * 1536 + int64_t{1536} * 3072 + 1536 - int64_t{2048} * 3072;
  CHECK(27 * per_layer == 42508800);
  CHECK(runConfig(cfg).params.total == int64_t{15706484224} + 27 * per_layer);
  CHECK(runConfig(cfg).params.total == 15748993024);
}
