#pragma once
// The time of one engine iteration (one forward) over a mix of prompt chunks and decode
// tokens, for the load simulation (dlcost/serving/load_sim.hpp): the same per-op time model
// and the same work as the serving plan's speed (serving_speed.cpp), per sequence instead of
// for `users` identical ones, so that a decode-only iteration of n sequences at context c
// costs what servingSpeed's inter-token latency says.

#include <cstdint>

#include "dlcost/gpu/time_model.hpp"
#include "dlcost/types/report.hpp"
#include "dlcost/types/serving_plan.hpp"
#include "dlcost/types/transformer.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// Bytes of the routed experts' weights as stored (0 for a dense model).
int64_t expertBytes(const Transformer& t, const Workload& w);

/// What one iteration runs, accumulated sequence by sequence (addDecode, addChunk).
struct IterationWork {
  int64_t tokens = 0;          ///< rows of the iteration's GEMMs
  int64_t prefill_tokens = 0;  ///< of which prompt tokens (the forward is launched eagerly)
  int64_t logits = 0;          ///< tokens sampled (decode tokens and finished prompts)
  double cells = 0;            ///< Σ over tokens and layers of the keys each attends
  double prefill_cells = 0;    ///< of cells: the prompt tokens' (a fused attention kernel's)
  double kv_cells = 0;         ///< Σ over sequences and layers of the cached tokens read
};

/// The work and time of iterations of one served model: built once per simulation.
class IterationModel {
 public:
  /// `r` is the report of `t` under `w` with its serving plan (`r.serving`) and GPU fit.
  /// Throws InputError when the plan cannot be timed per iteration: layers in system RAM, a
  /// CPU device, or a GPU without a published compute rate.
  IterationModel(const Transformer& t, const Workload& w, const Report& r);

  /// One decode token of a sequence holding `context` tokens (it attends all of them).
  void addDecode(IterationWork& it, int64_t context) const;
  /// Prompt tokens [from, to) of one sequence; `last`: its prompt ends here (its first token
  /// is sampled).
  void addChunk(IterationWork& it, int64_t from, int64_t to, bool last) const;
  /// Seconds the iteration takes.
  double seconds(const IterationWork& it) const;
  /// Layer-cells of `tokens` cached tokens (Σ over layers of min(tokens, window)).
  double cellsOf(int64_t tokens) const;

 private:
  /// Σ over positions p in (from, to] and layers of min(p, window): the keys attended.
  double attendedSum(int64_t from, int64_t to) const;

  TimeContext ctx_;
  const Network* network_ = nullptr;
  int64_t layers_ = 0;
  int64_t full_layers_ = 0;   ///< layers attending the whole context
  int64_t local_layers_ = 0;  ///< sliding-window layers
  int64_t window_ = 0;
  int64_t tp_ = 1;
  int64_t experts_ = 0;
  int64_t experts_per_token_ = 0;
  double linear_flops_ = 0;     ///< 2 x block linear weights per token
  double head_flops_ = 0;       ///< 2 x vocab x hidden per sampled token
  double key_flops_ = 0;        ///< 2 x (query width + heads x value head) per attended key
  double kv_cell_bytes_ = 0;    ///< one token of one layer in the cache, per GPU
  double decode_kv_reads_ = 1;  ///< reads of each cell per decode token (decodeKvReads)
  double device_weights_ = 0;
  double expert_bytes_ = 0;   ///< per GPU
  double device_params_ = 0;  ///< parameters on one GPU (dequantized per forward)
  double dequant_ops_ = 0;
  bool fused_attention_ = true;     ///< fusedAttention(w): prompts' attention at its own rate
  double allreduce_per_token_ = 0;  ///< bytes of one token's activations
};

}  // namespace dlcost
