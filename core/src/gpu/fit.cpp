// Per-GPU memory, fit and largest batch of a workload on its GPU.

#include "dlcost/gpu/fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "dlcost/base/checked.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/gpu/gpu_compute.hpp"
#include "dlcost/gpu/interconnect_table.hpp"
#include "dlcost/gpu/run_cost.hpp"
#include "dlcost/memory/memory_terms.hpp"
#include "dlcost/types/run_cost.hpp"

namespace dlcost {

namespace {

/// ceil(v x num / den) for num, den > 0, without intermediate overflow. v may be negative (a
/// term that subtracts, such as the gradients not yet made at the backward peak); C++
/// division truncates toward zero, which is the ceiling there.
int64_t scaleUp(int64_t v, int64_t num, int64_t den) {
  const __int128 p = static_cast<__int128>(v) * num;
  const __int128 r = p >= 0 ? (p + den - 1) / den : p / den;
  if (r > std::numeric_limits<int64_t>::max() || r < std::numeric_limits<int64_t>::min())
    throw ArithmeticOverflow();
  return static_cast<int64_t>(r);
}

MathFormat defaultMath(Precision p) {
  switch (p) {
    case Precision::kFp32:
      return MathFormat::kFp32;
    case Precision::kFp16:
    case Precision::kMixed:
    case Precision::kAutocastFp16:
      return MathFormat::kFp16;
    case Precision::kBf16:
    case Precision::kAutocastBf16:
      return MathFormat::kBf16;
  }
  return MathFormat::kFp32;
}

/// Expert parallelism splits each MoE layer's routed experts over ep of the data-parallel
/// GPUs (Megatron-Core: expert_model_parallel_size divides the data-parallel size and
/// num_moe_experts).
void checkExperts(const Transformer& t, const Parallelism& p) {
  if (p.ep == 1) return;
  if (t.experts == 0) {
    throw InputError(ErrorCode::kValue, "/workload/ep",
                     "expert parallelism (ep " + std::to_string(p.ep) +
                         ") needs a mixture-of-experts model; this model's MLPs are dense "
                         "(ep must be 1)");
  }
  if (t.experts % p.ep != 0) {
    throw InputError(ErrorCode::kValue, "/workload/ep",
                     "expert-parallel degree " + std::to_string(p.ep) +
                         " does not divide the model's " + std::to_string(t.experts) +
                         " experts per MoE layer");
  }
  if (p.dataParallel() % p.ep != 0) {
    throw InputError(ErrorCode::kValue, "/workload/ep",
                     "expert-parallel degree " + std::to_string(p.ep) +
                         " does not divide the data-parallel degree " +
                         std::to_string(p.dataParallel()) +
                         " (gpus / (tp x pp)): experts are split over data-parallel GPUs");
  }
}

/// Context parallelism splits a decoder's (or encoder's) training sequence over cp GPUs of
/// the data-parallel group (torchtitan: the cp mesh dimension inside dp_shard; Megatron-Core:
/// context_parallel_size divides the data-parallel world).
void checkContextParallel(const Model& model, const Workload& w, int64_t seq_len) {
  const Parallelism& p = w.hardware.parallel;
  if (p.cp == 1) return;
  const std::string cp = std::to_string(p.cp);
  const auto* t = std::get_if<Transformer>(&model.body);
  if (!t) {
    throw InputError(ErrorCode::kValue, "/workload/cp",
                     "context parallelism splits a transformer's sequence; a layer graph has "
                     "none (cp must be 1)");
  }
  if (w.mode != Mode::kTrain) {
    throw InputError(ErrorCode::kValue, "/workload/cp",
                     "context parallelism is modelled for training only; inference and "
                     "serving run each sequence on its tensor-parallel GPUs (cp must be 1)");
  }
  if (t->kind == TransformerKind::kEncoderDecoder) {
    throw InputError(ErrorCode::kValue, "/workload/cp",
                     "context parallelism is modelled for decoder-only and encoder-only "
                     "transformers, not encoder-decoder ones (cp must be 1)");
  }
  if (t->kind == TransformerKind::kEncoder && p.cp_load_balance) {
    // PyTorch's _templated_ring_attention: "Load balancing requires `is_causal=True`".
    throw InputError(ErrorCode::kValue, "/workload/cp_load_balance",
                     "context-parallel load balancing evens out causal attention; an "
                     "encoder's attention is bidirectional (set cp_load_balance none)");
  }
  if (p.dataParallel() % p.cp != 0) {
    throw InputError(ErrorCode::kValue, "/workload/cp",
                     "context-parallel degree " + cp +
                         " does not divide gpus / (tp x pp) = " + std::to_string(p.dataParallel()) +
                         ": each sequence is split over cp of the data-parallel GPUs");
  }
  const int64_t chunks = p.cp_load_balance ? 2 * p.cp : p.cp;
  if (seq_len % chunks != 0) {
    throw InputError(
        ErrorCode::kValue, "/workload/cp",
        "the sequence length " + std::to_string(seq_len) + " does not split into " +
            std::to_string(chunks) + " equal chunks" +
            (p.cp_load_balance ? " (2 x cp: load balancing gives each GPU two chunks, one from "
                                 "each end, as torchtitan and Megatron do)"
                               : " (cp)"));
  }
}

/// The interleaved schedule gives each GPU virtual_stages chunks of whole layers and, as
/// Megatron-LM requires, a number of micro-batches that is a multiple of pp.
void checkInterleaving(int64_t layers, const Parallelism& p) {
  const int64_t v = p.virtual_stages;
  if (v == 1) return;
  if (p.pp == 1) {
    throw InputError(ErrorCode::kValue, "/workload/virtual_stages",
                     "an interleaved pipeline needs pipeline stages: set pp > 1 or "
                     "virtual_stages 1");
  }
  if (p.pp * v > layers) {
    throw InputError(ErrorCode::kValue, "/workload/virtual_stages",
                     "pp x virtual_stages = " + std::to_string(p.pp * v) +
                         " model chunks exceed the model's " + std::to_string(layers) +
                         " layers (each chunk holds at least one)");
  }
  if (p.microbatchCount() % p.pp != 0) {
    throw InputError(
        ErrorCode::kValue, p.microbatches > 0 ? "/workload/microbatches" : "/workload/pp",
        "the interleaved schedule needs a multiple of pp = " + std::to_string(p.pp) +
            " micro-batches, not " + std::to_string(p.microbatchCount()) + " (Megatron-LM)");
  }
}

/// Layouts the model cannot take, named by the workload field (or layer field) at fault.
void checkLayout(const Model& model, const Workload& w, const Report& r) {
  const Parallelism& p = w.hardware.parallel;
  checkContextParallel(model, w, r.transformer ? r.transformer->seq_len : 0);
  const int64_t dp = p.batchReplicas();
  if (w.batch % dp != 0) {
    throw InputError(ErrorCode::kValue, "/workload/batch",
                     "batch " + std::to_string(w.batch) + " does not split evenly over the " +
                         std::to_string(dp) + " data-parallel replicas (gpus / (tp x pp" +
                         (p.cp > 1 ? " x cp" : "") + "))");
  }
  const int64_t replica = w.batch / dp;
  if (replica % p.microbatchCount() != 0) {
    throw InputError(ErrorCode::kValue,
                     p.microbatches > 0 ? "/workload/microbatches" : "/workload/pp",
                     "the replica batch " + std::to_string(replica) + " does not split into " +
                         std::to_string(p.microbatchCount()) + " pipeline micro-batches");
  }
  if (const auto* t = std::get_if<Transformer>(&model.body)) {
    // Pipeline stages hold whole layers; Megatron splits heads and the MLP width over tp.
    const int64_t layers = t->layers + t->encoder_layers;
    if (p.pp > layers) {
      throw InputError(ErrorCode::kValue, "/workload/pp",
                       "pipeline of " + std::to_string(p.pp) + " stages exceeds the model's " +
                           std::to_string(layers) + " layers");
    }
    if (t->heads % p.tp != 0 || t->ffn % p.tp != 0) {
      throw InputError(ErrorCode::kValue, "/workload/tp",
                       "tensor-parallel degree " + std::to_string(p.tp) +
                           " does not divide the model's " + std::to_string(t->heads) +
                           " attention heads and MLP width " + std::to_string(t->ffn));
    }
    checkExperts(*t, p);
    checkInterleaving(layers, p);
    return;
  }
  const auto* graph = std::get_if<LayerGraph>(&model.body);
  if (!graph) return;
  if (p.ep > 1) {
    throw InputError(ErrorCode::kValue, "/workload/ep",
                     "expert parallelism needs a mixture-of-experts transformer; a layer graph "
                     "has no experts (ep must be 1)");
  }
  if (p.virtual_stages > 1) {
    throw InputError(ErrorCode::kValue, "/workload/virtual_stages",
                     "the interleaved pipeline schedule is modelled for transformers only "
                     "(virtual_stages must be 1 for a layer graph)");
  }
  if (p.pp > static_cast<int64_t>(graph->layers.size())) {
    throw InputError(ErrorCode::kValue, "/workload/pp",
                     "pipeline of " + std::to_string(p.pp) + " stages exceeds the model's " +
                         std::to_string(graph->layers.size()) + " layers");
  }
  if (p.tp == 1) return;
  // Megatron-style tensor parallelism splits the output channels (or features) of each conv
  // and linear layer over tp GPUs.
  for (const Layer& l : graph->layers) {
    int64_t channels = 0;
    std::string field;
    if (const auto* c = std::get_if<Conv2d>(&l.spec)) {
      channels = c->out_channels;
      field = "out_channels";
    } else if (const auto* f = std::get_if<Linear>(&l.spec)) {
      channels = f->out_features;
      field = "out_features";
    }
    if (channels && channels % p.tp != 0) {
      throw InputError(ErrorCode::kValue, fieldPath(l, field),
                       "tensor-parallel degree " + std::to_string(p.tp) + " does not divide " +
                           field + " " + std::to_string(channels) + " of layer '" + l.name + "'");
    }
  }
}

}  // namespace

int64_t cpRingBuffersPerSample(const Transformer& t, const Report& r, const Parallelism& p) {
  if (p.cp <= 1 || !r.transformer) return 0;
  const int64_t s = r.transformer->seq_len;
  const int64_t head_dim = t.head_dim > 0 ? t.head_dim : t.hidden / std::max<int64_t>(1, t.heads);
  // Heads split over tp; K/V heads too, each GPU keeping at least one (replicated past
  // kv_heads, as Megatron does).
  const int64_t q = checkedMul(t.heads / p.tp, head_dim);
  const int64_t kv_heads = t.kv_heads > 0 ? t.kv_heads : t.heads;
  const int64_t kv = checkedMul(std::max<int64_t>(1, kv_heads / p.tp), head_dim);
  const int64_t a = dtypeBits(layoutOf(r.workload.precision).activations) / 8;
  const int64_t local = s / p.cp;
  const int64_t gathered = checkedMul(checkedMul(s, 2 * kv), a);
  const int64_t accumulators = checkedMul(checkedMul(local, checkedAdd(q, 2 * kv)), 4);
  const int64_t dkv_blocks = checkedMul(checkedMul(2 * local, 2 * kv), 4);
  return checkedAdd(gathered, checkedAdd(accumulators, dkv_blocks));
}

PerGpuMemory perGpuMemory(const Report& r, const Parallelism& p, const Transformer* model) {
  const int64_t dp = p.dataParallel();
  const int64_t split = checkedMul(p.tp, p.pp);
  // Tensor parallelism: a fraction num/den of the activations stays on each GPU.
  const int64_t tp_num = p.sp ? 1 : checkedAdd(checkedMul(10, p.tp), 24);
  const int64_t tp_den = p.sp ? p.tp : checkedMul(34, p.tp);
  // Pipeline: 1/pp of the layers, min(pp, m) micro-batches of replica/m samples in flight.
  const int64_t mb = p.microbatchCount();
  const int64_t in_flight = std::min(p.pp, mb);
  int64_t act_num = checkedMul(tp_num, in_flight);
  // Context parallelism: each GPU keeps seq_len / cp tokens of every activation.
  int64_t act_den = checkedMul(checkedMul(tp_den, p.pp), p.cp);
  if (p.virtual_stages > 1) {
    // Interleaving keeps 1 + (p - 1) / (p v) times the activations of plain 1F1B on the
    // first stage (Korthikanti et al. 2022, sec. 4.2.3).
    const int64_t pv = checkedMul(p.pp, p.virtual_stages);
    act_num = checkedMul(act_num, checkedAdd(pv, p.pp - 1));
    act_den = checkedMul(act_den, pv);
  }
  // Expert parallelism: the routed experts' share E of the P parameters is split ep-fold
  // more. ZeRO splits a term over the expert group's data-parallel GPUs (dp / ep) instead, so
  // a ZeRO-split term is split tp x pp x dp either way.
  int64_t ep_num = 1, ep_den = 1;
  if (p.ep > 1 && r.transformer && r.transformer->params.total > 0) {
    const TransformerParams& params = r.transformer->params;
    ep_den = checkedMul(params.total, p.ep);
    ep_num = checkedSub(ep_den, checkedMul(params.routed_experts, p.ep - 1));
  }

  // One GPU's share of `fixed` and `per_sample` bytes sharded as `sharding`.
  const auto share = [&](Sharding sharding, int64_t& fixed, int64_t& per_sample, bool experts) {
    int64_t divisor = 1;
    int zero_stage = 4;  // the ZeRO stage from which the term splits over dp (4: never)
    switch (sharding) {
      case Sharding::kReplicated:
        return;
      case Sharding::kModelParallel:
        break;
      case Sharding::kZero3:
        zero_stage = 3;
        break;
      case Sharding::kZero2:
        zero_stage = 2;
        break;
      case Sharding::kZero1:
        zero_stage = 1;
        break;
      case Sharding::kActivation:
        fixed = scaleUp(fixed, act_num, act_den);
        per_sample = scaleUp(per_sample, act_num, checkedMul(act_den, mb));
        return;
    }
    const bool zero = p.zero >= zero_stage;
    divisor = zero ? checkedMul(split, dp) : split;
    fixed = scaleUp(fixed, 1, divisor);
    per_sample = scaleUp(per_sample, 1, divisor);
    if (experts && !zero && sharding != Sharding::kModelParallel) {
      fixed = scaleUp(fixed, ep_num, ep_den);
      per_sample = scaleUp(per_sample, ep_num, ep_den);
    }
  };
  // Every model-state term but the LoRA adapters' holds the experts' share.
  const auto holdsExperts = [](MemoryKey k) {
    return k != MemoryKey::kAdapterWeights && k != MemoryKey::kAdapterGradients &&
           k != MemoryKey::kAdapterOptimizerStates;
  };
  std::vector<MemoryTerm> terms = r.memory.terms;
  for (MemoryTerm& t : terms) share(t.sharding, t.fixed, t.per_sample, holdsExperts(t.key));
  // Backward candidates share as the two terms they stand for.
  std::vector<BackwardCandidate> candidates = r.memory.backward_candidates;
  const MemoryTerm* delta = r.memory.find(MemoryKey::kBackwardGradientDelta);
  const MemoryTerm* extra = r.memory.find(MemoryKey::kBackwardPeakExtra);
  for (BackwardCandidate& c : candidates) {
    int64_t none = 0;
    if (delta) share(delta->sharding, c.gradient_delta, none, true);
    if (extra) share(extra->sharding, none, c.extra_per_sample, true);
  }
  if (model && p.cp > 1 && r.workload.mode == Mode::kTrain) {
    // One layer's ring at a time, for one micro-batch: per sample of the replica's batch,
    // the micro-batch's share.
    const int64_t ring = cpRingBuffersPerSample(*model, r, p);
    MemoryTerm term = activationTerm(
        MemoryKey::kCpRingBuffers, 0, scaleUp(ring, 1, mb),
        "batch / microbatches × (seq_len × 2 × kv × act_bytes + seq_len / cp × (q + 2 kv) × 4 "
        "+ 2 × seq_len / cp × 2 kv × 4)",
        {{"seq_len", r.transformer->seq_len, ""},
         {"cp", p.cp, ""},
         {"microbatches", mb, ""},
         {"bytes_per_sample", ring, "PyTorch context_parallel, all-gather rotation"}});
    term.phase = MemoryPhase::kBackward;
    terms.push_back(std::move(term));
  }
  return sumTerms(std::move(terms), r.workload.batch / p.batchReplicas(), std::move(candidates));
}

ModelShape modelShape(const Model& model) {
  ModelShape s;
  if (const auto* t = std::get_if<Transformer>(&model.body)) {
    s.layers = t->layers + t->encoder_layers;
    s.hidden = t->hidden;
  } else if (const auto* g = std::get_if<LayerGraph>(&model.body)) {
    s.layers = static_cast<int64_t>(g->layers.size());
  }
  return s;
}

TimeContext timeContext(const Workload& w, const GpuFit& f) {
  TimeContext ctx;
  ctx.gpu = &f.gpu;
  ctx.math = f.math;
  ctx.engine = w.serving.engine;
  ctx.utilization = w.hardware.utilization;
  return ctx;
}

namespace {

/// The step time (dlcost/time_model.hpp) and what follows from it (samples/s, the run's
/// cost, per-dollar and per-watt rates) for a GPU with a published compute rate.
void fillTimes(const Model& model, const Workload& w, const Report& r, GpuFit& f) {
  const TimeContext ctx = timeContext(w, f);
  const ModelShape shape = modelShape(model);
  f.time = rooflineStep(r, w.hardware.parallel, f.per_gpu, ctx, shape, &f.network);
  // The large-GEMM efficiency (the step's own GEMMs reach less with few rows).
  f.utilization = largeGemmEfficiency(ctx);
  f.step = stepBreakdown(model, r, w.hardware.parallel, f.network, f.time, f.peak_flops);
  // The step is one optimizer step: its grad_accum micro-steps, communication and bubble.
  f.time.step_s = f.step.step_s;
  f.time.samples_per_s =
      f.step.step_s > 0
          ? static_cast<double>(w.batch) * static_cast<double>(f.step.micro_steps) / f.step.step_s
          : 0;
  const auto* graph = std::get_if<LayerGraph>(&model.body);
  if (graph && graph->input_kind == InputKind::kTokenIds && w.mode == Mode::kInfer &&
      !f.time.tokens_per_s) {
    // A layer graph reading token ids processes its input's tokens per sample per forward;
    // with a one-token input that is the decode speed.
    f.time.tokens_per_s = f.time.samples_per_s * static_cast<double>(elementCount(graph->input));
  }

  f.run = runCost(r, f);

  const int devices = std::max(1, f.gpu.devices_per_board);
  const double gpus = static_cast<double>(w.hardware.parallel.gpus);
  if (f.gpu.price_usd > 0) {
    const double cost = static_cast<double>(f.gpu.price_usd) / devices * gpus;
    f.samples_per_s_per_1000usd = f.time.samples_per_s / (cost / 1000.0);
  }
  if (f.gpu.tdp_watts > 0) {
    f.samples_per_s_per_watt =
        f.time.samples_per_s / (static_cast<double>(f.gpu.tdp_watts) / devices * gpus);
  }
  f.notes.push_back(
      "times from the calibrated per-op time model (docs/speed-model.md): large GEMMs at " +
      std::to_string(static_cast<int>(std::lround(f.utilization * 100))) +
      " % of the dense peak (less with few rows), traffic at " +
      std::to_string(static_cast<int>(
          std::lround(achievableBandwidth(ctx) / f.gpu.bandwidth_bytes_per_s * 100))) +
      " % of the bandwidth, kernel launches per layer (" + deviceFamilyName(deviceFamily(f.gpu)) +
      " family; " + (w.hardware.utilization ? "utilization as given" : "fitted") + ")");
  for (const std::string& n : f.step.notes) f.notes.push_back(n);
}

}  // namespace

GpuFit fitOnGpu(const Model& model, const Workload& w, const Report& r) {
  const HardwareSettings& hw = w.hardware;
  const Parallelism& p = hw.parallel;
  checkLayout(model, w, r);
  if (hw.gpu->cpu && p.gpus > 1) {
    throw InputError(ErrorCode::kValue, "/workload/gpus",
                     hw.gpu->name +
                         " is one CPU socket: several devices (or sockets, NUMA "
                         "nodes) are not modelled; set gpus to 1");
  }

  GpuFit f;
  f.gpu = *hw.gpu;
  f.data_parallel = p.batchReplicas();
  f.replica_batch = w.batch / f.data_parallel;
  f.utilization = hw.utilization.value_or(0.0);  // set by fillTimes
  f.math = hw.math.value_or(defaultMath(w.precision));
  f.peak_flops = gpuPeak(f.gpu, f.math);
  if (f.peak_flops <= 0 && gpuComputePublished(f.gpu)) {
    f.notes.push_back(std::string(f.gpu.name) + " has no fast " + mathFormatName(f.math) +
                      " math: the roofline uses its FP32 rate");
    f.peak_flops = f.gpu.fp32_flops;
  }
  try {
    f.per_gpu = perGpuMemory(r, p, std::get_if<Transformer>(&model.body));
    // A CPU's memory is the RAM installed, less what the OS keeps; no caching allocator.
    f.capacity_bytes =
        f.gpu.cpu ? hw.system_ram_bytes.value_or(f.gpu.memory_bytes) : gpuCapacityBytes(f.gpu);
    f.reserve_bytes = hw.reserve_bytes.value_or(
        f.gpu.cpu ? kDefaultOsReserveBytes
                  : kDefaultReserveBytes + (p.gpus > 1 ? kDefaultNcclReserveBytes : 0));
    const int64_t after_reserve = std::max<int64_t>(0, f.capacity_bytes - f.reserve_bytes);
    const double frag = hw.fragmentation.value_or(f.gpu.cpu ? 0.0 : kDefaultFragmentation);
    f.fragmentation_bytes =
        static_cast<int64_t>(std::ceil(static_cast<double>(after_reserve) * frag));
    f.usable_bytes = after_reserve - f.fragmentation_bytes;
    f.fits = f.per_gpu.total <= f.usable_bytes;
    f.headroom_bytes = checkedSub(f.usable_bytes, f.per_gpu.total);
    // Largest replica batch, kept a whole number of micro-batches, times the replicas.
    const int64_t mb = p.microbatchCount();
    const int64_t replica_max = f.per_gpu.maxBatch(f.usable_bytes);
    f.max_batch = std::min(checkedMul(replica_max / mb * mb, f.data_parallel), kMaxBatchReported);
  } catch (const ArithmeticOverflow&) {
    throw InputError(ErrorCode::kTooLarge, "/workload",
                     "per-GPU memory overflows 64-bit arithmetic");
  }
  if (f.gpu.cpu) {
    f.notes.push_back(
        std::string("CPU: the memory is the system RAM (") +
        (hw.system_ram_bytes ? "system_ram_gib"
                             : "the row's default size; system_ram_gib sets yours") +
        ") less what the OS keeps (reserve_bytes, default 4 GiB: Windows 11's and Ubuntu Desktop's "
        "minimum RAM)");
  }
  f.network = resolveNetwork(hw.network, p.gpus, f.gpu);
  if (!gpuComputePublished(f.gpu)) {
    // No compute rate to put under the roofline: the memory fit stands, the times do not.
    f.notes.push_back(f.gpu.name +
                      " has no published compute rate: the step time, samples/s and MFU are "
                      "unavailable (the memory fit is exact)");
    if (w.mode == Mode::kTrain && (w.run.tokens || w.run.samples)) {
      throw InputError(ErrorCode::kValue, "/workload/gpu",
                       f.gpu.name +
                           " has no published compute rate: a run's time and cost are "
                           "unavailable; choose a GPU with one or give a custom fp32_flops");
    }
  } else {
    fillTimes(model, w, r, f);
  }
  if (p.cp > 1) {
    f.notes.push_back(
        "context parallelism " + std::to_string(p.cp) +
        ": each GPU keeps seq_len / cp tokens of every activation, plus one layer's ring "
        "buffers (PyTorch context_parallel's default all-gather of K and V, fp32 dK/dV); the "
        "batch splits over gpus / (tp x pp x cp) replicas, ZeRO / FSDP over dp x cp");
  }
  if (p.tp > 1 && !p.sp) {
    f.notes.push_back(
        "tensor parallelism without sequence parallelism keeps 10/34 of the activations "
        "replicated (Korthikanti et al. 2022)");
  }
  return f;
}

}  // namespace dlcost
