// Exact parameter counts of transformers read from their Hugging Face config.json.
#include <catch2/catch.hpp>

#include "dlcost/base/error.hpp"
#include "dlcost/report/estimate.hpp"
#include "dlcost/report/report_json.hpp"
#include "dlcost/schema/config_json.hpp"
#include "dlcost/schema/presets.hpp"

using dlcost::estimate;
using dlcost::parseConfig;
using nlohmann::json;

namespace {

dlcost::Report runPreset(const std::string& name, const json& workload = json::object()) {
  const dlcost::Config c = parseConfig(json{{"model", {{"preset", name}}}, {"workload", workload}});
  return estimate(c.model, c.workload);
}

json presetConfig(const std::string& name) {
  const char* text = dlcost::presetJson(name);
  REQUIRE(text != nullptr);
  return json::parse(text);
}

dlcost::Report runConfig(const json& config, const json& workload = json::object()) {
  const dlcost::Config c =
      parseConfig(json{{"model", {{"hf_config", config}}}, {"workload", workload}});
  return estimate(c.model, c.workload);
}

}  // namespace

TEST_CASE("parameter counts from real config.json files are exact", "[transformer][params]") {
  struct Case {
    const char* preset;
    int64_t params;
  };
  // Sources, one per row (the Hugging Face figure is num_parameters() of the model class,
  // or the Hub API's safetensors.total, shown as "Model size" on each model page):
  // - gpt2 124,439,808 (the issue), gpt2-medium 354,823,168, gpt2-large 774,030,080,
  //   gpt2-xl 1,557,611,200: GPT2LMHeadModel counts, as keras-hub's gpt2_*_en preset
  //   metadata ("params") and many test suites list them.
  // - bert-base-uncased 109,482,240 (the issue) and bert-large-uncased 335,141,888: BertModel
  //   with pooler (keras-hub bert_large_en_uncased metadata "params": 335141888).
  // - t5-base 222,903,552: keras-hub t5_base_multi metadata "12-layer T5 model with 223
  //   million parameters", params 222903552.
  // - Llama-2 7b/13b/70b: the Hub's safetensors.total of meta-llama/Llama-2-*-hf is
  //   6,738,417,664 / 13,015,866,880 / 68,976,653,312, which also holds each layer's saved
  //   rotary inv_freq buffer (head_dim/2 = 64 values): minus 32/40/80 x 64 that is
  //   6,738,415,616 (the figure) / 13,015,864,320 / 68,976,648,192 parameters.
  // - Llama-3 8b/70b: safetensors.total of meta-llama/Llama-3.1-8B / -70B (same shapes as
  //   Llama 3): 8,030,261,248 / 70,553,706,496.
  // - Mistral-7B-v0.1 7,241,732,096 (the issue; safetensors index total_size / 2 bytes).
  // - Mixtral-8x7B 46,702,792,704: keras-hub mixtral_8_7b_en metadata and the Hub's
  //   safetensors.total of Mixtral-8x7B-Instruct-v0.1.
  // - Qwen2-7B 7,615,616,512: the GGUF general.parameter_count of Qwen2/Qwen2.5-7B (same
  //   shapes), Hub "7.62B params".
  // - gemma-7b 8,537,680,896: keras-hub gemma_7b_en metadata "params".
  // - phi-2 2,779,683,840: the Hub API's safetensors parameters {"F16": 2779683840}.
  // - Phi-3-mini-4k 3,821,079,552: keras-hub phi3_mini_4k_instruct_en metadata "params".
  // - falcon-7b 6,921,720,704: FalconForCausalLM ties its head; the Hub's "7.22B" (14.43 GB
  //   of bf16 safetensors) stores the 65024 x 4544 head a second time:
  //   6,921,720,704 + 295,469,056 = 7,217,189,760.
  // - Qwen3-8B 8,190,735,360 (per-head q/k RMSNorms): the Hub's safetensors.total of
  //   Qwen/Qwen3-8B; gemma-2-9b 9,241,705,984 (four norms per layer): the Hub's
  //   safetensors.total of google/gemma-2-9b and keras-hub gemma2_9b_en metadata.
  // - Llama-3.1-405B 405,853,388,800: the Hub's safetensors.total of meta-llama/Llama-3.1-405B
  //   ("406B params"); Qwen2.5-72B 72,706,203,648: the Hub's safetensors.total of
  //   Qwen/Qwen2.5-72B ("72.7B"); phi-4 14,659,507,200: the Hub's safetensors.total of
  //   microsoft/phi-4 ("14.7B"); gemma-2-27b 27,227,128,320: the Hub's safetensors.total of
  //   google/gemma-2-27b and keras-hub gemma2_27b_en metadata.
  // - falcon-180b 178,557,088,768: 80 layers of h 14,848 (232 heads and 8 KV heads of 64,
  //   MLP 4h, two LayerNorms with biases, no linear biases) + 65,024 x 14,848 tokens + ln_f.
  //   As falcon-7b, FalconForCausalLM ties its head and the checkpoint stores it again: the
  //   Hub's safetensors.total of tiiuae/falcon-180B is 179,522,565,120 =
  //   178,557,088,768 + 965,476,352 (checked below).
  // - pythia-70m 70,426,624: Biderman et al. 2023 (Pythia) Table 1 gives 18,915,328
  //   non-embedding parameters; plus the untied 50304 x 512 embedding and head.
  const Case c = GENERATE(
      Case{"gpt2", 124439808}, Case{"gpt2-medium", 354823168}, Case{"gpt2-large", 774030080},
      Case{"gpt2-xl", 1557611200}, Case{"bert-base-uncased", 109482240},
      Case{"bert-large-uncased", 335141888}, Case{"t5-base", 222903552},
      Case{"llama-2-7b", 6738415616}, Case{"llama-2-13b", 13015864320},
      Case{"llama-2-70b", 68976648192}, Case{"llama-3-8b", 8030261248},
      Case{"llama-3-70b", 70553706496}, Case{"mistral-7b", 7241732096},
      Case{"mixtral-8x7b", 46702792704}, Case{"qwen2-7b", 7615616512}, Case{"gemma-7b", 8537680896},
      Case{"phi-2", 2779683840}, Case{"phi-3-mini-4k", 3821079552}, Case{"falcon-7b", 6921720704},
      Case{"pythia-70m", 18915328 + 2 * 50304 * 512}, Case{"llama-3.1-405b", 405853388800},
      Case{"qwen2.5-72b", 72706203648}, Case{"phi-4", 14659507200},
      Case{"gemma-2-27b", 27227128320}, Case{"falcon-180b", 178557088768});
  CAPTURE(c.preset);
  const dlcost::Report r = runPreset(c.preset);
  CHECK(r.model_kind == "transformer");
  CHECK(r.params.total == c.params);
  REQUIRE(r.transformer);
  const dlcost::TransformerParams& p = r.transformer->params;
  CHECK(p.embeddings + p.attention + p.mlp + p.norms + p.lm_head + p.other == c.params);
  // The per-component rows add up to the total as well.
  int64_t rows = 0;
  for (const auto& l : r.layers) rows += l.params;
  CHECK(rows == c.params);
}

