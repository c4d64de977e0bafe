// Published config.json files, as the Hub serves them (tests/fixtures/hf-configs/SOURCES.md
// says where each copy came from), counted by the engine and checked against the figures the
// model's publishers give. The presets built from the same files must hold the same keys.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "transformer_test_util.hpp"

using dlcost::testing::presetConfig;
using dlcost::testing::runConfig;
using nlohmann::json;

namespace {

json fixture(const std::string& name) {
  std::ifstream in(std::string(DLCOST_FIXTURES) + "/hf-configs/" + name + ".json");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

/// The preset without the keys dlcost adds (_source, _name_or_path).
json presetAsPublished(const std::string& name) {
  json p = presetConfig(name);
  p.erase("_source");
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
  const std::vector<Case> cases = {
      // The Hub's safetensors parameter total for meta-llama/Llama-3.1-8B: 8,030,261,248.
      {"llama-3.1-8b", 8030261248},
      // Model card: "Number of Parameters: 30.5B in total"; the derivation is in
      // test_transformer_families.cpp.
      {"qwen3-30b-a3b", 30532122624},
      // gpt-oss model card (OpenAI 2025), table 1: 20.91B total.
      {"gpt-oss-20b", 20914757184},
      // Model card: 671B main-model parameters; the 14B multi-token-prediction module
      // (num_nextn_predict_layers: 1) is not loaded by transformers and not counted.
      {"deepseek-v3", 671026419200},
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
      // HF GPTJForCausalLM's module tree; the card's 6,053,381,344 counts sharded copies, see
      // the next test.
      {"gpt-j-6b", 6050882784},
  };
  for (const Case& c : cases) {
    SECTION(c.file) {
      const dlcost::Report r = runConfig(fixture(c.file));
      CHECK(r.params.total == c.total);
      REQUIRE(r.transformer);
      CHECK(!r.transformer->approximate);
    }
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
  CHECK(runConfig(fixture("gpt-j-6b")).params.total + shard_copies == 6053381344);
}

TEST_CASE("presets hold the published config.json's keys and values",
          "[transformer][presets][fixtures]") {
  for (const char* name : {"llama-3.1-8b", "qwen3-30b-a3b", "gpt-oss-20b", "mistral-7b"}) {
    CAPTURE(name);
    CHECK(presetAsPublished(name) == fixture(name));
  }
  // The DeepSeek-V3 preset leaves out auto_map (remote-code class names) and the fp8
  // quantization_config, which dlcost does not read.
  json published = fixture("deepseek-v3");
  published.erase("auto_map");
  published.erase("quantization_config");
  CHECK(presetAsPublished("deepseek-v3") == published);
}
