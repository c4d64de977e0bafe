// The summary of a GGUF header: the architecture's hyper-parameters under llama.cpp's key
// names (gguf.md "LLM" keys: <arch>.context_length, <arch>.attention.head_count_kv, ...)
// and the tensors' exact sizes.
#include <utility>

#include "dlcost/base/checked.hpp"

#include "dlcost/base/error.hpp"
#include "dlcost/model_files/gguf.hpp"
#include "dlcost/types/ggml_types.hpp"
#include "model_files/tensor_summary.hpp"
#include "transformer/hf_config.hpp"

namespace dlcost {

namespace {

using nlohmann::json;

/// The length of an array value, kept whole or summarised.
json arrayLength(const json& v) {
  if (v.is_array()) return v.size();
  if (v.is_object() && v.contains("length")) return v["length"];
  return nullptr;
}

json modelFields(const json& metadata, const std::string& arch) {
  static const std::pair<const char*, const char*> kFields[] = {
      {"context_length", "context_length"},    {"layers", "block_count"},
      {"embedding_width", "embedding_length"}, {"feed_forward_width", "feed_forward_length"},
      {"heads", "attention.head_count"},       {"kv_heads", "attention.head_count_kv"},
      {"head_dim", "attention.key_length"},    {"experts", "expert_count"},
      {"experts_used", "expert_used_count"},   {"vocab_size", "vocab_size"},
  };
  json model = json::object();
  for (const auto& [field, key] : kFields) {
    const std::string full = arch + "." + key;
    if (metadata.contains(full)) model[field] = metadata[full];
  }
  // Most converters leave out <arch>.vocab_size; the tokenizer's token list has it.
  if (!model.contains("vocab_size") && metadata.contains("tokenizer.ggml.tokens")) {
    const json n = arrayLength(metadata["tokenizer.ggml.tokens"]);
    if (!n.is_null()) model["vocab_size"] = n;
  }
  return model;
}

}  // namespace

json ggufSummaryJson(const GgufHeader& header, int64_t file_size) {
  json summary = {{"schema", "dlcost.model_file/1"},
                  {"format", "gguf"},
                  {"file_size", file_size >= 0 ? json(file_size) : json(nullptr)},
                  {"header_bytes", header.header_bytes}};
  std::vector<TensorEntry> tensors;
  tensors.reserve(header.tensors.size());
  for (const GgufTensor& t : header.tensors) {
    tensors.push_back({t.name, ggmlType(t.type)->name, t.shape, t.parameters, t.bytes, t.offset});
  }
  addTensorSummary(summary, tensors);
  const json& md = header.metadata;
  const std::string arch =
      md.contains("general.architecture") && md["general.architecture"].is_string()
          ? md["general.architecture"].get<std::string>()
          : "";
  json hyper = json::object();
  if (!arch.empty()) {
    const std::string prefix = arch + ".";
    for (const std::string& key : header.keys) {
      if (key.rfind(prefix, 0) == 0) hyper[key.substr(prefix.size())] = md[key];
    }
  }
  json gguf = {{"version", header.version},
               {"alignment", header.alignment},
               {"data_offset", header.data_offset},
               {"data_bytes", header.data_bytes},
               {"architecture", arch.empty() ? json(nullptr) : json(arch)},
               {"name", md.contains("general.name") ? md["general.name"] : json(nullptr)},
               {"model", arch.empty() ? json::object() : modelFields(md, arch)},
               {"hyperparameters", std::move(hyper)},
               {"metadata", md}};
  // The architecture as a config.json, and the engine's count of it beside the file's.
  try {
    json config = ggufHfConfig(header);
    std::vector<std::string> warnings;
    const Transformer t = readHfConfig(config, "/gguf/hf_config", warnings);
    const int64_t engine = countParams(t).total;
    const int64_t file = summary["parameters"].get<int64_t>();
    gguf["config_check"] = {
        {"engine_parameters", engine}, {"file_parameters", file}, {"difference", file - engine}};
    gguf["hf_config"] = std::move(config);
  } catch (const InputError& e) {
    gguf["hf_config"] = nullptr;
    gguf["hf_config_error"] = {{"code", errorCodeName(e.error().code)},
                               {"path", e.error().path},
                               {"message", e.error().message}};
  } catch (const ArithmeticOverflow&) {
    gguf["hf_config"] = nullptr;
    gguf["hf_config_error"] = {
        {"code", "too_large"}, {"path", ""}, {"message", "sizes overflow 64-bit arithmetic"}};
  }
  summary["gguf"] = std::move(gguf);
  return summary;
}

}  // namespace dlcost
