// Bad transformer input: a clear error naming the JSON path, never a partial report.
#include <catch2/catch.hpp>

#include "dlcost/api.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/report/estimate.hpp"
#include "dlcost/schema/config_json.hpp"
#include "transformer_test_util.hpp"

using dlcost::testing::presetConfig;
using nlohmann::json;

namespace {

/// Runs the whole pipeline on `doc` and returns the error it must raise.
dlcost::Error errorOf(const json& doc) {
  try {
    const dlcost::Config c = dlcost::parseConfig(doc);
    (void)dlcost::estimate(c.model, c.workload);
  } catch (const dlcost::InputError& e) {
    return e.error();
  }
  FAIL("no error for " << doc.dump());
  return {};
}

}  // namespace

TEST_CASE("bad config.json fields are errors at their JSON path", "[transformer][errors]") {
  struct Case {
    const char* what;
    const char* field;  ///< field of llama-2-7b's config to change ("-" to erase)
    json value;
    dlcost::ErrorCode code;
    const char* path;
  };
  const Case c = GENERATE_COPY(
      Case{"missing hidden size", "hidden_size", json("-"), dlcost::ErrorCode::kMissingField,
           "/hidden_size"},
      Case{"missing layers", "num_hidden_layers", json("-"), dlcost::ErrorCode::kMissingField,
           "/num_hidden_layers"},
      Case{"heads not dividing hidden", "num_attention_heads", json(30), dlcost::ErrorCode::kValue,
           "/num_attention_heads"},
      Case{"kv heads not dividing heads", "num_key_value_heads", json(5), dlcost::ErrorCode::kValue,
           "/num_key_value_heads"},
      Case{"zero layers", "num_hidden_layers", json(0), dlcost::ErrorCode::kValue,
           "/num_hidden_layers"},
      Case{"negative vocab", "vocab_size", json(-1), dlcost::ErrorCode::kValue, "/vocab_size"},
      Case{"hidden size as text", "hidden_size", json("4096"), dlcost::ErrorCode::kType,
           "/hidden_size"},
      Case{"fractional ffn", "intermediate_size", json(11008.5), dlcost::ErrorCode::kType,
           "/intermediate_size"},
      Case{"absurd hidden size", "hidden_size", json(int64_t{1} << 50),
           dlcost::ErrorCode::kTooLarge, "/hidden_size"},
      Case{"tie flag as number", "tie_word_embeddings", json(1), dlcost::ErrorCode::kType,
           "/tie_word_embeddings"});
  CAPTURE(c.what);
  json cfg = presetConfig("llama-2-7b");
  if (c.value == json("-")) {
    cfg.erase(c.field);
  } else {
    cfg[c.field] = c.value;
  }
  // As the whole document (paths into the file) and wrapped (paths under hf_config).
  const dlcost::Error whole = errorOf(cfg);
  CHECK(whole.code == c.code);
  CHECK(whole.path == c.path);
  const dlcost::Error wrapped = errorOf(json{{"model", {{"hf_config", cfg}}}});
  CHECK(wrapped.path == std::string("/model/hf_config") + c.path);
  CHECK(!whole.message.empty());
}

TEST_CASE("sizes whose totals overflow are too_large errors, not wrong numbers",
          "[transformer][errors]") {
  // 2^40 is the largest dimension read; 2^40 x 2^40 overflows 64 bits.
  json cfg = presetConfig("llama-2-7b");
  cfg["hidden_size"] = int64_t{1} << 40;
  cfg["num_attention_heads"] = 1;
  cfg["num_key_value_heads"] = 1;
  const dlcost::Error e = errorOf(cfg);
  CHECK(e.code == dlcost::ErrorCode::kTooLarge);
  // A sequence whose attention alone overflows (2^30 tokens attending to 2^30 keys) is named
  // at its length; a batch that overflows the totals of a sequence that fits, at the batch.
  const dlcost::Error w = errorOf(
      json{{"model", {{"preset", "llama-2-70b"}}},
           {"workload",
            {{"batch", int64_t{1} << 32}, {"seq_len", int64_t{1} << 30}, {"attention", "eager"}}}});
  CHECK(w.code == dlcost::ErrorCode::kTooLarge);
  CHECK(w.path == "/workload/seq_len");
  const dlcost::Error b = errorOf(
      json{{"model", {{"preset", "llama-2-70b"}}},
           {"workload",
            {{"batch", int64_t{1} << 32}, {"seq_len", int64_t{1} << 20}, {"dtype", "fp32"}}}});
  CHECK(b.code == dlcost::ErrorCode::kTooLarge);
  CHECK(b.path == "/workload/batch");
}

