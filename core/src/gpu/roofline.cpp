// Roofline step time: each layer (or phase) takes the longer of its compute time at the
// achievable peak and its memory traffic at full bandwidth.

#include <algorithm>

#include "dlcost/base/checked.hpp"
#include "dlcost/gpu/fit.hpp"

namespace dlcost {

namespace {

struct Term {
  double compute_s = 0;
  double memory_s = 0;
  double bound_s = 0;  ///< sum of max(compute, memory) per item
  void add(double c, double m) {
    compute_s += c;
    memory_s += m;
    bound_s += std::max(c, m);
  }
};

}  // namespace

StepTime rooflineStep(const Report& r, const Parallelism& p, const PerGpuMemory& per_gpu,
                      const Gpu& gpu, double peak_flops, double utilization) {
  const Workload& w = r.workload;
  const double eff = peak_flops * utilization;
  const double bw = gpu.bandwidth_bytes_per_s;
  const double batch = static_cast<double>(w.batch);
  const double mb = static_cast<double>(p.microbatchCount());
  const double tp = static_cast<double>(p.tp);
  // Share of the global batch one GPU pushes through per micro-batch.
  const double share = 1.0 / (static_cast<double>(p.dataParallel()) * mb);
  const bool train = w.mode == Mode::kTrain;

  Term fwd, bwd;
  StepTime t;
  if (r.model_kind == "layers") {
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
      const double c = flops / eff, m = bytes / bw;
      fwd.add(c, m);
      if (train) bwd.add(c * bwd_ratio, 2 * m);
    }
  } else {
    for (const PhaseWork& ph : r.phases) {
      if (ph.name == "decode") continue;
      const double c = static_cast<double>(ph.flops) * share / tp / eff;
      const double m = static_cast<double>(ph.bytes) * share / tp / bw;
      (ph.name == "backward" ? bwd : fwd).add(c, m);
    }
  }
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

  for (const PhaseWork& ph : r.phases) {
    if (ph.name != "decode") continue;
    const double dp = static_cast<double>(p.dataParallel());
    // Every replica reads all of its weights for each token, so traffic is not divided by dp.
    const double c = static_cast<double>(ph.flops) / (dp * tp) / eff;
    const double m = static_cast<double>(ph.bytes) / tp / bw;
    const double s = std::max(c, m);
    if (s > 0) t.tokens_per_s = static_cast<double>(ph.tokens) / s;
  }
  return t;
}

const char* stepBound(const StepTime& time) {
  return time.compute_s >= time.memory_s ? "compute" : "memory";
}

}  // namespace dlcost
