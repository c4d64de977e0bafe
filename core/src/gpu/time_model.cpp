// The per-op time model (dlcost/time_model.hpp): one formula for every time the engine
// reports, its parameters read from core/hardware/time_params.json (embedded at build time,
// fitted by scripts/calibrate_speed.py --fit).

#include "dlcost/gpu/time_model.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include <nlohmann/json.hpp>

#include "base/embedded_data.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/gpu/collectives.hpp"
#include "types/json_reader.hpp"

namespace dlcost {

namespace {

constexpr const char* kFamilyNames[kDeviceFamilies] = {
    "hopper", "ampere", "ada", "blackwell", "older", "geforce", "apple", "amd", "cpu"};
constexpr const char* kEngineKeys[kEngineCount] = {"none",   "hf",       "vllm",
                                                   "sglang", "llamacpp", "trtllm"};
constexpr const char* kKindNames[kTimeKinds] = {"decode", "prefill", "serving_throughput",
                                                "serving_latency", "training"};

bool contains(const std::string& s, const char* part) {
  return s.find(part) != std::string::npos;
}

FamilyParams readFamily(const nlohmann::json& j, const std::string& path) {
  ObjectReader r(j, path);
  r.rejectUnknown({"gemm_efficiency", "gemm_half_rows", "bandwidth_efficiency", "fp8_gain",
                   "attention_efficiency"});
  FamilyParams f;
  f.gemm_efficiency = r.optionalNumber("gemm_efficiency", f.gemm_efficiency, 0.01, 1);
  f.gemm_half_rows = r.optionalNumber("gemm_half_rows", f.gemm_half_rows, 0, 1e6);
  f.bandwidth_efficiency =
      r.optionalNumber("bandwidth_efficiency", f.bandwidth_efficiency, 0.05, 1);
  f.fp8_gain = r.optionalNumber("fp8_gain", f.fp8_gain, 0.5, 2);
  f.attention_efficiency =
      r.optionalNumber("attention_efficiency", f.attention_efficiency, 0.01, 1);
  return f;
}

EngineParams readEngine(const nlohmann::json& j, const std::string& path) {
  ObjectReader r(j, path);
  r.rejectUnknown({"compute_scale", "attention_scale", "bandwidth_scale", "layer_overhead_s",
                   "prefill_layer_overhead_s", "step_overhead_s", "allreduce_latency_s",
                   "stage_hop_s", "fp16_accumulate"});
  EngineParams e;
  e.compute_scale = r.optionalNumber("compute_scale", e.compute_scale, 0.01, 4);
  e.attention_scale = r.optionalNumber("attention_scale", e.attention_scale, 0.01, 4);
  e.bandwidth_scale = r.optionalNumber("bandwidth_scale", e.bandwidth_scale, 0.05, 1.5);
  e.layer_overhead_s = r.optionalNumber("layer_overhead_s", 0, 0, 1);
  e.prefill_layer_overhead_s =
      r.optionalNumber("prefill_layer_overhead_s", e.layer_overhead_s, 0, 1);
  e.step_overhead_s = r.optionalNumber("step_overhead_s", 0, 0, 10);
  e.allreduce_latency_s = r.optionalNumber("allreduce_latency_s", e.allreduce_latency_s, 0, 1e-2);
  e.stage_hop_s = r.optionalNumber("stage_hop_s", 0, 0, 1e-1);
  e.fp16_accumulate = r.optionalBool("fp16_accumulate", false);
  return e;
}

TimeParams parseParams(const std::string& text) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    throw InputError(ErrorCode::kValue, "", "time parameters: not a JSON object");
  }
  ObjectReader r(doc, "");
  r.rejectUnknown(
      {"schema", "about", "fitted", "families", "engines", "dequant_ops_per_weight", "residuals"});
  TimeParams p;
  p.fitted = r.optionalString("fitted", "");
  ObjectReader fam(r.require("families"), r.pathOf("families"));
  for (int i = 0; i < kDeviceFamilies; ++i) {
    if (const auto* f = fam.find(kFamilyNames[i]))
      p.families[static_cast<size_t>(i)] = readFamily(*f, fam.pathOf(kFamilyNames[i]));
  }
  ObjectReader eng(r.require("engines"), r.pathOf("engines"));
  for (int i = 0; i < kEngineCount; ++i) {
    if (const auto* e = eng.find(kEngineKeys[i]))
      p.engines[static_cast<size_t>(i)] = readEngine(*e, eng.pathOf(kEngineKeys[i]));
  }
  ObjectReader dq(r.require("dequant_ops_per_weight"), r.pathOf("dequant_ops_per_weight"));
  dq.rejectUnknown({"k_quant", "q4_0", "q8_0", "int4", "nf4", "fp4", "fp8"});
  p.dequant_ops_k_quant = dq.optionalNumber("k_quant", 0, 0, 1000);
  p.dequant_ops_q4_0 = dq.optionalNumber("q4_0", 0, 0, 1000);
  p.dequant_ops_q8_0 = dq.optionalNumber("q8_0", 0, 0, 1000);
  p.dequant_ops_int4 = dq.optionalNumber("int4", 0, 0, 1000);
  p.dequant_ops_nf4 = dq.optionalNumber("nf4", 0, 0, 1000);
  p.dequant_ops_fp4 = dq.optionalNumber("fp4", 0, 0, 1000);
  p.dequant_ops_fp8 = dq.optionalNumber("fp8", 0, 0, 1000);
  if (const auto* res = r.find("residuals")) {
    for (int i = 0; i < kTimeKinds; ++i) {
      const auto it = res->find(kKindNames[i]);
      if (it == res->end()) continue;
      if (!it->is_array() || it->size() != 2 || !(*it)[0].is_number() || !(*it)[1].is_number()) {
        throw InputError(ErrorCode::kValue, "/residuals/" + std::string(kKindNames[i]),
                         "time parameters: a residual range is [p10, p90]");
      }
      p.residuals[static_cast<size_t>(i)] = {(*it)[0].get<double>(), (*it)[1].get<double>()};
    }
  }
  return p;
}

