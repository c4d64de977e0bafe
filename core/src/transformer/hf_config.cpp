#include "transformer/hf_config.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>

#include "dlcost/base/checked.hpp"
#include "dlcost/base/engine_limits.hpp"
#include "dlcost/base/error.hpp"
#include "types/json_reader.hpp"

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

  /// The key is present, null or not.
  bool has(const char* name) const { return config_.contains(name); }

  /// An integer field, recorded in `paths` under `field`.
  std::optional<int64_t> optInt(const std::string& field, std::initializer_list<const char*> names,
                                int64_t min = 1) {
    std::string key;
    const json* v = find(names, &key);
    if (!v) return std::nullopt;
    paths[field] = pathOf(key);
    // Layer counts are bounded here, before any per-layer vector is sized from them.
    const bool layer_count = field == "layers" || field == "encoder_layers";
    return readInt(*v, pathOf(key), min, layer_count ? kMaxLayers : kMaxDimension);
  }

  /// A required size key. transformers writes every size key of a top-level config (they
  /// are not PretrainedConfig's own), so one missing there is an error naming model_type
  /// and key; a nested text_config omits the keys equal to its class's defaults
  /// (PretrainedConfig.to_diff_dict), which take those defaults (`defaults`).
  int64_t reqInt(const std::string& field, std::initializer_list<const char*> names,
                 int64_t min = 1) {
    if (auto v = optInt(field, names, min)) return *v;
    for (const char* n : names) {
      auto d = defaults.find(n);
      if (nested && d != defaults.end()) return d->second;
    }
    std::string alternatives;
    for (const char* n : names)
      alternatives += (alternatives.empty() ? "" : " or ") + std::string(n);
    throw InputError(ErrorCode::kMissingField, pathOf(*names.begin()),
                     "model_type '" + model_type + "' needs " + alternatives +
                         ", which is missing from the config");
  }

  /// An optional integer with the config class's default when absent.
  int64_t intOr(const std::string& field, const char* name, int64_t fallback, int64_t min = 1) {
    auto d = defaults.find(name);
    return optInt(field, {name}, min).value_or(d != defaults.end() ? d->second : fallback);
  }

  /// An array of integers (Qwen-MoE's mlp_only_layers), empty when absent.
  std::vector<int64_t> optIntArray(const char* name) const {
    std::vector<int64_t> out;
    std::string key;
    const json* v = find({name}, &key);
    if (!v) return out;
    if (!v->is_array()) {
      throw InputError(ErrorCode::kType, pathOf(key),
                       std::string("must be an array of integers, not ") + jsonTypeName(*v));
    }
    for (size_t i = 0; i < v->size(); ++i)
      out.push_back(readInt((*v)[i], childPath(pathOf(key), std::to_string(i)), 0, kMaxLayers));
    return out;
  }

  /// An array of strings (layer_types), empty when absent.
  std::vector<std::string> optStringArray(const char* name) const {
    std::vector<std::string> out;
    std::string key;
    const json* v = find({name}, &key);
    if (!v) return out;
    if (!v->is_array()) {
      throw InputError(ErrorCode::kType, pathOf(key),
                       std::string("must be an array of strings, not ") + jsonTypeName(*v));
    }
    for (size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_string()) {
        throw InputError(ErrorCode::kType, childPath(pathOf(key), std::to_string(i)),
                         std::string("must be a string, not ") + jsonTypeName((*v)[i]));
      }
      out.push_back((*v)[i].get<std::string>());
    }
    return out;
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
  std::string model_type;
  bool nested = false;  ///< a multimodal wrapper's text_config
  /// Defaults of the model's config class for keys a config may omit (a multimodal
  /// wrapper's text_config leaves out every key equal to its class default).
  std::map<std::string, int64_t> defaults;

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

/// Dropout keys at the top level, added to what a family's reader found elsewhere (MPT's
/// attn_config.attn_pdrop).
void readDropout(const HfFields& f, Transformer& t) {
  t.attention_dropout =
      t.attention_dropout || f.anyPositive({"attn_pdrop", "attention_probs_dropout_prob",
                                            "attention_dropout", "dropout_rate"});
  t.hidden_dropout =
      t.hidden_dropout || f.anyPositive({"resid_pdrop", "embd_pdrop", "hidden_dropout_prob",
                                         "hidden_dropout", "dropout_rate"});
}

/// Marks the layers whose attention is local from `layer_types` ("sliding_attention" or
/// "full_attention", transformers >= 4.53), or from `fallback(layer)` without it.
template <typename Local>
void readLocalLayers(HfFields& f, Transformer& t, Local fallback) {
  const std::vector<std::string> types = f.optStringArray("layer_types");
  if (!types.empty() && static_cast<int64_t>(types.size()) != t.layers) {
    throw InputError(ErrorCode::kValue, f.pathOf("layer_types"),
                     "lists " + std::to_string(types.size()) + " layers, not num_hidden_layers (" +
                         std::to_string(t.layers) + ")");
  }
  t.local_layers.assign(static_cast<size_t>(t.layers), false);
  for (int64_t i = 0; i < t.layers; ++i) {
    bool local = fallback(i);
    if (!types.empty()) {
      const std::string& k = types[static_cast<size_t>(i)];
      if (k != "sliding_attention" && k != "full_attention") {
        throw InputError(
            ErrorCode::kValue, childPath(f.pathOf("layer_types"), std::to_string(i)),
            "dlcost models \"sliding_attention\" and \"full_attention\" layers, not \"" + k + "\"");
      }
      local = k == "sliding_attention";
    }
    t.local_layers[static_cast<size_t>(i)] = local;
  }
  if (t.sliding_window == 0) t.local_layers.clear();
}

