#include "hf_config.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "dlcost/engine_limits.hpp"
#include "dlcost/error.hpp"
#include "json_reader.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

/// Reads the fields of a config.json leniently (unknown keys are fine, `null` counts as
/// absent, as PretrainedConfig treats it) but type-strictly for the keys it reads.
class HfFields {
 public:
  HfFields(const json& config, std::string path) : config_(config), path_(std::move(path)) {
    if (!config_.is_object()) {
      throw InputError(
          ErrorCode::kType, path_,
          std::string("a config.json must be an object, not ") + jsonTypeName(config_));
    }
  }

  /// The first of `names` present and not null.
  const json* find(std::initializer_list<const char*> names, std::string* key = nullptr) const {
    for (const char* n : names) {
      auto it = config_.find(n);
      if (it != config_.end() && !it->is_null()) {
        if (key) *key = n;
        return &*it;
      }
    }
    return nullptr;
  }

  std::string pathOf(const std::string& key) const { return childPath(path_, key); }

  /// An integer field, recorded in `paths` under `field`.
  std::optional<int64_t> optInt(const std::string& field, std::initializer_list<const char*> names,
                                int64_t min = 1) {
    std::string key;
    const json* v = find(names, &key);
    if (!v) return std::nullopt;
    paths[field] = pathOf(key);
    return readInt(*v, pathOf(key), min, kMaxDimension);
  }

  int64_t reqInt(const std::string& field, std::initializer_list<const char*> names,
                 int64_t min = 1) {
    if (auto v = optInt(field, names, min)) return *v;
    std::string alternatives;
    for (const char* n : names)
      alternatives += (alternatives.empty() ? "" : " or ") + std::string(n);
    throw InputError(ErrorCode::kMissingField, pathOf(*names.begin()),
                     "required field " + alternatives + " is missing from the config");
  }

  bool optBool(std::initializer_list<const char*> names, bool fallback) const {
    std::string key;
    const json* v = find(names, &key);
    if (!v) return fallback;
    if (!v->is_boolean()) {
      throw InputError(ErrorCode::kType, pathOf(key),
                       std::string("must be true or false, not ") + jsonTypeName(*v));
    }
    return v->get<bool>();
  }

  double optNumber(std::initializer_list<const char*> names, double fallback) const {
    std::string key;
    const json* v = find(names, &key);
    if (!v) return fallback;
    if (!v->is_number()) {
      throw InputError(ErrorCode::kType, pathOf(key),
                       std::string("must be a number, not ") + jsonTypeName(*v));
    }
    return v->get<double>();
  }

  std::optional<std::string> optString(std::initializer_list<const char*> names) const {
    std::string key;
    const json* v = find(names, &key);
    if (!v) return std::nullopt;
    if (!v->is_string()) {
      throw InputError(ErrorCode::kType, pathOf(key),
                       std::string("must be a string, not ") + jsonTypeName(*v));
    }
    return v->get<std::string>();
  }

  bool anyPositive(std::initializer_list<const char*> names) const {
    for (const char* n : names) {
      auto it = config_.find(n);
      if (it != config_.end() && it->is_number() && it->get<double>() > 0) return true;
    }
    return false;
  }

  std::map<std::string, std::string> paths;