std::unique_ptr<TimeParams>& overridden() {
  static std::unique_ptr<TimeParams> p;
  return p;
}

const FamilyParams& familyOf(const TimeContext& ctx) {
  return timeParams().families[static_cast<size_t>(deviceFamily(*ctx.gpu))];
}

const EngineParams& engineOf(const TimeContext& ctx) {
  return timeParams().engines[static_cast<size_t>(ctx.engine)];
}

}  // namespace

const char* deviceFamilyName(DeviceFamily f) {
  return kFamilyNames[static_cast<int>(f)];
}

const char* timeKindName(TimeKind k) {
  return kKindNames[static_cast<int>(k)];
}

DeviceFamily deviceFamily(const Gpu& g) {
  if (g.cpu) return DeviceFamily::kCpu;
  if (g.vendor == "Apple") return DeviceFamily::kApple;
  if (g.vendor == "AMD") return DeviceFamily::kAmd;
  // GeForce: consumer parts, whose 16-bit tensor math with FP32 accumulate runs at half rate
  // (GPU-NOTES); the pro and datacenter parts of the same architecture are in its family.
  if (contains(g.name, "GeForce")) return DeviceFamily::kGeForce;
  if (g.architecture == "Hopper") return DeviceFamily::kHopper;
  if (g.architecture == "Ampere") return DeviceFamily::kAmpere;
  if (g.architecture == "Ada Lovelace") return DeviceFamily::kAda;
  if (g.architecture == "Blackwell") return DeviceFamily::kBlackwell;
  return DeviceFamily::kOlder;
}

const TimeParams& timeParams() {
  if (overridden()) return *overridden();
  static const TimeParams embedded = parseParams(kTimeParamsJson);
  return embedded;
}