/// Which layers attend within sliding_window, as each family's attention and cache do.
void readSlidingWindow(HfFields& f, Transformer& t, const std::string& family) {
  const bool qwen =
      family == "qwen2" || family == "qwen3" || family == "qwen2_moe" || family == "qwen3_moe";
  if (qwen) {
    // Qwen2Config: sliding_window only with use_sliding_window, on layers from
    // max_window_layers on.
    if (!f.optBool({"use_sliding_window"}, false)) return;
    t.sliding_window = f.intOr("sliding_window", "sliding_window", 4096);
    const int64_t from = f.intOr("max_window_layers", "max_window_layers", 28, 0);
    readLocalLayers(f, t, [&](int64_t i) { return i >= from; });
  } else if (family == "gemma2" || family == "gpt_oss") {
    // Every other layer local, the first one included (Gemma2Config, GptOssConfig).
    t.sliding_window =
        f.intOr("sliding_window", "sliding_window", family == "gpt_oss" ? 128 : 4096);
    readLocalLayers(f, t, [](int64_t i) { return i % 2 == 0; });
  } else if (family == "gemma3_text") {
    // Five local layers, then a global one (sliding_window_pattern = 6).
    t.sliding_window = f.intOr("sliding_window", "sliding_window", 4096);
    const int64_t pattern =
        f.optInt("sliding_window_pattern", {"sliding_window_pattern", "_sliding_window_pattern"})
            .value_or(6);
    readLocalLayers(f, t, [&](int64_t i) { return (i + 1) % pattern != 0; });
  } else {
    // Mistral, Mixtral, Phi-3, PhiMoE: every layer within sliding_window when it is set.
    t.sliding_window = f.optInt("sliding_window", {"sliding_window"}).value_or(0);
    readLocalLayers(f, t, [](int64_t) { return true; });
  }
}

/// Marks dense-MLP layers among MoE ones: `moe(layer)` says where the experts are.
template <typename Moe>
void readDenseLayers(Transformer& t, Moe moe) {
  t.dense_layers.assign(static_cast<size_t>(t.layers), false);
  for (int64_t i = 0; i < t.layers; ++i) t.dense_layers[static_cast<size_t>(i)] = !moe(i);
}