TEST_CASE("bad transformer workloads are errors at their path", "[transformer][errors]") {
  struct Case {
    const char* what;
    json workload;
    const char* path;
  };
  const Case c = GENERATE_COPY(
      Case{"negative sequence", json{{"seq_len", -5}}, "/workload/seq_len"},
      Case{"zero prompt", json{{"mode", "infer"}, {"prompt_tokens", 0}}, "/workload/prompt_tokens"},
      Case{"negative generation", json{{"mode", "infer"}, {"generated_tokens", -1}},
           "/workload/generated_tokens"},
      Case{"beyond learned positions", json{{"seq_len", 1025}}, "/workload/seq_len"},
      Case{"generation beyond learned positions",
           json{{"mode", "infer"}, {"prompt_tokens", 1000}, {"generated_tokens", 25}},
           "/workload/generated_tokens"},
      Case{"unknown weight dtype", json{{"weight_dtype", "int3"}}, "/workload/weight_dtype"},
      Case{"int4 weights in full training", json{{"weight_dtype", "int4"}},
           "/workload/weight_dtype"},
      Case{"unknown attention", json{{"attention", "sparse"}}, "/workload/attention"},
      Case{"unknown recompute", json{{"recompute", "some"}}, "/workload/recompute"},
      Case{"unknown finetune", json{{"finetune", "adapter"}}, "/workload/finetune"},
      Case{"finetune in inference", json{{"mode", "infer"}, {"finetune", "lora"}},
           "/workload/mode"},
      Case{"unknown LoRA module", json{{"finetune", "lora"}, {"lora_targets", "q_proj,wq"}},
           "/workload/lora_targets"},
      Case{"LoRA rank zero", json{{"finetune", "lora"}, {"lora_rank", 0}}, "/workload/lora_rank"},
      Case{"zero group size", json{{"quant_group_size", 0}}, "/workload/quant_group_size"},
      Case{"zero grad accumulation", json{{"grad_accum", 0}}, "/workload/grad_accum"},
      Case{"unknown workload field", json{{"seqlen", 10}}, "/workload/seqlen"});
  CAPTURE(c.what);
  const dlcost::Error e = errorOf(json{{"model", {{"preset", "gpt2"}}}, {"workload", c.workload}});
  CHECK(e.path == c.path);
}

TEST_CASE("the generic transformer form is strict", "[transformer][errors][generic]") {
  const json base = {{"layers", 2}, {"hidden", 64}, {"heads", 4}, {"ffn", 256}, {"vocab", 100}};
  struct Case {
    const char* what;
    const char* field;
    json value;
    const char* path;
  };
  const Case c =
      GENERATE_COPY(Case{"unknown field", "hiden", json(64), "/model/transformer/hiden"},
                    Case{"heads not dividing hidden", "heads", json(5), "/model/transformer/heads"},
                    Case{"zero layers", "layers", json(0), "/model/transformer/layers"},
                    Case{"experts per token above experts", "experts_per_token", json(3),
                         "/model/transformer/experts_per_token"},
                    Case{"unknown norm", "norm", json("batchnorm"), "/model/transformer/norm"});
  CAPTURE(c.what);
  json form = base;
  form[c.field] = c.value;
  if (std::string(c.field) == "experts_per_token") form["experts"] = 2;
  const dlcost::Error e = errorOf(json{{"model", {{"transformer", form}}}});
  CHECK(e.path == c.path);
}

TEST_CASE("the text facade returns errors as values for transformers", "[transformer][errors]") {
  const json out = json::parse(dlcost::estimateText(R"({"model_type": "llama"})"));
  REQUIRE(out.contains("error"));
  CHECK(out["error"]["code"] == "missing_field");
  CHECK(out["error"]["path"] == "/hidden_size");
  CHECK(!out.contains("params"));
}

