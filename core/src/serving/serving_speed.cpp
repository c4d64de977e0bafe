// Speed of a serving plan: time to first token (the prefill), and the decode step with n users
// (every weight and every user's KV cache read once per step, until the FLOPs of n tokens take
// longer), both through the per-op time model of dlcost/time_model.hpp with the engine's
// fitted parameters: GEMM efficiency by rows, achievable bandwidth, dequantization, launches
// per layer and per step, tensor-parallel all-reduces. Layers llama.cpp leaves in system RAM
// are read by the CPU at the host bandwidth, one after the other with the GPU's, except in
// batches of 32+ tokens, for which llama.cpp copies their weights to the GPU over the host
// link. On a CPU device every byte is read from system RAM at the CPU's bandwidth.
#include <algorithm>
#include <cmath>

#include "dlcost/base/checked.hpp"
#include "dlcost/gpu/collectives.hpp"
#include "dlcost/gpu/fit.hpp"
#include "dlcost/gpu/gpu_compute.hpp"
#include "dlcost/gpu/interconnect_table.hpp"
#include "dlcost/gpu/time_model.hpp"
#include "dlcost/memory/quant_formats.hpp"
#include "dlcost/serving/serving.hpp"
#include "dlcost/types/interconnect.hpp"
#include "serving/decode_kv_reads.hpp"
#include "serving/draft_model.hpp"
#include "serving/iteration_time.hpp"
#include "serving/llama_gguf.hpp"
#include "serving/vllm_stages.hpp"