/// Llama and the families that copy its layer: RMSNorm, SwiGLU, rotary, GQA.
void readLlamaLike(HfFields& f, Transformer& t, const std::string& family) {
  // transformers' modeling_llama.py eager_attention_forward, which the families read here
  // copy: `softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)`.
  t.softmax_fp32 = true;
  t.hidden = f.reqInt("hidden", {"hidden_size"});
  t.layers = f.reqInt("layers", {"num_hidden_layers"});
  t.heads = f.reqInt("heads", {"num_attention_heads"});
  t.kv_heads = f.intOr("kv_heads", "num_key_value_heads", t.heads);
  t.ffn = f.reqInt("ffn", {"intermediate_size"});
  t.vocab = f.reqInt("vocab", {"vocab_size"});
  t.max_positions = f.intOr("max_positions", "max_position_embeddings", 0);
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
  if (family == "qwen2" || family == "qwen2_moe") {
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
  readSlidingWindow(f, t, family);
}

/// Qwen2-MoE and Qwen3-MoE: fine-grained experts of moe_intermediate_size on the layers
/// decoder_sparse_step picks outside mlp_only_layers; Qwen2-MoE adds a shared expert with a
/// sigmoid gate.
void readQwenMoe(HfFields& f, Transformer& t, const std::string& family) {
  const bool v2 = family == "qwen2_moe";
  readLlamaLike(f, t, family);
  t.qk_norm = !v2;  // Qwen3MoeAttention's q_norm and k_norm over head_dim
  t.experts = f.intOr("experts", "num_experts", v2 ? 60 : 128, 0);
  t.experts_per_token = f.intOr("experts_per_token", "num_experts_per_tok", v2 ? 4 : 8);
  t.expert_ffn = f.intOr("expert_ffn", "moe_intermediate_size", v2 ? 1408 : 768);
  if (v2) {
    t.shared_expert_ffn = f.intOr("shared_expert_ffn", "shared_expert_intermediate_size", 5632);
    t.shared_expert_gate = true;
  }
  const int64_t step = f.intOr("decoder_sparse_step", "decoder_sparse_step", 1);
  const std::vector<int64_t> dense = f.optIntArray("mlp_only_layers");
  readDenseLayers(t, [&](int64_t i) {
    return std::find(dense.begin(), dense.end(), i) == dense.end() && t.experts > 0 &&
           (i + 1) % step == 0;
  });
  if (t.experts == 0) t.experts_per_token = 0;
}

/// DeepSeek (MoE 16B, remote code), DeepSeek-V2 and V3: shared experts, routed experts
/// from first_k_dense_replace on (every moe_layer_freq-th layer); V2/V3 attend through
/// multi-head latent attention; V3's router carries e_score_correction_bias.
void readDeepseek(HfFields& f, Transformer& t, const std::string& family) {
  const bool v3 = family == "deepseek_v3";
  readLlamaLike(f, t, family);
  t.kv_heads = t.heads;
  if (family != "deepseek") {
    // q_lora_rank null: q_proj straight from h (DeepSeek-V2-Lite); absent: the default.
    const json* q = f.find({"q_lora_rank"});
    t.q_lora_rank =
        q ? f.intOr("q_lora_rank", "q_lora_rank", 0) : (f.has("q_lora_rank") ? 0 : 1536);
    t.kv_lora_rank = f.intOr("kv_lora_rank", "kv_lora_rank", 512);
    t.qk_rope_head_dim = f.intOr("qk_rope_head_dim", "qk_rope_head_dim", 64);
    t.head_dim =
        checkedAdd(f.intOr("qk_nope_head_dim", "qk_nope_head_dim", 128), t.qk_rope_head_dim);
    t.v_head_dim = f.intOr("v_head_dim", "v_head_dim", 128);
  }
  t.experts = f.intOr("experts", "n_routed_experts", v3 ? 256 : 0, 0);
  if (t.experts == 0) return;
  t.experts_per_token = f.intOr("experts_per_token", "num_experts_per_tok", v3 ? 8 : 1);
  t.expert_ffn = f.intOr("expert_ffn", "moe_intermediate_size", v3 ? 2048 : 1407);
  t.shared_expert_ffn =
      checkedMul(t.expert_ffn, f.intOr("shared_experts", "n_shared_experts", v3 ? 1 : 0, 0));
  t.router_bias = v3;  // DeepseekV3TopkRouter.e_score_correction_bias, one per expert
  const int64_t first = f.intOr("first_dense", "first_k_dense_replace", v3 ? 3 : 0, 0);
  const int64_t freq = f.intOr("moe_layer_freq", "moe_layer_freq", 1);
  readDenseLayers(t, [&](int64_t i) { return i >= first && i % freq == 0; });
}

/// OLMoE: every layer MoE, q and k normed over their full width.
void readOlmoe(HfFields& f, Transformer& t) {
  readLlamaLike(f, t, "olmoe");
  t.qk_norm = true;
  t.qk_norm_full = true;
  t.experts = f.intOr("experts", "num_experts", 64);
  t.experts_per_token = f.intOr("experts_per_token", "num_experts_per_tok", 8);
}

/// PhiMoE (Phi-3.5-MoE): LayerNorms with bias, attention and LM-head biases as configured,
/// Mixtral-style experts.
void readPhimoe(HfFields& f, Transformer& t) {
  readLlamaLike(f, t, "phimoe");
  t.norm = NormKind::kLayerNorm;
  t.norm_bias = true;
  t.mlp_bias = false;
  t.lm_head_bias = f.optBool({"lm_head_bias"}, false);
  t.experts = f.intOr("experts", "num_local_experts", 16);
  t.experts_per_token = f.intOr("experts_per_token", "num_experts_per_tok", 2);
}

/// gpt-oss: biased q/k/v/o, one sink logit per head, experts with biases behind a biased
/// router, alternating sliding (128) and full attention.
void readGptOss(HfFields& f, Transformer& t) {
  readLlamaLike(f, t, "gpt_oss");
  // modeling_gpt_oss.py eager_attention_forward: softmax over the logits and sinks in their
  // own dtype (`dtype=combined_logits.dtype`), no fp32 copy.
  t.softmax_fp32 = false;
  const bool bias = f.optBool({"attention_bias"}, true);
  t.qkv_bias = t.out_bias = bias;
  t.mlp_bias = false;
  t.attention_sinks = true;
  t.experts = f.intOr("experts", "num_local_experts", 128);
  t.experts_per_token =
      f.optInt("experts_per_token", {"num_experts_per_tok", "experts_per_token"}).value_or(4);
  t.expert_bias = true;
  t.router_bias = true;
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

/// GPT-J: rotary, one LayerNorm feeding attention and MLP in parallel, bias-free q/k/v/o,
/// biased fc_in/fc_out, a biased untied LM head; n_inner null means 4h.
void readGptj(HfFields& f, Transformer& t) {
  t.hidden = f.reqInt("hidden", {"n_embd"});
  t.layers = f.reqInt("layers", {"n_layer"});
  t.heads = f.reqInt("heads", {"n_head"});
  t.kv_heads = t.heads;
  t.ffn = f.optInt("ffn", {"n_inner"}).value_or(4 * t.hidden);
  t.vocab = f.reqInt("vocab", {"vocab_size"});
  t.max_positions = f.optInt("max_positions", {"n_positions"}).value_or(2048);
  t.parallel_block = true;
  t.norms_per_layer = 1;
  t.mlp_bias = true;
  t.lm_head_bias = true;
  t.tied_embeddings = f.optBool({"tie_word_embeddings"}, false);
}

/// BLOOM: ALiBi (no position parameters), a LayerNorm after the embeddings, biases
/// everywhere, a 4h MLP, tied head.
void readBloom(HfFields& f, Transformer& t) {
  t.hidden = f.reqInt("hidden", {"hidden_size", "n_embed"});
  t.layers = f.reqInt("layers", {"n_layer", "num_hidden_layers"});
  t.heads = f.reqInt("heads", {"n_head", "num_attention_heads"});
  t.kv_heads = t.heads;
  t.ffn = 4 * t.hidden;  // BloomMLP: dense_h_to_4h
  t.vocab = f.reqInt("vocab", {"vocab_size"});
  t.positions = PositionKind::kNone;
  t.embedding_norm = true;
  t.qkv_bias = t.out_bias = t.mlp_bias = true;
  t.tied_embeddings = f.optBool({"tie_word_embeddings"}, true);
}

[[noreturn]] void refuseMpt(const std::string& path, const std::string& what) {
  throw InputError(ErrorCode::kValue, path,
                   "model_type 'mpt' with " + what + " is not modelled by dlcost");
}

/// An MPT config's nested section (attn_config, ffn_config), when present.
std::optional<HfFields> mptSection(HfFields& f, const char* name) {
  const json* v = f.find({name});
  if (!v) return std::nullopt;
  HfFields nested(*v, f.pathOf(name));  // throws kType unless an object
  nested.model_type = "mpt";
  return nested;
}

/// attn_config: heads (multi-head, multi-query, grouped), q/k norms, dropout and the
/// positions (MPTConfig sets learned_pos_emb false when alibi or rope is on).
void readMptAttention(HfFields& f, Transformer& t) {
  std::optional<HfFields> attn = mptSection(f, "attn_config");
  if (!attn || !attn->find({"alibi"})) {
    throw InputError(ErrorCode::kMissingField, childPath(f.pathOf("attn_config"), "alibi"),
                     "model_type 'mpt' needs attn_config.alibi: its default differs between "
                     "llm-foundry (false: learned positions) and transformers (true)");
  }
  const std::string attn_path = f.pathOf("attn_config");
  const std::string type = attn->optString({"attn_type"}).value_or("multihead_attention");
  if (type == "multihead_attention") {
    t.kv_heads = t.heads;
  } else if (type == "multiquery_attention") {
    t.kv_heads = 1;
  } else if (type == "grouped_query_attention") {
    t.kv_heads = attn->reqInt("kv_heads", {"kv_n_heads"});
    f.paths["kv_heads"] = attn->paths["kv_heads"];
  } else {
    refuseMpt(childPath(attn_path, "attn_type"), "attn_type \"" + type + "\"");
  }
  const bool qk_ln = attn->optBool({"qk_ln"}, false);
  const bool qk_gn = attn->optBool({"qk_gn"}, false);
  if (qk_ln && qk_gn)
    refuseMpt(childPath(attn_path, "qk_gn"), "both qk_ln and qk_gn (llm-foundry refuses it too)");
  // q_ln over n_heads x head_dim and k_ln over kv_n_heads x head_dim (qk_ln), or both over
  // head_dim (qk_gn), of norm_type.
  t.qk_norm = qk_ln || qk_gn;
  t.qk_norm_full = qk_ln;
  const bool alibi = attn->optBool({"alibi"}, false);
  const bool rope = attn->optBool({"rope"}, false);
  if (attn->optBool({"nope"}, false)) refuseMpt(childPath(attn_path, "nope"), "attn_config.nope");
  if (attn->optInt("sliding_window", {"sliding_window_size"}, -1).value_or(-1) != -1)
    refuseMpt(childPath(attn_path, "sliding_window_size"), "a sliding window");
  for (const char* key : {"kv_dim", "reuse_kv_layer_idx", "reuse_kv_x_layer_idx"})
    if (attn->find({key})) refuseMpt(childPath(attn_path, key), std::string("attn_config.") + key);
  t.attention_dropout = attn->anyPositive({"attn_pdrop"});

  const bool learned = f.optBool({"learned_pos_emb"}, true) && !alibi && !rope;
  t.positions =
      learned ? PositionKind::kLearned : (rope ? PositionKind::kRotary : PositionKind::kNone);
}

/// ffn_config (mptmlp, mptglu; ffn_hidden_size, else d_model x expansion_ratio), norm_type
/// and the biases no_bias removes.
void readMptMlp(HfFields& f, Transformer& t) {
  // MLP: ffn_config.ffn_hidden_size, else d_model x expansion_ratio (an integer).
  std::optional<HfFields> ffn = mptSection(f, "ffn_config");
  const std::string ffn_type =
      ffn ? ffn->optString({"ffn_type"}).value_or("mptmlp") : std::string("mptmlp");
  if (ffn_type != "mptmlp" && ffn_type != "mptglu")
    refuseMpt(childPath(f.pathOf("ffn_config"), "ffn_type"), "ffn_type \"" + ffn_type + "\"");
  t.gated_mlp = ffn_type == "mptglu";
  if (auto width = ffn ? ffn->optInt("ffn", {"ffn_hidden_size"}) : std::nullopt) {
    t.ffn = *width;
    f.paths["ffn"] = ffn->paths["ffn"];
  } else {
    const double ratio = f.optNumber({"expansion_ratio"}, 4);
    const double width_d = static_cast<double>(t.hidden) * ratio;
    if (!(width_d >= 1) || width_d > static_cast<double>(kMaxDimension) ||
        width_d != std::floor(width_d)) {
      throw InputError(ErrorCode::kValue, f.pathOf("expansion_ratio"),
                       "model_type 'mpt' needs d_model x expansion_ratio to be a whole number "
                       "of at least 1 (as llm-foundry's resolve_ffn_hidden_size does)");
    }
    t.ffn = static_cast<int64_t>(width_d);
  }

  // Norms: LayerNorm (low_precision_layernorm is one in lower precision) or RMSNorm.
  const std::string norm = f.optString({"norm_type"}).value_or("low_precision_layernorm");
  if (norm == "layernorm" || norm == "low_precision_layernorm") {
    t.norm = NormKind::kLayerNorm;
  } else if (norm == "rmsnorm" || norm == "low_precision_rmsnorm" || norm == "triton_rmsnorm") {
    t.norm = NormKind::kRmsNorm;
  } else {
    refuseMpt(f.pathOf("norm_type"), "norm_type \"" + norm + "\"");
  }
  const bool no_bias = f.optBool({"no_bias"}, false);
  t.norm_bias = !no_bias;
  t.out_bias = t.mlp_bias = !no_bias;
  t.qkv_bias = f.optBool({"attention_bias"}, !no_bias);
}

/// MPT (model_type "mpt"): mosaicml's hub models run llm-foundry's MPTModel as remote code,
/// and transformers' MptModel reads the same config.json. Counted as llm-foundry builds it
/// (llmfoundry/models/mpt/modeling_mpt.py, layers/attention.py, ffn.py, blocks.py): wte (the
/// logits reuse it unless tie_word_embeddings is false), wpe of max_seq_len x d_model when
/// learned_pos_emb and neither alibi nor rope (MPTConfig turns learned_pos_emb off with
/// either), pre-norm blocks of norm_1, Wqkv, out_proj, norm_2, up_proj, GELU, down_proj
/// (mptmlp; mptglu adds gate_proj), norm_f. no_bias removes the biases of every linear and
/// norm (attention_bias, when set, decides Wqkv's). Defaults are MPTConfig's; alibi has none
/// dlcost can take (llm-foundry's default is false, transformers' MptAttentionConfig's true),
/// so a config without it is refused. Options that change the module tree in ways not
/// modelled are refused by name.
void readMpt(HfFields& f, Transformer& t) {
  t.hidden = f.reqInt("hidden", {"d_model"});
  t.heads = f.reqInt("heads", {"n_heads"});
  t.layers = f.reqInt("layers", {"n_layers"});
  t.vocab = f.reqInt("vocab", {"vocab_size"});
  t.max_positions = f.optInt("max_positions", {"max_seq_len"}).value_or(2048);
  // transformers' MptAttention: softmax(attention_scores.float()).to(value_states.dtype).
  t.softmax_fp32 = true;
  if (f.find({"block_overrides"})) refuseMpt(f.pathOf("block_overrides"), "block_overrides");
  readMptAttention(f, t);
  readMptMlp(f, t);
  t.tied_embeddings = f.optBool({"tie_word_embeddings"}, true);
  t.hidden_dropout = f.anyPositive({"resid_pdrop", "emb_pdrop"});
}

/// GPT-BigCode (StarCoder, SantaCoder): GPT-2's layer with multi-query attention.
void readGptBigcode(HfFields& f, Transformer& t) {
  t.hidden = f.reqInt("hidden", {"n_embd"});
  t.layers = f.reqInt("layers", {"n_layer"});
  t.heads = f.reqInt("heads", {"n_head"});
  t.kv_heads = f.optBool({"multi_query"}, true) ? 1 : t.heads;
  t.ffn = f.optInt("ffn", {"n_inner"}).value_or(4 * t.hidden);
  t.vocab = f.reqInt("vocab", {"vocab_size"});
  t.max_positions = f.optInt("max_positions", {"n_positions"}).value_or(1024);
  t.positions = PositionKind::kLearned;
  t.qkv_bias = t.out_bias = t.mlp_bias = true;
  t.tied_embeddings = f.optBool({"tie_word_embeddings"}, true);
}

/// StarCoder2: GQA, rotary, LayerNorm with bias, a non-gated c_fc/c_proj MLP, biases as
/// use_bias says, tied head, sliding_window on every layer.
void readStarcoder2(HfFields& f, Transformer& t) {
  readLlamaLike(f, t, "starcoder2");
  t.gated_mlp = false;
  t.norm = NormKind::kLayerNorm;
  t.norm_bias = true;
  const bool bias = f.optBool({"use_bias"}, true);
  t.qkv_bias = t.out_bias = t.mlp_bias = bias;
  t.tied_embeddings = f.optBool({"tie_word_embeddings"}, true);
}

/// OPT: learned positions with 2 extra rows, LayerNorm, biases, a ReLU fc1/fc2 MLP, tied
/// head. A word_embed_proj_dim other than hidden_size (OPT-350m) makes the token table and
/// head that wide, with bias-free project_in / project_out (modeling_opt.py, OPTDecoder).
/// do_layer_norm_before false (OPT-350m's post-LN layers): the same two LayerNorms per layer,
/// no final one.
void readOpt(HfFields& f, Transformer& t) {
  t.hidden = f.reqInt("hidden", {"hidden_size"});
  t.layers = f.reqInt("layers", {"num_hidden_layers"});
  t.heads = f.reqInt("heads", {"num_attention_heads"});
  t.kv_heads = t.heads;
  t.ffn = f.reqInt("ffn", {"ffn_dim"});
  t.vocab = f.reqInt("vocab", {"vocab_size"});
  t.max_positions = f.optInt("max_positions", {"max_position_embeddings"}).value_or(2048);
  t.position_offset = 2;  // OPTLearnedPositionalEmbedding: num_embeddings + 2
  t.positions = PositionKind::kLearned;
  const bool bias = f.optBool({"enable_bias"}, true);
  t.qkv_bias = t.out_bias = t.mlp_bias = bias;
  t.final_norm = f.optBool({"do_layer_norm_before"}, true);
  t.tied_embeddings = f.optBool({"tie_word_embeddings"}, true);
  if (auto proj = f.optInt("word_embed_proj_dim", {"word_embed_proj_dim"});
      proj && *proj != t.hidden)
    t.word_embed_proj = *proj;
}

/// InternLM2 / 2.5 (remote code, modeling_internlm2.py): Llama's layer with q, k and v in
/// one `wqkv` (and `wo`) biased as `bias` says, w1/w3/w2 without bias, an untied `output`.
void readInternlm2(HfFields& f, Transformer& t) {
  readLlamaLike(f, t, "internlm2");
  const bool bias = f.optBool({"bias"}, true);  // InternLM2Config: bias=True
  t.qkv_bias = t.out_bias = bias;
  t.mlp_bias = false;
  t.tied_embeddings = f.optBool({"tie_word_embeddings"}, false);
}

/// Baichuan 2 (remote code, modeling_baichuan.py): Llama's layer with q, k and v in one
/// bias-free `W_pack`, multi-head attention, an untied NormHead (vocab x hidden, the same
/// count). The 13B model attends with ALiBi and its config has no max_position_embeddings
/// (model_max_length instead): refused, not modelled.
void readBaichuan(HfFields& f, Transformer& t) {
  if (!f.find({"max_position_embeddings"})) {
    throw InputError(ErrorCode::kValue, f.pathOf("max_position_embeddings"),
                     "model_type 'baichuan' without max_position_embeddings is the ALiBi "
                     "variant (Baichuan 13B), which is not modelled");
  }
  readLlamaLike(f, t, "baichuan");
  t.kv_heads = t.heads;
  t.qkv_bias = t.out_bias = t.mlp_bias = false;
  t.tied_embeddings = f.optBool({"tie_word_embeddings"}, false);
}

/// StableLM and Stable LM 2 (transformers' modeling_stablelm.py): Llama's projections with
/// q/k/v biased as use_qkv_bias says and a bias-free o_proj, a bias-free gated MLP, LayerNorms
/// with bias, an untied lm_head. Rotary on partial_rotary_factor of each head adds no
/// parameter. qk_layernorm adds StableLmLayerNormPerHead to q and k: one bias-free
/// LayerNorm(head_dim) per query head and per key head. use_parallel_residual: one
/// input_layernorm feeds attention and MLP, and post_attention_layernorm is absent.
void readStablelm(HfFields& f, Transformer& t) {
  // readLlamaLike's fp32 softmax holds: StableLmAttention's eager path runs
  // `softmax(attn_weights, dtype=torch.float32, dim=-1).to(query_states.dtype)`.
  readLlamaLike(f, t, "stablelm");
  t.norm = NormKind::kLayerNorm;
  t.norm_bias = true;
  t.qkv_bias = f.optBool({"use_qkv_bias"}, false);
  t.out_bias = t.mlp_bias = false;
  t.qk_norm = t.qk_norm_full = t.qk_norm_bias_free = f.optBool({"qk_layernorm"}, false);
  t.parallel_block = f.optBool({"use_parallel_residual"}, false);
  t.norms_per_layer = t.parallel_block ? 1 : 2;
  t.tied_embeddings = f.optBool({"tie_word_embeddings"}, false);
}

/// Cohere (Command-R): one weight-only LayerNorm feeding attention and MLP in parallel,
/// SwiGLU, optional LayerNorms of q and k over all heads, tied head.
void readCohere(HfFields& f, Transformer& t) {
  readLlamaLike(f, t, "cohere");
  t.norm = NormKind::kLayerNorm;
  t.norm_bias = false;
  t.parallel_block = true;
  t.norms_per_layer = 1;
  t.qk_norm = t.qk_norm_full = f.optBool({"use_qk_norm"}, false);
  t.tied_embeddings = f.optBool({"tie_word_embeddings"}, true);
}

/// OLMo: LayerNorm without parameters. OLMo 2: RMSNorm after attention and after the MLP
/// (not before), q and k normed over their full width.
void readOlmo(HfFields& f, Transformer& t, const std::string& family) {
  readLlamaLike(f, t, family);
  if (family == "olmo") {
    t.norm = NormKind::kNoAffine;
  } else {
    t.qk_norm = t.qk_norm_full = true;
  }
}

/// DistilBERT: BERT's embeddings without token types, post-norm layers, no pooler.
void readDistilbert(HfFields& f, Transformer& t) {
  t.kind = TransformerKind::kEncoder;
  t.hidden = f.reqInt("hidden", {"dim"});
  t.layers = f.reqInt("layers", {"n_layers"});
  t.heads = f.reqInt("heads", {"n_heads"});
  t.kv_heads = t.heads;
  t.ffn = f.reqInt("ffn", {"hidden_dim"});
  t.vocab = f.reqInt("vocab", {"vocab_size"});
  t.max_positions = f.optInt("max_positions", {"max_position_embeddings"}).value_or(512);
  // Sinusoidal positions are a frozen table: still a parameter tensor of the same size.
  t.positions = PositionKind::kLearned;
  t.qkv_bias = t.out_bias = t.mlp_bias = true;
  t.embedding_norm = true;
  t.final_norm = false;
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
                     "' is not one dlcost models exactly; read, as asked, as a generic decoder, "
                     "so the parameter count and every figure from it are APPROXIMATE: "
                     "pre-norm layers "
                     "with RMSNorm, rotary positions, a gated (SwiGLU) MLP, no biases unless "
                     "attention_bias/mlp_bias, an LM head " +
                     (t.tied_embeddings ? "tied to" : "separate from") + " the embeddings" +
                     (t.experts ? ", a top-k MoE MLP" : "") +
                     "; parameters may differ from the real model");
}

}  // namespace

