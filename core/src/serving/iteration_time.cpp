// One engine iteration's time (iteration_time.hpp): the decode step and the prefill of
// serving_speed.cpp, written per sequence.
#include "serving/iteration_time.hpp"

#include <algorithm>

#include "dlcost/base/error.hpp"
#include "dlcost/gpu/fit.hpp"
#include "dlcost/gpu/gpu_compute.hpp"
#include "dlcost/types/gpu_fit.hpp"
#include "serving/decode_kv_reads.hpp"

namespace dlcost {

namespace {

double d(int64_t v) {
  return static_cast<double>(v);
}

/// Σ_{p = from + 1}^{to} min(p, cap).
double cappedSum(int64_t from, int64_t to, int64_t cap) {
  const auto sum = [](double a, double b) { return (a + b) * (b - a + 1) / 2; };  // a..b
  if (to <= from) return 0;
  if (cap <= 0 || to <= cap) return sum(d(from + 1), d(to));
  if (from >= cap) return d(cap) * d(to - from);
  return sum(d(from + 1), d(cap)) + d(cap) * d(to - cap);
}

}  // namespace

IterationModel::IterationModel(const Transformer& t, const Workload& w, const Report& r) {
  if (!r.serving || !r.gpu_fit) {
    throw InputError(ErrorCode::kMissingField, "/workload/gpu",
                     "a simulation under load needs a serving engine on a GPU");
  }
  const ServingPlan& plan = *r.serving;
  const GpuFit& fit = *r.gpu_fit;
  if (plan.on_cpu || fit.gpu.cpu) {
    throw InputError(ErrorCode::kValue, "/workload/gpu",
                     "the simulation under load times GPU iterations; a CPU device is not "
                     "simulated");
  }
  // llama.cpp keeps the token embeddings in system RAM (read row by row, not per step); the
  // decoder layers and the output layer must all be on the GPU.
  if (plan.engine == Engine::kLlamaCpp && plan.gpu_layers <= plan.layers) {
    throw InputError(ErrorCode::kValue, "/workload/n_gpu_layers",
                     "the simulation under load needs every layer on the GPU (llama.cpp keeps " +
                         std::to_string(plan.layers + 1 - plan.gpu_layers) + " of the " +
                         std::to_string(plan.layers + 1) +
                         " layers with the output layer in system RAM here)");
  }
  if (w.serving.draft) {
    throw InputError(ErrorCode::kValue, "/workload/draft_preset",
                     "speculative decoding is not simulated under load (its steps' accepted "
                     "tokens vary per request): read the serving plan's steady state");
  }
  if (!plan.stage_layers.empty()) {
    throw InputError(ErrorCode::kValue, "/workload/pp",
                     "the simulation under load runs one engine instance's iterations on one "
                     "stage; vLLM's pipeline stages (batches in flight over them) are not "
                     "simulated: leave pp at 1, or read the serving plan's steady state");
  }
  if (!gpuComputePublished(fit.gpu)) {
    throw InputError(ErrorCode::kValue, "/workload/gpu",
                     fit.gpu.name +
                         " has no published compute rate: prefill times, and so "
                         "the simulation under load, are unknown");
  }
  ctx_ = timeContext(w, fit);
  ctx_.engine = plan.engine;
  network_ = &fit.network;
  layers_ = t.layers;
  for (int64_t i = 0; i < t.layers; ++i) (isLocalLayer(t, i) ? local_layers_ : full_layers_)++;
  window_ = t.sliding_window;
  tp_ = std::max<int64_t>(1, w.hardware.parallel.tp);
  experts_ = t.experts;
  experts_per_token_ = t.experts_per_token;
  const TransformerParams p = countParams(t);
  const int64_t v_head = t.kv_lora_rank > 0 ? t.v_head_dim : t.head_dim;
  linear_flops_ = 2.0 * d(p.block_linear_per_token) / d(tp_);
  head_flops_ = 2.0 * d(t.vocab) * d(t.hidden) / d(tp_);
  key_flops_ = 2.0 * (d(queryWidth(t)) + d(t.heads) * d(v_head)) / d(tp_);
  // As servingSpeed's planKvBytes: the plan's bytes per token spread evenly over the layers.
  kv_cell_bytes_ = d(plan.kv_bytes_per_token / std::max<int64_t>(1, t.layers));
  decode_kv_reads_ = decodeKvReads(t, plan.engine, w);
  device_weights_ =
      d(plan.device.bytesOf(MemoryKey::kWeights) + plan.device.bytesOf(MemoryKey::kQuantScales));
  expert_bytes_ = d(expertBytes(t, w)) / d(tp_);
  device_params_ = d(r.params.total) / d(tp_);
  dequant_ops_ = dequantOpsOf(w);
  fused_attention_ = fusedAttention(w);
  allreduce_per_token_ = d(t.hidden) * dtypeBits(layoutOf(w.precision).activations) / 8.0;
}

double IterationModel::cellsOf(int64_t tokens) const {
  return d(full_layers_) * d(tokens) + d(local_layers_) * d(std::min(tokens, window_));
}

double IterationModel::attendedSum(int64_t from, int64_t to) const {
  return d(full_layers_) * cappedSum(from, to, 0) + d(local_layers_) * cappedSum(from, to, window_);
}

void IterationModel::addDecode(IterationWork& it, int64_t context) const {
  it.tokens += 1;
  it.logits += 1;
  const double cells = cellsOf(context);
  it.cells += cells;
  it.kv_cells += cells * decode_kv_reads_;
}

void IterationModel::addChunk(IterationWork& it, int64_t from, int64_t to, bool last) const {
  if (to <= from) return;
  it.tokens += to - from;
  it.prefill_tokens += to - from;
  if (last) it.logits += 1;
  const double attended = attendedSum(from, to);
  it.cells += attended;
  it.prefill_cells += attended;
  it.kv_cells += cellsOf(to);  // the cached prefix read and the chunk's own keys written
}

double IterationModel::seconds(const IterationWork& it) const {
  if (it.tokens == 0) return 0;
  // Under MoE only the experts the iteration's tokens are routed to are read.
  double weights_read = device_weights_;
  if (experts_ > 0) {
    const double reached = std::min(1.0, d(it.tokens) * d(experts_per_token_) / d(experts_));
    weights_read -= expert_bytes_ * (1 - reached);
  }
  ForwardWork f;
  f.op.flops = d(it.tokens) * linear_flops_ + d(it.logits) * head_flops_ + it.cells * key_flops_;
  // As servingSpeed's prefill (the report's prefill phase): a prompt's attention core runs in
  // fused kernels at their own rate; a decode token's reads its cache (memory-bound).
  f.op.attention_flops = fused_attention_ ? it.prefill_cells * key_flops_ : 0.0;
  f.op.rows = d(it.tokens);
  f.op.bytes = weights_read + it.kv_cells * kv_cell_bytes_;
  f.op.dequant_weights =
      device_weights_ > 0 ? device_params_ * weights_read / device_weights_ : 0.0;
  f.op.dequant_ops = dequant_ops_;
  f.layers = layers_;
  f.prefill = it.prefill_tokens > 0;
  f.tp = tp_;
  f.allreduce_bytes = d(it.tokens) * allreduce_per_token_;
  f.network = network_;
  return forwardTime(ctx_, f).total_s;
}

}  // namespace dlcost
