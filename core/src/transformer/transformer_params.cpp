// Exact parameter counts of a Transformer, component by component.
#include <optional>

#include "dlcost/base/checked.hpp"
#include "dlcost/types/transformer.hpp"

namespace dlcost {

namespace {

int64_t linearParams(int64_t in, int64_t out, bool bias) {
  return checkedAdd(checkedMul(in, out), bias ? out : 0);
}

/// One attention (self or cross): its projections with their biases, gpt-oss's sinks.
int64_t attentionParams(const Transformer& t) {
  int64_t p = attentionMatrixElements(t);
  if (t.kv_lora_rank > 0) {
    // DeepSeek's q_a_proj (or q_proj), kv_a_proj_with_mqa and o_proj take attention_bias.
    if (t.qkv_bias) {
      p = checkedAdd(p, t.q_lora_rank > 0 ? t.q_lora_rank : queryWidth(t));
      p = checkedAdd(p, checkedAdd(t.kv_lora_rank, t.qk_rope_head_dim));
    }
  } else if (t.qkv_bias) {
    p = checkedAdd(p, checkedAdd(queryWidth(t), checkedAdd(keyWidth(t), valueWidth(t))));
  }
  if (t.out_bias) p = checkedAdd(p, t.hidden);
  if (t.attention_sinks) p = checkedAdd(p, t.heads);
  return p;
}

/// One MLP of width `ffn` (one expert), with biases when `bias`.
int64_t mlpParams(const Transformer& t, int64_t ffn, bool bias) {
  const int64_t up = linearParams(t.hidden, ffn, bias);
  const int64_t down = linearParams(ffn, t.hidden, bias);
  return checkedAdd(checkedMul(t.gated_mlp ? 2 : 1, up), down);
}

/// The MoE block's parts every token uses: router, shared expert and its gate.
int64_t moeSharedParams(const Transformer& t) {
  int64_t p = checkedMul(t.hidden, t.experts);
  if (t.router_bias) p = checkedAdd(p, t.experts);
  if (t.shared_expert_ffn > 0) p = checkedAdd(p, mlpParams(t, t.shared_expert_ffn, false));
  if (t.shared_expert_gate) p = checkedAdd(p, t.hidden);
  return p;
}

int64_t expertParams(const Transformer& t) {
  return mlpParams(t, t.expert_ffn > 0 ? t.expert_ffn : t.ffn, t.expert_bias || t.mlp_bias);
}

}  // namespace

int64_t normParams(const Transformer& t) {
  if (t.norm == NormKind::kNoAffine) return 0;
  return t.norm == NormKind::kLayerNorm && t.norm_bias ? checkedMul(2, t.hidden) : t.hidden;
}

int64_t attentionNormParams(const Transformer& t) {
  int64_t p = 0;
  const bool bias = t.norm == NormKind::kLayerNorm && t.norm_bias && !t.qk_norm_bias_free;
  if (t.qk_norm) {
    p = t.qk_norm_full ? checkedAdd(queryWidth(t), keyWidth(t)) : checkedMul(2, t.head_dim);
    if (bias) p = checkedMul(2, p);
  }
  if (t.kv_lora_rank > 0) p = checkedAdd(p, checkedAdd(t.q_lora_rank, t.kv_lora_rank));
  return p;
}

namespace {

bool isMoe(const Transformer& t) {
  return t.experts > 0;
}

}  // namespace

TransformerParams countParams(const Transformer& t) {
  TransformerParams p;
  p.embeddings = checkedMul(t.vocab, tokenWidth(t));
  if (t.positions == PositionKind::kLearned)
    p.embeddings = checkedAdd(p.embeddings,
                              checkedMul(checkedAdd(t.max_positions, t.position_offset), t.hidden));
  p.embeddings = checkedAdd(p.embeddings, checkedMul(t.type_vocab, t.hidden));

  const bool enc_dec = t.kind == TransformerKind::kEncoderDecoder;
  const int64_t stack_layers = enc_dec ? checkedAdd(t.layers, t.encoder_layers) : t.layers;
  // Decoder layers of an encoder-decoder also attend to the encoder output.
  const int64_t attentions =
      enc_dec ? checkedAdd(checkedMul(2, t.layers), t.encoder_layers) : t.layers;
  p.attention = checkedMul(attentions, attentionParams(t));

  // MLPs: dense layers hold one MLP; MoE layers all experts plus router and shared expert,
  // of which a token uses experts_per_token experts and the rest.
  int64_t moe_layers = 0;
  for (int64_t i = 0; i < t.layers; ++i) moe_layers += isMoeLayer(t, i) ? 1 : 0;
  if (enc_dec && isMoe(t)) moe_layers = stack_layers;
  const int64_t dense_layers = checkedSub(stack_layers, moe_layers);
  const int64_t dense_mlp = mlpParams(t, t.ffn, t.mlp_bias);
  int64_t moe_mlp = 0, moe_active = 0;
  if (isMoe(t)) {
    moe_mlp = checkedAdd(checkedMul(t.experts, expertParams(t)), moeSharedParams(t));
    moe_active = checkedAdd(checkedMul(t.experts_per_token, expertParams(t)), moeSharedParams(t));
  }
  p.mlp = checkedAdd(checkedMul(dense_layers, dense_mlp), checkedMul(moe_layers, moe_mlp));
  if (isMoe(t)) p.routed_experts = checkedMul(moe_layers, checkedMul(t.experts, expertParams(t)));

  int64_t norm_count = checkedMul(t.layers, t.norms_per_layer + (enc_dec ? 1 : 0));
  if (enc_dec) norm_count = checkedAdd(norm_count, checkedMul(t.encoder_layers, t.norms_per_layer));
  if (t.final_norm) norm_count = checkedAdd(norm_count, enc_dec ? 2 : 1);
  if (t.embedding_norm) norm_count = checkedAdd(norm_count, 1);
  p.norms = checkedMul(norm_count, normParams(t));
  p.norms = checkedAdd(p.norms, checkedMul(attentions, attentionNormParams(t)));

  if (t.kind != TransformerKind::kEncoder && !t.tied_embeddings)
    p.lm_head = linearParams(tokenWidth(t), t.vocab, t.lm_head_bias);
  else if (t.kind != TransformerKind::kEncoder && t.lm_head_bias)
    p.lm_head = t.vocab;

  if (t.pooler) p.other = linearParams(t.hidden, t.hidden, true);
  // OPT's project_in and project_out (OPTDecoder, bias-free).
  p.other = checkedAdd(p.other, checkedMul(2, embedProjectionParams(t)));
  if (t.positions == PositionKind::kRelativeBias) {
    // One bias table in the first layer of each stack (HF T5's has_relative_attention_bias).
    const int64_t tables = enc_dec ? 2 : 1;
    p.other = checkedAdd(p.other, checkedMul(tables, checkedMul(t.relative_buckets, t.heads)));
  }

  const int64_t language =
      checkedAdd(checkedAdd(checkedAdd(p.embeddings, p.attention), checkedAdd(p.mlp, p.norms)),
                 checkedAdd(p.lm_head, p.other));
  if (t.vision) {
    p.vision = visionTowerParams(*t.vision);
    p.projector = visionProjectorParams(*t.vision);
  }
  p.total = checkedAdd(language, checkedAdd(p.vision, p.projector));
  p.active_per_token =
      checkedSub(language, checkedMul(moe_layers, checkedSub(moe_mlp, moe_active)));

  // Linear weights a token meets in the blocks (norms, embeddings, LM head excluded).
  const int64_t attn_per_token = checkedMul(attentions, attentionParams(t));
  p.block_linear_per_token = checkedAdd(
      attn_per_token,
      checkedAdd(checkedMul(dense_layers, dense_mlp), checkedMul(moe_layers, moe_active)));
  return p;
}

namespace {

using Names = std::vector<std::string>;
const Names kQ{"q_proj"}, kK{"k_proj"}, kV{"v_proj"}, kO{"o_proj"},
    kQkv{"q_proj", "k_proj", "v_proj"};
const Names kGate{"gate_proj"}, kUp{"up_proj"}, kDown{"down_proj"};

/// The widths a block's projections are made of.
struct BlockWidths {
  int64_t h, f, q, kv;
  explicit BlockWidths(const Transformer& t)
      : h(t.hidden),
        f(t.ffn),
        q(checkedMul(t.heads, t.head_dim)),
        kv(checkedMul(t.kv_heads, t.head_dim)) {}
  int64_t qkv() const { return checkedAdd(q, checkedMul(2, kv)); }
};

/// T5's encoder layers (self-attention, MLP), then its decoder layers (self-attention,
/// cross-attention (EncDecAttention), MLP).
std::vector<LinearModule> t5Modules(const Transformer& t) {
  const BlockWidths w(t);
  std::vector<LinearModule> mlp;
  if (t.gated_mlp) {
    mlp = {{"wi_0", kGate, w.h, w.f}, {"wi_1", kUp, w.h, w.f}};
  } else {
    mlp = {{"wi", kUp, w.h, w.f}};
  }
  mlp.push_back({"wo", kDown, w.f, w.h});
  const std::vector<LinearModule> attention = {
      {"q", kQ, w.h, w.q}, {"k", kK, w.h, w.kv}, {"v", kV, w.h, w.kv}, {"o", kO, w.q, w.h}};
  std::vector<LinearModule> all;
  for (LinearModule m : attention) {
    m.encoder = true;
    all.push_back(m);
  }
  for (LinearModule m : mlp) {
    m.encoder = true;
    all.push_back(m);
  }
  for (int k = 0; k < 2; ++k)
    for (const LinearModule& m : attention) all.push_back(m);
  for (const LinearModule& m : mlp) all.push_back(m);
  return all;
}

/// MPT: llm-foundry's attn.Wqkv (fused_qkv, the default; Wq, Wk, Wv without it),
/// attn.out_proj, ffn.up_proj (gate_proj too under mptglu) and ffn.down_proj.
std::vector<LinearModule> mptModules(const Transformer& t) {
  const BlockWidths w(t);
  std::vector<LinearModule> mpt = {{"Wqkv", kQkv, w.h, w.qkv()}, {"out_proj", kO, w.q, w.h}};
  if (t.gated_mlp) mpt.push_back({"gate_proj", kGate, w.h, w.f});
  mpt.push_back({"up_proj", kUp, w.h, w.f});
  mpt.push_back({"down_proj", kDown, w.f, w.h});
  return mpt;
}

/// The modules of the families that name them their own way (every layer alike), or nothing
/// for Llama's names.
std::optional<std::vector<LinearModule>> namedModules(const Transformer& t) {
  const BlockWidths w(t);
  const int64_t h = w.h, f = w.f, q = w.q, kv = w.kv;
  const std::string& a = t.architecture;
  if (a == "gptj" || a == "opt") {
    const bool j = a == "gptj";
    return {{{"q_proj", kQ, h, q},
             {"k_proj", kK, h, kv},
             {"v_proj", kV, h, kv},
             {"out_proj", kO, q, h},
             {j ? "fc_in" : "fc1", kUp, h, f},
             {j ? "fc_out" : "fc2", kDown, f, h}}};
  }
  if (a == "starcoder2") {
    return {{{"q_proj", kQ, h, q},
             {"k_proj", kK, h, kv},
             {"v_proj", kV, h, kv},
             {"o_proj", kO, q, h},
             {"c_fc", kUp, h, f},
             {"c_proj", kDown, f, h}}};
  }
  if (a == "distilbert") {
    return {{{"q_lin", kQ, h, q},
             {"k_lin", kK, h, kv},
             {"v_lin", kV, h, kv},
             {"out_lin", kO, q, h},
             {"lin1", kUp, h, f},
             {"lin2", kDown, f, h}}};
  }
  if (a == "gpt2" || a == "gpt_bigcode") {
    // Conv1D modules; attention's and the MLP's output projections are both "c_proj".
    return {{{"c_attn", kQkv, h, w.qkv()},
             {"c_proj", kO, q, h},
             {"c_fc", kUp, h, f},
             {"c_proj", kDown, f, h}}};
  }
  if (a == "gpt_neox" || a == "bloom" || a == "falcon" || a == "refinedweb" ||
      a == "refinedwebmodel") {
    return {{{"query_key_value", kQkv, h, w.qkv()},
             {"dense", kO, q, h},
             {"dense_h_to_4h", kUp, h, f},
             {"dense_4h_to_h", kDown, f, h}}};
  }
  if (a == "mpt") return mptModules(t);
  if (a == "internlm2" || a == "baichuan") {
    // InternLM2's attention.wqkv/wo and feed_forward.w1/w3/w2; Baichuan's W_pack, o_proj
    // and Llama's MLP names.
    const bool intern = a == "internlm2";
    return {{{intern ? "wqkv" : "W_pack", kQkv, h, w.qkv()},
             {intern ? "wo" : "o_proj", kO, q, h},
             {intern ? "w1" : "gate_proj", kGate, h, f},
             {intern ? "w3" : "up_proj", kUp, h, f},
             {intern ? "w2" : "down_proj", kDown, f, h}}};
  }
  if (a == "phi3") {
    return {{{"qkv_proj", kQkv, h, w.qkv()},
             {"o_proj", kO, q, h},
             {"gate_up_proj", Names{"gate_proj", "up_proj"}, h, checkedMul(2, f)},
             {"down_proj", kDown, f, h}}};
  }
  if (a == "phi") {
    return {{{"q_proj", kQ, h, q},
             {"k_proj", kK, h, kv},
             {"v_proj", kV, h, kv},
             {"dense", kO, q, h},
             {"fc1", kUp, h, f},
             {"fc2", kDown, f, h}}};
  }
  if (a == "bert" || a == "roberta" || a == "xlm-roberta") {
    // BertSelfAttention query/key/value, BertSelfOutput/BertIntermediate/BertOutput dense.
    return {{{"query", kQ, h, q},
             {"key", kK, h, kv},
             {"value", kV, h, kv},
             {"dense", kO, q, h},
             {"dense", kUp, h, f},
             {"dense", kDown, f, h}}};
  }
  if (a == "t5" || a == "mt5") return t5Modules(t);
  return std::nullopt;
}

/// Llama's attention modules, or DeepSeek's MLA: q through a low-rank pair (or q_proj), k and
/// v from one latent.
std::vector<LinearModule> llamaAttentionModules(const Transformer& t) {
  const BlockWidths w(t);
  const int64_t h = w.h, q = w.q, kv = w.kv;
  if (t.kv_lora_rank == 0)
    return {
        {"q_proj", kQ, h, q}, {"k_proj", kK, h, kv}, {"v_proj", kV, h, kv}, {"o_proj", kO, q, h}};
  std::vector<LinearModule> m;
  const int64_t nope = t.head_dim - t.qk_rope_head_dim;
  if (t.q_lora_rank > 0) {
    m.push_back({"q_a_proj", kQ, h, t.q_lora_rank});
    m.push_back({"q_b_proj", kQ, t.q_lora_rank, q});
  } else {
    m.push_back({"q_proj", kQ, h, q});
  }
  m.push_back({"kv_a_proj_with_mqa", Names{"k_proj", "v_proj"}, h,
               checkedAdd(t.kv_lora_rank, t.qk_rope_head_dim)});
  m.push_back({"kv_b_proj", Names{"k_proj", "v_proj"}, t.kv_lora_rank,
               checkedMul(t.heads, checkedAdd(nope, t.v_head_dim))});
  m.push_back({"o_proj", kO, checkedMul(t.heads, t.v_head_dim), h});
  return m;
}

/// Llama's MLP modules appended to `m`: the dense MLP, the experts (Mixtral's and gpt-oss's
/// by their own names) and the shared expert, each in the layers that hold it.
void addLlamaMlpModules(const Transformer& t, std::vector<LinearModule>& m) {
  const int64_t h = t.hidden, f = t.ffn;
  const int64_t e = isMoe(t) ? t.experts : 1;
  const std::string& a = t.architecture;
  int64_t moe_layers = 0;
  for (int64_t i = 0; i < t.layers; ++i) moe_layers += isMoeLayer(t, i) ? 1 : 0;
  const int64_t dense_layers = t.layers - moe_layers;
  // A module present in no layer (all MoE or all dense) is left out.
  auto mlp = [&](const std::string& gate, const std::string& up, const std::string& down,
                 int64_t width, int64_t copies, int64_t layers) {
    if (layers == 0) return;
    if (t.gated_mlp) m.push_back({gate, kGate, h, width, copies, layers});
    m.push_back({up, kUp, h, width, copies, layers});
    m.push_back({down, kDown, width, h, copies, layers});
  };
  if (!isMoe(t)) {
    mlp("gate_proj", "up_proj", "down_proj", f, 1, t.layers);
    return;
  }
  const int64_t ef = t.expert_ffn > 0 ? t.expert_ffn : f;
  mlp("gate_proj", "up_proj", "down_proj", f, 1, dense_layers);
  if (a == "mixtral" || a == "phimoe") {
    // MixtralBlockSparseTop2MLP: w1 (gate), w3 (up), w2 (down) in each expert.
    m.push_back({"w1", kGate, h, ef, e, moe_layers});
    m.push_back({"w3", kUp, h, ef, e, moe_layers});
    m.push_back({"w2", kDown, ef, h, e, moe_layers});
  } else if (a == "gpt_oss") {
    // GptOssExperts: fused 3-D parameters, not nn.Linear modules.
    m.push_back(
        {"gate_up_proj", Names{"gate_proj", "up_proj"}, h, checkedMul(2, ef), e, moe_layers});
    m.push_back({"down_proj", kDown, ef, h, e, moe_layers});
  } else {
    mlp("gate_proj", "up_proj", "down_proj", ef, e, moe_layers);
  }
  if (t.shared_expert_ffn > 0)
    mlp("gate_proj", "up_proj", "down_proj", t.shared_expert_ffn, 1, moe_layers);
}

}  // namespace

std::vector<LinearModule> blockLinearModules(const Transformer& t) {
  if (auto named = namedModules(t)) return *named;
  std::vector<LinearModule> m = llamaAttentionModules(t);
  addLlamaMlpModules(t, m);
  return m;
}

}  // namespace dlcost