namespace {

/// A family's reader: fills `t` from the config's fields (`family` is the model_type read).
using FamilyReader = void (*)(HfFields& f, Transformer& t, const std::string& family);

/// Adapts a reader that needs no model_type to FamilyReader.
template <void (*Read)(HfFields&, Transformer&)>
void anyType(HfFields& f, Transformer& t, const std::string& /*family*/) {
  Read(f, t);
}

/// A config class's defaults for the size keys (transformers' configuration_<model_type>.py),
/// used where a config omits them: a multimodal wrapper's text_config keeps only the keys that
/// differ from its class's defaults (PretrainedConfig.to_diff_dict).
using ConfigDefaults = std::map<std::string, int64_t>;

const ConfigDefaults kLlamaConfig = {
    {"vocab_size", 32000},     {"hidden_size", 4096},       {"intermediate_size", 11008},
    {"num_hidden_layers", 32}, {"num_attention_heads", 32}, {"max_position_embeddings", 2048}};
const ConfigDefaults kMistralConfig = {  // MistralConfig, MixtralConfig
    {"vocab_size", 32000},
    {"hidden_size", 4096},
    {"intermediate_size", 14336},
    {"num_hidden_layers", 32},
    {"num_attention_heads", 32},
    {"num_key_value_heads", 8},
    {"max_position_embeddings", 131072},
    {"num_local_experts", 8},
    {"num_experts_per_tok", 2}};
const ConfigDefaults kQwen2Config = {  // Qwen2Config, Qwen3Config
    {"vocab_size", 151936},    {"hidden_size", 4096},       {"intermediate_size", 22016},
    {"num_hidden_layers", 32}, {"num_attention_heads", 32}, {"max_position_embeddings", 32768},
    {"max_window_layers", 28}, {"sliding_window", 4096}};
const ConfigDefaults kQwen2MoeConfig = {{"vocab_size", 151936},
                                        {"hidden_size", 2048},
                                        {"intermediate_size", 5632},
                                        {"num_hidden_layers", 24},
                                        {"num_attention_heads", 16},
                                        {"num_key_value_heads", 16},
                                        {"max_position_embeddings", 32768}};
const ConfigDefaults kQwen3MoeConfig = {{"vocab_size", 151936},
                                        {"hidden_size", 2048},
                                        {"intermediate_size", 6144},
                                        {"num_hidden_layers", 24},
                                        {"num_attention_heads", 32},
                                        {"num_key_value_heads", 4},
                                        {"max_position_embeddings", 32768}};
const ConfigDefaults kGemmaConfig = {{"vocab_size", 256000},
                                     {"hidden_size", 3072},
                                     {"intermediate_size", 24576},
                                     {"num_hidden_layers", 28},
                                     {"num_attention_heads", 16},
                                     {"num_key_value_heads", 16},
                                     {"head_dim", 256},
                                     {"max_position_embeddings", 8192}};
const ConfigDefaults kGemma2Config = {
    {"vocab_size", 256000},      {"hidden_size", 2304},
    {"intermediate_size", 9216}, {"num_hidden_layers", 26},
    {"num_attention_heads", 8},  {"num_key_value_heads", 4},
    {"head_dim", 256},           {"max_position_embeddings", 8192},
    {"sliding_window", 4096}};
const ConfigDefaults kGemma3TextConfig = {
    {"vocab_size", 262208},      {"hidden_size", 2304},
    {"intermediate_size", 9216}, {"num_hidden_layers", 26},
    {"num_attention_heads", 8},  {"num_key_value_heads", 4},
    {"head_dim", 256},           {"max_position_embeddings", 131072},
    {"sliding_window", 4096},    {"sliding_window_pattern", 6}};
const ConfigDefaults kDeepseekV3Config = {
    {"vocab_size", 129280},    {"hidden_size", 7168},        {"intermediate_size", 18432},
    {"num_hidden_layers", 61}, {"num_attention_heads", 128}, {"max_position_embeddings", 4096}};
const ConfigDefaults kGptOssConfig = {{"vocab_size", 201088},
                                      {"hidden_size", 2880},
                                      {"intermediate_size", 2880},
                                      {"num_hidden_layers", 36},
                                      {"num_attention_heads", 64},
                                      {"num_key_value_heads", 8},
                                      {"head_dim", 64},
                                      {"max_position_embeddings", 131072}};
const ConfigDefaults kStablelmConfig = {{"vocab_size", 50304},
                                        {"hidden_size", 2560},
                                        {"intermediate_size", 6912},
                                        {"num_hidden_layers", 32},
                                        {"num_attention_heads", 32},
                                        {"num_key_value_heads", 32},
                                        {"max_position_embeddings", 4096}};

/// The model_types whose every parameter dlcost counts exactly, each with its reader and its
/// config class's defaults (none: the reader needs none): the dispatch, the defaults and the
/// "supported" list of the error messages all come from here.
struct ExactFamily {
  const char* model_type;
  FamilyReader read;
  const ConfigDefaults* defaults = nullptr;
};
const ExactFamily kExactFamilies[] = {
    {"llama", readLlamaLike, &kLlamaConfig},
    {"mistral", readLlamaLike, &kMistralConfig},
    {"mixtral", readLlamaLike, &kMistralConfig},
    {"qwen2", readLlamaLike, &kQwen2Config},
    {"qwen3", readLlamaLike, &kQwen2Config},
    {"qwen2_moe", readQwenMoe, &kQwen2MoeConfig},
    {"qwen3_moe", readQwenMoe, &kQwen3MoeConfig},
    {"gemma", readLlamaLike, &kGemmaConfig},
    {"gemma2", readLlamaLike, &kGemma2Config},
    {"gemma3_text", readLlamaLike, &kGemma3TextConfig},
    {"phi", anyType<readPhi>},
    {"phi3", anyType<readPhi3>},
    {"phimoe", anyType<readPhimoe>},
    {"olmoe", anyType<readOlmoe>},
    {"deepseek", readDeepseek},
    {"deepseek_v2", readDeepseek},
    {"deepseek_v3", readDeepseek, &kDeepseekV3Config},
    {"gpt_oss", anyType<readGptOss>, &kGptOssConfig},
    {"gpt2", anyType<readGpt2>},
    {"gpt_neox", anyType<readGptNeox>},
    {"falcon", anyType<readFalcon>},
    {"bert", anyType<readBert>},
    {"roberta", anyType<readBert>},
    {"xlm-roberta", anyType<readBert>},
    {"t5", anyType<readT5>},
    {"mt5", anyType<readT5>},
    {"gptj", anyType<readGptj>},
    {"bloom", anyType<readBloom>},
    {"mpt", anyType<readMpt>},
    {"gpt_bigcode", anyType<readGptBigcode>},
    {"starcoder2", anyType<readStarcoder2>},
    {"opt", anyType<readOpt>},
    {"cohere", anyType<readCohere>},
    {"internlm2", anyType<readInternlm2>},
    {"baichuan", anyType<readBaichuan>},
    {"stablelm", anyType<readStablelm>, &kStablelmConfig},
    {"olmo", readOlmo},
    {"olmo2", readOlmo},
    {"distilbert", anyType<readDistilbert>},
    // Falcon's first releases name their model_type after the RefinedWeb dataset.
    {"refinedweb", anyType<readFalcon>},
    {"refinedwebmodel", anyType<readFalcon>},
};

const ExactFamily* exactFamily(const std::string& family) {
  for (const ExactFamily& e : kExactFamilies)
    if (family == e.model_type) return &e;
  return nullptr;
}

/// Multimodal wrappers: their language model's model_type when text_config omits it (the
/// wrapper config class's default), or when the text keys sit at the top level (Qwen2-VL).
const std::map<std::string, std::string>& wrapperTextTypes() {
  static const std::map<std::string, std::string> kWrappers = {
      {"llava", "llama"},        {"llava_next", "llama"}, {"mistral3", "mistral"},
      {"gemma3", "gemma3_text"}, {"qwen2_vl", "qwen2"},   {"qwen2_5_vl", "qwen2"},
      {"paligemma", "gemma"}};
  return kWrappers;
}

/// Families users bring that are no decoder LLM, by what they are (transformers' model_type
/// names); null for any other.
const char* notADecoder(const std::string& family) {
  static const std::map<std::string, const char*> kinds = {
      {"whisper", "an encoder-decoder speech model (Whisper)"},
      {"bart", "an encoder-decoder model (BART)"},
      {"mbart", "an encoder-decoder model (mBART)"},
      {"marian", "an encoder-decoder model (Marian)"},
      {"pegasus", "an encoder-decoder model (Pegasus)"},
      {"m2m_100", "an encoder-decoder model (M2M-100)"},
      {"nllb_moe", "an encoder-decoder model (NLLB-MoE)"},
      {"modernbert", "an encoder (ModernBERT: alternating local/global attention, GeGLU)"},
      {"electra", "an encoder (ELECTRA: embedding projection to a narrower width)"},
      {"albert", "an encoder (ALBERT: factorised embeddings, one layer shared by all)"},
      {"deberta", "an encoder (DeBERTa: disentangled attention)"},
      {"deberta-v2", "an encoder (DeBERTa-v2: disentangled attention)"},
      {"camembert", "an encoder (CamemBERT)"},
      {"xlm", "an encoder (XLM)"},
      {"vit", "a vision encoder (ViT)"},
      {"deit", "a vision encoder (DeiT)"},
      {"dinov2", "a vision encoder (DINOv2)"},
      {"beit", "a vision encoder (BEiT)"},
      {"swin", "a vision encoder (Swin)"},
      {"clip", "a dual vision and text encoder (CLIP)"},
      {"clip_vision_model", "a vision encoder (CLIP's)"},
      {"clip_text_model", "a text encoder (CLIP's)"},
      {"siglip", "a dual vision and text encoder (SigLIP)"},
      {"siglip_vision_model", "a vision encoder (SigLIP's)"},
      {"siglip_text_model", "a text encoder (SigLIP's)"},
  };
  const auto it = kinds.find(family);
  return it == kinds.end() ? nullptr : it->second;
}

std::string supportedList() {
  std::string list;
  for (const ExactFamily& e : kExactFamilies)
    list += (list.empty() ? "" : ", ") + std::string(e.model_type);
  for (const auto& [w, text] : wrapperTextTypes()) list += ", " + w;
  return list;
}

}  // namespace