 private:
  const json& config_;
  std::string path_;
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// model_type, or a family guessed from architectures[0] ("LlamaForCausalLM" -> "llama").
std::string familyOf(const HfFields& f, const json& config, const std::string& path) {
  if (auto t = f.optString({"model_type"})) return lower(*t);
  const json* a = f.find({"architectures"});
  if (!a || !a->is_array() || a->empty() || !(*a)[0].is_string()) {
    throw InputError(ErrorCode::kMissingField, childPath(path, "model_type"),
                     "a config.json needs model_type (or architectures naming the model class)");
  }
  (void)config;
  std::string cls = (*a)[0].get<std::string>();
  static const std::vector<std::pair<std::string, std::string>> kPrefixes = {
      {"Mixtral", "mixtral"},  {"Mistral", "mistral"},
      {"Llama", "llama"},      {"Qwen2", "qwen2"},
      {"Gemma", "gemma"},      {"Phi3", "phi3"},
      {"Phi", "phi"},          {"GPT2", "gpt2"},
      {"GPTNeoX", "gpt_neox"}, {"Falcon", "falcon"},
      {"RW", "falcon"},        {"Bert", "bert"},
      {"Roberta", "roberta"},  {"T5", "t5"}};
  for (const auto& [prefix, family] : kPrefixes) {
    if (cls.rfind(prefix, 0) == 0) return family;
  }
  return lower(cls);
}

void readDropout(const HfFields& f, Transformer& t) {
  t.attention_dropout = f.anyPositive(
      {"attn_pdrop", "attention_probs_dropout_prob", "attention_dropout", "dropout_rate"});
  t.hidden_dropout = f.anyPositive(
      {"resid_pdrop", "embd_pdrop", "hidden_dropout_prob", "hidden_dropout", "dropout_rate"});
}

/// Llama and the families that copy its layer: RMSNorm, SwiGLU, rotary, GQA.
void readLlamaLike(HfFields& f, Transformer& t, const std::string& family) {
  t.hidden = f.reqInt("hidden", {"hidden_size"});
  t.layers = f.reqInt("layers", {"num_hidden_layers"});
  t.heads = f.reqInt("heads", {"num_attention_heads"});
  t.kv_heads = f.optInt("kv_heads", {"num_key_value_heads"}).value_or(t.heads);
  t.ffn = f.reqInt("ffn", {"intermediate_size"});
  t.vocab = f.reqInt("vocab", {"vocab_size"});
  t.max_positions = f.optInt("max_positions", {"max_position_embeddings"}).value_or(0);
  t.gated_mlp = true;
  t.norm = NormKind::kRmsNorm;
  t.norm_bias = false;
  t.positions = PositionKind::kRotary;
  // Defaults of each family's PretrainedConfig subclass when the key is absent.
  const bool gemma = family == "gemma" || family == "gemma2" || family == "gemma3_text";
  t.tied_embeddings = f.optBool({"tie_word_embeddings"}, gemma);
  // Gemma 2 and 3 add a norm after attention and after the MLP; Qwen3 and Gemma 3 normalise
  // q and k per head.
  if (family == "gemma2" || family == "gemma3_text") t.norms_per_layer = 4;
  if (family == "qwen3" || family == "gemma3_text") t.qk_norm = true;
  if (family == "qwen2") {
    t.qkv_bias = true;  // Qwen2Attention: q/k/v with bias, o_proj without
  } else {
    const bool attention_bias = f.optBool({"attention_bias"}, false);
    t.qkv_bias = attention_bias;
    t.out_bias = attention_bias;
    t.mlp_bias = f.optBool({"mlp_bias"}, false);
  }
  if (family == "mixtral") {
    t.experts = f.optInt("experts", {"num_local_experts"}).value_or(8);
    t.experts_per_token = f.optInt("experts_per_token", {"num_experts_per_tok"}).value_or(2);
  }
}

void readGpt2(HfFields& f, Transformer& t) {
  t.hidden = f.reqInt("hidden", {"n_embd"});
  t.layers = f.reqInt("layers", {"n_layer"});
  t.heads = f.reqInt("heads", {"n_head"});
  t.kv_heads = t.heads;
  t.ffn = f.optInt("ffn", {"n_inner"}).value_or(4 * t.hidden);  // GPT2MLP: 4 x n_embd
  t.vocab = f.reqInt("vocab", {"vocab_size"});
  t.max_positions = f.optInt("max_positions", {"n_positions"}).value_or(1024);
  t.positions = PositionKind::kLearned;
  t.qkv_bias = t.out_bias = t.mlp_bias = true;
  t.tied_embeddings = f.optBool({"tie_word_embeddings"}, true);
}

void readGptNeox(HfFields& f, Transformer& t) {
  t.hidden = f.reqInt("hidden", {"hidden_size"});
  t.layers = f.reqInt("layers", {"num_hidden_layers"});
  t.heads = f.reqInt("heads", {"num_attention_heads"});
  t.kv_heads = t.heads;
  t.ffn = f.reqInt("ffn", {"intermediate_size"});
  t.vocab = f.reqInt("vocab", {"vocab_size"});
  t.max_positions = f.optInt("max_positions", {"max_position_embeddings"}).value_or(0);
  const bool bias = f.optBool({"attention_bias"}, true);
  t.qkv_bias = t.out_bias = bias;
  t.mlp_bias = true;
  // Two norms even with the parallel residual: attn(ln1(x)) + mlp(ln2(x)).
  t.parallel_block = f.optBool({"use_parallel_residual"}, true);
  t.tied_embeddings = f.optBool({"tie_word_embeddings"}, false);
}

void readPhi(HfFields& f, Transformer& t) {
  t.hidden = f.reqInt("hidden", {"hidden_size", "n_embd"});
  t.layers = f.reqInt("layers", {"num_hidden_layers", "n_layer"});
  t.heads = f.reqInt("heads", {"num_attention_heads", "n_head"});
  t.kv_heads = f.optInt("kv_heads", {"num_key_value_heads", "n_head_kv"}).value_or(t.heads);
  t.ffn = f.optInt("ffn", {"intermediate_size", "n_inner"}).value_or(4 * t.hidden);
  t.vocab = f.reqInt("vocab", {"vocab_size"});
  t.max_positions =
      f.optInt("max_positions", {"max_position_embeddings", "n_positions"}).value_or(0);
  // PhiDecoderLayer: one input_layernorm feeds attention and MLP in parallel; every linear,
  // the LM head included, has a bias.
  t.parallel_block = true;
  t.norms_per_layer = 1;
  t.qkv_bias = t.out_bias = t.mlp_bias = t.lm_head_bias = true;
  t.tied_embeddings = f.optBool({"tie_word_embeddings"}, false);
  t.qk_norm = f.optBool({"qk_layernorm"}, false);
}

void readPhi3(HfFields& f, Transformer& t) {
  readLlamaLike(f, t, "phi3");
  t.qkv_bias = t.out_bias = t.mlp_bias = false;  // fused qkv_proj and gate_up_proj, no bias
}

void readFalcon(HfFields& f, Transformer& t) {
  t.hidden = f.reqInt("hidden", {"hidden_size", "n_embed"});
  t.layers = f.reqInt("layers", {"num_hidden_layers", "n_layer"});
  t.heads = f.reqInt("heads", {"num_attention_heads", "n_head"});
  t.vocab = f.reqInt("vocab", {"vocab_size"});
  t.ffn = f.optInt("ffn", {"ffn_hidden_size"}).value_or(4 * t.hidden);
  const bool new_arch = f.optBool({"new_decoder_architecture"}, false);
  if (new_arch) {
    t.kv_heads = f.optInt("kv_heads", {"num_kv_heads", "n_head_kv"}).value_or(t.heads);
    t.parallel_block = true;
    t.norms_per_layer = 2;  // ln_attn and ln_mlp
  } else {
    t.kv_heads = f.optBool({"multi_query"}, true) ? 1 : t.heads;
    t.parallel_block = f.optBool({"parallel_attn"}, true);
    t.norms_per_layer = t.parallel_block ? 1 : 2;
  }
  const bool bias = f.optBool({"bias"}, false);
  t.qkv_bias = t.out_bias = t.mlp_bias = bias;
  t.positions = f.optBool({"alibi"}, false) ? PositionKind::kNone : PositionKind::kRotary;
  t.max_positions = f.optInt("max_positions", {"max_position_embeddings"}).value_or(0);
  t.tied_embeddings = f.optBool({"tie_word_embeddings"}, true);
}

void readBert(HfFields& f, Transformer& t) {
  t.kind = TransformerKind::kEncoder;
  t.hidden = f.reqInt("hidden", {"hidden_size"});
  t.layers = f.reqInt("layers", {"num_hidden_layers"});
  t.heads = f.reqInt("heads", {"num_attention_heads"});
  t.kv_heads = t.heads;
  t.ffn = f.reqInt("ffn", {"intermediate_size"});
  t.vocab = f.reqInt("vocab", {"vocab_size"});
  t.max_positions = f.optInt("max_positions", {"max_position_embeddings"}).value_or(512);
  t.type_vocab = f.optInt("type_vocab", {"type_vocab_size"}, 0).value_or(2);
  t.positions = PositionKind::kLearned;
  t.qkv_bias = t.out_bias = t.mlp_bias = true;
  // BertModel: LayerNorm after the embeddings, post-norm layers (two LayerNorms each), no
  // final norm, and the pooler (add_pooling_layer=True); no task head.
  t.embedding_norm = true;
  t.final_norm = false;
  t.pooler = true;
  t.tied_embeddings = false;
}

void readT5(HfFields& f, Transformer& t) {
  t.kind = TransformerKind::kEncoderDecoder;
  t.hidden = f.reqInt("hidden", {"d_model"});
  t.head_dim = f.reqInt("head_dim", {"d_kv"});
  t.ffn = f.reqInt("ffn", {"d_ff"});
  t.encoder_layers = f.reqInt("encoder_layers", {"num_layers"});
  t.layers = f.optInt("layers", {"num_decoder_layers"}).value_or(t.encoder_layers);
  t.heads = f.reqInt("heads", {"num_heads"});
  t.kv_heads = t.heads;
  t.vocab = f.reqInt("vocab", {"vocab_size"});
  t.positions = PositionKind::kRelativeBias;
  t.relative_buckets =
      f.optInt("relative_buckets", {"relative_attention_num_buckets"}).value_or(32);
  const std::string proj = f.optString({"feed_forward_proj"}).value_or("relu");
  t.gated_mlp = proj.rfind("gated-", 0) == 0;
  t.norm = NormKind::kRmsNorm;  // T5LayerNorm: scale only, no mean, no bias
  t.norm_bias = false;
  t.tied_embeddings = f.optBool({"tie_word_embeddings"}, true);
}

void readGeneric(HfFields& f, Transformer& t, const std::string& family,
                 std::vector<std::string>& warnings) {
  t.hidden = f.reqInt("hidden", {"hidden_size", "n_embd", "d_model"});
  t.layers = f.reqInt("layers", {"num_hidden_layers", "n_layer", "num_layers"});
  t.heads = f.reqInt("heads", {"num_attention_heads", "n_head", "num_heads"});
  t.kv_heads = f.optInt("kv_heads", {"num_key_value_heads", "num_kv_heads"}).value_or(t.heads);
  t.ffn = f.reqInt("ffn", {"intermediate_size", "n_inner", "ffn_dim", "d_ff"});
  t.vocab = f.reqInt("vocab", {"vocab_size"});
  t.max_positions =
      f.optInt("max_positions", {"max_position_embeddings", "n_positions"}).value_or(0);
  t.gated_mlp = true;
  t.norm = NormKind::kRmsNorm;
  t.norm_bias = false;
  t.positions = PositionKind::kRotary;
  t.tied_embeddings = f.optBool({"tie_word_embeddings"}, false);
  const bool attention_bias = f.optBool({"attention_bias"}, false);
  t.qkv_bias = t.out_bias = attention_bias;
  t.mlp_bias = f.optBool({"mlp_bias"}, false);
  if (auto e = f.optInt("experts", {"num_local_experts", "num_experts", "n_routed_experts"})) {
    t.experts = *e;
    t.experts_per_token = f.optInt("experts_per_token", {"num_experts_per_tok"}).value_or(1);
  }
  warnings.push_back("model_type '" + family +
                     "' is not one dlcost knows; read as a generic decoder: pre-norm layers "
                     "with RMSNorm, rotary positions, a gated (SwiGLU) MLP, no biases unless "
                     "attention_bias/mlp_bias, an LM head " +
                     (t.tied_embeddings ? "tied to" : "separate from") + " the embeddings" +
                     (t.experts ? ", a top-k MoE MLP" : "") +
                     "; parameters may differ from the real model");
}

}  // namespace

