#pragma once
// Model files read from their headers alone: GGUF (llama.cpp, Ollama), safetensors, and a
// sharded checkpoint's model.safetensors.index.json. The engine does no I/O: a front end
// passes the first bytes of the file and its size, and reads more when asked (a 20 GB
// checkpoint is summarised from a few megabytes).

#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace dlcost {

/// Thrown when the bytes given are a prefix of the file too short to hold its header. Read
/// the first `wanted_bytes()` bytes of the file (never more than the file has: the reader
/// only asks when the file is longer than the prefix) and call again.
class HeaderIncomplete : public std::runtime_error {
 public:
  explicit HeaderIncomplete(int64_t wanted_bytes);
  int64_t wanted_bytes() const { return wanted_; }

 private:
  int64_t wanted_;
};

/// Largest header dlcost reads (128 MiB): a llama.cpp GGUF with a 256k-token vocabulary has
/// a header of about 10 MB, and safetensors itself refuses headers over 100 MB. A file that
/// claims more is refused instead of being read.
constexpr int64_t kMaxModelHeaderBytes = int64_t{128} << 20;

/// Bytes a front end reads first: most headers fit, and a longer one asks for the rest. A
/// call with fewer than 9 bytes of a longer file asks for this many.
constexpr int64_t kModelHeaderFirstRead = int64_t{1} << 20;

/// The kinds of file dlcost reads, told apart by their bytes (never by their names).
enum class ModelFileKind {
  kGguf,         ///< "GGUF" magic
  kSafetensors,  ///< an 8-byte little-endian header length, then the JSON header's '{'
  kJson,         ///< '{' or '[' after any white space: a model document, a config.json or a
                 ///< safetensors index (model.safetensors.index.json, with "weight_map")
  kOnnx,         ///< a protobuf ModelProto: its ir_version field first (byte 0x08, a small varint)
  kUnknown,
};

/// Bytes detectModelFile needs to tell every kind apart (fewer are read as far as they go).
constexpr int64_t kModelFileKindBytes = 16;

/// The kind of file whose first bytes are `prefix`.
ModelFileKind detectModelFile(const std::string& prefix);
/// "gguf", "safetensors", "json", "onnx", "unknown".
const char* modelFileKindName(ModelFileKind kind);
/// Why a file of kind kUnknown is refused: what its first bytes look like (hex and text) and
/// which kinds are accepted, for an InputError's message.
std::string unknownModelFileMessage(const std::string& prefix);

/// Summary of a model file from its first bytes (`prefix`; `file_size` is the whole file's
/// size, or -1 when unknown, which skips the check that the tensors fit in the file). The
/// format comes from the bytes: "GGUF" magic, a JSON object with "weight_map" (index), or an
/// 8-byte length and a JSON header (safetensors). Returns
/// `{"schema": "dlcost.model_file/1", "format": "gguf"|"safetensors"|"safetensors_index",
///   "file_size", "header_bytes", "parameters", "weight_bytes", "tensor_count",
///   "by_dtype": [{"dtype", "tensors", "parameters", "bytes", "bits_per_weight"}],
///   "tensors": [{"name", "dtype", "shape", "parameters", "bytes", "offset"}], ...}`
/// plus per-format fields (see gguf.hpp and safetensors.hpp). Counts are exact, bytes are
/// bytes. Throws HeaderIncomplete (read more) or InputError (path names the header field).
nlohmann::json inspectModelFile(const std::string& prefix, int64_t file_size);

/// The same as JSON text for the bindings; never throws: `{"need_bytes": N}` when more of the
/// file is needed, errorToJson's object on bad input.
std::string inspectModelFileText(const std::string& prefix, double file_size);

/// safetensorsShardedSummary as JSON text for the bindings: `index_text` is the
/// model.safetensors.index.json, `shards_json_text` an object of file name -> that shard's
/// summary (inspectModelFile's). Never throws: errorToJson's object on bad input.
std::string shardedSummaryText(const std::string& index_text, const std::string& shards_json_text);

}  // namespace dlcost