TEST_CASE("falcon-180b's count plus its stored-again head is the checkpoint's total",
          "[transformer][params]") {
  // The Hub's safetensors.total of tiiuae/falcon-180B: 179,522,565,120.
  const dlcost::Report r = runPreset("falcon-180b");
  REQUIRE(r.transformer);
  CHECK(r.params.total + int64_t{65024} * 14848 == 179522565120);
}

TEST_CASE("Mixtral's active parameters per token count two of eight experts",
          "[transformer][params][moe]") {
  // Mixtral of Experts (Jiang et al. 2024), section 2: "each token has access to 47B
  // parameters, but only uses 13B active parameters". Exactly: the total minus six of
  // the eight SwiGLU experts (3 x 4096 x 14336 each) in each of the 32 layers.
  const dlcost::Report r = runPreset("mixtral-8x7b");
  const int64_t expert = int64_t{3} * 4096 * 14336;
  CHECK(r.transformer->params.active_per_token == 46702792704 - 6 * expert * 32);
  CHECK(r.transformer->params.active_per_token == 12879925248);
}

TEST_CASE("changing one config field changes the count by the architectural amount",
          "[transformer][params]") {
  // Llama-2-7b: one decoder layer is 4 x 4096^2 (attention) + 3 x 4096 x 11008 (SwiGLU)
  // + 2 x 4096 (RMSNorms); one vocabulary row is 4096 in the embedding and 4096 in the
  // untied LM head; one key/value head less removes 2 x 4096 x 128 per layer (k and v).
  const json base = presetConfig("llama-2-7b");
  const int64_t before = runConfig(base).params.total;
  struct Case {
    const char* field;
    int64_t value;
    int64_t delta;
  };
  const int64_t layer = 4 * 4096LL * 4096 + 3 * 4096LL * 11008 + 2 * 4096;
  const auto c =
      GENERATE_COPY(Case{"num_hidden_layers", 33, layer}, Case{"num_hidden_layers", 30, -2 * layer},
                    Case{"vocab_size", 32001, 2 * 4096},
                    Case{"num_key_value_heads", 16, -32 * 2 * 4096LL * 16 * 128},
                    Case{"intermediate_size", 11009, 32 * 3 * 4096});
  CAPTURE(c.field, c.value);
  json changed = base;
  changed[c.field] = c.value;
  CHECK(runConfig(changed).params.total - before == c.delta);
}

