#pragma once
// A model as the engine sees it.

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "dlcost/types/file_weights.hpp"
#include "dlcost/types/layer.hpp"
#include "dlcost/types/shape.hpp"
#include "dlcost/types/transformer.hpp"

namespace dlcost {

/// What the model input holds.
enum class InputKind {
  kValues,    ///< activations in the workload's precision (images, features)
  kTokenIds,  ///< int64 indices (the input of an embedding)
};

/// A DAG of layers with one input, evaluated in list order (a topological order by
/// construction: a layer may only read earlier layers).
struct LayerGraph {
  Shape input;
  InputKind input_kind = InputKind::kValues;
  std::vector<Layer> layers;
};

/// A model description: a name and its architecture, either a layer graph (schema v1) or a
/// transformer given by its hyper-parameters (a Hugging Face config.json or the generic form).
struct Model {
  std::string name;
  std::variant<LayerGraph, Transformer> body;
  /// Assumptions made while reading the model (e.g. an unknown model_type read as a generic
  /// decoder); the report repeats them.
  std::vector<std::string> warnings;
  /// The weights as a model file stores them ("weights_file" beside "hf_config"): the
  /// weights term is then the file's bytes, not parameters x the workload's dtype.
  std::optional<FileWeights> weights_file;
  /// Why this graph cannot be trained as it is ("inference_only" in a layer-graph model
  /// object, e.g. an ONNX graph whose BatchNorms an eval-mode export folded away); empty when
  /// it can. A training estimate is refused with this text; inference runs as usual.
  std::string inference_only;
};

}  // namespace dlcost
