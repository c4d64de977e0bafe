// A GGUF's hyper-parameters as the Hugging Face config.json they were converted from:
// llama.cpp's key names (gguf.md "LLM" keys, written by convert_hf_to_gguf.py) mapped back
// to transformers' field names, so the engine's transformer reader estimates the file's
// architecture exactly as it would the original config.
#include <utility>

#include "dlcost/base/error.hpp"
#include "dlcost/model_files/gguf.hpp"

namespace dlcost {

namespace {

using nlohmann::json;

/// GGUF architectures whose layer is Llama's (RMSNorm, SwiGLU, rotary, GQA), with the
/// model_type and class transformers uses for them.
struct Family {
  const char* arch;
  const char* model_type;
  const char* architecture;
};
constexpr Family kFamilies[] = {
    {"llama", "llama", "LlamaForCausalLM"},    {"qwen2", "qwen2", "Qwen2ForCausalLM"},
    {"qwen3", "qwen3", "Qwen3ForCausalLM"},    {"gemma", "gemma", "GemmaForCausalLM"},
    {"gemma2", "gemma2", "Gemma2ForCausalLM"},
};

const json* find(const json& md, const std::string& key) {
  auto it = md.find(key);
  return it == md.end() ? nullptr : &*it;
}

json wholeNumber(const json& md, const std::string& key, bool required) {
  const json* v = find(md, key);
  if (!v) {
    if (required)
      throw InputError(ErrorCode::kMissingField, childPath("/metadata", key),
                       "the file has no " + key);
    return nullptr;
  }
  if (!v->is_number_integer()) {
    throw InputError(ErrorCode::kType, childPath("/metadata", key),
                     key + " must be one whole number for dlcost's transformer estimate, not " +
                         (v->is_object() ? std::string("an array") : v->dump()));
  }
  return *v;
}

}  // namespace

json ggufHfConfig(const GgufHeader& h) {
  const json& md = h.metadata;
  const json* arch_value = find(md, "general.architecture");
  if (!arch_value || !arch_value->is_string()) {
    throw InputError(ErrorCode::kMissingField, "/metadata/general.architecture",
                     "the file names no architecture");
  }
  const std::string arch = arch_value->get<std::string>();
  const Family* family = nullptr;
  for (const Family& f : kFamilies) {
    if (arch == f.arch) family = &f;
  }
  if (!family) {
    throw InputError(ErrorCode::kValue, "/metadata/general.architecture",
                     "GGUF architecture '" + arch +
                         "' has no config mapping yet (llama, qwen2, qwen3, gemma, gemma2 do); "
                         "its parameters and bytes above are exact all the same");
  }
  const std::string p = arch + ".";
  json config = {{"model_type", family->model_type},
                 {"architectures", {family->architecture}},
                 {"hidden_size", wholeNumber(md, p + "embedding_length", true)},
                 {"num_hidden_layers", wholeNumber(md, p + "block_count", true)},
                 {"num_attention_heads", wholeNumber(md, p + "attention.head_count", true)},
                 {"intermediate_size", wholeNumber(md, p + "feed_forward_length", true)}};
  // llama.cpp's default when head_count_kv is absent: as many KV heads as heads.
  const json kv = wholeNumber(md, p + "attention.head_count_kv", false);
  config["num_key_value_heads"] = kv.is_null() ? config["num_attention_heads"] : kv;
  const json context = wholeNumber(md, p + "context_length", false);
  if (!context.is_null()) config["max_position_embeddings"] = context;
  const json head_dim = wholeNumber(md, p + "attention.key_length", false);
  if (!head_dim.is_null()) config["head_dim"] = head_dim;
  json vocab = wholeNumber(md, p + "vocab_size", false);
  if (vocab.is_null() && md.contains("tokenizer.ggml.tokens")) {
    const json& tokens = md["tokenizer.ggml.tokens"];
    if (tokens.is_array()) vocab = tokens.size();
    if (tokens.is_object()) vocab = tokens["length"];
  }
  if (vocab.is_null()) {
    throw InputError(ErrorCode::kMissingField, childPath("/metadata", p + "vocab_size"),
                     "the file has neither " + p + "vocab_size nor tokenizer.ggml.tokens");
  }
  config["vocab_size"] = vocab;
  // convert_hf_to_gguf.py writes no output.weight when the head is tied to the embeddings.
  bool has_output = false;
  for (const GgufTensor& t : h.tensors) has_output = has_output || t.name == "output.weight";
  config["tie_word_embeddings"] = !has_output;
  const json experts = wholeNumber(md, p + "expert_count", false);
  if (!experts.is_null() && experts.get<double>() > 0) {
    if (arch != "llama") {
      throw InputError(ErrorCode::kValue, childPath("/metadata", p + "expert_count"),
                       "a mixture of experts in a '" + arch + "' GGUF has no config mapping yet");
    }
    config["model_type"] = "mixtral";
    config["architectures"] = {"MixtralForCausalLM"};
    config["num_local_experts"] = experts;
    config["num_experts_per_tok"] = wholeNumber(md, p + "expert_used_count", true);
  }
  if (const json* eps = find(md, p + "attention.layer_norm_rms_epsilon"))
    config["rms_norm_eps"] = *eps;
  if (const json* theta = find(md, p + "rope.freq_base")) config["rope_theta"] = *theta;
  return config;
}

}  // namespace dlcost
