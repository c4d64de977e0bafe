// Which collectives a multi-GPU step runs, their sizes and how much of them the step waits
// for, on top of the roofline's compute time: stepBreakdown (dlcost/gpu/fit.hpp), its value type
// in dlcost/types/step_breakdown.hpp.

#include <algorithm>
#include <cmath>

#include "dlcost/gpu/collectives.hpp"
#include "dlcost/gpu/fit.hpp"
#include "dlcost/types/report.hpp"

namespace dlcost {

namespace {

/// PyTorch DDP's default gradient bucket (bucket_cap_mb = 25): the last bucket is ready only
/// when backward ends, so its all-reduce cannot overlap (Li et al. 2020, "PyTorch
/// Distributed", VLDB, sec. 3.2.3).
constexpr double kGradientBucketBytes = 25.0 * 1024 * 1024;

constexpr const char* kDpOverlap =
    "reduced in 25 MiB buckets while the last micro-batch's backward runs; the last bucket "
    "and what outlasts the backward are exposed (PyTorch DDP, Li et al. 2020; Megatron-LM "
    "--overlap-grad-reduce)";
constexpr const char* kZeroParamsAfterStep =
    "all-gathered after the optimizer step, exposed (Rajbhandari et al. 2020, ZeRO, sec. 7.2: "
    "reduce-scatter plus all-gather, the volume of one all-reduce)";
constexpr const char* kZero3Prefetch =
    "gathered before each micro-batch's forward and again for its backward, prefetched behind "
    "the compute; exposed only where it outlasts the compute (ZeRO sec. 7.2.2: 1.5x the "
    "all-reduce volume; DeepSpeed ZeRO-3 prefetching)";
constexpr const char* kTpCritical =
    "on the critical path, not overlapped: per layer 2 in the forward and 2 in the backward "
    "(Shoeybi et al. 2019, Megatron-LM, sec. 3), one more per decoder layer with "
    "cross-attention, 2 more when full recomputation re-runs the forward";
constexpr const char* kPpCritical =
    "one micro-batch's activations forward and their gradients backward per stage boundary "
    "(per model chunk with the interleaved schedule), not overlapped; split over the "
    "tensor-parallel GPUs (Narayanan et al. 2021, sec. 4.1)";
constexpr const char* kEpCritical =
    "on the critical path, not overlapped: per MoE layer an all-to-all dispatching each "
    "token's hidden state to its top-k experts and one combining the results, in the forward "
    "and again in the backward (GShard, Lepikhin et al. 2020, sec. 3.2; DeepSpeed-MoE, "
    "Rajbhandari et al. 2022; Megatron-Core's all-to-all token dispatcher), 2 more with full "
    "recomputation; tokens routed evenly (no capacity overflow)";
constexpr const char* kCpOverlap =
    "context-parallel ring attention: per attention layer cp - 1 steps, each sending the K/V "
    "block of seq_len / cp tokens to the next GPU (the backward also its dK/dV in fp32) "
    "while the attention of the current block runs, so a step takes max(attention, send); "
    "the last dK/dV send is exposed (Liu et al. 2023, Ring Attention; PyTorch's "
    "_templated_ring_attention(_backward), torch/distributed/tensor/experimental/"
    "_attention.py; Megatron-Core / TransformerEngine's p2p ring); the forward again under "
    "full recomputation";

/// Collective calls of one kind: `calls` of `bytes` each.
struct Calls {
  Collective collective = Collective::kAllReduce;
  double bytes = 0;
  int64_t calls = 0;
};

/// What one micro-batch of the slowest pipeline stage communicates inside its
/// tensor-parallel group, and the message a stage sends to the next.
struct MicroComm {
  std::vector<Calls> tp;                  ///< forward and backward
  Calls ep{Collective::kAllToAll, 0, 0};  ///< expert all-to-alls, forward and backward
  double pp_bytes = 0;                    ///< activations crossing one stage boundary
};

double activationBytes(double elements, const Workload& w) {
  return elements * dtypeBits(layoutOf(w.precision).activations) / 8.0;
}

/// Megatron-style transformer: per layer, the all-reduces after attention and after the MLP
/// (each a reduce-scatter plus an all-gather with sequence parallelism) of micro x s x h.
MicroComm transformerComm(const Transformer& t, const Report& r, const Parallelism& p,
                          double micro) {
  const Workload& w = r.workload;
  const double tokens = micro * static_cast<double>(r.transformer->seq_len);
  const double bytes = activationBytes(tokens * static_cast<double>(t.hidden), w);
  // The largest stage (whole layers) sets the pace; decoder layers of an encoder-decoder
  // model add one call for cross-attention (counted as if spread evenly).
  const int64_t layers = t.layers + t.encoder_layers;
  const int64_t per_stage = (layers + p.pp - 1) / p.pp;
  const int64_t cross =
      t.kind == TransformerKind::kEncoderDecoder ? (t.layers + p.pp - 1) / p.pp : 0;
  const int64_t fwd = 2 * per_stage + std::min(cross, per_stage);
  int64_t calls = fwd;
  if (w.mode == Mode::kTrain) calls += fwd + (w.recompute == Recompute::kFull ? fwd : 0);
  MicroComm c;
  if (p.sp) {
    c.tp = {{Collective::kReduceScatter, bytes, calls}, {Collective::kAllGather, bytes, calls}};
  } else {
    c.tp = {{Collective::kAllReduce, bytes, calls}};
  }
  c.pp_bytes = bytes / static_cast<double>(p.tp);
  if (p.ep > 1) {
    // Each GPU sends its tokens' hidden states, top-k copies, to the experts' GPUs: its
    // 1/tp of the tokens with sequence parallelism (which Megatron-Core requires for MoE
    // with tp > 1), else the whole micro-batch's.
    int64_t moe_layers = 0;
    for (int64_t i = 0; i < t.layers; ++i) moe_layers += isMoeLayer(t, i) ? 1 : 0;
    const int64_t moe_per_stage = (moe_layers + p.pp - 1) / p.pp;
    const double k = static_cast<double>(t.experts_per_token);
    const int64_t fwd_a2a = 2 * moe_per_stage;
    int64_t a2a = fwd_a2a;
    if (w.mode == Mode::kTrain) a2a += fwd_a2a + (w.recompute == Recompute::kFull ? fwd_a2a : 0);
    c.ep = {Collective::kAllToAll, bytes * k / static_cast<double>(p.sp ? p.tp : 1), a2a};
  }
  return c;
}

/// Layer graph: Megatron's ColumnParallelLinear with gather_output, applied to every conv
/// and linear layer: the forward all-gathers the split output, the backward all-reduces the
/// input gradient (megatron/core/tensor_parallel/layers.py, mappings.py). Stages hold equal
/// counts of layers; the one communicating most is kept.
MicroComm graphComm(const LayerGraph& g, const Report& r, const Parallelism& p, double micro,
                    const GroupPlacement& tp_group, const Network& net) {
  const Workload& w = r.workload;
  auto bytesOf = [&](const LayerReport& l) {
    return activationBytes(micro * static_cast<double>(elementCount(l.output_shape)), w);
  };
  const size_t n = g.layers.size();
  const size_t stages = static_cast<size_t>(p.pp);
  MicroComm c;
  double slowest = -1;
  for (size_t s = 0; s < stages && p.tp > 1; ++s) {
    Calls gather{Collective::kAllGather, 0, 0}, reduce{Collective::kAllReduce, 0, 0};
    double time = 0;
    for (size_t i = s * n / stages; i < (s + 1) * n / stages; ++i) {
      const Layer& l = g.layers[i];
      if (!std::holds_alternative<Conv2d>(l.spec) && !std::holds_alternative<Linear>(l.spec)) {
        continue;
      }
      const double out = bytesOf(r.layers[i + 1]);
      gather.bytes += out;
      ++gather.calls;
      time += collectiveTime(Collective::kAllGather, out, tp_group, net);
      const int in = l.inputs.empty() ? static_cast<int>(i) - 1 : l.inputs[0];
      if (w.mode == Mode::kTrain && in != kModelInput) {
        const double grad = bytesOf(r.layers[static_cast<size_t>(in + 1)]);
        reduce.bytes += grad;
        ++reduce.calls;
        time += collectiveTime(Collective::kAllReduce, grad, tp_group, net);
      }
    }
    if (time <= slowest) continue;
    slowest = time;
    c.tp.clear();
    // Reported as calls of the mean size.
    for (Calls k : {gather, reduce}) {
      if (k.calls == 0) continue;
      k.bytes /= static_cast<double>(k.calls);
      c.tp.push_back(k);
    }
  }
  for (size_t s = 1; s < stages; ++s) {
    c.pp_bytes =
        std::max(c.pp_bytes, bytesOf(r.layers[s * n / stages]) / static_cast<double>(p.tp));
  }
  return c;
}

CollectiveCost cost(const char* purpose, Collective c, const char* group, const GroupPlacement& g,
                    const Network& net, double bytes, int64_t calls, const char* overlap) {
  CollectiveCost k;
  k.purpose = purpose;
  k.collective = c;
  k.group = group;
  k.placement = g;
  k.links = groupLinks(g, net);
  k.bytes = bytes;
  k.calls = calls;
  k.time_s = collectiveTime(c, bytes, g, net) * static_cast<double>(calls);
  k.overlap = overlap;
  return k;
}

/// Compute time per micro-batch that communication can still hide behind.
struct Windows {
  double forward = 0;
  double backward = 0;
};

/// Exposed seconds of a gradient collective overlapped with a backward of `window` seconds
/// (the last bucket always exposed); uses up the part of the window it hides behind.
double exposedBehindBackward(const CollectiveCost& k, double& window, const Network& net) {
  const double per_call = k.time_s / static_cast<double>(k.calls);
  const double bucket =
      collectiveTime(k.collective, std::min(k.bytes, kGradientBucketBytes), k.placement, net);
  const double exposed = std::max(bucket, per_call - window);
  window = std::max(0.0, window - (per_call - exposed));
  return exposed * static_cast<double>(k.calls);
}

/// The gradient and ZeRO collectives of one data-parallel group `g` whose GPUs each hold
/// `grads` bytes of gradients and `weights` of weights before ZeRO's split.
void addDataParallel(StepBreakdown& b, const char* group, const GroupPlacement& g,
                     const Network& net, double grads, double weights, int zero,
                     int64_t micro_calls, Windows& win) {
  if (g.ranks <= 1 || grads <= 0) return;
  if (zero == 0) {
    CollectiveCost k =
        cost("dp_gradients", Collective::kAllReduce, group, g, net, grads, 1, kDpOverlap);
    k.exposed_s = exposedBehindBackward(k, win.backward, net);
    b.collectives.push_back(k);
    return;
  }
  // Stage 1 keeps whole gradients and reduces them once; stages 2 and 3 keep only their
  // shard, so every micro-batch's gradients are reduce-scattered.
  CollectiveCost rs = cost("zero_gradients", Collective::kReduceScatter, group, g, net, grads,
                           zero == 1 ? 1 : micro_calls, kDpOverlap);
  if (zero < 3) {
    rs.exposed_s = exposedBehindBackward(rs, win.backward, net);
    CollectiveCost ag = cost("zero_params", Collective::kAllGather, group, g, net, weights, 1,
                             kZeroParamsAfterStep);
    ag.exposed_s = ag.time_s;
    b.collectives.push_back(rs);
    b.collectives.push_back(ag);
    return;
  }
  CollectiveCost fwd = cost("zero_params_forward", Collective::kAllGather, group, g, net, weights,
                            micro_calls, kZero3Prefetch);
  CollectiveCost bwd = cost("zero_params_backward", Collective::kAllGather, group, g, net, weights,
                            micro_calls, kZero3Prefetch);
  const double calls = static_cast<double>(micro_calls);
  const double fwd_comm = fwd.time_s / calls;
  fwd.exposed_s = std::max(0.0, fwd_comm - win.forward) * calls;
  win.forward = std::max(0.0, win.forward - fwd_comm);
  // The backward's gathers and reduce-scatters share its compute time.
  const double bwd_comm = (bwd.time_s + rs.time_s) / calls;
  const double bwd_exposed = std::max(0.0, bwd_comm - win.backward) * calls;
  win.backward = std::max(0.0, win.backward - bwd_comm);
  bwd.exposed_s = bwd_comm > 0 ? bwd_exposed * bwd.time_s / (bwd.time_s + rs.time_s) : 0;
  rs.exposed_s = bwd_exposed - bwd.exposed_s;
  b.collectives.push_back(fwd);
  b.collectives.push_back(bwd);
  b.collectives.push_back(rs);
}

/// Tensor parallelism's activation collectives, on the critical path; returns one
/// micro-batch's seconds.
double addTensorParallel(StepBreakdown& b, const MicroComm& mc, const Network& net,
                         const GroupPlacement& group) {
  const double ga = static_cast<double>(b.micro_steps), m = static_cast<double>(b.microbatches);
  double micro = 0;
  for (const Calls& k : mc.tp) {
    CollectiveCost c = cost("tp_activations", k.collective, "tensor", group, net, k.bytes,
                            k.calls * b.micro_steps * b.microbatches, kTpCritical);
    c.exposed_s = c.time_s;
    micro += c.time_s / (ga * m);
    b.collectives.push_back(c);
  }
  return micro;
}

/// Expert parallelism's token all-to-alls, on the critical path; returns one micro-batch's
/// seconds.
double addExpertParallel(StepBreakdown& b, const MicroComm& mc, const Network& net,
                         const GroupPlacement& group) {
  const double ga = static_cast<double>(b.micro_steps), m = static_cast<double>(b.microbatches);
  CollectiveCost c = cost("ep_tokens", Collective::kAllToAll, "expert", group, net, mc.ep.bytes,
                          mc.ep.calls * b.micro_steps * b.microbatches, kEpCritical);
  c.exposed_s = c.time_s;
  b.collectives.push_back(c);
  return c.time_s / (ga * m);
}

/// The pipeline's activation sends between stages (interleaving: a micro-batch leaves each
/// GPU once per model chunk); returns one micro-batch's seconds.
double addPipeline(StepBreakdown& b, const MicroComm& mc, const Parallelism& p, const Network& net,
                   const GroupPlacement& group, bool train) {
  const int64_t sends = (train ? 2 : 1) * p.virtual_stages;
  CollectiveCost k = cost("pp_activations", Collective::kSendRecv, "pipeline", group, net,
                          mc.pp_bytes, sends * b.micro_steps * b.microbatches, kPpCritical);
  k.exposed_s = k.time_s;
  b.collectives.push_back(k);
  return static_cast<double>(sends) *
         collectiveTime(Collective::kSendRecv, mc.pp_bytes, group, net);
}

/// Context parallelism's ring (PyTorch context_parallel, Megatron's cp): per attention layer
/// and micro-batch, cp - 1 steps each sending a K/V block of seq_len / cp tokens (in the
/// forward, again in a recomputed forward, and in the backward with the fp32 dK/dV block),
/// each hidden behind that block's attention where it is shorter; the last dK/dV send is
/// exposed. Adds the cp_kv and cp_dkv collectives to `b`; returns one micro-batch's exposed
/// seconds on one stage. `micro`: samples of one micro-batch on one GPU (1/cp of a sample's
/// tokens counted as 1/cp of a sample).
double addContextParallel(StepBreakdown& b, const Transformer& tr, const Report& r,
                          const Parallelism& p, const Network& net, const StepTime& t,
                          double micro) {
  const Workload& w = r.workload;
  const double ga = static_cast<double>(b.micro_steps), m = static_cast<double>(b.microbatches);
  // Context-parallel GPUs are adjacent data-parallel ranks (torchtitan's mesh
  // [pp, dp_replicate, dp_shard, cp, tp]; Megatron's tp-cp-ep-dp-pp order).
  const GroupPlacement cp_group = placeGroup(p.cp, p.tp, net.gpus_per_node);
  // Per GPU and micro-batch: K and V of its seq_len / cp tokens, kv_heads / tp heads each.
  const double head_dim = static_cast<double>(
      tr.head_dim > 0 ? tr.head_dim : tr.hidden / std::max<int64_t>(1, tr.heads));
  const double kv_heads =
      static_cast<double>(std::max<int64_t>(1, (tr.kv_heads > 0 ? tr.kv_heads : tr.heads) / p.tp));
  const double tokens = micro * static_cast<double>(r.transformer->seq_len);
  const double kv_block = activationBytes(tokens * 2 * kv_heads * head_dim, w);
  const double dkv_block = tokens * 2 * kv_heads * head_dim * 4;  // fp32 accumulators
  const int64_t layers = tr.layers + tr.encoder_layers;
  const int64_t per_stage = (layers + p.pp - 1) / p.pp;
  const double steps = static_cast<double>(p.cp - 1), c = static_cast<double>(p.cp);
  const bool recompute = w.recompute == Recompute::kFull;
  // Attention time per layer and ring step of one micro-batch; the backward's without the
  // recomputed forward's.
  const double fwd_att = t.attention_forward_s / static_cast<double>(layers) / c;
  const double bwd_att =
      std::max(0.0, t.attention_backward_s - (recompute ? t.attention_forward_s : 0.0)) /
      static_cast<double>(layers) / c;
  const double kv_s = collectiveTime(Collective::kSendRecv, kv_block, cp_group, net);
  const double dkv_s = collectiveTime(Collective::kSendRecv, dkv_block, cp_group, net);
  const int64_t forwards = recompute ? 2 : 1;
  const double fwd_exposed = static_cast<double>(forwards) * steps * std::max(0.0, kv_s - fwd_att);
  const double bwd_exposed = steps * std::max(0.0, kv_s + dkv_s - bwd_att);
  const double per_layer = fwd_exposed + bwd_exposed + dkv_s;  // the last dK/dV send
  const double stage_layers = static_cast<double>(per_stage);
  const double cp_micro = per_layer * stage_layers;
  const int64_t micro_calls = b.micro_steps * b.microbatches * per_stage;
  CollectiveCost kv = cost("cp_kv", Collective::kSendRecv, "context", cp_group, net, kv_block,
                           (forwards + 1) * (p.cp - 1) * micro_calls, kCpOverlap);
  CollectiveCost dkv = cost("cp_dkv", Collective::kSendRecv, "context", cp_group, net, dkv_block,
                            p.cp * micro_calls, kCpOverlap);
  // The backward's overlapped steps carry both sends: their exposed time is shared in
  // proportion.
  const double bwd_kv = kv_s + dkv_s > 0 ? bwd_exposed * kv_s / (kv_s + dkv_s) : 0.0;
  const double scale = ga * m * stage_layers;
  kv.exposed_s = (fwd_exposed + bwd_kv) * scale;
  dkv.exposed_s = (bwd_exposed - bwd_kv + dkv_s) * scale;
  b.collectives.push_back(kv);
  b.collectives.push_back(dkv);
  return cp_micro;
}

/// Data parallelism's gradient reduction and ZeRO's gathers, over the data-parallel group and,
/// under expert parallelism, the experts' own data-parallel group; adds them to `b` with
/// their exposed time in b.dp_comm_s.
void addDataParallelGroups(StepBreakdown& b, const Report& r, const Parallelism& p,
                           const Network& net, double stage_fwd, double stage_bwd) {
  const int64_t dp = p.dataParallel();
  const GroupPlacement dp_group = placeGroup(dp, p.tp, net.gpus_per_node);
  // Expert-parallel GPUs are adjacent data-parallel ranks; the experts' own data-parallel
  // group is every ep-th of them (Megatron-Core's expert and expert-data-parallel groups).
  const GroupPlacement expert_dp_group = placeGroup(dp / p.ep, p.tp * p.ep, net.gpus_per_node);
  // Per GPU, before ZeRO's split: gradients, and the weights ZeRO-3 gathers. Under expert
  // parallelism the routed experts' share reduces over the expert data-parallel group,
  // each GPU holding 1/ep of it.
  const double split = static_cast<double>(p.tp * p.pp);
  const double grads = static_cast<double>(r.memory.bytesSharded(Sharding::kZero2)) / split;
  const double weights = static_cast<double>(r.memory.bytesSharded(Sharding::kZero3)) / split;
  double expert_share = 0;
  if (p.ep > 1 && r.transformer && r.transformer->params.total > 0) {
    expert_share = static_cast<double>(r.transformer->params.routed_experts) /
                   static_cast<double>(r.transformer->params.total);
  }
  const double dense = 1 - expert_share, expert = expert_share / static_cast<double>(p.ep);
  const int64_t micro_calls = b.micro_steps * b.microbatches;
  Windows win{stage_fwd, stage_bwd};
  addDataParallel(b, "data", dp_group, net, grads * dense, weights * dense, p.zero, micro_calls,
                  win);
  if (expert_share > 0) {
    addDataParallel(b, "expert_data", expert_dp_group, net, grads * expert, weights * expert,
                    p.zero, micro_calls, win);
  }
  for (const CollectiveCost& k : b.collectives)
    if (k.group == "data" || k.group == "expert_data") b.dp_comm_s += k.exposed_s;
}

/// Model FLOPs of one step, recomputation excluded (the MFU numerator of Chowdhery et al.
/// 2022, PaLM, appendix B): training a transformer 3x its forward (2x with frozen base
/// weights under LoRA, whose backward computes input gradients only); a layer graph its
/// counted forward and backward; inference the forward.
double modelFlops(const Report& r) {
  const double fwd = 2.0 * static_cast<double>(r.macs.forward);
  if (r.workload.mode != Mode::kTrain) return fwd;
  if (!r.transformer) return fwd + 2.0 * static_cast<double>(r.macs.backward);
  const bool lora =
      r.workload.finetune == Finetune::kLora || r.workload.finetune == Finetune::kQlora;
  return fwd * (lora ? 2 : 3);
}

}  // namespace

StepBreakdown stepBreakdown(const Model& model, const Report& r, const Parallelism& p,
                            const Network& net, const StepTime& t, double peak_flops) {
  const Workload& w = r.workload;
  const bool train = w.mode == Mode::kTrain;
  StepBreakdown b;
  b.micro_steps = r.transformer && train ? w.grad_accum : 1;
  b.microbatches = p.microbatchCount();
  const int64_t dp = p.dataParallel();
  // Samples of one micro-batch on one GPU; with context parallelism each GPU holds 1/cp of
  // each sample's tokens, counted here as 1/cp of a sample.
  const double micro =
      static_cast<double>(w.batch / p.batchReplicas() / b.microbatches) / static_cast<double>(p.cp);
  const double ga = static_cast<double>(b.micro_steps), m = static_cast<double>(b.microbatches);
  const double pp = static_cast<double>(p.pp);
  const int64_t gpn = net.gpus_per_node;
  const GroupPlacement tp_group = placeGroup(p.tp, 1, gpn);
  const GroupPlacement pp_group = placeGroup(p.pp, p.tp * dp, gpn);
  // Expert-parallel GPUs are adjacent data-parallel ranks (Megatron-Core's expert group).
  const GroupPlacement ep_group = placeGroup(p.ep, p.tp, gpn);
  const double v = static_cast<double>(p.virtual_stages);

  MicroComm mc;
  if (const auto* tr = std::get_if<Transformer>(&model.body)) {
    mc = transformerComm(*tr, r, p, micro);
  } else if (const auto* g = std::get_if<LayerGraph>(&model.body)) {
    mc = graphComm(*g, r, p, micro, tp_group, net);
  }
  const double stage_fwd = t.forward_s / pp, stage_bwd = t.backward_s / pp;
  const double tp_micro = p.tp > 1 ? addTensorParallel(b, mc, net, tp_group) : 0.0;
  const double ep_micro =
      p.ep > 1 && mc.ep.calls > 0 ? addExpertParallel(b, mc, net, ep_group) : 0.0;
  const auto* cp_model = std::get_if<Transformer>(&model.body);
  const double cp_micro = p.cp > 1 && train && cp_model && r.transformer
                              ? addContextParallel(b, *cp_model, r, p, net, t, micro)
                              : 0.0;
  const double pp_micro = p.pp > 1 ? addPipeline(b, mc, p, net, pp_group, train) : 0.0;
  // One stage's slot per micro-batch; 1F1B runs m slots plus pp - 1 of fill and drain, the
  // interleaved schedule (pp - 1) / v (Narayanan et al. 2021, sec. 2.2.2: bubble
  // (p - 1) / (v m) of the ideal time).
  const double slot = stage_fwd + stage_bwd + tp_micro + pp_micro + ep_micro + cp_micro;
  const double fill = (pp - 1) / v;
  b.compute_s = ga * m * (stage_fwd + stage_bwd);
  b.tp_comm_s = ga * m * tp_micro;
  b.pp_comm_s = ga * m * pp_micro;
  b.ep_comm_s = ga * m * ep_micro;
  b.cp_comm_s = ga * m * cp_micro;
  b.bubble_s = ga * fill * slot;
  b.bubble_fraction = fill / (m + fill);
  b.virtual_stages = p.virtual_stages;
  b.optimizer_s = t.optimizer_s;

  if (train && dp > 1) addDataParallelGroups(b, r, p, net, stage_fwd, stage_bwd);
  b.step_s = b.compute_s + b.tp_comm_s + b.pp_comm_s + b.ep_comm_s + b.cp_comm_s + b.dp_comm_s +
             b.bubble_s + b.optimizer_s;
  b.model_flops = modelFlops(r);
  const double gpus = static_cast<double>(p.gpus);
  if (b.step_s > 0 && peak_flops > 0) b.mfu = b.model_flops / (b.step_s * gpus * peak_flops);
  if (p.gpus > 1) {
    b.notes.push_back(
        "communication: NCCL ring collectives at the bus bandwidth NCCL reaches on each link "
        "(the line rate x its bus_efficiency, from NCCL's maintainers' figures; PCIe and "
        "Infinity Fabric at the line rate) plus NCCL's latency (hierarchical across nodes, one "
        "network adapter per GPU)");
  }
  return b;
}

}  // namespace dlcost
