// The vision side of a Hugging Face vision-language config.json: the tower (vision_config)
// and the projector, as transformers builds them (modeling_llava.py, modeling_llava_next.py,
// modeling_mistral3.py with modeling_pixtral.py, modeling_gemma3.py and modeling_paligemma.py
// with modeling_siglip.py, modeling_clip.py).
#include <algorithm>
#include <cmath>

#include "dlcost/base/checked.hpp"
#include "dlcost/base/engine_limits.hpp"
#include "dlcost/base/error.hpp"
#include "transformer/hf_config.hpp"
#include "types/json_reader.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

/// Keys of one config object, null counting as absent (as PretrainedConfig reads them).
struct Keys {
  const json& obj;
  std::string path;

  const json* find(const char* key) const {
    auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
  }
  int64_t intOr(const char* key, int64_t fallback, int64_t min = 1) const {
    const json* v = find(key);
    return v ? readInt(*v, childPath(path, key), min, kMaxDimension) : fallback;
  }
  bool boolOr(const char* key, bool fallback) const {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_boolean()) {
      throw InputError(ErrorCode::kType, childPath(path, key),
                       std::string("must be true or false, not ") + jsonTypeName(*v));
    }
    return v->get<bool>();
  }
  std::string stringOr(const char* key, const std::string& fallback) const {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_string()) {
      throw InputError(ErrorCode::kType, childPath(path, key),
                       std::string("must be a string, not ") + jsonTypeName(*v));
    }
    return v->get<std::string>();
  }
};

/// The vision config class's defaults for the keys a vision_config may leave out.
struct TowerDefaults {
  int64_t hidden, ffn, layers, heads, image, patch;
};

/// vision_config's model_type, or the wrapper's default tower when it is absent.
std::string towerType(const Keys& vc, const std::string& family) {
  const std::string fallback = family == "mistral3"                          ? "pixtral"
                               : family == "gemma3" || family == "paligemma" ? "siglip_vision_model"
                                                                             : "clip_vision_model";
  return vc.stringOr("model_type", fallback);
}

/// The tower's layers and embeddings from vision_config (CLIPVisionConfig,
/// SiglipVisionConfig, PixtralVisionConfig: their defaults where a key is absent).
VisionTower readTower(const Keys& vc, const std::string& type, const std::string& family) {
  VisionTower v;
  v.architecture = type;
  TowerDefaults d{};
  if (type == "clip_vision_model") {
    d = {768, 3072, 12, 12, 224, 32};
    v.class_token = v.learned_positions = v.pre_norm = v.post_norm = true;
  } else if (type == "siglip_vision_model") {
    d = {768, 3072, 12, 12, 224, 16};
    v.patch_bias = v.learned_positions = v.post_norm = true;
    // SiglipVisionTransformer: `use_head = True if not hasattr(config, "vision_use_head")`.
    v.attention_pool_head = vc.boolOr("vision_use_head", true);
  } else if (type == "pixtral") {
    d = {1024, 4096, 24, 16, 1024, 16};
    v.gated_mlp = v.pre_norm = true;
    v.norm = NormKind::kRmsNorm;
    v.norm_bias = v.linear_bias = false;
  } else {
    throw InputError(ErrorCode::kValue, childPath(vc.path, "model_type"),
                     "the vision tower '" + type + "' of '" + family +
                         "' is not one dlcost counts (clip_vision_model, siglip_vision_model, "
                         "pixtral); ask for text_only to count the language model alone");
  }
  v.hidden = vc.intOr("hidden_size", d.hidden);
  v.ffn = vc.intOr("intermediate_size", d.ffn);
  v.layers = std::min(vc.intOr("num_hidden_layers", d.layers), kMaxLayers);
  v.heads = vc.intOr("num_attention_heads", d.heads);
  v.channels = vc.intOr("num_channels", 3);
  v.image_size = vc.intOr("image_size", d.image);
  v.patch_size = vc.intOr("patch_size", d.patch);
  if (v.hidden % v.heads != 0 && !vc.find("head_dim")) {
    throw InputError(ErrorCode::kValue, childPath(vc.path, "num_attention_heads"),
                     "the vision tower's heads must divide its hidden_size");
  }
  v.head_dim = vc.intOr("head_dim", v.hidden / v.heads);
  if (v.image_size % v.patch_size != 0) {
    throw InputError(ErrorCode::kValue, childPath(vc.path, "image_size"),
                     "image_size " + std::to_string(v.image_size) +
                         " is not a whole number of patches of " + std::to_string(v.patch_size));
  }
  return v;
}