namespace {

/// A wrapper's vision tower and projector, or with `text_only` a warning that they are left out.
void addVision(Transformer& t, const json& config, const std::string& path,
               const std::string& family, bool text_only, std::vector<std::string>& warnings) {
  if (text_only) {
    t.text_only_of = family;
    warnings.push_back("text only, as asked: the language model of '" + family +
                       "'; its vision tower and projector are left out of every figure");
  } else {
    t.vision = readHfVision(config, path, family, t);
  }
}

/// A multimodal config that keeps its language model in text_config: that model, then for a
/// wrapper (`text_type`: its language model's model_type) the vision tower and projector. Any
/// other multimodal model_type only approximately, its language model alone.
Transformer readTextConfig(const json& config, const json& text, const std::string& path,
                           const std::string& family, const std::string* text_type,
                           std::vector<std::string>& warnings, bool approximate, bool text_only) {
  if (!text_type && !approximate) {
    throw InputError(ErrorCode::kValue, childPath(path, "model_type"),
                     "multimodal model_type '" + family +
                         "' is not one dlcost models; supported: " + supportedList() +
                         ". For an approximate count of its language model, ask for the "
                         "generic reading (\"approximate\": true next to hf_config, or "
                         "--approximate)");
  }
  json inner = text;
  if (!inner.contains("model_type") || inner["model_type"].is_null())
    inner["model_type"] = text_type ? *text_type : family + "_text";
  Transformer t = readHfConfig(inner, childPath(path, "text_config"), warnings, approximate);
  if (text_type) {
    addVision(t, config, path, family, text_only, warnings);
  } else {
    warnings.push_back("read the language model of '" + family +
                       "' from text_config, as asked (approximate); its vision tower and "
                       "projector are not counted");
  }
  return t;
}

/// A wrapper whose language model's keys sit at the top level (older Qwen2-VL files), read as
/// that language model alone when the user asked for it: refused otherwise.
void requireTextOnly(const json& config, const std::string& path, const std::string& family,
                     bool text_only, std::vector<std::string>& warnings) {
  if (!text_only) {
    if (family == "qwen2_vl" || family == "qwen2_5_vl")
      readHfVision(config, path, family, Transformer{});  // refuses, saying why
    throw InputError(ErrorCode::kMissingField, childPath(path, "text_config"),
                     "model_type '" + family +
                         "' keeps its language model in text_config; ask for text_only to "
                         "read these top-level keys as its language model alone");
  }
  warnings.push_back("text only, as asked: the language model of '" + family +
                     "'; its vision tower and projector are left out of every figure");
}

/// Refuses a family that is no decoder LLM, and one not counted exactly unless `approximate`.
void refuseUncounted(const std::string& family, const std::string& path, bool approximate) {
  if (const char* kind = notADecoder(family); kind && !exactFamily(family)) {
    // The generic reading is a Llama-like decoder LLM: no figure of it would be near an
    // encoder's or a vision model's, so even an approximate one is refused.
    throw InputError(ErrorCode::kValue, childPath(path, "model_type"),
                     "model_type '" + family + "' is " + kind +
                         ", which dlcost does not count (not even approximately: its generic "
                         "reading is a decoder LLM); supported: " +
                         supportedList());
  }
  if (!exactFamily(family) && !approximate) {
    throw InputError(ErrorCode::kValue, childPath(path, "model_type"),
                     "model_type '" + family +
                         "' is not one dlcost counts exactly; supported: " + supportedList() +
                         ". For an approximate count (a generic Llama-like decoder), ask for "
                         "it: \"approximate\": true next to hf_config, or --approximate");
  }
}

/// The family's reader from kExactFamilies (with its config class's defaults), or the generic
/// reading; then head_dim, given or derived, and the checks of the whole.
Transformer readFamily(HfFields& f, const std::string& family, std::vector<std::string>& warnings) {
  Transformer t;
  t.architecture = family;
  if (const ExactFamily* exact = exactFamily(family)) {
    if (exact->defaults) f.defaults = *exact->defaults;
    exact->read(f, t, family);
  } else {
    readGeneric(f, t, family, warnings);
    t.architecture = "generic";
    t.approximate = true;
  }
  readDropout(f, t);
  bool head_dim_given = t.head_dim > 0;
  if (!head_dim_given) {
    auto d = f.defaults.find("head_dim");
    if (auto hd = f.optInt("head_dim", {"head_dim"})) {
      t.head_dim = *hd;
      head_dim_given = true;
    } else if (d != f.defaults.end()) {
      t.head_dim = d->second;
      head_dim_given = true;
    }
  }
  validateTransformer(t, f.paths, head_dim_given);
  if (!head_dim_given) t.head_dim = t.hidden / t.heads;
  return t;
}

}  // namespace