TEST_CASE("experts and tied embeddings change counts by the architectural amount",
          "[transformer][params][moe]") {
  const json mixtral = presetConfig("mixtral-8x7b");
  const int64_t before = runConfig(mixtral).params.total;
  // One more expert per layer: its three 4096 x 14336 matrices plus one router row (4096).
  json more = mixtral;
  more["num_local_experts"] = 9;
  CHECK(runConfig(more).params.total - before == 32 * (3 * 4096LL * 14336 + 4096));
  // Routing to more experts per token changes the active count, not the total.
  json top3 = mixtral;
  top3["num_experts_per_tok"] = 3;
  const dlcost::Report r3 = runConfig(top3);
  CHECK(r3.params.total == before);
  CHECK(r3.transformer->params.active_per_token - 12879925248 == 32 * 3 * 4096LL * 14336);
  // Tying Llama-2-7b's LM head to its embeddings removes the 32000 x 4096 head.
  json tied = presetConfig("llama-2-7b");
  tied["tie_word_embeddings"] = true;
  CHECK(runConfig(tied).params.total == 6738415616 - 32000LL * 4096);
}

TEST_CASE("the generic transformer form counts like the equivalent config.json",
          "[transformer][params][generic]") {
  // Llama-2-7b's hyper-parameters in dlcost's own form give the config's exact count.
  const json doc = {{"model",
                     {{"transformer",
                       {{"layers", 32},
                        {"hidden", 4096},
                        {"heads", 32},
                        {"ffn", 11008},
                        {"vocab", 32000},
                        {"gated_mlp", true},
                        {"norm", "rmsnorm"},
                        {"positions", "rotary"},
                        {"max_positions", 4096}}}}}};
  const dlcost::Config c = parseConfig(doc);
  CHECK(estimate(c.model, c.workload).params.total == 6738415616);
  // GPT-2 small in the generic form: LayerNorm with biases, learned positions, tied head,
  // a plain 4h MLP: the config.json's 124,439,808.
  const json gpt2 = {{"model",
                      {{"transformer",
                        {{"layers", 12},
                         {"hidden", 768},
                         {"heads", 12},
                         {"ffn", 3072},
                         {"vocab", 50257},
                         {"gated_mlp", false},
                         {"norm", "layernorm"},
                         {"bias", true},
                         {"tied_embeddings", true},
                         {"positions", "learned"},
                         {"max_positions", 1024}}}}}};
  const dlcost::Config g = parseConfig(gpt2);
  CHECK(estimate(g.model, g.workload).params.total == 124439808);
}