bool isHfConfig(const json& document) {
  return document.is_object() &&
         (document.contains("model_type") || document.contains("architectures"));
}

Transformer readHfConfig(const json& config, const std::string& path,
                         std::vector<std::string>& warnings) {
  HfFields f(config, path);
  const std::string family = familyOf(f, config, path);
  // Multimodal wrappers (LLaVA, Gemma 3, Mistral 3, ...) keep the language model's config
  // in text_config: read that, and say what is left out.
  const json* text = f.find({"text_config"});
  if (text && text->is_object() && !f.find({"hidden_size", "n_embd", "d_model"})) {
    json inner = *text;
    if (!inner.contains("model_type")) inner["model_type"] = family + "_text";
    Transformer t = readHfConfig(inner, childPath(path, "text_config"), warnings);
    warnings.push_back("read the language model of '" + family +
                       "' from text_config; its vision tower and projector are not counted");
    return t;
  }
  Transformer t;
  t.architecture = family;
  if (family == "llama" || family == "mistral" || family == "mixtral" || family == "qwen2" ||
      family == "gemma" || family == "gemma2" || family == "gemma3_text" || family == "qwen3") {
    readLlamaLike(f, t, family);
  } else if (family == "phi3") {
    readPhi3(f, t);
  } else if (family == "phi") {
    readPhi(f, t);
  } else if (family == "gpt2") {
    readGpt2(f, t);
  } else if (family == "gpt_neox") {
    readGptNeox(f, t);
  } else if (family == "falcon" || family == "refinedweb" || family == "refinedwebmodel") {
    readFalcon(f, t);
  } else if (family == "bert" || family == "roberta" || family == "xlm-roberta") {
    readBert(f, t);
  } else if (family == "t5" || family == "mt5") {
    readT5(f, t);
  } else {
    readGeneric(f, t, family, warnings);
    t.architecture = "generic";
  }
  readDropout(f, t);
  bool head_dim_given = t.head_dim > 0;
  if (!head_dim_given) {
    if (auto hd = f.optInt("head_dim", {"head_dim"})) {
      t.head_dim = *hd;
      head_dim_given = true;
    }
  }
  validateTransformer(t, f.paths, head_dim_given);
  if (!head_dim_given) t.head_dim = t.hidden / t.heads;
  return t;
}

