// dlcost's generic transformer form, for models without a config.json.
#include "dlcost/base/engine_limits.hpp"
#include "dlcost/base/error.hpp"
#include "transformer/hf_config.hpp"
#include "types/json_reader.hpp"

namespace dlcost {

namespace {

/// "kind": "decoder" (the default) or "encoder".
TransformerKind readKind(ObjectReader& r) {
  const std::string kind = r.optionalString("kind", "decoder");
  if (kind == "decoder") return TransformerKind::kDecoder;
  if (kind == "encoder") return TransformerKind::kEncoder;
  throw InputError(ErrorCode::kValue, r.pathOf("kind"),
                   "must be \"decoder\" or \"encoder\", not \"" + kind + "\"");
}

/// "norm" ("rmsnorm", the default, or "layernorm") and "bias" on every projection
/// (and on a LayerNorm).
void readNormAndBias(ObjectReader& r, Transformer& t) {
  const std::string norm = r.optionalString("norm", "rmsnorm");
  if (norm == "rmsnorm") {
    t.norm = NormKind::kRmsNorm;
    t.norm_bias = false;
  } else if (norm == "layernorm") {
    t.norm = NormKind::kLayerNorm;
  } else {
    throw InputError(ErrorCode::kValue, r.pathOf("norm"),
                     "must be \"rmsnorm\" or \"layernorm\", not \"" + norm + "\"");
  }
  const bool bias = r.optionalBool("bias", false);
  t.qkv_bias = t.out_bias = t.mlp_bias = bias;
  if (t.norm == NormKind::kLayerNorm) t.norm_bias = bias;
}

/// "positions": "rotary" (the default), "learned" or "none".
PositionKind readPositions(ObjectReader& r) {
  const std::string pos = r.optionalString("positions", "rotary");
  if (pos == "rotary") return PositionKind::kRotary;
  if (pos == "learned") return PositionKind::kLearned;
  if (pos == "none") return PositionKind::kNone;
  throw InputError(ErrorCode::kValue, r.pathOf("positions"),
                   "must be \"rotary\", \"learned\" or \"none\", not \"" + pos + "\"");
}

}  // namespace

Transformer readGenericTransformer(const nlohmann::json& form, const std::string& path) {
  ObjectReader r(form, path);
  r.rejectUnknown({"name",
                   "comment",
                   "kind",
                   "layers",
                   "hidden",
                   "heads",
                   "kv_heads",
                   "head_dim",
                   "ffn",
                   "vocab",
                   "gated_mlp",
                   "norm",
                   "bias",
                   "tied_embeddings",
                   "positions",
                   "max_positions",
                   "parallel_block",
                   "experts",
                   "experts_per_token",
                   "dropout"});
  Transformer t;
  t.architecture = "generic";
  std::map<std::string, std::string> paths;
  for (const char* f : {"layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "experts",
                        "experts_per_token", "max_positions"})
    paths[f] = r.pathOf(f);

  t.kind = readKind(r);
  t.layers = r.requiredInt("layers", 1, kMaxLayers);
  t.hidden = r.requiredInt("hidden", 1, kMaxDimension);
  t.heads = r.requiredInt("heads", 1, kMaxDimension);
  t.kv_heads = r.optionalInt("kv_heads", t.heads, 1, kMaxDimension);
  const bool head_dim_given = r.has("head_dim");
  t.head_dim = r.optionalInt("head_dim", 0, 1, kMaxDimension);
  t.ffn = r.requiredInt("ffn", 1, kMaxDimension);
  t.vocab = r.requiredInt("vocab", 1, kMaxDimension);
  t.gated_mlp = r.optionalBool("gated_mlp", true);
  readNormAndBias(r, t);
  t.tied_embeddings = r.optionalBool("tied_embeddings", false);
  t.positions = readPositions(r);
  t.max_positions = r.optionalInt("max_positions", 0, 1, kMaxDimension);
  t.parallel_block = r.optionalBool("parallel_block", false);
  t.norms_per_layer = t.parallel_block ? 1 : 2;
  t.experts = r.optionalInt("experts", 0, 0, kMaxDimension);
  t.experts_per_token = r.optionalInt("experts_per_token", t.experts > 0 ? 1 : 0, 1, kMaxDimension);
  if (t.experts == 0 && r.has("experts_per_token")) {
    throw InputError(ErrorCode::kValue, r.pathOf("experts_per_token"),
                     "goes with experts (a mixture-of-experts MLP)");
  }
  const bool dropout = r.optionalBool("dropout", false);
  t.attention_dropout = t.hidden_dropout = dropout;
  if (t.kind == TransformerKind::kEncoder) t.final_norm = true;
  validateTransformer(t, paths, head_dim_given);
  if (!head_dim_given) t.head_dim = t.hidden / t.heads;
  return t;
}

}  // namespace dlcost
