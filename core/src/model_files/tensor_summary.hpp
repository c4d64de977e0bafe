#pragma once
// What every model-file summary reports about its tensors, whatever the format: exact
// parameters and bytes, in all and by storage type.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlcost {

struct TensorEntry {
  std::string name;
  std::string dtype;  ///< the format's own name: "Q4_K", "BF16", "F8_E4M3", ...
  std::vector<int64_t> shape;
  int64_t parameters = 0;
  int64_t bytes = 0;
  int64_t offset = 0;  ///< bytes from the start of the data section
};

/// Adds "parameters", "weight_bytes", "tensor_count", "by_dtype" (largest bytes first, with
/// "bits_per_weight" where the type holds any values) and "tensors" to `summary`. Throws
/// ArithmeticOverflow past 2^63.
void addTensorSummary(nlohmann::json& summary, const std::vector<TensorEntry>& tensors);

}  // namespace dlcost
