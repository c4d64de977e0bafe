#pragma once
// Where a workload runs: the GPU, how many of them, and how the model is split across them.
// Read from the workload object ("gpu", "gpus", "zero", "tp", "pp", "sp", "microbatches",
// "utilization", "reserve_bytes", "fragmentation", "gpu_dtype"); see core/src/workload_schema.cpp.

#include <cstdint>
#include <optional>

#include "dlcost/types/gpu.hpp"
#include "dlcost/types/interconnect.hpp"

namespace dlcost {

/// Multi-GPU layout. gpus = data-parallel degree x tp x pp (the data-parallel degree
/// including cp); the workload's batch is the
/// global batch of one optimizer step, split evenly over the data-parallel replicas.
struct Parallelism {
  int64_t gpus = 1;  ///< >= 1
  /// ZeRO stage over the data-parallel group (Rajbhandari et al. 2020, "ZeRO: Memory
  /// Optimizations Toward Training Trillion Parameter Models"): 1 partitions optimizer states
  /// (incl. fp32 master weights), 2 also gradients, 3 also the weights. 0..3.
  int zero = 0;
  int64_t tp = 1;  ///< tensor-parallel degree (Megatron-style), divides gpus
  int64_t pp = 1;  ///< pipeline-parallel degree (stages), divides gpus / tp
  /// Sequence parallelism with tp (Korthikanti et al. 2022): also splits the LayerNorm and
  /// dropout activations that plain tensor parallelism replicates.
  bool sp = false;
  /// Micro-batches per step in the pipeline; 0 = pp (the smallest count that fills 1F1B).
  int64_t microbatches = 0;
  /// Expert parallelism (mixture-of-experts transformers): each MoE layer's routed experts
  /// split over ep GPUs of the data-parallel group, tokens sent to their experts and back by
  /// all-to-all (GShard, Lepikhin et al. 2020; DeepSpeed-MoE, Rajbhandari et al. 2022;
  /// Megatron-Core's expert_model_parallel_size). ep divides gpus / (tp x pp) and the expert
  /// count; 1 = experts replicated like every other weight.
  int64_t ep = 1;
  /// Interleaved 1F1B (Narayanan et al. 2021, sec. 2.2.2): each GPU runs v model chunks of
  /// layers / (pp x v) layers, shrinking the bubble v-fold for v times the pipeline sends;
  /// 1 = plain 1F1B.
  int64_t virtual_stages = 1;
  /// Context parallelism (transformer training): each layer's sequence split over cp GPUs of
  /// the data-parallel group, attention run as a ring passing K/V blocks between them
  /// (Liu et al. 2023, "Ring Attention"; PyTorch's context_parallel, torchtitan's
  /// --parallelism.context_parallel_degree; Megatron-Core's context_parallel_size). cp divides
  /// gpus / (tp x pp); the data-parallel sharding group (FSDP / ZeRO) spans dp x cp. 1 = off.
  int64_t cp = 1;
  /// With cp > 1: the sequence is split into 2 x cp chunks and rank r keeps chunks r and
  /// 2cp - 1 - r, so causal attention's work is the same on every rank (torchtitan's and
  /// PyTorch's _HeadTailLoadBalancer, Megatron's zig-zag). Needs seq_len divisible by 2 x cp.
  bool cp_load_balance = true;

  /// GPUs that hold a whole copy of the model's (tp x pp) shards: gpus / (tp x pp). With
  /// context parallelism cp of them share one sample's sequence, so the batch splits over
  /// dataParallel() / cp replicas (batchReplicas()).
  int64_t dataParallel() const { return gpus / (tp * pp); }
  /// Replicas the global batch splits over: dataParallel() / cp.
  int64_t batchReplicas() const { return dataParallel() / (cp > 0 ? cp : 1); }
  int64_t microbatchCount() const { return microbatches > 0 ? microbatches : pp; }
};

/// Smallest utilisation accepted.
constexpr double kMinUtilization = 0.01;
/// Default per-GPU reserve: CUDA context with lazy module loading (~0.3-0.5 GiB) plus the
/// 0.25-0.9 GiB PyTorch cannot see of nvidia-smi's total: 1 GiB.
constexpr int64_t kDefaultReserveBytes = int64_t{1} << 30;
/// Added per GPU in multi-GPU runs for NCCL's buffers (about 1-2 GiB): 1 GiB.
constexpr int64_t kDefaultNcclReserveBytes = int64_t{1} << 30;
/// Default share of the remaining memory lost to caching-allocator fragmentation (5-15 %
/// commonly): the low end, 5 %.
constexpr double kDefaultFragmentation = 0.05;

/// What the operating system keeps of a machine's RAM when a CPU is the device (or holds the
/// layers llama.cpp leaves off the GPU): 4 GiB, the minimum RAM Windows 11 and Ubuntu Desktop
/// state for themselves (Microsoft's Windows 11 system requirements; Ubuntu Desktop's
/// download page). A CPU's `reserve_bytes` replaces it.
constexpr int64_t kDefaultOsReserveBytes = int64_t{4} << 30;

/// The GPU side of a workload. Everything here is optional: without a GPU the report carries
/// no fit, step time or advice.
struct HardwareSettings {
  std::optional<Gpu> gpu;  ///< a preset ("gpu": "h100-sxm") or a custom GPU object
  Parallelism parallel;
  NetworkSettings network;  ///< nodes and links (dlcost/interconnect.hpp)
  /// Achievable fraction of the dense peak for large GEMMs, in [kMinUtilization, 1]; absent:
  /// the time model's fitted efficiency of the device family and engine
  /// (dlcost/gpu/time_model.hpp).
  std::optional<double> utilization;
  /// Bytes per GPU held back from the capacity; absent = kDefaultReserveBytes (+ NCCL's when
  /// gpus > 1).
  std::optional<int64_t> reserve_bytes;
  /// Share of what is left after the reserve lost to fragmentation, in [0, 0.5); a CPU's
  /// default is 0 (llama.cpp allocates its buffers once, no caching allocator).
  std::optional<double> fragmentation;
  /// RAM installed in the machine, in bytes: a CPU device's memory (absent: the CPU row's
  /// default size), and where llama.cpp keeps the layers it leaves off a GPU (absent: not
  /// checked). What fits is this less kDefaultOsReserveBytes.
  std::optional<int64_t> system_ram_bytes;
  /// Matmul arithmetic; absent = from the precision (fp32 -> fp32, fp16 and mixed -> fp16,
  /// bf16 -> bf16). PyTorch leaves TF32 off for matmuls by default, so fp32 means FP32 math.
  std::optional<MathFormat> math;
};

}  // namespace dlcost
