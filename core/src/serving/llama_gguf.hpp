#pragma once
// The workload as llama.cpp loads it, shared by its memory plan (engine_plan.cpp) and its
// speed (serving_speed.cpp) so that both read the same GGUF tensors.

#include "dlcost/types/workload.hpp"

namespace dlcost {

/// `w` with a GGUF file: the one it names, or F16 where it names none (`quant: none`;
/// convert_hf_to_gguf.py's default --outtype).
inline Workload asLlamaCppGguf(const Workload& w) {
  Workload gguf = w;
  if (gguf.serving.quant == QuantFormat::kNone) {
    gguf.serving.quant = QuantFormat::kGguf;
    gguf.serving.gguf_type = GgufFileType::kF16;
  }
  return gguf;
}

}  // namespace dlcost
