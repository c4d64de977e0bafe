// Speed of a serving plan: time to first token (the prefill, compute-bound), and the decode
// step with n users (memory-bound: every weight and every user's KV cache read once per step,
// until the FLOPs of n tokens take longer), on the roofline of the workload's GPU, divided by
// the engine's calibrated efficiency (engineEfficiency). Layers llama.cpp leaves in system RAM
// are read by the CPU at the host bandwidth, one after the other with the GPU's.
#include <algorithm>

#include "dlcost/checked.hpp"
#include "dlcost/quant_formats.hpp"
#include "dlcost/serving.hpp"

namespace dlcost {

namespace {

double d(int64_t v) {
  return static_cast<double>(v);
}

/// FLOPs of one decode token attending to `context` tokens: every active weight matrix, the
/// LM head and QK^T / AV per layer (local layers within their window).
double decodeFlopsPerToken(const Transformer& t, int64_t context) {
  const TransformerParams p = countParams(t);
  const int64_t v_head = t.kv_lora_rank > 0 ? t.v_head_dim : t.head_dim;
  const double per_key = d(queryWidth(t)) + d(t.heads) * d(v_head);
  double core = 0;
  for (int64_t i = 0; i < t.layers; ++i) core += d(attendedKeys(t, i, context)) * per_key;
  return 2.0 * (d(p.block_linear_per_token) + d(t.vocab) * d(t.hidden) + core);
}

/// Bytes of the routed experts' weights as stored.
int64_t expertBytes(const Transformer& t, const Workload& w) {
  if (t.experts == 0) return 0;
  if (w.serving.quant != QuantFormat::kNone) return quantizedWeights(t, w).expert_bytes;
  const DType wd = w.weight_dtype ? *w.weight_dtype : layoutOf(w.precision).weights;
  int64_t n = 0;
  for (const LinearModule& m : blockLinearModules(t)) {
    if (m.copies <= 1) continue;
    n = checkedAdd(n, checkedMul(checkedMul(m.layers > 0 ? m.layers : t.layers, m.copies),
                                 checkedMul(m.in, m.out)));
  }
  return bytesForBits(n, dtypeBits(wd));
}

/// KV bytes of one sequence of `tokens` tokens as the plan stores it, per GPU.
int64_t planKvBytes(const Transformer& t, const ServingPlan& plan, int64_t tokens) {
  // kv_bytes_per_token is over all layers for one token; local layers hold at most their
  // window.
  int64_t cells = 0;
  for (int64_t i = 0; i < t.layers; ++i) cells = checkedAdd(cells, attendedKeys(t, i, tokens));
  return checkedMul(plan.kv_bytes_per_token / std::max<int64_t>(1, t.layers), cells);
}

}  // namespace

ServingSpeed servingSpeed(const Transformer& t, const Workload& w, const Report& r,
                          const ServingPlan& plan, int64_t users, int64_t context) {
  ServingSpeed s;
  s.users = users;
  s.context = context;
  if (!r.gpu_fit) return s;
  const GpuFit& fit = *r.gpu_fit;
  const double eff = engineEfficiency(plan.engine);
  const double flops_rate = fit.peak_flops * fit.utilization;
  const double bw = fit.gpu.bandwidth_bytes_per_s;
  const double host_bw = w.serving.host_bandwidth.value_or(kDefaultHostBandwidth);
  const double tp = d(w.hardware.parallel.tp);

  // Weights read per step: on the GPU (all of the plan's device weights) and, for llama.cpp,
  // the CPU layers (the token embeddings are gathered row by row, not read whole).
  const int64_t device_weights =
      plan.device.bytesOf(MemoryKey::kWeights) + plan.device.bytesOf(MemoryKey::kQuantScales);
  int64_t host_weights = plan.host.bytesOf(MemoryKey::kWeights);
  if (host_weights > 0) {
    Workload g = w;
    if (g.serving.quant == QuantFormat::kNone) {
      g.serving.quant = QuantFormat::kGguf;
      g.serving.gguf_type = GgufFileType::kF16;
    }
    host_weights -= quantizedWeights(t, g).input_bytes;
  }
  // Under MoE only the experts the step's tokens are routed to are read: at most
  // users x experts_per_token of them per layer.
  double weights_read = d(device_weights);
  double host_read = d(host_weights);
  if (t.experts > 0) {
    const double reached = std::min(1.0, d(users) * d(t.experts_per_token) / d(t.experts));
    const double experts = d(expertBytes(t, w)) / tp;
    const double device_share = d(device_weights) / std::max(1.0, d(device_weights + host_weights));
    weights_read -= experts * device_share * (1 - reached);
    host_read -= experts * (1 - device_share) * (1 - reached);
  }
  const int64_t kv_one = planKvBytes(t, plan, context);
  const double gpu_layer_share =
      plan.engine == Engine::kLlamaCpp
          ? d(std::min(plan.gpu_layers, t.layers)) / d(std::max<int64_t>(1, t.layers))
          : 1.0;
  const double kv_read = d(users) * d(kv_one);
  const double flops = d(users) * decodeFlopsPerToken(t, context) / tp;
  // No published compute rate (dlcost/gpu_compute.hpp): the step is its memory bound and the
  // prefill's time unknown (ttft_s stays 0).
  const bool compute_known = flops_rate > 0;
  const double compute_s = compute_known ? flops * gpu_layer_share / flops_rate : 0.0;
  const double memory_s = (weights_read + kv_read * gpu_layer_share) / bw;
  const double host_s = (host_read + kv_read * (1 - gpu_layer_share)) / host_bw;
  s.bound = compute_s > memory_s ? "compute" : "memory";
  s.itl_s = (std::max(compute_s, memory_s) + host_s) / eff;
  s.step_bytes = static_cast<int64_t>(weights_read + host_read + kv_read);
  s.step_flops = static_cast<int64_t>(flops);
  if (s.itl_s > 0) {
    s.tokens_per_s_per_user = 1.0 / s.itl_s;
    s.tokens_per_s = d(users) / s.itl_s;
  }

  // Time to first token: one user's prompt (the report's prefill at batch 1).
  for (const PhaseWork& ph : r.phases) {
    if (ph.name != "prefill" || !compute_known) continue;
    const double b = d(std::max<int64_t>(1, r.workload.batch));
    const double c = d(ph.flops) / b / tp / flops_rate;
    const double m = (weights_read + d(planKvBytes(t, plan, r.transformer->seq_len))) / bw;
    s.ttft_s = std::max(c, m / eff) + host_s;
  }
  return s;
}

}  // namespace dlcost