void validateTransformer(const Transformer& t, const std::map<std::string, std::string>& paths,
                         bool head_dim_given) {
  auto where = [&](const std::string& field) {
    auto it = paths.find(field);
    return it == paths.end() ? std::string() : it->second;
  };
  if (t.layers > kMaxLayers || t.encoder_layers > kMaxLayers) {
    throw InputError(ErrorCode::kTooLarge,
                     where(t.layers > kMaxLayers ? "layers" : "encoder_layers"),
                     "more than " + std::to_string(kMaxLayers) + " layers");
  }
  if (!head_dim_given && t.hidden % t.heads != 0) {
    throw InputError(ErrorCode::kValue, where("heads"),
                     "the number of attention heads (" + std::to_string(t.heads) +
                         ") must divide the hidden size (" + std::to_string(t.hidden) +
                         ") when no head_dim is given");
  }
  if (t.kv_heads > t.heads || t.heads % t.kv_heads != 0) {
    throw InputError(ErrorCode::kValue, where("kv_heads"),
                     "key/value heads (" + std::to_string(t.kv_heads) +
                         ") must divide the attention heads (" + std::to_string(t.heads) + ")");
  }
  if (t.experts > 0 && (t.experts_per_token < 1 || t.experts_per_token > t.experts)) {
    throw InputError(ErrorCode::kValue, where("experts_per_token"),
                     "experts per token (" + std::to_string(t.experts_per_token) +
                         ") must be between 1 and the number of experts (" +
                         std::to_string(t.experts) + ")");
  }
  if (t.positions == PositionKind::kLearned && t.max_positions < 1) {
    throw InputError(ErrorCode::kMissingField, where("max_positions"),
                     "learned position embeddings need the number of positions");
  }
}

}  // namespace dlcost