TEST_CASE("an unknown model_type is read as a generic decoder only when asked, marked approximate",
          "[transformer][params][generic]") {
  json cfg = presetConfig("llama-2-7b");
  cfg["model_type"] = "my_new_llm";
  cfg["architectures"] = json::array({"MyNewLlmForCausalLM"});
  const dlcost::Config c = parseConfig(
      json{{"model", {{"hf_config", cfg}, {"approximate", true}}}, {"workload", json::object()}});
  const dlcost::Report r = estimate(c.model, c.workload);
  // The generic decoder's assumptions are Llama's, so the count is Llama-2-7b's.
  CHECK(r.params.total == 6738415616);
  REQUIRE(r.transformer);
  CHECK(r.transformer->approximate);
  CHECK(dlcost::reportToJson(r)["transformer"]["approximate"] == true);
  REQUIRE(!r.warnings.empty());
  CHECK_THAT(r.warnings[0],
             Catch::Matchers::Contains("my_new_llm") && Catch::Matchers::Contains("APPROXIMATE") &&
                 Catch::Matchers::Contains("RMSNorm") && Catch::Matchers::Contains("SwiGLU"));
  // A model_type counted exactly is never marked approximate.
  CHECK(!runPreset("llama-2-7b").transformer->approximate);
  CHECK(!dlcost::reportToJson(runPreset("llama-2-7b"))["transformer"].contains("approximate"));
}

TEST_CASE("a config.json as the whole document is read as the model", "[transformer][params]") {
  const dlcost::Config c = parseConfig(presetConfig("gpt2"));
  CHECK(estimate(c.model, c.workload).params.total == 124439808);
  CHECK(c.model.name == "openai-community/gpt2");  // its _name_or_path
}

TEST_CASE("a multimodal config's language model is read from its text_config",
          "[transformer][params]") {
  // LLaVA-style wrappers nest the language model: read text only (as asked), its count is
  // the nested config's. A vision_config's absent keys take CLIPVisionConfig's defaults.
  const json cfg = {{"model_type", "llava"},
                    {"architectures", json::array({"LlavaForConditionalGeneration"})},
                    {"text_config", presetConfig("llama-2-7b")},
                    {"vision_config", {{"hidden_size", 1024}, {"num_attention_heads", 16}}}};
  auto runTextOnly = [](const json& config) {
    const dlcost::Config c =
        parseConfig(json{{"model", {{"hf_config", config}, {"text_only", true}}}});
    return estimate(c.model, c.workload);
  };
  const dlcost::Report r = runTextOnly(cfg);
  CHECK(r.params.total == 6738415616);
  REQUIRE(!r.warnings.empty());
  CHECK_THAT(r.warnings.back(), Catch::Matchers::Contains("text only, as asked"));
  // Read whole, CLIPVisionConfig's defaults fill the rest: 12 layers of 1,024 x 3,072,
  // 224 / 32 = 7 x 7 patches and the class token.
  const int64_t tower = 3 * 32 * 32 * 1024 + 1024 + 50 * 1024 + 2 * 2048 +
                        12 * (4 * (1024 * 1024 + 1024) + 2 * 1024 * 3072 + 3072 + 1024 + 2 * 2048);
  const int64_t projector = 1024 * 4096 + 4096 + 4096 * 4096 + 4096;
  CHECK(runConfig(cfg).params.total == 6738415616 + tower + projector);
  // A text_config omits the keys equal to its class's defaults (to_diff_dict): LlamaConfig's
  // hidden_size default is 4096, Llama-2-7b's own, so the count stays.
  json lean = cfg;
  lean["text_config"].erase("hidden_size");
  CHECK(runTextOnly(lean).params.total == 6738415616);
  // Errors inside point into text_config.
  json bad = cfg;
  bad["text_config"]["hidden_size"] = "4096";
  try {
    (void)runConfig(bad);
    FAIL("a string hidden_size accepted");
  } catch (const dlcost::InputError& e) {
    CHECK(e.error().path == "/model/hf_config/text_config/hidden_size");
  }
}
