#pragma once
// Running a report's workload on its GPU: per-GPU memory under data/tensor/pipeline
// parallelism and ZeRO, fit and largest batch, roofline step time, and the advisor.

#include "dlcost/gpu/time_model.hpp"
#include "dlcost/types/gpu_fit.hpp"
#include "dlcost/types/model.hpp"
#include "dlcost/types/report.hpp"

namespace dlcost {

/// Per-GPU memory of `r` (estimated at the workload's global batch) under `p`:
/// - tensor and pipeline parallelism split every model state by tp x pp;
/// - ZeRO over the data-parallel degree N_d (Rajbhandari et al. 2020, sec. 5): stage 1 divides
///   optimizer states and fp32 master weights by N_d, stage 2 also gradients, stage 3 also
///   weights (their example: 7.5B parameters, mixed-precision Adam, 64 GPUs: 120 GB ->
///   31.4 / 16.6 / 1.9 GB);
/// - activations: the replica's batch (batch / N_d); tensor parallelism divides them by tp
///   with sequence parallelism, and otherwise leaves the 10 of 34 sbh bytes per layer
///   (LayerNorm and dropout inputs) replicated (Korthikanti et al. 2022, sec. 4.2.2); the
///   first pipeline stage holds 1/pp of the layers' activations for min(pp, micro-batches)
///   micro-batches in flight under 1F1B (Narayanan et al. 2021);
/// - context parallelism (cp > 1): the batch splits over N_d / cp replicas, each GPU of a
///   replica keeping seq_len / cp tokens of every sample, so the activation terms divide by
///   cp; ZeRO still shards over N_d (= dp x cp, as torchtitan's FSDP mesh dp_shard x cp).
///   With the transformer `t`, the ring's buffers are added as the kCpRingBuffers term
///   (cpRingBuffersPerSample).
/// Rounds every division up. Throws ArithmeticOverflow past 64 bits.
PerGpuMemory perGpuMemory(const Report& r, const Parallelism& p, const Transformer* t = nullptr);

/// Bytes one GPU of a context-parallel group holds for the attention ring of the layer that
/// runs, per sample of its micro-batch, in PyTorch's context_parallel as torchtitan runs it
/// (torch/distributed/tensor/experimental/_attention.py, pytorch/pytorch at 0123248a: the
/// default rotate method ALL_GATHER all-gathers each layer's K and V once; the backward
/// accumulates dQ, dK, dV in fp32 (convert_to_f32) and passes dK/dV around the ring by
/// all-to-all): the whole sequence's K and V in the activations' format
/// (s x 2 x kv x a), plus in the backward the fp32 accumulators of the local chunk
/// (s / cp x (q + 2 kv) x 4) and one dK/dV block sent and one received
/// (2 x s / cp x 2 kv x 4); q = heads x head_dim and kv = kv_heads x head_dim per
/// tensor-parallel GPU. 0 when cp = 1.
int64_t cpRingBuffersPerSample(const Transformer& t, const Report& r, const Parallelism& p);

/// What the time model needs of the model beyond the report: layers launched per forward
/// and, for tensor-parallel decode, the width of the hidden states all-reduced per layer.
struct ModelShape {
  int64_t layers = 0;
  int64_t hidden = 0;
};
ModelShape modelShape(const Model& model);

/// Time of one step of `r` under `ctx` (dlcost/time_model.hpp), per layer for layer graphs
/// (per phase otherwise): each op's max(compute at the GEMM efficiency of its rows, traffic
/// at the achievable bandwidth) plus its dequantization, and the launches of `shape.layers`
/// per forward (twice more in the backward); backward runs the counted backward FLOPs over
/// twice the forward traffic; training adds a memory-bound optimizer update over this GPU's
/// states. Pipelines take (micro-batches + pp - 1) / pp of one micro-batch through all layers
/// (the 1F1B bubble). The decode phase's tokens/s is one decode step of the time model, with
/// tensor-parallel all-reduces on `net` (none when null).
StepTime rooflineStep(const Report& r, const Parallelism& p, const PerGpuMemory& per_gpu,
                      const TimeContext& ctx, const ModelShape& shape,
                      const Network* net = nullptr);

/// The time context of `w` on its GPU: the fit's math format, the workload's engine, the
/// workload's utilization when given.
TimeContext timeContext(const Workload& w, const GpuFit& f);

/// The step of `r` on `net` under `p`, from the roofline's `t` (dlcost/step_breakdown.hpp):
/// per micro-batch and stage the roofline compute plus tensor-parallel collectives and the
/// activations sent between stages, times the micro-batches plus the 1F1B bubble's pp - 1
/// slots (Narayanan et al. 2021), times the gradient-accumulation micro-steps; plus the
/// exposed data-parallel/ZeRO communication and the optimizer update. MFU against
/// `peak_flops` (dense) over every GPU.
StepBreakdown stepBreakdown(const Model& model, const Report& r, const Parallelism& p,
                            const Network& net, const StepTime& t, double peak_flops);

/// Everything above for `w.hardware` (which must hold a GPU); the advisor
/// (dlcost/explore/advisor.hpp) is asked for separately. Throws InputError for layouts the model
/// cannot take (batch not divisible by the data-parallel degree, tp not dividing a layer's
/// channels, more stages than layers).
GpuFit fitOnGpu(const Model& model, const Workload& w, const Report& r);

}  // namespace dlcost
