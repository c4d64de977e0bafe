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
  const int64_t q = checkedMul(t.heads, t.head_dim);
  const int64_t kv = checkedMul(t.kv_heads, t.head_dim);
  const int64_t copies = isMoe(t) ? t.experts : 1;
  auto layer = [&](bool encoder, bool cross_attention) {
    std::vector<LinearModule> m = {
        {"q_proj", t.hidden, q, 1, false, encoder},
        {"k_proj", t.hidden, kv, 1, false, encoder},
        {"v_proj", t.hidden, kv, 1, false, encoder},
        {"o_proj", q, t.hidden, 1, false, encoder},
    };
    if (cross_attention) {
      for (size_t i = 0; i < 4; ++i) {
        LinearModule c = m[i];
        c.cross = true;
        m.push_back(c);
      }
    }
    if (t.gated_mlp) m.push_back({"gate_proj", t.hidden, t.ffn, copies, false, encoder});
    m.push_back({"up_proj", t.hidden, t.ffn, copies, false, encoder});
    m.push_back({"down_proj", t.ffn, t.hidden, copies, false, encoder});
    return m;
  };
  if (t.kind != TransformerKind::kEncoderDecoder)
    return layer(t.kind == TransformerKind::kEncoder, false);
  std::vector<LinearModule> all = layer(true, false);
  for (const LinearModule& m : layer(false, true)) all.push_back(m);
  return all;
}

const std::vector<std::string>& knownModuleNames() {
  static const std::vector<std::string> kNames = {"q_proj",    "k_proj",  "v_proj",   "o_proj",
                                                  "gate_proj", "up_proj", "down_proj"};
  return kNames;
}

}  // namespace dlcost
