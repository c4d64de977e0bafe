// A checkpoint's tensors grouped by name into the engine's components and set against its
// count for the config. The tensor lists are written here the way transformers' modelling
// files name and shape the modules (modeling_llama.py: model.embed_tokens, model.layers.N.
// self_attn.{q,k,v,o}_proj, mlp.{gate,up,down}_proj, input_layernorm,
// post_attention_layernorm, model.norm, lm_head; modeling_mixtral.py: block_sparse_moe.gate
// and block_sparse_moe.experts.E.w1/w2/w3), and their totals are the Hub's safetensors totals.
#include <catch2/catch.hpp>

#include "dlcost/model_files/weight_components.hpp"
#include "dlcost/report/report_json.hpp"
#include "input_error_path.hpp"
#include "transformer_test_util.hpp"

using nlohmann::json;

namespace {

void add(json& tensors, const std::string& name, int64_t rows, int64_t cols = 1) {
  tensors.push_back({{"name", name}, {"parameters", rows * cols}});
}

/// A Llama-layout checkpoint (Mixtral's MoE when `experts` > 0) of `cfg`'s shapes.
json llamaTensors(const json& cfg, int experts = 0) {
  const int64_t d = cfg["hidden_size"], ff = cfg["intermediate_size"], v = cfg["vocab_size"];
  const int64_t heads = cfg["num_attention_heads"], kv = cfg["num_key_value_heads"];
  const int64_t hd = cfg.value("head_dim", d / heads);
  json t = json::array();
  add(t, "model.embed_tokens.weight", v, d);
  for (int64_t i = 0; i < cfg["num_hidden_layers"].get<int64_t>(); ++i) {
    const std::string l = "model.layers." + std::to_string(i) + ".";
    add(t, l + "self_attn.q_proj.weight", heads * hd, d);
    add(t, l + "self_attn.k_proj.weight", kv * hd, d);
    add(t, l + "self_attn.v_proj.weight", kv * hd, d);
    add(t, l + "self_attn.o_proj.weight", d, heads * hd);
    if (experts == 0) {
      for (const char* m : {"gate_proj", "up_proj", "down_proj"})
        add(t, l + "mlp." + m + ".weight", ff, d);
    } else {
      add(t, l + "block_sparse_moe.gate.weight", experts, d);
      for (int e = 0; e < experts; ++e) {
        for (const char* w : {"w1", "w2", "w3"}) {
          add(t, l + "block_sparse_moe.experts." + std::to_string(e) + "." + w + ".weight", ff, d);
        }
      }
    }
    add(t, l + "input_layernorm.weight", d);
    add(t, l + "post_attention_layernorm.weight", d);
  }
  add(t, "model.norm.weight", d);
  if (!cfg.value("tie_word_embeddings", false)) add(t, "lm_head.weight", v, d);
  return t;
}

dlcost::Transformer transformerOf(const json& cfg) {
  const dlcost::Config c = dlcost::parseConfig(json{{"model", {{"hf_config", cfg}}}});
  return std::get<dlcost::Transformer>(c.model.body);
}

int64_t fileTotal(const dlcost::ComponentCheck& c) {
  int64_t sum = c.unplaced_parameters;
  for (const auto& r : c.rows) sum += r.file;
  return sum;
}

}  // namespace

TEST_CASE("a checkpoint's tensors fall into the engine's components by name",
          "[safetensors][components]") {
  struct Case {
    const char* config;
    int experts;
    int64_t total;  ///< the Hub's safetensors total
  };
  const auto c = GENERATE(
      // meta-llama/Llama-3.2-3B-Instruct: 3,212,749,824 (test_hf_config_fixtures.cpp).
      Case{"llama-3.2-3b-instruct", 0, 3212749824},
      // mistralai/Mixtral-8x7B-v0.1: 46,702,792,704 (test_transformer_params.cpp).
      Case{"mixtral-8x7b", 8, 46702792704});
  CAPTURE(c.config);
  const json cfg = dlcost::testing::fixtureConfig(c.config);
  const dlcost::ComponentCheck check =
      dlcost::checkComponents(transformerOf(cfg), llamaTensors(cfg, c.experts));
  CHECK(fileTotal(check) == c.total);
  for (const auto& r : check.rows) {
    CAPTURE(r.component);
    CHECK(r.file == r.engine);
  }
  CHECK(check.unplaced_count == 0);
  CHECK(check.matches);
}

