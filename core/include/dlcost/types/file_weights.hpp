#pragma once
// Weights as a model file stores them. A GGUF, safetensors or ONNX file's header lists every
// tensor with its type and shape, so the bytes the weights take are known exactly (GGUF's
// quantized blocks with their scales included) instead of parameters x a dtype's size.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace dlcost {

/// The weights of a model file, from its header's tensor table (inspectModelFile's
/// "weights_file" object: {"format", "weight_bytes", "parameters"}).
struct FileWeights {
  std::string format;      ///< "gguf", "safetensors", "safetensors_index" or "onnx"
  int64_t bytes = 0;       ///< bytes of every tensor as stored, in [0, 2^62]
  int64_t parameters = 0;  ///< elements of those tensors, in [0, 2^62]
};

/// Reads the document's "weights_file" object at `path`; InputError names the bad field.
FileWeights readFileWeights(const nlohmann::json& j, const std::string& path);

/// The object readFileWeights reads.
nlohmann::json fileWeightsToJson(const FileWeights& f);

}  // namespace dlcost
