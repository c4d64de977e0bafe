#pragma once
// Reading a Hugging Face config.json (verbatim, as a model repository ships it) and
// dlcost's generic transformer form into a Transformer.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dlcost/transformer.hpp"

namespace dlcost {

/// True when `document` looks like a Hugging Face config: an object with "model_type" or
/// "architectures".
bool isHfConfig(const nlohmann::json& document);

/// Reads a config.json found at `path`. The architecture comes from model_type (or, without
/// it, from architectures[0]): llama, mistral, mixtral, qwen2, qwen3, gemma, gemma2, phi, phi3,
/// gpt2, gpt_neox, falcon, bert, roberta, t5. Any other model_type is read as a generic decoder and
/// a warning listing the assumptions is appended to `warnings`. Fields dlcost does not use are
/// ignored (configs carry many); fields it uses must have the right type and range. Throws
/// InputError naming the JSON pointer of a missing or bad field.
Transformer readHfConfig(const nlohmann::json& config, const std::string& path,
                         std::vector<std::string>& warnings);

/// Reads dlcost's generic transformer form (strict: unknown fields are errors):
/// {"layers", "hidden", "heads", "kv_heads"?, "head_dim"?, "ffn", "vocab", "gated_mlp"?,
///  "norm"?: "layernorm"|"rmsnorm", "bias"?, "tied_embeddings"?, "positions"?:
///  "learned"|"rotary"|"none", "max_positions"?, "parallel_block"?, "experts"?,
///  "experts_per_token"?, "kind"?: "decoder"|"encoder", "dropout"?}.
Transformer readGenericTransformer(const nlohmann::json& form, const std::string& path);

/// Checks the relations between fields (heads divide hidden, kv heads divide heads, experts
/// per token <= experts, ...); `paths` maps Transformer field names ("hidden", "heads",
/// "kv_heads", "layers", ...) to the JSON pointers they were read from.
void validateTransformer(const Transformer& t, const std::map<std::string, std::string>& paths,
                         bool head_dim_given);

}  // namespace dlcost