void overrideTimeParams(const std::string& json_text) {
  overridden() = std::make_unique<TimeParams>(parseParams(json_text));
}

std::string timeParamsJson(const TimeParams& p) {
  nlohmann::json j;
  j["schema"] = "dlcost.time_params/1";
  j["fitted"] = p.fitted;
  for (int i = 0; i < kDeviceFamilies; ++i) {
    const FamilyParams& f = p.families[static_cast<size_t>(i)];
    j["families"][kFamilyNames[i]] = {{"gemm_efficiency", f.gemm_efficiency},
                                      {"gemm_half_rows", f.gemm_half_rows},
                                      {"bandwidth_efficiency", f.bandwidth_efficiency},
                                      {"fp8_gain", f.fp8_gain},
                                      {"attention_efficiency", f.attention_efficiency}};
  }
  for (int i = 0; i < kEngineCount; ++i) {
    const EngineParams& e = p.engines[static_cast<size_t>(i)];
    j["engines"][kEngineKeys[i]] = {{"compute_scale", e.compute_scale},
                                    {"attention_scale", e.attention_scale},
                                    {"bandwidth_scale", e.bandwidth_scale},
                                    {"layer_overhead_s", e.layer_overhead_s},
                                    {"prefill_layer_overhead_s", e.prefill_layer_overhead_s},
                                    {"step_overhead_s", e.step_overhead_s},
                                    {"allreduce_latency_s", e.allreduce_latency_s},
                                    {"stage_hop_s", e.stage_hop_s},
                                    {"fp16_accumulate", e.fp16_accumulate}};
  }
  j["dequant_ops_per_weight"] = {{"k_quant", p.dequant_ops_k_quant}, {"q4_0", p.dequant_ops_q4_0},
                                 {"q8_0", p.dequant_ops_q8_0},       {"int4", p.dequant_ops_int4},
                                 {"nf4", p.dequant_ops_nf4},         {"fp4", p.dequant_ops_fp4},
                                 {"fp8", p.dequant_ops_fp8}};
  for (int i = 0; i < kTimeKinds; ++i) {
    const auto& r = p.residuals[static_cast<size_t>(i)];
    j["residuals"][kKindNames[i]] = {r[0], r[1]};
  }
  return j.dump(1);
}

double mathPeak(const TimeContext& ctx) {
  const Gpu& g = *ctx.gpu;
  const MathFormat math = ctx.math == MathFormat::kFp8 && g.fp8_flops <= 0
                              ? (g.bf16_flops > 0 ? MathFormat::kBf16 : MathFormat::kFp16)
                              : ctx.math;
  double peak = gpuPeak(g, math);
  if (peak <= 0) peak = g.fp32_flops;
  const bool sixteen = math == MathFormat::kFp16 || math == MathFormat::kBf16;
  if (sixteen && engineOf(ctx).fp16_accumulate && deviceFamily(g) == DeviceFamily::kGeForce)
    peak *= 2;  // FP16 accumulate: the headline rate (GPU-NOTES)
  if (math == MathFormat::kFp8 && g.fp8_flops > 0) {
    // FP8 at the speed-up it reaches over 16-bit GEMMs, not the peak's 2x.
    const double sixteen_peak = g.bf16_flops > 0 ? g.bf16_flops : g.fp16_flops;
    if (sixteen_peak > 0) peak = std::min(peak, sixteen_peak * familyOf(ctx).fp8_gain);
  }
  return peak;
}

namespace {

/// An engine's scales (compute_scale, attention_scale) compare its kernels with the vendor's
/// (cuBLAS, FlashAttention), which the GPU families' shares measure. On Apple chips and CPUs
/// llama.cpp's own kernels (Metal, ggml's CPU backend) are the only ones dlcost runs, so the
/// family's share is theirs: scaling it again by the CUDA kernels' ratio would count it twice.
double engineScale(const TimeContext& ctx, double scale) {
  const DeviceFamily f = deviceFamily(*ctx.gpu);
  return f == DeviceFamily::kApple || f == DeviceFamily::kCpu ? 1.0 : scale;
}

}  // namespace

