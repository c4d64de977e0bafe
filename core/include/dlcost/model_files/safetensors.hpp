#pragma once
// safetensors (Hugging Face's checkpoint format): an 8-byte little-endian header length, a
// JSON header naming each tensor's dtype, shape and byte range, then the data, which is
// never read here. Format: https://github.com/huggingface/safetensors#format

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace dlcost {

/// Largest header safetensors itself accepts (MAX_HEADER_SIZE, safetensors/src/tensor.rs).
constexpr int64_t kSafetensorsMaxHeaderBytes = 100000000;

/// Bits per value of a safetensors dtype ("F32" 32, "BF16" 16, "F8_E4M3" 8, "F4" 4, ... as
/// Dtype::bitsize in safetensors/src/tensor.rs), or 0 for a name it does not define.
int safetensorsDtypeBits(const std::string& dtype);

/// inspectModelFile's summary of a safetensors file from its first `size` bytes, with
/// "safetensors": {"metadata": the "__metadata__" strings or {}, "data_offset"}. Checks what
/// the safetensors library checks before it loads: the header is a JSON object of tensors
/// with a known dtype, non-negative shape and [begin, end] data offsets that tile the data
/// without gaps or overlaps, each as long as its shape and dtype say, ending where the file
/// ends (when `file_size` >= 0). Throws HeaderIncomplete or InputError (path: "/header_size",
/// "/header", "/header/<tensor>/shape", ...).
nlohmann::json safetensorsSummary(const uint8_t* data, size_t size, int64_t file_size);

/// inspectModelFile's summary of a model.safetensors.index.json document: "format":
/// "safetensors_index", "tensor_count", "weight_bytes" (metadata.total_size when present,
/// else null), "parameters": null (only the shards' headers have the shapes), "shards":
/// [{"file", "tensors"}] in file-name order, "metadata". Throws InputError.
nlohmann::json safetensorsIndexSummary(const nlohmann::json& index);

/// The summary of a sharded checkpoint from its index document and the summaries of its
/// shards (safetensorsSummary of each file, keyed by the file name the weight_map uses):
/// safetensorsIndexSummary's fields with exact "parameters", "weight_bytes", "by_dtype" and
/// "tensors" (each with its "file") over all shards. Checks that every weight_map tensor is in
/// the shard it names and every shard tensor is in the weight_map, and that
/// metadata.total_size (when present) equals the shards' tensor bytes. Throws InputError:
/// "/weight_map/<tensor>", "/shards/<file>", "/metadata/total_size".
nlohmann::json safetensorsShardedSummary(const nlohmann::json& index,
                                         const std::map<std::string, nlohmann::json>& shards);

}  // namespace dlcost
