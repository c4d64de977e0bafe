#include "dlcost/model_files/weight_components.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "dlcost/base/checked.hpp"

namespace dlcost {

namespace {

std::vector<std::string> segments(const std::string& name) {
  std::vector<std::string> out(1);
  for (char c : name) {
    if (c == '.') {
      out.emplace_back();
    } else {
      out.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

bool any(const std::vector<std::string>& segs, const std::set<std::string>& names) {
  return std::any_of(segs.begin(), segs.end(),
                     [&](const std::string& s) { return names.count(s) > 0; });
}

}  // namespace

std::string tensorComponent(const std::string& name) {
  const std::vector<std::string> s = segments(name);
  // A vision-language model's tower and projector (their norms and attention included).
  if (any(s, {"vision_tower", "vision_model", "vision_encoder"})) return "vision";
  if (any(s, {"multi_modal_projector", "mm_projector", "image_newline"})) return "projector";
  // Norms: *norm* modules (input_layernorm, ln_f's "ln_" prefix, T5's layer_norm, Qwen3's
  // q_norm), checked first because their names often hold "attention".
  for (const std::string& seg : s) {
    if (seg.find("norm") != std::string::npos || seg.rfind("ln_", 0) == 0 || seg == "ln")
      return "norms";
  }
  if (any(s, {"lm_head", "embed_out"})) return "lm_head";
  if (any(s, {"embed_tokens", "wte", "wpe", "word_embeddings", "position_embeddings",
              "token_type_embeddings", "embed_positions", "embed_in", "shared", "tok_embeddings"}))
    return "embeddings";
  if (any(s, {"pooler", "relative_attention_bias", "project_in", "project_out"})) return "other";
  if (any(s, {"self_attn", "attn", "attention", "selfattention", "encdecattention",
              "crossattention", "q_proj", "k_proj", "v_proj", "o_proj", "query_key_value"}))
    return "attention";
  if (any(s, {"mlp", "feed_forward", "ffn", "experts", "block_sparse_moe", "moe", "intermediate",
              "output", "densereludense", "router", "shared_expert", "shared_experts"}))
    return "mlp";
  return "";
}

ComponentCheck checkComponents(const Transformer& t, const nlohmann::json& tensors) {
  const TransformerParams p = countParams(t);
  ComponentCheck c;
  c.rows = {{"embeddings", p.embeddings}, {"attention", p.attention}, {"mlp", p.mlp},
            {"norms", p.norms},           {"lm_head", p.lm_head},     {"other", p.other}};
  if (t.vision) {
    c.rows.push_back({"vision", p.vision});
    c.rows.push_back({"projector", p.projector});
  }
  for (const nlohmann::json& tensor : tensors) {
    const std::string name = tensor.value("name", "");
    const int64_t n = tensor.value("parameters", int64_t{0});
    const std::string comp = tensorComponent(name);
    auto row = std::find_if(c.rows.begin(), c.rows.end(),
                            [&](const ComponentRow& r) { return r.component == comp; });
    if (row == c.rows.end()) {
      if (c.unplaced.size() < 16) c.unplaced.push_back(name);
      ++c.unplaced_count;
      c.unplaced_parameters = checkedAdd(c.unplaced_parameters, n);
      continue;
    }
    row->file = checkedAdd(row->file, n);
    ++row->tensors;
  }
  c.matches = c.unplaced_count == 0 &&
              std::all_of(c.rows.begin(), c.rows.end(),
                          [](const ComponentRow& r) { return r.engine == r.file; });
  return c;
}

nlohmann::json componentCheckJson(const ComponentCheck& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const ComponentRow& r : c.rows) {
    rows.push_back({{"component", r.component},
                    {"engine", r.engine},
                    {"file", r.file},
                    {"difference", r.file - r.engine},
                    {"tensors", r.tensors}});
  }
  return {{"matches", c.matches},
          {"rows", rows},
          {"unplaced",
           {{"count", c.unplaced_count},
            {"parameters", c.unplaced_parameters},
            {"names", c.unplaced}}}};
}

}  // namespace dlcost
