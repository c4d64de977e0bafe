// The step time of a report's workload: each layer (or phase) through the per-op time model
// (dlcost/time_model.hpp), plus the fixed cost of its kernel launches per forward.

#include <algorithm>
#include <optional>

#include "dlcost/base/checked.hpp"
#include "dlcost/gpu/fit.hpp"

namespace dlcost {

namespace {

struct Term {
  double compute_s = 0;
  double memory_s = 0;
  double bound_s = 0;  ///< sum of the op times (max(compute, memory) + dequantization)
  void add(const OpTime& t) {
    compute_s += t.compute_s;
    memory_s += t.memory_s + t.dequant_s + t.serial_s;
    bound_s += t.total();
  }
};

/// GEMM rows of a layer's output for `samples` samples: the positions its features are
/// computed at (a conv's H x W, a sequence's tokens), taken as the elements outside the
/// largest dimension.
double layerRows(const Shape& out, double samples) {
  if (out.size() < 2) return samples;
  int64_t largest = 1;
  for (int64_t d : out) largest = std::max(largest, d);
  return samples * static_cast<double>(elementCount(out)) / static_cast<double>(largest);
}

/// A layer graph's forward and backward, layer by layer, for one GPU's `share` of the batch.
void graphTerms(const Report& r, const TimeContext& ctx, double share, double tp, Term& fwd,
                Term& bwd) {
  const Workload& w = r.workload;
  const bool train = w.mode == Mode::kTrain;
  const double batch = static_cast<double>(w.batch);
  const int weight_bits = dtypeBits(layoutOf(w.precision).weights);
  const double bwd_ratio = r.macs.forward > 0 ? static_cast<double>(r.macs.backward) /
                                                    static_cast<double>(r.macs.forward)
                                              : 0.0;
  for (size_t i = 1; i < r.layers.size(); ++i) {
    const LayerReport& l = r.layers[i];
    if (l.bytes_accessed == 0 && l.macs == 0) continue;  // views move nothing
    const double flops = 2.0 * static_cast<double>(l.macs) * share / tp;
    // The weight part of the traffic is read once per micro-batch whatever its size.
    // (An embedding's gathered rows grow with the batch: all of its traffic scales.)
    const double weights =
        l.type == "embedding"
            ? 0.0
            : std::min<double>(static_cast<double>(bytesForBits(l.params, weight_bits)),
                               static_cast<double>(l.bytes_accessed));
    const double acts = static_cast<double>(l.bytes_accessed) - weights;
    const double bytes = (weights + acts * share) / tp;
    const double rows = layerRows(l.output_shape, batch * share);
    fwd.add(opTime(ctx, {flops, rows, bytes, 0, 0}));
    if (train) bwd.add(opTime(ctx, {flops * bwd_ratio, rows, 2 * bytes, 0, 0}));
  }
}

/// A transformer's phases (forward, backward, prefill) for one GPU's `share` of the batch;
/// their attention times into `t`.
void phaseTerms(const Report& r, const Parallelism& p, const TimeContext& ctx, double share,
                double tp, double dequant, Term& fwd, Term& bwd, StepTime& t) {
  const bool train = r.workload.mode == Mode::kTrain;
  const double weights_count = static_cast<double>(r.params.total) / tp;
  // A training step's saved activations are written by the ops between the GEMMs in the
  // forward and read back by their gradients: that traffic runs in kernels of its own
  // (transformer_estimate.cpp's rooflinePhases counts it in each phase's bytes).
  const double activations =
      train ? static_cast<double>(r.memory.bytesOf(MemoryKey::kActivations)) : 0.0;
  for (const PhaseWork& ph : r.phases) {
    if (ph.name == "decode") continue;
    const double rows = std::max(1.0, static_cast<double>(ph.tokens) * share);
    const double serial = std::min(activations, static_cast<double>(ph.bytes));
    OpWork work{static_cast<double>(ph.flops) * share / tp, rows,
                (static_cast<double>(ph.bytes) - serial) * share / tp,
                ph.name == "prefill" ? weights_count : 0.0, dequant};
    work.serial_bytes = serial * share / tp;
    work.attention_flops = static_cast<double>(ph.attention_flops) * share / tp;
    work.attention_computed = ph.attention_computed;
    if (p.cp > 1 && !p.cp_load_balance && ph.attention_computed < 1) {
      // Causal attention over contiguous chunks: the last of the cp GPUs attends to every
      // earlier chunk, cp - 1/2 blocks against the mean cp/2, (2 cp - 1) / cp times the
      // balanced share; the others wait for it (PyTorch's _attention.py note "Context
      // parallelism load balance algorithm for causal masking").
      const double c = static_cast<double>(p.cp);
      const double extra = work.attention_flops * ((2 * c - 1) / c - 1);
      work.flops += extra;
      work.attention_flops += extra;
    }
    const double rate = attentionRate(ctx);
    const double attention_s =
        rate > 0 ? work.attention_flops * work.attention_computed / rate : 0.0;
    (ph.name == "backward" ? t.attention_backward_s : t.attention_forward_s) += attention_s;
    (ph.name == "backward" ? bwd : fwd).add(opTime(ctx, work));
  }
}

/// Decode tokens per second of the report's decode phase (none without one).
std::optional<double> decodeTokensPerS(const Report& r, const Parallelism& p,
                                       const TimeContext& ctx, const ModelShape& shape,
                                       const Network* net, double dequant) {
  const Workload& w = r.workload;
  const double tp = static_cast<double>(p.tp);
  const double weights_count = static_cast<double>(r.params.total) / tp;
  std::optional<double> tokens_per_s;
  for (const PhaseWork& ph : r.phases) {
    if (ph.name != "decode") continue;
    const double dp = static_cast<double>(p.dataParallel());
    // Every replica reads all of its weights for each token, so traffic is not divided by dp.
    ForwardWork f;
    f.op = {static_cast<double>(ph.flops) / (dp * tp), static_cast<double>(ph.tokens) / dp,
            static_cast<double>(ph.bytes) / tp, weights_count, dequant};
    f.layers = shape.layers;
    f.tp = p.tp;
    f.network = net;
    // Each all-reduce sums the step's hidden states in the activations' format.
    f.allreduce_bytes = static_cast<double>(ph.tokens) / dp * static_cast<double>(shape.hidden) *
                        dtypeBits(layoutOf(w.precision).activations) / 8.0;
    const double s = forwardTime(ctx, f).total_s;
    if (s > 0) tokens_per_s = static_cast<double>(ph.tokens) / s;
  }
  return tokens_per_s;
}

}  // namespace

StepTime rooflineStep(const Report& r, const Parallelism& p, const PerGpuMemory& per_gpu,
                      const TimeContext& ctx, const ModelShape& shape, const Network* net) {
  const int64_t layers = shape.layers;
  const Workload& w = r.workload;
  const double bw = achievableBandwidth(ctx);
  const double batch = static_cast<double>(w.batch);
  const double mb = static_cast<double>(p.microbatchCount());
  const double tp = static_cast<double>(p.tp);
  // Share of the global batch one GPU pushes through per micro-batch.
  const double share = 1.0 / (static_cast<double>(p.dataParallel()) * mb);
  const bool train = w.mode == Mode::kTrain;
  const double dequant = train ? 0.0 : dequantOpsOf(w);

  Term fwd, bwd;
  StepTime t;
  if (r.model_kind == "layers") {
    graphTerms(r, ctx, share, tp, fwd, bwd);
  } else {
    phaseTerms(r, p, ctx, share, tp, dequant, fwd, bwd, t);
  }
  // Kernel launches: once per layer in the forward, about twice more in the backward.
  const double launches = forwardOverhead(ctx, layers, true);
  if (fwd.bound_s > 0) fwd.bound_s += launches;
  if (bwd.bound_s > 0) bwd.bound_s += 2 * launches;
  // 1F1B: every stage runs its 1/pp of the layers for each micro-batch, plus pp - 1 slots of
  // fill and drain (Narayanan et al. 2021).
  const double pp = static_cast<double>(p.pp);
  const double per_micro = fwd.bound_s + bwd.bound_s;
  const double pipeline = per_micro / pp * (mb + pp - 1);
  if (train) {
    // Elementwise update: read gradients, read and write master weights and optimizer states,
    // write the weights (the terms sharded like weights, like gradients, like optimizer states).
    const double bytes = static_cast<double>(per_gpu.bytesSharded(Sharding::kZero3)) +
                         static_cast<double>(per_gpu.bytesSharded(Sharding::kZero2)) +
                         2.0 * static_cast<double>(per_gpu.bytesSharded(Sharding::kZero1));
    t.optimizer_s = bytes / bw;
  }
  t.forward_s = fwd.bound_s;
  t.backward_s = bwd.bound_s;
  t.compute_s = (fwd.compute_s + bwd.compute_s) * mb;
  t.memory_s = (fwd.memory_s + bwd.memory_s) * mb + t.optimizer_s;
  t.step_s = pipeline + t.optimizer_s;
  if (t.step_s > 0) t.samples_per_s = batch / t.step_s;

  t.tokens_per_s = decodeTokensPerS(r, p, ctx, shape, net, dequant);
  return t;
}

const char* stepBound(const StepTime& time) {
  return time.compute_s >= time.memory_s ? "compute" : "memory";
}

}  // namespace dlcost