TEST_CASE("a checkpoint that differs from its config is listed by component",
          "[safetensors][components]") {
  const json cfg = dlcost::testing::fixtureConfig("llama-3.2-3b-instruct");
  json tensors = llamaTensors(cfg);
  // An untied LM head the config does not declare, and a tensor no rule places.
  add(tensors, "lm_head.weight", 128256, 3072);
  add(tensors, "vision_tower.patch.weight", 1024, 588);
  const dlcost::ComponentCheck check = dlcost::checkComponents(transformerOf(cfg), tensors);
  CHECK_FALSE(check.matches);
  const json j = dlcost::componentCheckJson(check);
  for (const json& r : j["rows"]) {
    CAPTURE(r.dump());
    CHECK(r["difference"] == (r["component"] == "lm_head" ? 128256 * 3072 : 0));
  }
  CHECK(j["unplaced"]["count"] == 1);
  CHECK(j["unplaced"]["parameters"] == 1024 * 588);
  CHECK(j["unplaced"]["names"] == json::array({"vision_tower.patch.weight"}));
}

TEST_CASE("tensor names of other families place as the engine counts them",
          "[safetensors][components]") {
  struct Case {
    const char* name;
    const char* component;
  };
  const auto c = GENERATE(
      // GPT-2 (modeling_gpt2.py): wte, wpe, h.N.ln_1, attn.c_attn, mlp.c_fc, ln_f.
      Case{"wte.weight", "embeddings"}, Case{"h.0.ln_1.weight", "norms"},
      Case{"h.0.attn.c_attn.weight", "attention"}, Case{"h.0.mlp.c_fc.bias", "mlp"},
      Case{"ln_f.bias", "norms"},
      // BERT (modeling_bert.py): the attention's output dense, the layer's output dense (its
      // MLP), the pooler.
      Case{"bert.encoder.layer.0.attention.output.dense.weight", "attention"},
      Case{"bert.encoder.layer.0.attention.output.LayerNorm.weight", "norms"},
      Case{"bert.encoder.layer.0.intermediate.dense.weight", "mlp"},
      Case{"bert.encoder.layer.0.output.dense.weight", "mlp"},
      Case{"bert.pooler.dense.weight", "other"},
      // T5 (modeling_t5.py): shared, SelfAttention.q, relative_attention_bias, DenseReluDense.
      Case{"shared.weight", "embeddings"},
      Case{"encoder.block.0.layer.0.SelfAttention.q.weight", "attention"},
      Case{"encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight", "other"},
      Case{"decoder.block.0.layer.2.DenseReluDense.wi.weight", "mlp"},
      // Qwen3 (modeling_qwen3.py): q_norm; Qwen3-MoE's mlp.experts.E.gate_proj, mlp.gate.
      Case{"model.layers.0.self_attn.q_norm.weight", "norms"},
      Case{"model.layers.0.mlp.experts.3.gate_proj.weight", "mlp"},
      Case{"model.layers.0.mlp.gate.weight", "mlp"});
  CAPTURE(c.name);
  CHECK(dlcost::tensorComponent(c.name) == c.component);
}

