#pragma once
// The one time model every time the engine reports comes from (issue #32): a training step, a
// prefill, the time to first token, the inter-token latency, tokens/s, samples/s, a run's days
// and dollars. Per op (a layer, a phase, a decode step):
//
//   compute_s = FLOPs / (peak of the math format x gemmEfficiency(rows, device, engine))
//   memory_s  = bytes / (bandwidth x achievable fraction(device) x engine's share)
//   dequant_s = quantized weights x ALU operations per weight (format) / the FP32 ALU rate
//   time      = max(compute_s, memory_s) + dequant_s
//
// and per forward (or decode step) the fixed costs: kernel launches per layer, a per-step cost
// (scheduling, sampling; CUDA graphs lower both where the engine uses them), and the
// tensor-parallel all-reduces, two per layer, at NCCL's latency and bandwidth
// (dlcost/collectives.hpp). Engines differ only in their parameters (TimeParams), which are
// fitted on the published calibration set by scripts/calibrate_speed.py --fit and embedded from
// core/hardware/time_params.json; docs/accuracy.md lists each with its value and residuals.

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "dlcost/types/gpu.hpp"
#include "dlcost/types/interconnect.hpp"
#include "dlcost/types/serving_settings.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// Devices whose kernels reach similar shares of their peaks: the parameter table's rows.
enum class DeviceFamily {
  kHopper,     ///< H100, H200, GH200
  kAmpere,     ///< A100, A10, A30, A40, RTX A-series (datacenter/pro Ampere)
  kAda,        ///< L4, L40, L40S, RTX 6000 Ada (datacenter/pro Ada)
  kBlackwell,  ///< B200, GB200, GB10, RTX PRO Blackwell
  kOlder,      ///< Volta, Turing, Pascal, Kepler datacenter parts
  kGeForce,    ///< consumer GeForce cards (16-bit tensor math at half rate with FP32 accumulate)
  kApple,      ///< Apple silicon (Metal)
  kAmd,        ///< AMD Instinct and Radeon
  kCpu,        ///< a CPU socket (llama.cpp without a GPU)
};
inline constexpr int kDeviceFamilies = 9;

const char* deviceFamilyName(DeviceFamily f);
DeviceFamily deviceFamily(const Gpu& gpu);

/// What a device family's kernels reach (fitted; docs/accuracy.md).
struct FamilyParams {
  /// Share of the dense peak a large GEMM reaches (rows -> infinity).
  double gemm_efficiency = 0.5;
  /// Rows (M: tokens in the batch) at which a GEMM reaches half of gemm_efficiency:
  /// efficiency(M) = gemm_efficiency x M / (M + gemm_half_rows).
  double gemm_half_rows = 32;
  /// Share of the DRAM bandwidth a streaming read reaches.
  double bandwidth_efficiency = 0.8;
  /// Speed-up FP8 GEMMs reach over 16-bit ones (the peak says 2x).
  double fp8_gain = 1.3;
  /// Share of the 16-bit dense peak fused attention kernels (FlashAttention) reach on the
  /// attention core: FlashAttention-2 reaches 50-73 % on an A100 but ~35 % on an H100, where
  /// FlashAttention-3 reaches ~75 % (Shah et al. 2024, fig. 5-6).
  double attention_efficiency = 0.5;
};

/// What an engine adds on top of the device (fitted; docs/accuracy.md). Engine::kNone is
/// plain PyTorch: training and engine-less inference.
struct EngineParams {
  /// The engine's GEMM kernels' share of the family's gemm_efficiency.
  double compute_scale = 1.0;
  /// The engine's fused attention kernels' share of the family's attention_efficiency
  /// (TensorRT-LLM's own FMHA, FlashInfer, llama.cpp's FA; plain PyTorch runs
  /// FlashAttention-2, which the families' shares measure).
  double attention_scale = 1.0;
  /// The engine's share of the family's achievable bandwidth in a decode step.
  double bandwidth_scale = 1.0;
  /// Seconds per layer per decode step: kernel launches and their gaps (small where the
  /// engine replays its decode step as a CUDA graph).
  double layer_overhead_s = 0;
  /// Seconds per layer of a prefill (or training) forward: launched eagerly, since engines
  /// capture only their decode steps as CUDA graphs.
  double prefill_layer_overhead_s = 0;
  /// Seconds per forward (decode step): scheduling, sampling, host-device synchronisation.
  double step_overhead_s = 0;
  /// Latency of one tensor-parallel all-reduce of a forward's small activations: NCCL's LL
  /// protocol or the engine's custom all-reduce kernel, not the ring's per-step latency that
  /// large training buffers pay (dlcost/collectives.hpp). Its bandwidth term is the ring's.
  double allreduce_latency_s = 15e-6;
  /// Seconds per hop of a forward from one GPU to the next in a layer split (llama.cpp's -sm
  /// layer): the copy of the token's activations and the synchronisation between devices.
  double stage_hop_s = 0;
  /// The engine's 16-bit GEMMs accumulate in FP16 (llama.cpp): on GeForce cards they run at
  /// the full tensor rate, twice the FP32-accumulate rate the GPU table holds.
  bool fp16_accumulate = false;
};