TEST_CASE("a transformer report's workload reads back as the same workload",
          "[transformer][errors]") {
  // The report's "workload" object is a valid input workload: estimating with it again
  // gives the same report.
  const json doc = {{"model", {{"preset", "llama-2-7b"}}},
                    {"workload",
                     {{"finetune", "qlora"},
                      {"dtype", "bf16"},
                      {"seq_len", 1024},
                      {"recompute", "selective"},
                      {"lora_targets", "all-linear"},
                      {"grad_accum", 4}}}};
  const json first = dlcost::estimateDocument(doc);
  const json again = dlcost::estimateDocument(
      json{{"model", {{"preset", "llama-2-7b"}}}, {"workload", first["workload"]}});
  CHECK(again == first);
}

TEST_CASE("encoder, encoder-decoder and vision configs dlcost does not count are refused by name",
          "[transformer][errors][families]") {
  // Each a few keys of the public config.json (the model in the comment); none is counted
  // exactly, so each is refused at /model_type with the supported types, never given a
  // total. The encoders and vision models are refused even with "approximate": the generic
  // reading is a decoder LLM.
  struct Case {
    json config;
    bool approximate_refused;
  };
  const std::vector<Case> cases = {
      // openai/whisper-small
      {{{"model_type", "whisper"},
        {"d_model", 768},
        {"encoder_layers", 12},
        {"decoder_layers", 12},
        {"vocab_size", 51865}},
       true},
      // facebook/bart-base
      {{{"model_type", "bart"},
        {"d_model", 768},
        {"encoder_layers", 6},
        {"decoder_layers", 6},
        {"vocab_size", 50265}},
       true},
      // facebook/mbart-large-cc25
      {{{"model_type", "mbart"},
        {"d_model", 1024},
        {"encoder_layers", 12},
        {"decoder_layers", 12},
        {"vocab_size", 250027}},
       true},
      // answerdotai/ModernBERT-base
      {{{"model_type", "modernbert"},
        {"hidden_size", 768},
        {"num_hidden_layers", 22},
        {"num_attention_heads", 12},
        {"intermediate_size", 1152},
        {"vocab_size", 50368}},
       true},
      // google/electra-base-discriminator
      {{{"model_type", "electra"},
        {"hidden_size", 768},
        {"embedding_size", 768},
        {"num_hidden_layers", 12},
        {"num_attention_heads", 12},
        {"intermediate_size", 3072},
        {"vocab_size", 30522}},
       true},
      // albert/albert-base-v2
      {{{"model_type", "albert"},
        {"hidden_size", 768},
        {"embedding_size", 128},
        {"num_hidden_layers", 12},
        {"num_attention_heads", 12},
        {"intermediate_size", 3072},
        {"vocab_size", 30000}},
       true},
      // google/vit-base-patch16-224
      {{{"model_type", "vit"},
        {"hidden_size", 768},
        {"num_hidden_layers", 12},
        {"num_attention_heads", 12},
        {"intermediate_size", 3072},
        {"image_size", 224},
        {"patch_size", 16}},
       true},
      // openai/clip-vit-base-patch32, google/siglip-base-patch16-224 (dual encoders)
      {{{"model_type", "clip"}, {"projection_dim", 512}}, true},
      {{{"model_type", "siglip"}}, true},
      {{{"model_type", "clip_vision_model"}, {"hidden_size", 1024}, {"num_hidden_layers", 24}},
       true},
  };
  for (const Case& c : cases) {
    const std::string type = c.config["model_type"];
    CAPTURE(type);
    const dlcost::Error e = errorOf({{"model", {{"hf_config", c.config}}}});
    CHECK(e.path == "/model/hf_config/model_type");
    CHECK_THAT(e.message, Catch::Contains("'" + type + "'") && Catch::Contains("supported: llama"));
    const json approx = {{"model", {{"hf_config", c.config}, {"approximate", true}}}};
    if (c.approximate_refused) {
      CHECK_THAT(errorOf(approx).message, Catch::Contains("not even approximately"));
    }
  }
}
