#pragma once
// Reading a Hugging Face config.json (verbatim, as a model repository ships it) and
// dlcost's generic transformer form into a Transformer.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dlcost/types/transformer.hpp"

namespace dlcost {

/// Reads a config.json found at `path`. The architecture comes from model_type (or, without
/// it, from architectures[0]); docs/transformers.md lists the model_types counted exactly
/// and the multimodal wrappers whose language model is read. Any other model_type is refused
/// (InputError kValue at /model_type) unless `approximate`: then it is read as a generic
/// decoder, marked Transformer::approximate, with a warning listing the assumptions. Absent
/// or null keys take the config class's default where dlcost knows it; fields it uses must
/// have the right type and range. Throws InputError naming the JSON pointer of a missing or
/// bad field.
/// A vision-language wrapper (llava, llava_next, mistral3, gemma3, paligemma) is counted
/// whole: its language model, vision tower and projector (Transformer::vision); qwen2_vl and
/// qwen2_5_vl are refused. With `text_only` a wrapper's language model alone is read, as
/// the user asked, and marked so (Transformer::text_only_of).
Transformer readHfConfig(const nlohmann::json& config, const std::string& path,
                         std::vector<std::string>& warnings, bool approximate = false,
                         bool text_only = false);

/// The vision tower and projector of vision-language wrapper `family` from the whole
/// config.json at `path` (its vision_config and projector keys); `text` is its language
/// model. Throws InputError for a wrapper or tower it cannot count exactly.
VisionTower readHfVision(const nlohmann::json& config, const std::string& path,
                         const std::string& family, const Transformer& text);

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