/// One kind of time figure (the calibration set's kinds): each carries a range from the
/// residuals of its kind.
enum class TimeKind { kDecode, kPrefill, kServingThroughput, kServingLatency, kTraining };
inline constexpr int kTimeKinds = 5;
/// Entries of TimeParams::engines: one per Engine.
inline constexpr int kEngineCount = 6;
const char* timeKindName(TimeKind k);

struct TimeParams {
  std::array<FamilyParams, kDeviceFamilies> families{};
  std::array<EngineParams, kEngineCount> engines{};  ///< indexed by Engine
  /// ALU operations per weight to unpack and scale each quantized weight, by format.
  double dequant_ops_k_quant = 0;  ///< GGUF K-quants (Q4_K, Q5_K, Q6_K)
  double dequant_ops_q4_0 = 0;     ///< GGUF Q4_0 / Q5_0 and other legacy 4/5-bit blocks
  double dequant_ops_q8_0 = 0;     ///< GGUF Q8_0, int8 weight-only
  double dequant_ops_int4 = 0;     ///< GPTQ, AWQ, int4 weight-only groups
  double dequant_ops_nf4 = 0;      ///< bitsandbytes NF4/FP4
  double dequant_ops_fp4 = 0;      ///< MXFP4, NVFP4 (where the math is not FP4)
  double dequant_ops_fp8 = 0;      ///< FP8 weights feeding 16-bit math
  /// Residual quantiles (p10, p90) of estimate / measured - 1 per TimeKind on the
  /// calibration set: a figure x is shown as x / (1 + p90) .. x / (1 + p10).
  std::array<std::array<double, 2>, kTimeKinds> residuals{};
  std::string fitted;  ///< when and by what the values were fitted
};

/// The embedded parameters (core/hardware/time_params.json), or the override.
const TimeParams& timeParams();
/// Replaces the embedded parameters for this process (scripts/calibrate_speed.py --fit runs
/// the CLI with trial values; DLCOST_TIME_PARAMS). Throws InputError on a malformed table.
void overrideTimeParams(const std::string& json_text);
/// The parameters as JSON (schema "dlcost.time_params/1").
std::string timeParamsJson(const TimeParams& p);

/// The device and the program running the ops.
struct TimeContext {
  const Gpu* gpu = nullptr;
  MathFormat math = MathFormat::kFp16;
  Engine engine = Engine::kNone;
  /// The workload's utilization: when set, the large-GEMM efficiency (replaces
  /// gemm_efficiency x compute_scale).
  std::optional<double> utilization;
};

/// Peak operations per second of `ctx.math` on the device (FP32's where the format has no
/// fast path), with the engine's FP16 accumulation on GeForce.
double mathPeak(const TimeContext& ctx);
/// Share of mathPeak a large GEMM reaches: the workload's utilization when given, else the
/// family's gemm_efficiency x the engine's compute_scale (at most 1); on Apple chips and
/// CPUs, whose only engine's kernels are its own, the family's share alone.
double largeGemmEfficiency(const TimeContext& ctx);
/// Share of mathPeak a GEMM of `rows` rows reaches: largeGemmEfficiency x rows / (rows +
/// gemm_half_rows).
double gemmEfficiency(const TimeContext& ctx, double rows);
/// Operations per second fused attention kernels reach: the workload's utilization x the
/// 16-bit peak when given, else the family's attention_efficiency x the engine's
/// attention_scale (not on Apple chips and CPUs) x that peak.
double attentionRate(const TimeContext& ctx);
/// Achievable bytes per second of a streaming read.
double achievableBandwidth(const TimeContext& ctx);