Transformer readHfConfig(const json& config, const std::string& path,
                         std::vector<std::string>& warnings, bool approximate, bool text_only) {
  HfFields f(config, path);
  std::string family = familyOf(f, config, path);
  // Multimodal wrappers (LLaVA, Gemma 3, Mistral 3, PaliGemma, ...) keep the language
  // model's config in text_config (Qwen2-VL at the top level): read that, then the vision
  // tower and projector, unless the user asked for the language model alone.
  const auto wrapper = wrapperTextTypes().find(family);
  const std::string* text_type = wrapper == wrapperTextTypes().end() ? nullptr : &wrapper->second;
  const json* text = f.find({"text_config"});
  // (PaliGemma repeats the text hidden_size at the top level.)
  if (text && text->is_object() && (text_type || !f.find({"hidden_size", "n_embd", "d_model"})))
    return readTextConfig(config, *text, path, family, text_type, warnings, approximate, text_only);
  std::string text_only_of;
  if (text_type) {
    requireTextOnly(config, path, family, text_only, warnings);
    text_only_of = family;
    family = *text_type;
  }
  refuseUncounted(family, path, approximate);
  f.model_type = family;
  f.nested = path.find("text_config") != std::string::npos;
  Transformer t = readFamily(f, family, warnings);
  t.text_only_of = text_only_of;
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