TEST_CASE("the component check applies to a transformer and a safetensors summary",
          "[safetensors][components]") {
  // The rule `estimate --weights` and the page's dropped checkpoint both call: a check where
  // the file lists Hugging Face tensors with sizes and the model is a transformer, null else.
  const json cfg = dlcost::testing::fixtureConfig("llama-3.2-3b-instruct");
  const dlcost::Model llama = dlcost::parseConfig(json{{"model", {{"hf_config", cfg}}}}).model;
  const dlcost::Model resnet = dlcost::parseConfig(json{{"model", {{"preset", "resnet50"}}}}).model;
  const json tensors = llamaTensors(cfg);
  struct Case {
    const char* what;
    json summary;
    bool transformer;  ///< checked against the Llama config, else against resnet50
    bool applies;
  };
  const auto c = GENERATE_COPY(
      Case{"a safetensors file", {{"format", "safetensors"}, {"tensors", tensors}}, true, true},
      Case{"a sharded checkpoint read with its shards",
           {{"format", "safetensors_index"}, {"tensors", tensors}},
           true,
           true},
      Case{"an index read alone (names, no sizes)",
           {{"format", "safetensors_index"}, {"parameters", nullptr}},
           true,
           false},
      Case{"a GGUF (llama.cpp's tensor names)",
           {{"format", "gguf"}, {"tensors", json::array()}},
           true,
           false},
      Case{"a layer-graph model", {{"format", "safetensors"}, {"tensors", tensors}}, false, false});
  CAPTURE(c.what);
  const json check = dlcost::componentCheck(c.summary, c.transformer ? llama : resnet);
  CHECK(check.is_null() == !c.applies);
  if (c.applies) {
    // The Hub's safetensors total for meta-llama/Llama-3.2-3B-Instruct, 3,212,749,824
    // ("3.21B params"; test_hf_config_fixtures.cpp), placed whole and equal to dlcost's count.
    int64_t file = 0;
    for (const json& r : check["rows"]) file += r["file"].get<int64_t>();
    CHECK(file == 3212749824);
    CHECK(check["matches"] == true);
    CHECK(check["unplaced"]["count"] == 0);
  }
}

TEST_CASE("the component check refuses a summary it cannot read, naming the field",
          "[safetensors][components]") {
  const dlcost::Model llama =
      dlcost::parseConfig(
          json{{"model", {{"hf_config", dlcost::testing::fixtureConfig("llama-3.2-3b-instruct")}}}})
          .model;
  struct Case {
    json tensors;
    const char* path;
  };
  const auto c = GENERATE_COPY(
      Case{json::object(), "/tensors"}, Case{json::array({"model.norm.weight"}), "/tensors/0"},
      Case{json::array({{{"parameters", 3072}}}), "/tensors/0/name"},
      Case{json::array({{{"name", "model.norm.weight"}, {"parameters", 3072}},
                        {{"name", "lm_head.weight"}, {"parameters", -1}}}),
           "/tensors/1/parameters"},
      Case{json::array({{{"name", "lm_head.weight"}, {"parameters", 1.5}}}),
           "/tensors/0/parameters"});
  CAPTURE(c.tensors.dump());
  const json summary = {{"format", "safetensors"}, {"tensors", c.tensors}};
  CHECK(dlcost::testing::errorPath([&] { dlcost::componentCheck(summary, llama); }) == c.path);
}

TEST_CASE("the bindings' component check reads the document's model only",
          "[safetensors][components]") {
  const json cfg = dlcost::testing::fixtureConfig("llama-3.2-3b-instruct");
  const json summary = {{"format", "safetensors"}, {"tensors", llamaTensors(cfg)}};
  const dlcost::Model llama = dlcost::parseConfig(json{{"model", {{"hf_config", cfg}}}}).model;
  const std::string same = dlcost::dumpJson(dlcost::componentCheck(summary, llama));
  struct Case {
    const char* what;
    std::string summary_text;
    json document;
    std::string expected;  ///< the JSON text, or an error's path after "error:"
  };
  const auto c = GENERATE_COPY(
      Case{"the CLI's check", summary.dump(), {{"model", {{"hf_config", cfg}}}}, same},
      Case{"a config.json as the document", summary.dump(), cfg, same},
      Case{"a bad workload beside the model",
           summary.dump(),
           {{"model", {{"hf_config", cfg}}}, {"workload", {{"batch", -1}}}},
           same},
      Case{"a preset that is a layer graph",
           summary.dump(),
           {{"model", {{"preset", "resnet50"}}}},
           "null"},
      Case{"an unknown preset",
           summary.dump(),
           {{"model", {{"preset", "nope"}}}},
           "error:/model/preset"},
      Case{"a summary that is not JSON", "{", {{"model", {{"hf_config", cfg}}}}, "error:"});
  CAPTURE(c.what);
  const json out = json::parse(dlcost::componentCheckText(c.summary_text, c.document.dump()));
  if (c.expected.rfind("error:", 0) == 0) {
    REQUIRE(out.contains("error"));
    CHECK(out["error"]["path"] == c.expected.substr(6));
  } else {
    CHECK(out.dump() == json::parse(c.expected).dump());
  }
}
