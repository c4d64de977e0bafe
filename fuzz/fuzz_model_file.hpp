#pragma once
// The body both model-file fuzz targets share: the bytes are read as a whole file and as the
// prefix of a much longer one. Each must give a summary, a request for more bytes (more than
// it was given, never past the file) or a clean InputError; anything else traps. The page
// then checks a summary's tensors against a model (componentCheckText): a result, null or a
// clean error, never an internal one.
#include <cstddef>
#include <cstdint>
#include <string>

#include "dlcost/base/error.hpp"
#include "dlcost/model_files/model_file.hpp"
#include "dlcost/model_files/weight_components.hpp"

inline void fuzzModelFile(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const int64_t have = static_cast<int64_t>(size);
  for (const int64_t file_size : {have, have + (int64_t{1} << 40)}) {
    try {
      dlcost::inspectModelFile(bytes, file_size);
    } catch (const dlcost::HeaderIncomplete& e) {
      if (e.wanted_bytes() <= have || e.wanted_bytes() > file_size ||
          e.wanted_bytes() > dlcost::kMaxModelHeaderBytes) {
        __builtin_trap();
      }
    } catch (const dlcost::InputError&) {
    }
  }
  // The text entry point of the page must never report an internal error.
  const std::string out = dlcost::inspectModelFileText(bytes, static_cast<double>(size));
  if (out.find("\"code\":\"internal\"") != std::string::npos) __builtin_trap();
  // A 1-layer Llama: any summary's tensors are placed by name against its components.
  static const std::string kLlama =
      R"({"model": {"hf_config": {"model_type": "llama", "hidden_size": 64, "intermediate_size": )"
      R"(128, "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 1, )"
      R"("vocab_size": 256}}})";
  const std::string check = dlcost::componentCheckText(out, kLlama);
  if (check.find("\"code\":\"internal\"") != std::string::npos) __builtin_trap();
}
