// A model file's tensor table as the model document records it.
#include "dlcost/types/file_weights.hpp"

#include "types/json_reader.hpp"

namespace dlcost {

namespace {

constexpr int64_t kMaxFileCount = int64_t{1} << 62;

}  // namespace

FileWeights readFileWeights(const nlohmann::json& j, const std::string& path) {
  ObjectReader r(j, path);
  r.rejectUnknown({"format", "weight_bytes", "parameters"});
  FileWeights f;
  f.format = r.requiredString("format");
  if (f.format != "gguf" && f.format != "safetensors" && f.format != "safetensors_index" &&
      f.format != "onnx") {
    throw InputError(ErrorCode::kValue, r.pathOf("format"),
                     "format '" + f.format +
                         "' is not one dlcost reads: gguf, safetensors, safetensors_index, onnx");
  }
  f.bytes = r.requiredInt("weight_bytes", 0, kMaxFileCount);
  f.parameters = r.requiredInt("parameters", 0, kMaxFileCount);
  return f;
}

nlohmann::json fileWeightsToJson(const FileWeights& f) {
  return {{"format", f.format}, {"weight_bytes", f.bytes}, {"parameters", f.parameters}};
}

}  // namespace dlcost
