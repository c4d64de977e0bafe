#pragma once
// An ONNX graph as the engine's layer graph (docs/model-schema.md): each node the engine
// models becomes a layer object of schema version 1, with the shapes propagated from the
// graph input's shape by the engine's own layer rules, so the per-layer table, parameters,
// MACs and the activation simulation work on it as on a preset.
//
// Exact or honest: the layer graph is given only when every node is understood. Otherwise
// the operators the engine does not model are listed by op_type with their counts and the
// reason, with the share of nodes understood, and no model is given (a graph with a node
// left out would give confident wrong MACs and activations).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dlcost/model_files/onnx.hpp"

namespace dlcost {

struct OnnxGraphImport {
  /// The layer-graph model object ({"name", "source", "input", "layers"}), or null.
  nlohmann::json model;
  int64_t nodes = 0;       ///< nodes of the graph
  int64_t understood = 0;  ///< nodes turned into layers, folded into one, or read as constants
  /// Nodes whose inputs come from a node the engine does not model (their outputs' shapes
  /// are unknown, so they are neither understood nor counted as unmodelled).
  int64_t after_unmodelled = 0;
  struct Unmodelled {
    int64_t count = 0;
    std::string reason;  ///< the first node's reason
    std::string node;    ///< the first node's name
  };
  std::map<std::string, Unmodelled> unmodelled;  ///< op_type -> the nodes dlcost cannot model
  /// Why the graph could not be read at all (no single input with a known shape, shapes that
  /// contradict the graph's own declared outputs); empty otherwise.
  std::string error;
  std::string error_path;  ///< the protobuf field of `error`, e.g. "/graph/node/12"
  /// Of the model given: parameters, buffer values (batchnorm running statistics) and MACs
  /// for one sample, as the engine counts them.
  int64_t parameters = 0;
  int64_t buffer_values = 0;
  int64_t macs_per_sample = 0;
  /// Weight initializers no layer reads (their parameters are in the file, not the model).
  std::vector<std::string> unused_initializers;
  int64_t unused_parameters = 0;
  /// Convolutions whose bias the exporter computed: a BatchNorm folded in by an eval-mode
  /// export. Then the model object carries "inference_only" (a training estimate is refused
  /// with the export call that keeps the BatchNorms).
  int64_t folded_batchnorm = 0;
  std::string folded_batchnorm_node;  ///< the first such Conv and its bias's name
};

/// Turns the graph of `model` into the engine's layer graph. Never throws InputError: what
/// cannot be read is reported in the result.
OnnxGraphImport onnxLayerGraph(const OnnxModel& model);

/// The import as JSON (the "layer_graph" object of an ONNX summary):
/// {"model": {...}|null, "nodes", "understood_nodes", "share_understood" (0..1),
///  "after_unmodelled_nodes", "unmodelled": [{"op_type", "count", "reason", "first_node"}],
///  "error": {"path", "message"}|absent, "parameters", "buffer_values", "macs_per_sample",
///  "unused_initializers": {"count", "parameters", "names" (first 16)},
///  "folded_batchnorm": {"convolutions", "first_node"}|absent}.
nlohmann::json onnxGraphJson(const OnnxGraphImport& import);

/// The model object of an ONNX summary's layer graph, or InputError naming the operators the
/// engine does not model (with their counts) or why the graph could not be read.
nlohmann::json onnxModelOrError(const nlohmann::json& summary);

/// An ONNX file's whole summary: onnxSummaryJson (the tensor table) plus "layer_graph"
/// (onnxGraphJson of its import). The reader reads, the importer imports; this puts them side
/// by side for inspectModelFile and the CLI.
nlohmann::json onnxFileSummaryJson(const OnnxModel& model, int64_t file_size);

}  // namespace dlcost