/// vision_feature_layer: one layer (an integer) or several (a list), concatenated.
int64_t featureLayers(const Keys& top) {
  const json* f = top.find("vision_feature_layer");
  return f && f->is_array() ? std::max<int64_t>(1, static_cast<int64_t>(f->size())) : 1;
}

/// LLaVA and LLaVA-NeXT: CLIP features (less the class token under the "default" strategy)
/// through linear_1, an activation and linear_2 (LlavaMultiModalProjector).
void readLlava(const Keys& top, const std::string& family, const Transformer& text,
               VisionTower& v) {
  const std::string strategy = top.stringOr("vision_feature_select_strategy", "default");
  if (strategy != "default" && strategy != "full") {
    throw InputError(ErrorCode::kValue, childPath(top.path, "vision_feature_select_strategy"),
                     "must be \"default\" or \"full\", not \"" + strategy + "\"");
  }
  // "default" drops the first token of each pass (`selected_image_feature[:, 1:]`).
  const int64_t per_pass = visionPassTokens(v) - (strategy == "default" ? 1 : 0);
  const bool bias = top.boolOr("multimodal_projector_bias", true);
  v.tokens_per_image = per_pass;
  v.image_note =
      "a " + std::to_string(v.image_size) + " × " + std::to_string(v.image_size) + " image";
  if (family == "llava_next") {
    // anyres: the base image and the tiles of the grid an image is fitted to. The figures
    // are for an image of the largest grid (image_grid_pinpoints), unpadded; each row of
    // grid features ends with image_newline (LlavaNextModel.pack_image_features).
    std::vector<std::pair<int64_t, int64_t>> pins = {
        {336, 672}, {672, 336}, {672, 672}, {1008, 336}, {336, 1008}};
    if (const json* p = top.find("image_grid_pinpoints")) {
      pins.clear();
      const std::string pp = childPath(top.path, "image_grid_pinpoints");
      if (!p->is_array() || p->empty()) {
        throw InputError(ErrorCode::kType, pp, "must be a list of [height, width] pairs");
      }
      for (size_t i = 0; i < p->size(); ++i) {
        const json& pair = (*p)[i];
        const std::string ip = childPath(pp, std::to_string(i));
        if (!pair.is_array() || pair.size() != 2) {
          throw InputError(ErrorCode::kType, ip, "must be a [height, width] pair");
        }
        pins.emplace_back(readInt(pair[0], childPath(ip, "0"), 1, kMaxDimension),
                          readInt(pair[1], childPath(ip, "1"), 1, kMaxDimension));
      }
    }
    std::pair<int64_t, int64_t> best{0, 0};
    for (const auto& pin : pins) {
      if (pin.first % v.image_size != 0 || pin.second % v.image_size != 0) {
        throw InputError(ErrorCode::kValue, childPath(top.path, "image_grid_pinpoints"),
                         "a grid of " + std::to_string(pin.first) + " × " +
                             std::to_string(pin.second) + " is not whole tiles of image_size " +
                             std::to_string(v.image_size) + "; not modelled");
      }
      if (checkedMul(pin.first, pin.second) > checkedMul(best.first, best.second)) best = pin;
    }
    const int64_t side = v.image_size / v.patch_size;
    const int64_t rows = checkedMul(best.first / v.image_size, side);
    const int64_t cols = checkedMul(best.second / v.image_size, side);
    v.passes_per_image =
        checkedAdd(1, checkedMul(best.first / v.image_size, best.second / v.image_size));
    v.tokens_per_image = checkedAdd(per_pass, checkedMul(rows, checkedAdd(cols, 1)));
    v.extra_params = text.hidden;  // image_newline
    v.image_note = "an image of " + std::to_string(best.first) + " × " +
                   std::to_string(best.second) + " pixels (the largest grid of " +
                   "image_grid_pinpoints: " + std::to_string(v.passes_per_image) +
                   " passes of the tower)";
  }
  const int64_t rows = checkedMul(v.passes_per_image, per_pass);
  v.projector = {{checkedMul(v.hidden, featureLayers(top)), text.hidden, bias, rows},
                 {text.hidden, text.hidden, bias, rows}};
}