double largeGemmEfficiency(const TimeContext& ctx) {
  if (ctx.utilization) return std::min(1.0, *ctx.utilization);
  return std::min(1.0,
                  familyOf(ctx).gemm_efficiency * engineScale(ctx, engineOf(ctx).compute_scale));
}

double attentionRate(const TimeContext& ctx) {
  TimeContext sixteen = ctx;
  if (ctx.math == MathFormat::kFp8 || ctx.math == MathFormat::kInt8)
    sixteen.math = MathFormat::kFp16;
  if (ctx.utilization) return mathPeak(sixteen) * std::min(1.0, *ctx.utilization);
  const double scale = engineScale(ctx, engineOf(ctx).attention_scale);
  // The best attention kernels measured reach ~75 % of the peak (FlashAttention-3, FP16): no
  // product of the fitted shares goes past the GEMMs' bound, 90 %.
  return mathPeak(sixteen) * std::min(0.9, familyOf(ctx).attention_efficiency * scale);
}

double gemmEfficiency(const TimeContext& ctx, double rows) {
  const double m = std::max(1.0, rows);
  return largeGemmEfficiency(ctx) * m / (m + familyOf(ctx).gemm_half_rows);
}

double achievableBandwidth(const TimeContext& ctx) {
  const double share = familyOf(ctx).bandwidth_efficiency * engineOf(ctx).bandwidth_scale;
  return ctx.gpu->bandwidth_bytes_per_s * std::min(1.0, share);
}

OpTime opTime(const TimeContext& ctx, const OpWork& w) {
  OpTime t;
  if (w.flops > 0) {
    const double attention = std::min(w.flops, w.attention_flops);
    const double rate = mathPeak(ctx) * gemmEfficiency(ctx, w.rows);
    const double attention_rate = attentionRate(ctx);
    t.compute_s = (rate > 0 ? (w.flops - attention) / rate : 0) +
                  (attention_rate > 0 ? attention * w.attention_computed / attention_rate : 0);
  }
  const double bw = achievableBandwidth(ctx);
  if (w.bytes > 0 && bw > 0) t.memory_s = w.bytes / bw;
  if (w.serial_bytes > 0 && bw > 0) t.serial_s = w.serial_bytes / bw;
  // Unpacking runs on the ALUs (FP32 rate), beside the tensor cores' GEMMs; where no ALU rate
  // is published (Apple M3/M4) it is left out. A CPU unpacks inside its bandwidth-bound dot
  // products: its bandwidth share (the cpu family's, from llama.cpp's quantized CPU runs)
  // already holds it.
  if (w.dequant_weights > 0 && w.dequant_ops > 0 && ctx.gpu->fp32_flops > 0 && !ctx.gpu->cpu)
    t.dequant_s = w.dequant_weights * w.dequant_ops / ctx.gpu->fp32_flops;
  return t;
}

double forwardOverhead(const TimeContext& ctx, int64_t layers, bool prefill) {
  // No kernel launches on a CPU: ggml's CPU backend runs the graph on its own threads.
  if (ctx.gpu->cpu) return 0;
  const EngineParams& e = engineOf(ctx);
  const double per_layer = prefill ? e.prefill_layer_overhead_s : e.layer_overhead_s;
  return e.step_overhead_s + static_cast<double>(layers) * per_layer;
}

