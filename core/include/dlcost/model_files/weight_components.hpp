#pragma once
// A checkpoint's tensors against the engine's parameter breakdown of its config: each tensor
// of a safetensors header is put in one of the engine's components (embeddings, attention,
// MLP with its experts and routers, norms, LM head, other) by the Hugging Face module names in
// its name, and each component's file total is set beside the engine's count. A difference is
// listed, never hidden: it is the config and the file disagreeing, or dlcost's count being
// wrong, or a name no rule places.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dlcost/types/model.hpp"
#include "dlcost/types/transformer.hpp"

namespace dlcost {

/// The component a tensor's name places it in: "embeddings", "attention", "mlp", "norms",
/// "lm_head", "other", or "" where no rule matches. Rules read the dot-separated module names
/// of transformers' modelling files, norms first ("post_attention_layernorm" is a norm), then
/// the LM head, embeddings, other (BERT's pooler, T5's relative_attention_bias), attention and
/// the MLP.
std::string tensorComponent(const std::string& name);

struct ComponentRow {
  std::string component;
  int64_t engine = 0;   ///< the engine's count for the config
  int64_t file = 0;     ///< elements of the file's tensors placed in this component
  int64_t tensors = 0;  ///< how many tensors
};

struct ComponentCheck {
  std::vector<ComponentRow> rows;     ///< the six components, in the order above
  std::vector<std::string> unplaced;  ///< names no rule places (the first 16)
  int64_t unplaced_count = 0;
  int64_t unplaced_parameters = 0;
  bool matches = false;  ///< every row equal and nothing unplaced
};

/// `tensors`: a model-file summary's "tensors" array ({"name", "parameters"} each). Throws
/// ArithmeticOverflow.
ComponentCheck checkComponents(const Transformer& t, const nlohmann::json& tensors);

/// {"matches", "rows": [{"component", "engine", "file", "difference", "tensors"}],
///  "unplaced": {"count", "parameters", "names"}}.
nlohmann::json componentCheckJson(const ComponentCheck& c);

/// The check `estimate --weights` and the page make of a dropped file (component_check.cpp):
/// componentCheckJson's object for a safetensors file's or a sharded checkpoint's summary
/// (inspectModelFile's or safetensorsShardedSummary's, with "tensors") and a transformer;
/// null where no check applies: the model is a layer graph, or the file lists no Hugging Face
/// tensor sizes (a GGUF names its tensors llama.cpp's way, an ONNX file by its graph, an index
/// read without its shards has names but no sizes). Throws InputError naming the summary's
/// field ("/tensors/3/parameters") when "tensors" is not a list of {name, parameters}, and
/// ArithmeticOverflow.
nlohmann::json componentCheck(const nlohmann::json& summary, const Model& model);

/// componentCheck for the bindings: `summary_text` is the summary as JSON text,
/// `document_text` a document parseConfig reads, of which only the model is used (a
/// workload in it is not read, so its errors do not hide the check). Returns the check's JSON
/// text ("null" where none applies); never throws: errorToJson's object on bad input.
std::string componentCheckText(const std::string& summary_text, const std::string& document_text);

}  // namespace dlcost
