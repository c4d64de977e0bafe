#pragma once
// What a report says about running its workload on a GPU: per-GPU memory, fit, largest
// batch, step time, throughput and what to change when it does not fit.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dlcost/types/gpu.hpp"
#include "dlcost/types/memory.hpp"
#include "dlcost/types/step_breakdown.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// Memory one GPU holds: the report's terms after tensor/pipeline splitting and ZeRO
/// partitioning (each by its Sharding), activations at the replica's batch. Its per_sample is
/// per sample of the replica's batch; the reserve is not included.
using PerGpuMemory = MemoryBreakdown;

/// Roofline step time: per layer (or phase) max(FLOPs / (peak x utilisation),
/// bytes / bandwidth), summed; pipelines add the 1F1B bubble.
struct StepTime {
  double step_s = 0;       ///< one optimizer step (training) or one forward (inference)
  double compute_s = 0;    ///< the FLOP terms alone, summed
  double memory_s = 0;     ///< the traffic terms alone, summed
  double optimizer_s = 0;  ///< the optimizer update (memory-bound), included in step_s
  /// One pipeline micro-batch through every layer on one GPU's share (roofline, summed per
  /// layer or phase): the forward, and the backward (0 in inference).
  double forward_s = 0;
  double backward_s = 0;
  /// Of forward_s and backward_s: the fused attention kernels' time (transformers), which
  /// a context-parallel ring's K/V sends overlap with.
  double attention_forward_s = 0;
  double attention_backward_s = 0;
  double samples_per_s = 0;  ///< global batch / step_s
  /// Decode tokens per second (from a "decode" phase, or one token per sequence per forward
  /// for layer graphs reading token ids at inference); absent otherwise.
  std::optional<double> tokens_per_s;
};

/// "compute" when the step's FLOP terms take at least as long as its traffic terms, else
/// "memory".
const char* stepBound(const StepTime& time);

/// One change that makes the configuration fit, verified by re-estimating it.
struct Advice {
  std::string change;             ///< what to change, as a sentence
  std::string change_zh;          ///< the same in Chinese
  Workload workload;              ///< the changed workload (apply it to re-check)
  int64_t grad_accumulation = 1;  ///< micro-steps per optimizer step that keep the batch
  int64_t per_gpu_bytes = 0;      ///< what each GPU would then need
};

struct GpuFit {
  Gpu gpu;
  MathFormat math = MathFormat::kFp32;  ///< the arithmetic the roofline uses
  double peak_flops = 0;                ///< dense peak for `math` (FP32's where it has none)
  double utilization = 0;
  int64_t data_parallel = 1;        ///< batch replicas: gpus / (tp x pp x cp)
  int64_t replica_batch = 1;        ///< batch / data_parallel
  int64_t capacity_bytes = 0;       ///< per GPU, as nvidia-smi reports it
  int64_t reserve_bytes = 0;        ///< CUDA context, framework, NCCL
  int64_t fragmentation_bytes = 0;  ///< allocator fragmentation allowance
  int64_t usable_bytes = 0;         ///< capacity - reserve - fragmentation
  PerGpuMemory per_gpu;
  bool fits = false;
  int64_t headroom_bytes = 0;  ///< usable - per_gpu.total (negative when it does not fit)
  /// Largest global batch that fits (a multiple of data_parallel x micro-batches); 0 = none.
  /// For LLM inference this is the most concurrent sequences at the workload's sequence
  /// length, since memory.per_sample is per sequence.
  int64_t max_batch = 0;
  StepTime time;               ///< step_s and samples_per_s include communication and the bubble
  Network network;             ///< nodes, GPUs per node and the links the collectives use
  StepBreakdown step;          ///< compute, exposed communication, bubble, optimizer; MFU
  std::optional<RunCost> run;  ///< the whole run, when the workload names tokens or samples
  /// Throughput per 1000 USD of launch price of the GPUs used; absent without a price.
  std::optional<double> samples_per_s_per_1000usd;
  double samples_per_s_per_watt = 0;  ///< per watt of the GPUs' TDP
  std::vector<Advice> advice;         ///< empty when it fits
  std::vector<std::string> notes;     ///< assumptions that shaped the figures
};

}  // namespace dlcost
