#pragma once
// The ggml tensor types a GGUF file may store, with the block layout that fixes each
// tensor's exact size in bytes.

#include <cstdint>
#include <string>

namespace dlcost {

/// One ggml type: `block_size` values are stored in `type_size` bytes (a quantized block
/// carries its own scales), so a row of n values takes n / block_size * type_size bytes and
/// n must be a multiple of block_size.
struct GgmlType {
  uint32_t id;         ///< the `ggml_type` enum value written in GGUF tensor infos
  const char* name;    ///< the enum's name without GGML_TYPE_: "F16", "Q4_K", "IQ2_XXS", ...
  int64_t block_size;  ///< values per block
  int64_t type_size;   ///< bytes per block
};

/// The type with this enum value, or nullptr for a removed or unknown one (4, 5, 31..33,
/// 36..38 were removed from ggml; values past the table are newer than dlcost).
const GgmlType* ggmlType(uint32_t id);

/// Bytes of `values` values of `type`. Throws ArithmeticOverflow; `values` must be a
/// multiple of the block size (the caller checks the row length and names the tensor).
int64_t ggmlBytes(const GgmlType& type, int64_t values);

}  // namespace dlcost
