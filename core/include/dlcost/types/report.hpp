#pragma once
// What an estimate produces. Every count is exact; every memory figure is in bytes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dlcost/base/checked.hpp"
#include "dlcost/base/wide_count.hpp"
#include "dlcost/types/gpu_fit.hpp"
#include "dlcost/types/memory.hpp"
#include "dlcost/types/serving_plan.hpp"
#include "dlcost/types/shape.hpp"
#include "dlcost/types/transformer.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

struct ParamCounts {
  int64_t total = 0;      ///< trainable + non-trainable parameters (buffers excluded)
  int64_t trainable = 0;  ///< parameters the optimizer updates
  int64_t buffers = 0;    ///< non-parameter state, e.g. batchnorm running mean/var (values)
  int64_t adapters = 0;   ///< LoRA adapter parameters (included in total and trainable)
};

/// Multiply-accumulates. One MAC is one multiply and one add: FLOPs = 2 x MACs. Published
/// "GFLOPS" for torchvision models are GMACs of conv and linear layers, which is what
/// `forward` counts here.
/// FLOPs of one multiply-accumulate (a multiply and an add), the convention every FLOP figure
/// of the report uses.
constexpr int64_t kFlopsPerMac = 2;

/// FLOPs of `macs` multiply-accumulates. Throws ArithmeticOverflow.
inline int64_t flopsOf(int64_t macs) {
  return checkedMul(kFlopsPerMac, macs);
}
inline WideCount flopsOf(WideCount macs) {
  return WideCount(kFlopsPerMac) * macs;
}

/// A step's MACs at the workload's (global) batch: 128-bit, since a large training step
/// passes 64 bits (wide_count.hpp); per-layer rows stay int64.
struct MacCounts {
  WideCount forward = 0;
  /// Gradient w.r.t. inputs (same MACs as forward, skipped where no input needs a gradient,
  /// e.g. the first layer) plus gradient w.r.t. weights (same MACs as forward).
  WideCount backward = 0;
};

/// How one figure of a row follows from its inputs, written with their names (as a memory
/// term's formula is), by the rule that computed the figure.
struct RowFormula {
  std::string figure;   ///< the LayerReport field: "params", "macs" or "activation_bytes"
  std::string formula;  ///< e.g. "batch × tokens × per_token"
  std::vector<TermInput> inputs;
};

/// One row of the per-layer table, at the workload's batch.
struct LayerReport {
  std::string name;
  std::string type;
  Shape output_shape;  ///< per sample
  int64_t params = 0;
  int64_t buffers = 0;
  int64_t macs = 0;
  /// Training: bytes this layer keeps for backward (its new output tensor if anything saves
  /// it, plus masks/indices it saves). Inference: bytes of the tensor it allocates.
  int64_t activation_bytes = 0;
  bool inplace = false;  ///< output shares its input's memory (in-place op or view)
  /// Forward memory traffic at the workload's batch: weights read + inputs read + output
  /// written, in bytes (for the per-layer roofline).
  int64_t bytes_accessed = 0;
  /// Layer-graph rows: the rows this layer reads, numbered as the report's rows (0 is the
  /// model input, layer i is row i + 1); empty for the input row. Transformer rows have
  /// none (their JSON leaves the field out: the page draws them as a block diagram).
  std::vector<int> inputs;
  /// Transformer rows: the formulas of params, macs and activation_bytes (explain.cpp writes
  /// them out; layer-graph rows are explained from their layer's spec). Not in the JSON.
  std::vector<RowFormula> formulas;
};

/// The work of one phase of a step, for the roofline model:
/// time = max(flops / (peak x utilisation), bytes / bandwidth).
struct PhaseWork {
  std::string name;     ///< "forward", "backward", "prefill", "decode" (one generated token)
  WideCount flops = 0;  ///< floating-point operations of the phase at the workload's batch
  int64_t bytes = 0;    ///< bytes moved to and from GPU memory by the phase
  int64_t tokens = 0;   ///< tokens the phase processes (0 where not token-based)
  /// Of flops: the attention core's (QK^T, AV, their gradients) where fused kernels run it
  /// (FlashAttention), timed at their own share of the peak rather than a GEMM's.
  WideCount attention_flops = 0;
  /// Share of attention_flops fused kernels compute: a causal mask lets them skip the tiles
  /// above the diagonal (about half of a prompt's square; the count above is the square).
  double attention_computed = 1.0;
};

/// What a transformer estimate adds: parameters by component, tokens, per-token figures.
struct TransformerSummary {
  std::string architecture;  ///< model_type as read, or "generic"
  TransformerParams params;  ///< by component; adapters excluded
  int64_t seq_len =
      0;  ///< training: tokens per sequence; inference: prompt tokens (images' included)
  int64_t generated_tokens = 0;
  int64_t context_tokens = 0;   ///< tokens in the KV cache at the end (prompt + generated)
  int64_t tokens_per_step = 0;  ///< training: batch x seq_len x grad_accum
  /// Forward FLOPs of one token with seq_len tokens of context: 2 x (block linear weights
  /// + LM head) + 4 x layers x context x heads x head_dim (QK^T and AV).
  int64_t forward_flops_per_token = 0;
  int64_t kv_cache_bytes_per_token = 0;  ///< one token of one sequence, all layers
  /// Vision-language models: images per sample and the sequence positions they fill (part
  /// of seq_len and context_tokens).
  int64_t images = 0;
  int64_t image_tokens = 0;
  /// Forward MACs of the vision tower and projector for one image.
  int64_t vision_macs_per_image = 0;
  /// The multimodal model_type whose language model alone was read, as asked (text_only).
  std::string text_only_of;
  /// The model_type is not one dlcost counts exactly and the user asked for the generic
  /// reading: params and every figure from them are approximate ("approximate": true).
  bool approximate = false;
};

struct Report {
  std::string model_name;
  std::string model_kind;  ///< "layers" or "transformer"
  Workload workload;
  ParamCounts params;
  MacCounts macs;
  /// Term by term at the workload's batch; total = fixed + batch x per_sample.
  MemoryBreakdown memory;
  /// Largest batch with total <= workload.memory_bytes (absent without a memory size;
  /// 0 when not even one sample fits).
  std::optional<int64_t> max_batch;
  std::vector<LayerReport> layers;  ///< the model input first, then every layer in order
  /// The phases of one step (training: forward, backward; LLM inference: prefill, decode).
  std::vector<PhaseWork> phases;
  /// Fit, step time and advice on the workload's GPU (absent without "gpu").
  std::optional<GpuFit> gpu_fit;
  std::vector<std::string> warnings;
  std::optional<TransformerSummary> transformer;  ///< transformers only
  /// The serving engine's plan (inference with an engine; dlcost/serving.hpp).
  std::optional<ServingPlan> serving;
};

}  // namespace dlcost