ForwardTime forwardTime(const TimeContext& ctx, const ForwardWork& w) {
  ForwardTime t;
  t.op = opTime(ctx, w.op);
  t.fixed_s = forwardOverhead(ctx, w.layers, w.prefill);
  if (w.tp > 1 && w.network && w.allreduce_bytes > 0) {
    // Megatron-style layers: an all-reduce after attention and one after the MLP, on the
    // critical path (Shoeybi et al. 2019, sec. 3).
    // Small buffers: the engine's all-reduce latency plus the ring's bandwidth term (its
    // time less that of a one-byte call, which is all latency).
    const GroupPlacement g = placeGroup(w.tp, 1, w.network->gpus_per_node);
    const double bandwidth =
        collectiveTime(Collective::kAllReduce, w.allreduce_bytes, g, *w.network) -
        collectiveTime(Collective::kAllReduce, 1.0, g, *w.network);
    t.comm_s = 2.0 * static_cast<double>(w.layers) *
               (engineOf(ctx).allreduce_latency_s + std::max(0.0, bandwidth));
  }
  t.comm_s += stageHopTime(ctx, w.stages);
  const double bw = achievableBandwidth(ctx);
  if (w.score_bytes > 0 && bw > 0) t.scores_s = w.score_bytes / bw;
  t.total_s = t.op.total() + t.fixed_s + t.comm_s + t.scores_s;
  return t;
}

double stageHopTime(const TimeContext& ctx, int64_t stages) {
  if (stages <= 1 || ctx.gpu->cpu) return 0;
  return static_cast<double>(stages - 1) * engineOf(ctx).stage_hop_s;
}

double dequantOpsPerWeight(QuantFormat q, GgufFileType gguf) {
  const TimeParams& p = timeParams();
  switch (q) {
    case QuantFormat::kNone:
      return 0;
    case QuantFormat::kGguf:
      switch (gguf) {
        case GgufFileType::kF16:
        case GgufFileType::kBf16:
          return 0;
        case GgufFileType::kQ8_0:
          return p.dequant_ops_q8_0;
        case GgufFileType::kQ4_0:
          return p.dequant_ops_q4_0;
        case GgufFileType::kMxfp4Moe:
          // The experts' E2M1 codes through a 16-entry table, as the FP4 checkpoints are read;
          // the attention's Q8_0 matrices are a small share of a gpt-oss step's weights.
          return p.dequant_ops_fp4;
        default:
          return p.dequant_ops_k_quant;
      }
    case QuantFormat::kGptq:
    case QuantFormat::kAwq:
      return p.dequant_ops_int4;
    case QuantFormat::kBnbNf4:
    case QuantFormat::kBnbFp4:
      return p.dequant_ops_nf4;
    case QuantFormat::kMxfp4:
    case QuantFormat::kNvfp4:
      return p.dequant_ops_fp4;
    case QuantFormat::kFp8Tensor:
    case QuantFormat::kFp8Channel:
    case QuantFormat::kFp8Block:
      return p.dequant_ops_fp8;
  }
  return 0;
}

double dequantOpsOf(const Workload& w) {
  if (w.serving.quant != QuantFormat::kNone)
    return dequantOpsPerWeight(w.serving.quant, w.serving.gguf_type);
  if (!w.weight_dtype) return 0;
  if (*w.weight_dtype == DType::kFp8) return timeParams().dequant_ops_fp8;
  return dequantOpsPerWeightBits(dtypeBits(*w.weight_dtype));
}

double dequantOpsPerWeightBits(int bits) {
  const TimeParams& p = timeParams();
  if (bits <= 4) return p.dequant_ops_int4;
  if (bits <= 8) return p.dequant_ops_q8_0;
  return 0;
}

std::array<double, 2> timeRange(TimeKind kind, double value, bool rate) {
  const auto& r = timeParams().residuals[static_cast<size_t>(kind)];
  const double lo = std::max(-0.9, r[0]), hi = std::max(lo, r[1]);
  // The calibration compares rates (tokens/s) for every kind but serving latency (ms):
  // measured = estimate / (1 + error) for the calibrated figure, its inverse otherwise.
  const bool calibrated_as_rate = kind != TimeKind::kServingLatency;
  if (rate == calibrated_as_rate) return {value / (1 + hi), value / (1 + lo)};
  return {value * (1 + lo), value * (1 + hi)};
}

}  // namespace dlcost