/// Mistral 3: Pixtral features, RMS-normed, merged spatial_merge_size² at a time
/// (Mistral3PatchMerger, no bias), then linear_1 and linear_2 (bias as
/// multimodal_projector_bias). An image of h x w merged tokens fills h x (w + 1) positions:
/// [IMG_BREAK] after each row, the last one [IMG_END] (PixtralProcessor).
void readMistral3(const Keys& top, const Transformer& text, VisionTower& v) {
  const int64_t merge = top.intOr("spatial_merge_size", 2);
  const int64_t side = v.image_size / v.patch_size;
  if (side % merge != 0) {
    throw InputError(ErrorCode::kValue, childPath(top.path, "spatial_merge_size"),
                     "does not divide the " + std::to_string(side) + " patches per side");
  }
  const int64_t merged = side / merge;
  const int64_t tokens = checkedMul(merged, merged);
  const bool bias = top.boolOr("multimodal_projector_bias", false);
  v.projector_norm = v.hidden;
  v.projector = {{checkedMul(v.hidden, checkedMul(merge, merge)), v.hidden, false, tokens},
                 {checkedMul(v.hidden, featureLayers(top)), text.hidden, bias, tokens},
                 {text.hidden, text.hidden, bias, tokens}};
  v.tokens_per_image = checkedMul(merged, checkedAdd(merged, 1));
  v.image_note = "a " + std::to_string(v.image_size) + " × " + std::to_string(v.image_size) +
                 " image (the largest the processor keeps)";
}

/// Gemma 3: the patches average-pooled to mm_tokens_per_image, RMS-normed
/// (mm_soft_emb_norm) and projected by mm_input_projection_weight (vision hidden x text
/// hidden, no bias).
void readGemma3(const Keys& top, const Transformer& text, VisionTower& v) {
  const int64_t tokens = top.intOr("mm_tokens_per_image", 256);
  const int64_t per_side =
      static_cast<int64_t>(std::llround(std::sqrt(static_cast<double>(tokens))));
  const int64_t side = v.image_size / v.patch_size;
  if (per_side * per_side != tokens || side % per_side != 0) {
    throw InputError(
        ErrorCode::kValue, childPath(top.path, "mm_tokens_per_image"),
        "must be a square whose side divides the " + std::to_string(side) + " patches per side");
  }
  v.projector_norm = v.hidden;
  v.projector = {{v.hidden, text.hidden, false, tokens}};
  v.tokens_per_image = tokens;
  v.image_note =
      "a " + std::to_string(v.image_size) + " × " + std::to_string(v.image_size) + " image";
}

/// PaliGemma: one linear with bias to projection_dim (PaliGemmaMultiModalProjector); every
/// patch is an image token.
void readPaligemma(const Keys& top, const Transformer& text, VisionTower& v) {
  const int64_t out = top.intOr("projection_dim", 2048);
  if (out != text.hidden) {
    throw InputError(
        ErrorCode::kValue, childPath(top.path, "projection_dim"),
        "must equal the language model's hidden_size (" + std::to_string(text.hidden) + ")");
  }
  v.tokens_per_image = visionPassTokens(v);
  v.projector = {{v.hidden, out, true, v.tokens_per_image}};
  v.image_note =
      "a " + std::to_string(v.image_size) + " × " + std::to_string(v.image_size) + " image";
}

}  // namespace

VisionTower readHfVision(const json& config, const std::string& path, const std::string& family,
                         const Transformer& text) {
  const Keys top{config, path};
  if (family == "qwen2_vl" || family == "qwen2_5_vl") {
    throw InputError(ErrorCode::kValue, childPath(path, "model_type"),
                     "model_type '" + family +
                         "': its vision tower reads images at their own resolution (the "
                         "processor's min_pixels and max_pixels, not in config.json), so its "
                         "cost per image is not modelled; ask for text_only (--text-only) to "
                         "count its language model alone");
  }
  const json* vision = top.find("vision_config");
  if (!vision || !vision->is_object()) {
    throw InputError(ErrorCode::kMissingField, childPath(path, "vision_config"),
                     "model_type '" + family +
                         "' needs vision_config to count its vision tower; ask for text_only "
                         "to count the language model alone");
  }
  const Keys vc{*vision, childPath(path, "vision_config")};
  VisionTower v = readTower(vc, towerType(vc, family), family);
  if (family == "llava" || family == "llava_next") {
    readLlava(top, family, text, v);
  } else if (family == "mistral3") {
    readMistral3(top, text, v);
  } else if (family == "gemma3") {
    readGemma3(top, text, v);
  } else if (family == "paligemma") {
    readPaligemma(top, text, v);
  } else {
    throw InputError(ErrorCode::kValue, childPath(path, "model_type"),
                     "the vision side of '" + family + "' is not modelled");
  }
  return v;
}

}  // namespace dlcost