/// The work of one op.
struct OpWork {
  double flops = 0;
  double rows = 1;             ///< M of its GEMMs (tokens or samples in the batch)
  double bytes = 0;            ///< DRAM traffic
  double dequant_weights = 0;  ///< quantized weights unpacked
  double dequant_ops = 0;      ///< ALU operations per unpacked weight
  /// Of flops: fused attention kernels' (FlashAttention), at the family's attention share of
  /// the 16-bit peak instead of a GEMM's share of the math format's (FP8 trains its linear
  /// layers, not its attention, in FP8).
  double attention_flops = 0;
  double attention_computed = 1.0;  ///< share of attention_flops the kernels compute (causal)
  /// DRAM traffic of the ops between the GEMMs (norms, activations, dropout, residual adds,
  /// casts): kernels of their own, memory-bound, so their time adds to the GEMMs' instead of
  /// hiding under it. `bytes` is what the GEMMs themselves stream (their weights).
  double serial_bytes = 0;
};

struct OpTime {
  double compute_s = 0;
  double memory_s = 0;
  double dequant_s = 0;
  double serial_s = 0;  ///< the ops between the GEMMs (OpWork::serial_bytes)
  double total() const {
    return (compute_s > memory_s ? compute_s : memory_s) + dequant_s + serial_s;
  }
};

OpTime opTime(const TimeContext& ctx, const OpWork& w);

/// One forward (a prefill, a decode step) of a transformer-like stack.
struct ForwardWork {
  OpWork op;
  int64_t layers = 0;    ///< launched per forward (kernel launches)
  bool prefill = false;  ///< a prompt's forward (eager launches), not a decode step
  /// Tensor-parallel all-reduces: 2 per layer of `allreduce_bytes` each over `tp` GPUs, each
  /// at the engine's allreduce_latency_s plus the ring's bandwidth term on `network`.
  int64_t tp = 1;
  double allreduce_bytes = 0;
  const Network* network = nullptr;
  /// GPUs the layers are split over, one after the other (llama.cpp's -sm layer): each
  /// forward crosses stages - 1 boundaries at the engine's stage_hop_s.
  int64_t stages = 1;
  /// DRAM traffic of attention scores an eager implementation writes and reads back between
  /// its kernels (QK^T, the softmax, the conversion before AV): passes of their own, after
  /// the GEMMs, at the achievable bandwidth. Fused (flash) attention keeps them on chip: 0.
  double score_bytes = 0;
};

struct ForwardTime {
  OpTime op;
  double fixed_s = 0;   ///< launches per layer + per-step cost
  double comm_s = 0;    ///< tensor-parallel all-reduces
  double scores_s = 0;  ///< eager attention's score passes
  double total_s = 0;
};

ForwardTime forwardTime(const TimeContext& ctx, const ForwardWork& w);
/// Seconds one forward spends crossing the boundaries of a layer split over `stages` GPUs.
double stageHopTime(const TimeContext& ctx, int64_t stages);

/// Fixed cost of one forward of `layers` layers (launches per layer + the per-step cost);
/// `prefill`: a prompt's (or a training) forward, launched eagerly.
double forwardOverhead(const TimeContext& ctx, int64_t layers, bool prefill);

/// ALU operations per weight to dequantize `q` (GGUF type `gguf` when q is kGguf); 0 for
/// unquantized weights.
double dequantOpsPerWeight(QuantFormat q, GgufFileType gguf);
/// The same for plain weight_dtype int8/int4 groups (no checkpoint format).
double dequantOpsPerWeightBits(int bits);
/// The same for a workload's weights: its quantization format, else its weight_dtype.
double dequantOpsOf(const Workload& w);

/// The range (lo, hi) a time figure `value` of `kind` carries from the calibration residuals;
/// `rate`: the figure is a rate (tokens/s), so a slow estimate widens it downwards.
std::array<double, 2> timeRange(TimeKind kind, double value, bool rate);

}  // namespace dlcost
