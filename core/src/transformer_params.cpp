// Exact parameter counts of a Transformer, component by component.
#include "dlcost/checked.hpp"
#include "dlcost/transformer.hpp"

namespace dlcost {

namespace {

int64_t linearParams(int64_t in, int64_t out, bool bias) {
  return checkedAdd(checkedMul(in, out), bias ? out : 0);
}

int64_t normParams(const Transformer& t) {
  return t.norm == NormKind::kLayerNorm && t.norm_bias ? checkedMul(2, t.hidden) : t.hidden;
}

/// q, k, v and o of one attention (self or cross).
int64_t attentionParams(const Transformer& t) {
  const int64_t q = checkedMul(t.heads, t.head_dim);
  const int64_t kv = checkedMul(t.kv_heads, t.head_dim);
  int64_t p = linearParams(t.hidden, q, t.qkv_bias);
  p = checkedAdd(p, checkedMul(2, linearParams(t.hidden, kv, t.qkv_bias)));
  return checkedAdd(p, linearParams(q, t.hidden, t.out_bias));
}

/// One dense MLP (one expert).
int64_t mlpParams(const Transformer& t) {
  const int64_t up = linearParams(t.hidden, t.ffn, t.mlp_bias);
  const int64_t down = linearParams(t.ffn, t.hidden, t.mlp_bias);
  return checkedAdd(checkedMul(t.gated_mlp ? 2 : 1, up), down);
}

bool isMoe(const Transformer& t) {
  return t.experts > 0;
}

}  // namespace

TransformerParams countParams(const Transformer& t) {
  TransformerParams p;
  p.embeddings = checkedMul(t.vocab, t.hidden);
  if (t.positions == PositionKind::kLearned)
    p.embeddings = checkedAdd(p.embeddings, checkedMul(t.max_positions, t.hidden));
  p.embeddings = checkedAdd(p.embeddings, checkedMul(t.type_vocab, t.hidden));

  const bool enc_dec = t.kind == TransformerKind::kEncoderDecoder;
  const int64_t stack_layers = enc_dec ? checkedAdd(t.layers, t.encoder_layers) : t.layers;
  // Decoder layers of an encoder-decoder also attend to the encoder output.
  const int64_t attentions =
      enc_dec ? checkedAdd(checkedMul(2, t.layers), t.encoder_layers) : t.layers;
  p.attention = checkedMul(attentions, attentionParams(t));

  const int64_t one_mlp = mlpParams(t);
  int64_t layer_mlp = one_mlp;
  int64_t active_mlp = one_mlp;
  if (isMoe(t)) {
    const int64_t router = checkedMul(t.hidden, t.experts);  // Mixtral's gate: no bias
    layer_mlp = checkedAdd(checkedMul(t.experts, one_mlp), router);
    active_mlp = checkedAdd(checkedMul(t.experts_per_token, one_mlp), router);
  }
  p.mlp = checkedMul(stack_layers, layer_mlp);

  int64_t norm_count = checkedMul(t.layers, t.norms_per_layer + (enc_dec ? 1 : 0));
  if (enc_dec) norm_count = checkedAdd(norm_count, checkedMul(t.encoder_layers, t.norms_per_layer));
  if (t.final_norm) norm_count = checkedAdd(norm_count, enc_dec ? 2 : 1);
  if (t.embedding_norm) norm_count = checkedAdd(norm_count, 1);
  p.norms = checkedMul(norm_count, normParams(t));
  if (t.qk_norm) {
    // Two norms over head_dim in every attention of every layer.
    const int64_t per = t.norm == NormKind::kLayerNorm && t.norm_bias ? 2 * t.head_dim : t.head_dim;
    p.norms = checkedAdd(p.norms, checkedMul(checkedMul(2, attentions), per));
  }

  if (t.kind != TransformerKind::kEncoder && !t.tied_embeddings)
    p.lm_head = linearParams(t.hidden, t.vocab, t.lm_head_bias);
  else if (t.kind != TransformerKind::kEncoder && t.lm_head_bias)
    p.lm_head = t.vocab;

  if (t.pooler) p.other = linearParams(t.hidden, t.hidden, true);
  if (t.positions == PositionKind::kRelativeBias) {
    // One bias table in the first layer of each stack (HF T5's has_relative_attention_bias).
    const int64_t tables = enc_dec ? 2 : 1;
    p.other = checkedAdd(p.other, checkedMul(tables, checkedMul(t.relative_buckets, t.heads)));
  }

  p.total =
      checkedAdd(checkedAdd(checkedAdd(p.embeddings, p.attention), checkedAdd(p.mlp, p.norms)),
                 checkedAdd(p.lm_head, p.other));
  p.active_per_token =
      checkedSub(p.total, checkedMul(stack_layers, checkedSub(layer_mlp, active_mlp)));

  // Linear weights a token meets in the blocks (norms, embeddings, LM head excluded).
  const int64_t attn_per_token = checkedMul(attentions, attentionParams(t));
  p.block_linear_per_token = checkedAdd(attn_per_token, checkedMul(stack_layers, active_mlp));
  return p;
}

std::vector<LinearModule> blockLinearModules(const Transformer& t) {
  const int64_t h = t.hidden, f = t.ffn;
  const int64_t q = checkedMul(t.heads, t.head_dim);
  const int64_t kv = checkedMul(t.kv_heads, t.head_dim);
  const int64_t e = isMoe(t) ? t.experts : 1;
  const std::string& a = t.architecture;
  using V = std::vector<std::string>;
  const V kQ{"q_proj"}, kK{"k_proj"}, kV{"v_proj"}, kO{"o_proj"},
      kQkv{"q_proj", "k_proj", "v_proj"};
  const V kGate{"gate_proj"}, kUp{"up_proj"}, kDown{"down_proj"};
  if (a == "gpt2") {
    // Conv1D modules; attention's and the MLP's output projections are both "c_proj".
    return {{"c_attn", kQkv, h, checkedAdd(q, checkedMul(2, kv))},
            {"c_proj", kO, q, h},
            {"c_fc", kUp, h, f},
            {"c_proj", kDown, f, h}};
  }
  if (a == "gpt_neox" || a == "falcon" || a == "refinedweb" || a == "refinedwebmodel") {
    return {{"query_key_value", kQkv, h, checkedAdd(q, checkedMul(2, kv))},
            {"dense", kO, q, h},
            {"dense_h_to_4h", kUp, h, f},
            {"dense_4h_to_h", kDown, f, h}};
  }
  if (a == "phi3") {
    return {{"qkv_proj", kQkv, h, checkedAdd(q, checkedMul(2, kv))},
            {"o_proj", kO, q, h},
            {"gate_up_proj", V{"gate_proj", "up_proj"}, h, checkedMul(2, f)},
            {"down_proj", kDown, f, h}};
  }
  if (a == "phi") {
    return {{"q_proj", kQ, h, q}, {"k_proj", kK, h, kv}, {"v_proj", kV, h, kv},
            {"dense", kO, q, h},  {"fc1", kUp, h, f},    {"fc2", kDown, f, h}};
  }
  if (a == "bert" || a == "roberta" || a == "xlm-roberta") {
    // BertSelfAttention query/key/value, BertSelfOutput/BertIntermediate/BertOutput dense.
    return {{"query", kQ, h, q}, {"key", kK, h, kv},   {"value", kV, h, kv},
            {"dense", kO, q, h}, {"dense", kUp, h, f}, {"dense", kDown, f, h}};
  }
  if (a == "t5" || a == "mt5") {
    std::vector<LinearModule> mlp;
    if (t.gated_mlp) {
      mlp = {{"wi_0", kGate, h, f}, {"wi_1", kUp, h, f}};
    } else {
      mlp = {{"wi", kUp, h, f}};
    }
    mlp.push_back({"wo", kDown, f, h});
    const std::vector<LinearModule> attention = {
        {"q", kQ, h, q}, {"k", kK, h, kv}, {"v", kV, h, kv}, {"o", kO, q, h}};
    std::vector<LinearModule> all;
    for (LinearModule m : attention) {  // encoder: self-attention, MLP
      m.encoder = true;
      all.push_back(m);
    }
    for (LinearModule m : mlp) {
      m.encoder = true;
      all.push_back(m);
    }
    for (int k = 0; k < 2; ++k)  // decoder: self-attention, cross-attention (EncDecAttention)
      for (const LinearModule& m : attention) all.push_back(m);
    for (const LinearModule& m : mlp) all.push_back(m);
    return all;
  }
  std::vector<LinearModule> m = {
      {"q_proj", kQ, h, q}, {"k_proj", kK, h, kv}, {"v_proj", kV, h, kv}, {"o_proj", kO, q, h}};
  if (a == "mixtral") {
    // MixtralBlockSparseTop2MLP: w1 (gate), w3 (up), w2 (down) in each expert.
    m.push_back({"w1", kGate, h, f, e});
    m.push_back({"w3", kUp, h, f, e});
    m.push_back({"w2", kDown, f, h, e});
    return m;
  }
  if (t.gated_mlp) m.push_back({"gate_proj", kGate, h, f, e});
  m.push_back({"up_proj", kUp, h, f, e});
  m.push_back({"down_proj", kDown, f, h, e});
  return m;
}

}  // namespace dlcost
