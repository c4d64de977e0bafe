#include "dlcost/schema/config_json.hpp"

#include <map>
#include <memory>
#include <mutex>

#include "dlcost/base/error.hpp"
#include "dlcost/schema/presets.hpp"
#include "graph/block_expander.hpp"
#include "transformer/hf_config.hpp"
#include "types/json_reader.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

/// A verbatim config.json: its many unused fields are ignored, as transformers does.
Model readHfModel(const json& m, const std::string& path, bool approximate,
                  bool text_only = false) {
  ObjectReader r(m, path);
  Model model;
  const json* name = r.find("_name_or_path");
  model.name = name && name->is_string() && !name->get<std::string>().empty()
                   ? name->get<std::string>()
                   : r.optionalString("model_type", "transformer");
  model.body = readHfConfig(m, path, model.warnings, approximate, text_only);
  return model;
}

/// The model of built-in preset `name` (which exists). Presets are immutable, so each is
/// parsed and expanded once per process and kept: the page re-estimates on every keystroke,
/// and expanding a 600-layer preset is a third of that. The cache is bounded (one model per
/// built-in preset, kPresetCount at most) and guarded for concurrent callers.
const std::shared_ptr<const Model>& presetModel(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const Model>> parsed;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = parsed.find(name);
  if (it == parsed.end()) {
    Model model = parseModel(json::parse(presetJson(name)), "");
    // A config.json preset keeps its repository id (_name_or_path), as the printed preset
    // read back does.
    if (!std::holds_alternative<Transformer>(model.body)) model.name = name;
    it = parsed.emplace(name, std::make_shared<const Model>(std::move(model))).first;
  }
  return it->second;
}

/// The preset a model object {"preset": NAME, ...} names, from the cache.
const std::shared_ptr<const Model>& namedPreset(ObjectReader& r) {
  r.rejectUnknown({"preset", "comment", "weights_file", "text_only"});
  const std::string name = r.requiredString("preset");
  if (!presetJson(name)) {
    throw InputError(ErrorCode::kValue, r.pathOf("preset"),
                     "unknown preset '" + name + "' (`dlcost presets` lists them)");
  }
  return presetModel(name);
}

/// parseModel's model, a built-in preset's shared with the cache instead of copied.
std::shared_ptr<const Model> sharedModel(const json& m, const std::string& path) {
  ObjectReader r(m, path);
  if (r.has("preset") && !r.has("weights_file") && !r.has("text_only")) return namedPreset(r);
  return std::make_shared<const Model>(parseModel(m, path));
}

/// Where a document keeps its model and its workload, its top level checked: the one
/// reading of it for parseConfig and parseSharedConfig, which read the model (first, so that
/// its errors come first) and then the workload.
struct DocumentParts {
  const json* model = nullptr;  ///< null: `stripped`
  json stripped;                ///< the document less "workload", where it is the model itself
  std::string model_path;
  const json* workload = nullptr;
  std::string workload_path;
  const json& modelJson() const { return model ? *model : stripped; }
};

DocumentParts documentParts(const json& doc) {
  ObjectReader r(doc, "");
  DocumentParts parts;
  parts.workload = r.find("workload");
  parts.workload_path = r.pathOf("workload");
  if (isHfConfig(doc)) {
    // A config.json as the whole document; "workload" is no Hugging Face field, so a
    // workload written into the file is dlcost's.
    parts.model = &doc;
  } else if (r.has("model")) {
    r.rejectUnknown({"model", "workload", "schema", "comment"});
    if (r.has("schema") && r.optionalInt("schema", 1, 0, 1 << 20) != 1) {
      throw InputError(ErrorCode::kValue, r.pathOf("schema"),
                       "this dlcost reads model schema version 1");
    }
    parts.model = &r.require("model");
    parts.model_path = r.pathOf("model");
  } else {
    parts.stripped = doc;
    parts.stripped.erase("workload");
  }
  return parts;
}

/// The one reading of a document for parseConfig and parseSharedConfig, which differ only in
/// how they hold the model (`readModel`: parseModel or sharedModel). Not parseConfig as a copy
/// of parseSharedConfig's model: copying a layer graph's model costs parseConfig 5 % at 1,000
/// layers and 16 % at 10,000 (docs/benchmarks.md, "Session 7: mends"), where moving is free.
template <typename ConfigT, typename ReadModel>
ConfigT readDocument(const json& doc, ReadModel readModel) {
  const DocumentParts parts = documentParts(doc);
  ConfigT c;
  c.model = readModel(parts.modelJson(), parts.model_path);
  if (parts.workload) c.workload = parseWorkload(*parts.workload, parts.workload_path);
  return c;
}

}  // namespace

