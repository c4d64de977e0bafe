// What differs from layer to layer and from one attention kind to another: projection
// widths (GQA, MLA), dense or MoE MLPs, local or global attention, the KV-cache width.
#include <algorithm>

#include "dlcost/base/checked.hpp"
#include "dlcost/types/transformer.hpp"

namespace dlcost {

namespace {

bool isMla(const Transformer& t) {
  return t.kv_lora_rank > 0;
}

/// Matrix elements of one MLP of width `ffn` (gate, up, down or up, down).
int64_t mlpMatrixElements(const Transformer& t, int64_t ffn) {
  return checkedMul(checkedMul(t.gated_mlp ? 3 : 2, t.hidden), ffn);
}

}  // namespace

int64_t queryWidth(const Transformer& t) {
  return checkedMul(t.heads, t.head_dim);
}

int64_t tokenWidth(const Transformer& t) {
  return t.word_embed_proj > 0 ? t.word_embed_proj : t.hidden;
}

int64_t embedProjectionParams(const Transformer& t) {
  return t.word_embed_proj > 0 ? checkedMul(t.word_embed_proj, t.hidden) : 0;
}

int64_t keyWidth(const Transformer& t) {
  return checkedMul(isMla(t) ? t.heads : t.kv_heads, t.head_dim);
}

int64_t valueWidth(const Transformer& t) {
  return isMla(t) ? checkedMul(t.heads, t.v_head_dim) : checkedMul(t.kv_heads, t.head_dim);
}

bool isMoeLayer(const Transformer& t, int64_t layer) {
  if (t.experts == 0) return false;
  if (t.dense_layers.empty()) return true;
  return layer < 0 || layer >= static_cast<int64_t>(t.dense_layers.size()) ||
         !t.dense_layers[static_cast<size_t>(layer)];
}

bool isLocalLayer(const Transformer& t, int64_t layer) {
  if (t.sliding_window == 0) return false;
  if (t.local_layers.empty()) return true;
  return layer >= 0 && layer < static_cast<int64_t>(t.local_layers.size()) &&
         t.local_layers[static_cast<size_t>(layer)];
}

int64_t attendedKeys(const Transformer& t, int64_t layer, int64_t context) {
  return isLocalLayer(t, layer) ? std::min(context, t.sliding_window) : context;
}

int64_t kvCacheWidth(const Transformer& t, MlaCache mla) {
  if (isMla(t) && mla == MlaCache::kLatent) return checkedAdd(t.kv_lora_rank, t.qk_rope_head_dim);
  return checkedAdd(keyWidth(t), valueWidth(t));
}

int64_t attentionMatrixElements(const Transformer& t) {
  const int64_t h = t.hidden;
  if (isMla(t)) {
    // q_a_proj + q_b_proj (or q_proj), kv_a_proj_with_mqa, kv_b_proj, o_proj.
    const int64_t q = t.q_lora_rank > 0 ? checkedAdd(checkedMul(h, t.q_lora_rank),
                                                     checkedMul(t.q_lora_rank, queryWidth(t)))
                                        : checkedMul(h, queryWidth(t));
    const int64_t kv_a = checkedMul(h, checkedAdd(t.kv_lora_rank, t.qk_rope_head_dim));
    const int64_t nope = t.head_dim - t.qk_rope_head_dim;
    const int64_t kv_b =
        checkedMul(t.kv_lora_rank, checkedMul(t.heads, checkedAdd(nope, t.v_head_dim)));
    return checkedAdd(checkedAdd(q, kv_a), checkedAdd(kv_b, checkedMul(valueWidth(t), h)));
  }
  const int64_t qo = checkedMul(checkedMul(2, h), queryWidth(t));
  return checkedAdd(qo, checkedMul(h, checkedAdd(keyWidth(t), valueWidth(t))));
}

int64_t activeMlpMatrixElements(const Transformer& t, int64_t layer) {
  if (!isMoeLayer(t, layer)) return mlpMatrixElements(t, t.ffn);
  const int64_t expert_ffn = t.expert_ffn > 0 ? t.expert_ffn : t.ffn;
  int64_t m = checkedMul(t.experts_per_token, mlpMatrixElements(t, expert_ffn));
  m = checkedAdd(m, checkedMul(t.hidden, t.experts));  // router
  if (t.shared_expert_ffn > 0) m = checkedAdd(m, mlpMatrixElements(t, t.shared_expert_ffn));
  if (t.shared_expert_gate) m = checkedAdd(m, t.hidden);
  return m;
}

const char* mlaCacheName(MlaCache mla) {
  return mla == MlaCache::kLatent ? "latent" : "decompressed";
}

std::optional<MlaCache> parseMlaCache(const std::string& name) {
  if (name == "latent") return MlaCache::kLatent;
  if (name == "decompressed") return MlaCache::kDecompressed;
  return std::nullopt;
}

}  // namespace dlcost
