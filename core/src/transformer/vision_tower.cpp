// Vision towers of vision-language models: exact parameters (CLIP, SigLIP and Pixtral as
// transformers builds them) and the cost of one image.
#include "transformer/vision_tower.hpp"

#include <algorithm>

#include "dlcost/base/checked.hpp"
#include "dlcost/types/precision.hpp"
#include "transformer/transformer_estimate.hpp"

namespace dlcost {

using namespace checked;

namespace {

int64_t normParamsOf(const VisionTower& v, int64_t width) {
  if (v.norm == NormKind::kNoAffine) return 0;
  return v.norm == NormKind::kLayerNorm && v.norm_bias ? mul(2, width) : width;
}

int64_t linear(int64_t in, int64_t out, bool bias) {
  return add(mul(in, out), bias ? out : 0);
}

/// SigLIP's MAP head (SiglipMultiheadAttentionPoolingHead): a probe token, torch's
/// nn.MultiheadAttention (in_proj 3h x h and its bias, out_proj with bias), a LayerNorm and
/// the MLP.
int64_t poolHeadParams(const VisionTower& v) {
  const int64_t h = v.hidden;
  int64_t p = h;                                                    // probe
  p = add(p, linear(h, mul(3, h), true));                           // in_proj
  p = add(p, linear(h, h, true));                                   // out_proj
  p = add(p, mul(2, h));                                            // layernorm
  p = add(p, add(linear(h, v.ffn, true), linear(v.ffn, h, true)));  // mlp
  return p;
}

int64_t patchesPerSide(const VisionTower& v) {
  return v.image_size / v.patch_size;
}

}  // namespace

int64_t visionPassTokens(const VisionTower& v) {
  const int64_t side = patchesPerSide(v);
  return add(mul(side, side), v.class_token ? 1 : 0);
}

Transformer visionEncoder(const VisionTower& v) {
  Transformer t;
  t.architecture = v.architecture;
  t.kind = TransformerKind::kEncoder;
  t.layers = v.layers;
  t.hidden = v.hidden;
  t.heads = v.heads;
  t.kv_heads = v.heads;
  t.head_dim = v.head_dim;
  t.ffn = v.ffn;
  t.gated_mlp = v.gated_mlp;
  t.norm = v.norm;
  t.norm_bias = v.norm_bias;
  t.qkv_bias = t.out_bias = t.mlp_bias = v.linear_bias;
  t.positions = PositionKind::kNone;
  t.final_norm = false;
  return t;
}

VisionParts visionParamParts(const VisionTower& v) {
  const Transformer enc = visionEncoder(v);
  VisionParts p;
  // Patch embedding: Conv2d(channels, hidden, patch, stride patch).
  p.embeddings = linear(mul(v.channels, v.patch_size, v.patch_size), v.hidden, v.patch_bias);
  if (v.class_token) p.embeddings = add(p.embeddings, v.hidden);
  if (v.learned_positions) p.embeddings = add(p.embeddings, mul(visionPassTokens(v), v.hidden));
  if (v.pre_norm) p.embeddings = add(p.embeddings, normParamsOf(v, v.hidden));
  // Each layer: attention with its biases, the MLP, two norms.
  p.layer = attentionMatrixElements(enc);
  if (v.linear_bias) p.layer = add(p.layer, add(mul(3, queryWidth(enc)), v.hidden));  // q, k, v, o
  const int64_t up = linear(v.hidden, v.ffn, v.linear_bias);
  p.layer = add(p.layer, add(mul(v.gated_mlp ? 2 : 1, up), linear(v.ffn, v.hidden, v.linear_bias)));
  p.layer = add(p.layer, mul(2, normParamsOf(v, v.hidden)));
  if (v.post_norm) p.tail = normParamsOf(v, v.hidden);
  if (v.attention_pool_head) p.tail = add(p.tail, poolHeadParams(v));
  return p;
}

int64_t visionTowerParams(const VisionTower& v) {
  const VisionParts p = visionParamParts(v);
  return add(p.embeddings, mul(v.layers, p.layer), p.tail);
}

int64_t visionProjectorParams(const VisionTower& v) {
  int64_t p = add(v.projector_norm, v.extra_params);
  for (const ProjectorLinear& l : v.projector) p = add(p, linear(l.in, l.out, l.bias));
  return p;
}

VisionCosts visionCosts(const VisionTower& v, const Workload& w) {
  const Transformer enc = visionEncoder(v);
  const int64_t e = dtypeBits(layoutOf(w.precision).activations) / 8;
  VisionCosts c;
  c.passes = v.passes_per_image;
  c.tokens = visionPassTokens(v);
  const int64_t patches = mul(patchesPerSide(v), patchesPerSide(v));
  const int64_t tokens = mul(c.passes, c.tokens);  // per image
  const int64_t h = v.hidden, f = v.ffn;
  c.embed_macs = mul(mul(c.passes, patches), mul(v.channels, v.patch_size, v.patch_size), h);
  // Attention over one pass's tokens (every token sees every other): QK^T and AV.
  const int64_t core_per_token = mul(c.tokens, mul(2, v.heads, v.head_dim));
  const int64_t linear_per_token =
      add(attentionMatrixElements(enc), mul(v.gated_mlp ? 3 : 2, h, f));
  c.core_macs = mul(v.layers, mul(tokens, core_per_token));
  c.layer_macs = mul(tokens, add(linear_per_token, core_per_token));
  if (v.attention_pool_head) {
    // One probe query per pass: its q and o, k and v of every token, the core, the MLP.
    c.head_macs = mul(c.passes, add(add(mul(2, h, h), mul(c.tokens, mul(2, h, h))),
                                    add(mul(2, c.tokens, h), mul(2, h, f))));
  }
  for (const ProjectorLinear& l : v.projector)
    c.projector_macs = add(c.projector_macs, mul(l.rows_per_image, l.in, l.out));
  c.macs = add(add(c.embed_macs, mul(v.layers, c.layer_macs)), add(c.head_macs, c.projector_macs));

  // Training: the conv keeps its input pixels; each layer what the language model's rule
  // gives per token over one pass's tokens; the pre and post norms their inputs; each
  // projector linear its input.
  const int64_t side = mul(patchesPerSide(v), v.patch_size);
  c.embed_saved_bytes = mul(c.passes, mul(v.channels, side, side), e);
  if (v.pre_norm) c.embed_saved_bytes = add(c.embed_saved_bytes, mul(tokens, e, h));
  c.layer_saved_bytes = mul(tokens, layerActivationBytesPerToken(enc, w, c.tokens));
  if (v.post_norm) c.tail_saved_bytes = mul(tokens, e, h);
  for (const ProjectorLinear& l : v.projector)
    c.projector_saved_bytes = add(c.projector_saved_bytes, mul(l.rows_per_image, e, l.in));
  c.saved_bytes = add(add(c.embed_saved_bytes, mul(v.layers, c.layer_saved_bytes)),
                      add(c.tail_saved_bytes, c.projector_saved_bytes));

  // Inference: every pass of the image runs at once (the tower's batch); the residual stream
  // and the larger of attention's (input, q, k, v, output; eager's scores and probabilities)
  // and the MLP's tensors.
  int64_t attn = mul(tokens, e, mul(5, h));
  if (w.attention == AttentionImpl::kEager)
    attn = add(attn, mul(mul(2, e, v.heads), mul(tokens, c.tokens)));
  const int64_t mlp = mul(tokens, e, add(h, mul(v.gated_mlp ? 3 : 2, f)));
  c.peak_bytes = add(mul(tokens, e, h), std::max(attn, mlp));
  return c;
}

}  // namespace dlcost