bool isHfConfig(const json& document) {
  return document.is_object() &&
         (document.contains("model_type") || document.contains("architectures"));
}

Model parseModel(const json& m, const std::string& path) {
  ObjectReader r(m, path);
  if (r.has("preset")) {
    const std::shared_ptr<const Model>& preset = namedPreset(r);
    if (!r.has("weights_file") && !r.has("text_only")) return *preset;
    Model model = *preset;
    if (r.optionalBool("text_only", false)) {
      // A multimodal preset's language model alone, as asked: read its config.json again.
      const std::string name = model.name;
      model = readHfModel(json::parse(presetJson(r.requiredString("preset"))), "", false, true);
      model.name = name;
    }
    if (r.has("weights_file"))
      model.weights_file = readFileWeights(r.require("weights_file"), r.pathOf("weights_file"));
    return model;
  }
  if (isHfConfig(m)) return readHfModel(m, path, false);
  if (r.has("hf_config")) {
    // "approximate": true asks for the generic reading of a model_type dlcost does not
    // count exactly; its figures are then marked approximate.
    // "text_only": true reads a vision-language config's language model alone.
    r.rejectUnknown({"hf_config", "name", "comment", "approximate", "text_only", "weights_file"});
    const json& cfg = r.require("hf_config");
    if (!isHfConfig(cfg)) {
      throw InputError(ErrorCode::kMissingField, childPath(r.pathOf("hf_config"), "model_type"),
                       "a config.json needs model_type (or architectures naming the model class)");
    }
    Model model = readHfModel(cfg, r.pathOf("hf_config"), r.optionalBool("approximate", false),
                              r.optionalBool("text_only", false));
    if (r.has("name")) model.name = r.requiredString("name");
    if (r.has("weights_file"))
      model.weights_file = readFileWeights(r.require("weights_file"), r.pathOf("weights_file"));
    return model;
  }
  if (r.has("transformer")) {
    r.rejectUnknown({"transformer", "name", "comment"});
    Model model;
    model.name = r.optionalString("name", "transformer");
    model.body = readGenericTransformer(r.require("transformer"), r.pathOf("transformer"));
    return model;
  }
  // "metrics" holds published facts about a preset (e.g. ImageNet top-1) for comparison
  // charts; "source_zh" is "source" in Chinese for the page. The estimate ignores both.
  r.rejectUnknown({"schema", "name", "description", "source", "source_zh", "metrics", "comment",
                   "input", "layers", "blocks", "hf_config", "transformer", "weights_file",
                   "inference_only"});
  if (r.has("schema") && r.optionalInt("schema", 1, 0, 1 << 20) != 1) {
    throw InputError(ErrorCode::kValue, r.pathOf("schema"),
                     "this dlcost reads model schema version 1");
  }
  Model model;
  model.name = r.optionalString("name", "model");
  model.body = expandLayerGraph(m, path);
  model.inference_only = r.optionalString("inference_only", "");
  if (r.has("weights_file"))
    model.weights_file = readFileWeights(r.require("weights_file"), r.pathOf("weights_file"));
  return model;
}

Config parseConfig(const json& doc) {
  return readDocument<Config>(doc, parseModel);
}

SharedConfig parseSharedConfig(const json& doc) {
  return readDocument<SharedConfig>(doc, sharedModel);
}

Config parseConfigText(const std::string& text) {
  return parseConfig(parseDocumentText(text));
}

SharedConfig parseSharedConfigText(const std::string& text) {
  return parseSharedConfig(parseDocumentText(text));
}

namespace {

/// Deepest nesting of arrays and objects in JSON text, counted outside strings. A linear
/// pre-scan, so that deep input is refused before anything recurses over it (nlohmann's
/// callback parser would do the same but parses several times slower).
int nestingDepth(const std::string& text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

json parseDocumentText(const std::string& text) {
  constexpr int kMaxNesting = 64;
  if (nestingDepth(text) > kMaxNesting) {
    throw InputError(ErrorCode::kTooLarge, "",
                     "JSON nests deeper than " + std::to_string(kMaxNesting) + " levels");
  }
  try {
    // As a range of chars, the input type of every parse in the engine (presets, the GPU
    // table, model files): one instantiation of nlohmann's parser in the WebAssembly module.
    return json::parse(text.data(), text.data() + text.size());
  } catch (const json::parse_error& e) {
    throw InputError(ErrorCode::kParse, "", std::string("not valid JSON: ") + e.what());
  } catch (const json::out_of_range& e) {
    // A number literal beyond double's range (e.g. 1e1400) is refused here, not parsed.
    throw InputError(ErrorCode::kParse, "", std::string("not valid JSON: ") + e.what());
  }
}

}  // namespace dlcost