namespace dlcost {

namespace {

double d(int64_t v) {
  return static_cast<double>(v);
}
double d(WideCount v) {
  return v.toDouble();
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

/// KV bytes of one sequence of `tokens` tokens as the plan stores it, per GPU.
int64_t planKvBytes(const Transformer& t, const ServingPlan& plan, int64_t tokens) {
  // kv_bytes_per_token is over all layers for one token; local layers hold at most their
  // window.
  int64_t cells = 0;
  for (int64_t i = 0; i < t.layers; ++i) cells = checkedAdd(cells, attendedKeys(t, i, tokens));
  return checkedMul(plan.kv_bytes_per_token / std::max<int64_t>(1, t.layers), cells);
}

/// The link llama.cpp copies system-RAM weights to the GPU over: a PCIe board's own slot
/// (its intra_node_link), an SXM/OAM module's host interface (V100 SXM2 PCIe 3.0, A100 SXM4
/// 4.0, H100/H200 SXM5, B200 and MI300X 5.0, x16 each: NVIDIA's and AMD's datasheets);
/// nullptr for unified memory, where the GPU reads system RAM in place.
const Interconnect* hostLink(const Gpu& g) {
  if (g.unified_memory || g.cpu) return nullptr;
  if (g.intra_node_link.rfind("pcie", 0) == 0) return findInterconnect(g.intra_node_link);
  if (g.intra_node_link == "nvlink2") return findInterconnect("pcie3-x16");
  if (g.intra_node_link == "nvlink3") return findInterconnect("pcie4-x16");
  if (g.intra_node_link.empty()) return nullptr;
  return findInterconnect("pcie5-x16");
}

/// Micro-batches of a prompt of `tokens` big enough for llama.cpp to offload CPU-held matmuls
/// to the GPU (each copying their weights): the full n_ubatch pieces, and the last if it
/// still has kLlamaOffloadMinBatch tokens.
int64_t offloadedUbatches(int64_t tokens) {
  const int64_t tail = tokens % kLlamaUbatch;
  return tokens / kLlamaUbatch + (tail >= kLlamaOffloadMinBatch ? 1 : 0);
}

/// Bytes one attention score costs in DRAM where the engine materializes the scores (eager
/// attention); 0 where its kernels fuse them (vLLM, SGLang and TensorRT-LLM always run fused
/// attention kernels, and `attention: flash` asks the others to).
/// - HF transformers' eager_attention_forward (and plain PyTorch): QK^T written in 16 bits,
///   scaled and masked (each a read and a write), softmax in fp32 (16-bit in, fp32 out), the
///   cast back (fp32 in, 16-bit out), read by AV: 2+4+4+6+6+2 = 24 bytes.
/// - llama.cpp without -fa on CUDA (ggml-cuda mul_mat batched cuBLAS path): QK^T written in
///   F16 and converted to F32 (2+2+4), soft_max_ext F32 in place (4+4), converted back to F16
///   for the AV GEMM (4+2) and read by it (2): 24 bytes. Its Metal and CPU kernels and its
///   one-row (decode) CUDA kernels read and write F32 directly: 4+4+4+4 = 16 bytes.
double scoreBytes(const Workload& w, const Gpu& g, bool prefill) {
  if (fusedAttention(w)) return 0;
  if (w.serving.engine != Engine::kLlamaCpp) return 24;  // HF transformers, plain PyTorch
  return prefill && !g.cpu && g.vendor != "Apple" ? 24 : 16;
}

/// Attention scores of one prefill of `sequences` prompts of `prompt` tokens after `cached`
/// tokens each, per head and layer: the prompt against the cached tokens and the full square
/// of its own for a whole-prompt forward (the causal mask is added to it), and for llama.cpp
/// each n_ubatch piece against every KV cell filled so far (its KQ covers the cache's used
/// cells, the sequences sharing one cache).
double prefillScores(Engine engine, int64_t prompt, int64_t cached, double sequences) {
  if (engine != Engine::kLlamaCpp) return sequences * d(prompt) * (d(cached) + d(prompt));
  const double tokens = sequences * d(prompt), ub = d(kLlamaUbatch);
  const double filled = sequences * d(cached);
  double scores = 0;
  for (double done = 0; done < tokens; done += ub) {
    const double n = std::min(ub, tokens - done);
    scores += n * (filled + done + n);
  }
  return scores;
}

/// llama.cpp's n_batch (llama-server's and llama-bench's default): a prompt is decoded in
/// calls of up to this many tokens, each run as n_ubatch micro-batches.
constexpr int64_t kLlamaBatch = 2048;

/// Share of a prompt's serial time left when llama.cpp pipelines it over the GPUs of a layer
/// split (ggml_backend_sched with n_copies > 1, enabled when every layer and the output are
/// offloaded): the u micro-batches of one call overlap across the stages, so the call takes
/// u + stages - 1 stage-times of one micro-batch instead of u x stages.
double pipelinedShare(int64_t tokens, int64_t stages) {
  if (stages <= 1) return 1.0;
  double pipelined = 0, serial = 0;
  for (int64_t done = 0; done < tokens; done += kLlamaBatch) {
    const int64_t u = ceilDiv(std::min(kLlamaBatch, tokens - done), kLlamaUbatch);
    pipelined += d(u + stages - 1);
    serial += d(u * stages);
  }
  return serial > 0 ? pipelined / serial : 1.0;
}

/// Whether llama.cpp's micro-batches overlap across the GPUs of a layer split: pipeline
/// parallelism is on only when every layer and the output are offloaded (llama-context.cpp),
/// and it needs asynchronous copies between the GPUs, which peer-to-peer access gives; without
/// it each copy waits and the GPUs take turns (llama.cpp discussion #20252, issue #13751).
/// GeForce cards have no PCIe peer-to-peer access (NVIDIA's driver enables it on its pro and
/// datacenter parts; the RTX 3090's NVLink bridge is not modelled).
bool pipelineOverlaps(const ServingPlan& plan, const Transformer& t, const Gpu& g) {
  return plan.gpu_layers > t.layers && deviceFamily(g) != DeviceFamily::kGeForce;
}

}  // namespace

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

namespace {

/// What a serving step reads and where, as the engine places the plan's weights, with the
/// device's time context: shared by the decode step and the prefill.
struct SpeedSetup {
  TimeContext ctx;
  const GpuFit* fit = nullptr;
  bool cpu = false;
  bool compute_known = false;
  double host_bw = 0;  ///< what the CPU's memory reaches for llama.cpp's CPU layers
  double tp = 1;
  double act_bytes = 2;  ///< bytes per activation value
  /// Weights read per step: on the GPU (all of the plan's device weights) and, for llama.cpp,
  /// the CPU layers (the token embeddings are gathered row by row, not read whole).
  int64_t device_weights = 0;
  int64_t host_weights = 0;
  int64_t host_output = 0;  ///< the output layer's bytes when it sits in system RAM
  /// llama.cpp's layer split over several GPUs: a token passes through all, one after the
  /// other, so a step reads every GPU's weights in turn.
  int64_t stages = 1;
  /// vLLM's pipeline stages: pp batches in flight (its batch queue), each of users / pp
  /// sequences; a user's token is one pass of its batch through every stage in turn.
  int64_t vllm_pp = 1;
  double device_share = 1;   ///< of the weights, those on the device
  double device_params = 0;  ///< parameters the device unpacks per forward (quantized)
  double dequant_ops = 0;
  const Interconnect* link = nullptr;  ///< the host link llama.cpp copies CPU layers over
  double link_bw = 0;
};

/// The weights a llama.cpp or vLLM step reads on the device and in system RAM.
void placeWeights(const Transformer& t, const Workload& w, const ServingPlan& plan, SpeedSetup& u) {
  u.device_weights =
      plan.device.bytesOf(MemoryKey::kWeights) + plan.device.bytesOf(MemoryKey::kQuantScales);
  u.host_weights = plan.host.bytesOf(MemoryKey::kWeights);
  // llama.cpp's stages: pp, which withServingDefaults sets to gpus, as its plan splits them;
  // the plan's device is one of them.
  u.stages = plan.engine == Engine::kLlamaCpp && !u.cpu
                 ? std::min(w.hardware.parallel.pp, std::min(plan.gpu_layers, t.layers + 1))
                 : 1;
  if (plan.engine == Engine::kLlamaCpp && (u.host_weights > 0 || u.cpu || u.stages > 1)) {
    const QuantizedWeights q = quantizedWeights(t, asLlamaCppGguf(w));
    (u.cpu ? u.device_weights : u.host_weights) -= q.input_bytes;
    if (plan.gpu_layers <= t.layers && !u.cpu) u.host_output = q.output_bytes;
    if (u.stages > 1) {
      u.device_weights = plan.gpu_layers > t.layers ? q.output_bytes : 0;
      for (int64_t i = t.layers - std::min(plan.gpu_layers, t.layers); i < t.layers; ++i)
        u.device_weights += q.layer_bytes[static_cast<size_t>(i)];
    }
  }
  // vLLM's stages: the weights of one GPU of each.
  u.vllm_pp = plan.engine == Engine::kVllm ? w.hardware.parallel.pp : 1;
  if (u.vllm_pp > 1) {
    u.device_weights = 0;
    for (const PipelineStage& st : vllmStages(t, w)) u.device_weights += st.weight_bytes;
  }
}

SpeedSetup speedSetup(const Transformer& t, const Workload& w, const Report& r,
                      const ServingPlan& plan) {
  SpeedSetup u;
  u.fit = &*r.gpu_fit;
  u.cpu = u.fit->gpu.cpu;
  u.ctx = timeContext(w, *u.fit);
  u.ctx.engine = plan.engine;
  u.compute_known = gpuComputePublished(u.fit->gpu);
  // Layers llama.cpp keeps in system RAM are read by the CPU at what its memory reaches.
  u.host_bw = w.serving.host_bandwidth.value_or(kDefaultHostBandwidth) *
              timeParams().families[static_cast<size_t>(DeviceFamily::kCpu)].bandwidth_efficiency;
  u.tp = d(w.hardware.parallel.tp);
  u.act_bytes = dtypeBits(layoutOf(w.precision).activations) / 8.0;
  placeWeights(t, w, plan, u);
  u.device_share = d(u.device_weights) / std::max(1.0, d(u.device_weights + u.host_weights));
  // Weights the device unpacks per forward (quantized formats), in proportion to the bytes
  // read.
  u.device_params = d(r.params.total) / u.tp * u.device_share;
  u.dequant_ops = dequantOpsOf(w);
  // Batches of 32+ tokens run the CPU layers' matmuls on the GPU after copying their weights
  // (all of them: a MoE layer's whole expert tensor) over the host link.
  u.link = hostLink(u.fit->gpu);
  u.link_bw = u.link ? u.link->bandwidth_bytes_per_s : 0.0;
  return u;
}

/// vLLM's sends of `tokens` hidden states over the pp - 1 stage boundaries of one pass (the
/// other batches' work does not hide them from this one).
double stageSends(const SpeedSetup& u, const Transformer& t, const Workload& w, double tokens) {
  if (u.vllm_pp <= 1) return 0.0;
  const GroupPlacement g =
      placeGroup(u.vllm_pp, w.hardware.parallel.tp, u.fit->network.gpus_per_node);
  return d(u.vllm_pp - 1) * collectiveTime(Collective::kSendRecv,
                                           tokens * d(t.hidden) * u.act_bytes, g, u.fit->network);
}

/// One decode step of `users` sequences at `context` tokens: the inter-token latency and
/// tokens/s into `s`. Returns the CPU's pass over llama.cpp's CPU layers, which the prefill
/// of a short prompt repeats.
double decodeSpeed(const SpeedSetup& u, const Transformer& t, const Workload& w,
                   const ServingPlan& plan, int64_t users, int64_t context, ServingSpeed& s) {
  const double batch = u.vllm_pp > 1 ? std::ceil(d(users) / d(u.vllm_pp)) : d(users);
  // Speculative decoding: the model verifies the draft's k tokens and its own next one in one
  // forward, k + 1 queries a sequence over the same KV cache.
  const int64_t proposed = w.serving.draft ? w.serving.draft_tokens : 0;
  const double queries = d(proposed + 1);
  // Under MoE only the experts the step's tokens are routed to are read: at most
  // users x experts_per_token of them per layer.
  double weights_read = d(u.device_weights);
  double host_read = d(u.host_weights);
  if (t.experts > 0) {
    const double reached = std::min(1.0, batch * queries * d(t.experts_per_token) / d(t.experts));
    const double experts = d(expertBytes(t, w)) / u.tp;
    weights_read -= experts * u.device_share * (1 - reached);
    host_read -= experts * (1 - u.device_share) * (1 - reached);
  }
  const double read_params =
      u.device_weights > 0 ? u.device_params * weights_read / d(u.device_weights) : 0.0;
  const int64_t kv_one = planKvBytes(t, plan, context);
  const double gpu_layer_share =
      plan.engine == Engine::kLlamaCpp && !u.cpu
          ? d(std::min(plan.gpu_layers, t.layers)) / d(std::max<int64_t>(1, t.layers))
          : 1.0;
  const bool offload_decode = u.host_weights > 0 && u.link && users >= kLlamaOffloadMinBatch;
  const double kv_read = batch * d(kv_one) * decodeKvReads(t, plan.engine, w);
  const double flops = batch * queries * decodeFlopsPerToken(t, context) / u.tp;
  const double host_kv = kv_read * (1 - gpu_layer_share);
  const double cpu_pass_s = (host_read + host_kv) / u.host_bw;  // the CPU runs its layers
  // Offloaded, the whole batch's computation runs on the GPU (llama.cpp PR #6083), so the CPU
  // layers' KV cache crosses the link with their weights.
  const double host_s = offload_decode ? (d(u.host_weights) + host_kv) / u.link_bw : cpu_pass_s;

  // The time model's forward (dlcost/time_model.hpp).
  ForwardWork step;
  // No published compute rate (dlcost/gpu_compute.hpp): the step is its memory bound and the
  // prefill's time unknown (ttft_s stays 0).
  step.op.flops = u.compute_known ? flops * (offload_decode ? 1.0 : gpu_layer_share) : 0.0;
  step.op.rows = batch * queries;
  step.op.bytes = weights_read + kv_read * gpu_layer_share;
  step.op.dequant_weights = read_params;
  step.op.dequant_ops = u.dequant_ops;
  step.layers = t.layers;
  step.tp = w.hardware.parallel.tp;
  step.stages = u.stages;
  step.allreduce_bytes = batch * queries * d(t.hidden) * u.act_bytes;
  step.network = &u.fit->network;
  step.score_bytes = scoreBytes(w, u.fit->gpu, false) * d(t.layers) * d(t.heads) / u.tp * batch *
                     queries * d(context);
  const ForwardTime decode = forwardTime(u.ctx, step);
  s.bound = decode.op.compute_s > decode.op.memory_s ? "compute" : "memory";
  s.itl_s = decode.total_s + host_s + stageSends(u, t, w, batch);
  if (proposed > 0) {
    // A step: the draft's k forwards, one token each, then the model's; it yields
    // tokens_per_step tokens a sequence on average, so a token takes the step over that.
    ForwardWork draft =
        draftDecodeWork(w, u.fit->network, batch, context,
                        u.compute_known ? decodeFlopsPerToken(*w.serving.draft, context) : 0.0);
    s.verify_s = s.itl_s;
    s.draft_s = d(proposed) * forwardTime(u.ctx, draft).total_s;
    s.tokens_per_step = tokensPerStep(*w.serving.draft_acceptance, proposed);
    s.itl_s = (s.draft_s + s.verify_s) / s.tokens_per_step;
  }
  s.step_bytes = static_cast<int64_t>(weights_read + host_read + kv_read);
  s.step_flops = static_cast<int64_t>(flops);
  if (s.itl_s > 0) {
    s.tokens_per_s_per_user = 1.0 / s.itl_s;
    s.tokens_per_s = d(users) / s.itl_s;
  }
  return cpu_pass_s;
}

/// Time to first token (one user's prompt: the report's prefill at batch 1) and the prefill of
/// every user's prompt at once, into `s`.
void prefillSpeed(const SpeedSetup& u, const Transformer& t, const Workload& w, const Report& r,
                  const ServingPlan& plan, int64_t users, double cpu_pass_s, ServingSpeed& s) {
  // With layers in system RAM, each micro-batch of 32+ tokens copies their matmul weights to
  // the GPU (the output layer computes the last token's logits only, below the threshold, so
  // it stays); a prompt of fewer tokens runs them on the CPU, reading them once.
  const int64_t prompt = r.transformer->seq_len;
  const int64_t copies = u.link && u.host_weights > 0 ? offloadedUbatches(prompt) : 0;
  s.prefill_copy_bytes = checkedMul(copies, u.host_weights - u.host_output);
  const int64_t tail = prompt % kLlamaUbatch;
  const bool cpu_tail = tail > 0 && tail < kLlamaOffloadMinBatch;
  const double host_prefill_s =
      copies > 0 ? d(s.prefill_copy_bytes) / u.link_bw + (cpu_tail ? cpu_pass_s : 0.0) : cpu_pass_s;
  // llama.cpp runs a prompt in n_ubatch pieces, each a forward that unpacks the weights again.
  const double pieces = plan.engine == Engine::kLlamaCpp
                            ? d(std::max<int64_t>(1, (prompt + kLlamaUbatch - 1) / kLlamaUbatch))
                            : 1.0;
  // Tokens already cached: the report's prefill phase counts the prompt's attention over
  // them (its QK^T and AV, the computed share); the prefill reads their KV cache too.
  const int64_t cached = w.cached_tokens;
  // A draft model fills its own KV cache with the prompt first: its weights once, every
  // prompt token's FLOPs (a causal prompt's keys average (prompt + 1) / 2 a query).
  const auto draftPrefill = [&](double sequences) {
    if (!w.serving.draft) return 0.0;
    const double tokens = d(prompt) * sequences;
    ForwardWork f = draftDecodeWork(
        w, u.fit->network, tokens, 0,
        decodeFlopsPerToken(*w.serving.draft, checkedAdd(cached, (prompt + 1) / 2)));
    f.prefill = true;
    return forwardTime(u.ctx, f).total_s;
  };
  for (const PhaseWork& ph : r.phases) {
    if (ph.name != "prefill" || !u.compute_known) continue;
    const double b = d(std::max<int64_t>(1, r.workload.batch));
    const auto prefill = [&](double sequences) {
      ForwardWork f;
      f.op.flops = d(ph.flops) / b * sequences / u.tp;
      f.op.attention_flops = d(ph.attention_flops) / b * sequences / u.tp;
      f.op.attention_computed = ph.attention_computed;
      f.op.rows = d(prompt) * sequences;
      f.op.bytes =
          d(u.device_weights) + sequences * d(planKvBytes(t, plan, checkedAdd(cached, prompt)));
      f.op.dequant_weights = u.device_params * pieces;
      f.op.dequant_ops = u.dequant_ops;
      f.layers = t.layers;
      f.prefill = true;
      f.tp = w.hardware.parallel.tp;
      f.stages = u.stages;
      f.allreduce_bytes = d(prompt) * sequences * d(t.hidden) * u.act_bytes;
      f.network = &u.fit->network;
      f.score_bytes = scoreBytes(w, u.fit->gpu, true) * d(t.layers) * d(t.heads) / u.tp *
                      prefillScores(plan.engine, prompt, cached, sequences);
      // Each further micro-batch launches its kernels and crosses the GPUs again; over a
      // fully offloaded layer split the micro-batches overlap (pipelinedShare).
      const double serial =
          forwardTime(u.ctx, f).total_s +
          (pieces - 1) * (forwardOverhead(u.ctx, t.layers, true) + stageHopTime(u.ctx, u.stages));
      const double share = pipelineOverlaps(plan, t, u.fit->gpu)
                               ? pipelinedShare(prompt * static_cast<int64_t>(sequences), u.stages)
                               : 1.0;
      return serial * share + host_prefill_s + stageSends(u, t, w, d(prompt) * sequences) +
             draftPrefill(sequences);
    };
    s.ttft_s = prefill(1.0);
    s.batch_prefill_s = prefill(d(users));
  }
}

}  // namespace

ServingSpeed servingSpeed(const Transformer& t, const Workload& w, const Report& r,
                          const ServingPlan& plan, int64_t users, int64_t context) {
  ServingSpeed s;
  s.users = users;
  s.context = context;
  if (!r.gpu_fit) return s;
  const SpeedSetup u = speedSetup(t, w, r, plan);
  const double cpu_pass_s = decodeSpeed(u, t, w, plan, users, context, s);
  prefillSpeed(u, t, w, r, plan, users, cpu_pass_s, s);
  return s;
}

}  // namespace dlcost
