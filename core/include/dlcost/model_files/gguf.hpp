#pragma once
// GGUF (llama.cpp's model file, versions 2 and 3): the header's metadata key/values and
// tensor infos, read from the file's first bytes. Specification:
// https://github.com/ggml-org/ggml/blob/master/docs/gguf.md

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlcost {

/// One tensor info of the header.
struct GgufTensor {
  std::string name;
  std::vector<int64_t> shape;  ///< ggml order: shape[0] is the row length (contiguous)
  uint32_t type = 0;           ///< ggml_type (see ggml_types.hpp)
  int64_t offset = 0;          ///< bytes from the start of the data section
  int64_t parameters = 0;      ///< values: the product of the shape
  int64_t bytes = 0;           ///< exact bytes in the file, from the type's block layout
};

/// Arrays longer than this keep only their type and length in `metadata` (a tokenizer's
/// 150,000 tokens are not needed for a cost estimate).
constexpr int64_t kGgufArrayValuesKept = 16;

/// Most tensors and metadata entries a header may declare (2^20; the largest published
/// models have a few thousand tensors). A count beyond it is refused before reading on.
constexpr int64_t kGgufMaxCount = int64_t{1} << 20;

struct GgufHeader {
  uint32_t version = 0;      ///< 2 or 3
  int64_t alignment = 32;    ///< general.alignment, a power of two
  int64_t header_bytes = 0;  ///< bytes up to the end of the tensor infos
  int64_t data_offset = 0;   ///< header_bytes rounded up to the alignment
  int64_t data_bytes = 0;    ///< end of the last tensor's data, from data_offset
  /// Key -> value: numbers, booleans, strings, arrays of at most kGgufArrayValuesKept
  /// values; a longer array becomes {"array_of": TYPE, "length": N}.
  nlohmann::json metadata = nlohmann::json::object();
  std::vector<std::string> keys;  ///< metadata keys in file order
  std::vector<GgufTensor> tensors;
};

/// Reads the header from the file's first `size` bytes; `file_size` as for inspectModelFile.
/// Throws HeaderIncomplete when the prefix is too short, InputError for a header that no
/// more bytes could fix: wrong magic, version 1 or big-endian, an unknown value or tensor
/// type, a count or length past the limits, a row length that is not a multiple of its
/// type's block, an offset other than the one the tensors before it imply (as llama.cpp
/// checks), tensors that end past the file's size.
GgufHeader readGgufHeader(const uint8_t* data, size_t size, int64_t file_size);

/// The Hugging Face config.json a GGUF's metadata stands for (llama.cpp's keys mapped back
/// to transformers' names: embedding_length -> hidden_size, head_count_kv ->
/// num_key_value_heads, expert_count -> num_local_experts, ...; tie_word_embeddings when the
/// file has no output.weight), for the architectures whose layer is Llama's: llama (mixtral
/// with experts), qwen2, qwen3, gemma, gemma2. Throws InputError ("/metadata/<key>") for
/// another architecture, a missing key or a per-layer array where one number is needed.
nlohmann::json ggufHfConfig(const GgufHeader& header);

/// inspectModelFile's summary of a GGUF header, with "gguf": {"version", "alignment",
/// "data_offset", "architecture", "name", "hyperparameters": {every "<arch>." key without
/// the prefix}, "model": {"context_length", "layers", "embedding_width", "heads", "kv_heads",
/// "feed_forward_width", "experts", "experts_used", "vocab_size"} (the ones present),
/// "metadata", "hf_config": ggufHfConfig's config or null, "hf_config_error": why not (an
/// Error object) when null, "config_check": {"engine_parameters", "file_parameters",
/// "difference"} where the engine counts the config's parameters (tensors the architecture
/// does not train, such as llama 3's rope_freqs, make the file's count larger)}.
nlohmann::json ggufSummaryJson(const GgufHeader& header, int64_t file_size);

}  // namespace dlcost
