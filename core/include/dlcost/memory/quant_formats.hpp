#pragma once
// Exact bytes of a decoder's weights in a checkpoint quantization format: what each format
// stores per matrix (packed values, scales, zero points, indices) and which tensors its
// tooling leaves in 16 bits by default (docs/serving.md, "Quantization formats").

#include <cstdint>
#include <string>
#include <vector>

#include "dlcost/types/transformer.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// The weights of one model in one format, in bytes.
struct QuantizedWeights {
  int64_t values = 0;  ///< packed quantized values of the quantized matrices
  int64_t scales = 0;  ///< their scales, zero points, group indices, absmax, global scales
  /// Tensors the format leaves unquantized (embeddings, LM head, norms, biases, routers; GGUF:
  /// norms, biases and routers in F32).
  int64_t kept = 0;
  int64_t total = 0;         ///< values + scales + kept
  int64_t quantized = 0;     ///< elements of the quantized matrices
  int64_t expert_bytes = 0;  ///< of the routed experts, values and scales (MoE decode reads)
  int64_t input_bytes = 0;   ///< token (and position) embeddings: llama.cpp keeps them on CPU
  int64_t output_bytes = 0;  ///< LM head and final norm (llama.cpp's "output layer")
  std::vector<int64_t> layer_bytes;  ///< each decoder layer, everything in it
  std::string kept_note;             ///< what stays unquantized, as the format's tooling leaves it
};

/// The weights of `t` stored as `w.serving.quant` (with quant_bits, quant_group_size,
/// bnb_double_quant, gguf_type); with quant none, every tensor unquantized in weight_dtype (an
/// unquantized one) or the precision's weights format, layer by layer. Throws InputError at
/// /workload/quant (and its parameters) for a model or shape the format cannot store: encoder
/// models, a row length that is not a multiple of the format's block, AWQ at other than 4 bits.
/// Throws ArithmeticOverflow.
QuantizedWeights quantizedWeights(const Transformer& t, const Workload& w);

/// Replaces the weights and quant_scales terms of `terms` with those of `q`.
void applyQuantizedWeights(const QuantizedWeights& q, const Workload& w,
                           std::vector<struct MemoryTerm>& terms);

}  // namespace dlcost
