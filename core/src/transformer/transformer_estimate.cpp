// Costs of a transformer, by formula: parameters from the hyper-parameters, MACs of every
// matmul (the attention matmuls included), activation memory after Korthikanti et al. 2022,
// KV cache, quantized weights and LoRA adapters.
#include "transformer/transformer_estimate.hpp"

#include <algorithm>
#include <optional>

#include "dlcost/base/checked.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/memory/memory_terms.hpp"
#include "dlcost/memory/quant_formats.hpp"
#include "dlcost/types/memory.hpp"
#include "dlcost/types/timeline.hpp"
#include "transformer/vision_tower.hpp"

namespace dlcost {

namespace {

// Every product and sum of sizes goes through checked arithmetic.
using namespace checked;

bool isMoe(const Transformer& t) {
  return t.experts > 0;
}
int64_t qWidth(const Transformer& t) {
  return queryWidth(t);
}
/// Width of the attention output projection's input: heads x value head width.
int64_t outputWidth(const Transformer& t) {
  return t.kv_lora_rank > 0 ? mul(t.heads, t.v_head_dim) : qWidth(t);
}
/// Experts a token passes through in layer `layer` (1 for a dense MLP).
int64_t activeExperts(const Transformer& t, int64_t layer) {
  return isMoeLayer(t, layer) ? t.experts_per_token : 1;
}
/// Width of one expert's (or the dense MLP's) intermediate in layer `layer`.
int64_t ffnOf(const Transformer& t, int64_t layer) {
  return isMoeLayer(t, layer) && t.expert_ffn > 0 ? t.expert_ffn : t.ffn;
}

/// MACs per token of the q, k, v, o projections of one self-attention (MLA: its low-rank
/// pairs).
int64_t attentionLinearMacs(const Transformer& t) {
  return attentionMatrixElements(t);
}
/// MACs per decoder token of a cross-attention's q and o (k, v run over the encoder output).
int64_t crossQoMacs(const Transformer& t) {
  return mul(2, t.hidden, qWidth(t));
}
/// MACs per token of layer `layer`'s MLP (the active experts, shared expert and router
/// under MoE).
int64_t mlpMacs(const Transformer& t, int64_t layer) {
  return activeMlpMatrixElements(t, layer);
}
/// MACs per token of the attention core against `context` keys: QK^T (context x q width)
/// and AV (context x heads x value head width). The full s x s square is counted in
/// training and prefill, as Megatron-LM's FLOP formula does (Narayanan et al. 2021); causal
/// kernels skip about half. Local layers pass their window-capped context.
int64_t attentionCoreMacs(const Transformer& t, int64_t context) {
  const int64_t v_per_head = t.kv_lora_rank > 0 ? t.v_head_dim : t.head_dim;
  return mul(context, add(qWidth(t), mul(t.heads, v_per_head)));
}

/// Bytes per token one hidden-width norm keeps for backward besides its input (e h, counted
/// by the callers) and its output (counted by the layer reading it). Hugging Face's
/// LlamaRMSNorm (modeling_llama.py) upcasts to fp32 (pow keeps the fp32 input: 4h where e h is
/// counted), keeps rsqrt's fp32 value per token, and `self.weight *
/// hidden_states.to(input_dtype)` keeps the normalised tensor (e h): 4h + 4 in all.
/// LayerNorm (native_layer_norm, derivatives.yaml: result1 and result2) keeps its fp32 mean
/// and rstd per token: 8. Measured for the RMSNorm with PyTorch 1.13 (docs/accuracy.md).
int64_t normExtraSaved(const Transformer& t) {
  return t.norm == NormKind::kRmsNorm ? add(mul(4, t.hidden), 4) : int64_t{8};
}

/// Bytes per token one self-attention sublayer keeps for backward, without the core.
/// GPT (e = 2, q = kv = h, dropout): norm input 2h + QKV input 2h + Q,K 4h + V 2h + output
/// projection input 2h + dropout mask h = 13h: Korthikanti's 11sbh for attention plus one of
/// the two layer norms' 2sbh each.
int64_t attentionSaved(const Transformer& t, int64_t e) {
  int64_t b = add(mul(2, e, t.hidden), normExtraSaved(t));  // norm, QKV input
  if (t.norms_per_layer == 4) {
    b = add(b, mul(e, t.hidden), normExtraSaved(t));  // post-attention norm
  }
  if (t.qk_norm) b = add(b, mul(e, add(qWidth(t), keyWidth(t))));  // q/k norm inputs
  if (t.kv_lora_rank > 0) {
    // MLA: the latents' norm inputs and kv_b_proj's input.
    b = add(b, mul(e, add(t.q_lora_rank, mul(2, t.kv_lora_rank))));
    if (t.q_lora_rank > 0) b = add(b, mul(e, t.q_lora_rank));  // q_b_proj input
  }
  b = add(b, mul(e, add(qWidth(t), keyWidth(t))));  // Q and K for QK^T
  b = add(b, mul(e, valueWidth(t)));                // V for AV
  b = add(b, mul(e, outputWidth(t)));               // output projection input
  if (t.hidden_dropout) b = add(b, t.hidden);       // residual dropout mask, 1 byte
  return b;
}

/// Whether eager attention's softmax keeps an fp32 output beside the e-byte probabilities AV
/// reads: the family's modelling code computes it in fp32 (Transformer::softmax_fp32) and
/// the activations are 16-bit. Measured: scripts/validate_lora.py's Llama in bf16 keeps
/// 2 x 1 MiB of fp32 probabilities beside the bf16 ones (docs/accuracy.md, "LoRA on the
/// Llama"). Megatron's fused softmax (the GPT form, Korthikanti's 2as) keeps 16 bits only.
bool fp32Softmax(const Transformer& t, int64_t e) {
  return e < 4 && t.softmax_fp32;
}

/// Bytes per token of the attention core kept for backward with `context` keys.
/// Eager: softmax output 2as, dropout mask as and dropout output 2as (Korthikanti's 5as with
/// e = 2), and 4as more where the softmax runs in fp32 (fp32Softmax); flash: only the fp32
/// log-sum-exp per head (the dropout mask is regenerated).
int64_t coreSaved(const Transformer& t, int64_t e, int64_t context, AttentionImpl attention) {
  if (attention == AttentionImpl::kFlash) return mul(4, t.heads);
  const int64_t scores = mul(t.heads, context);
  int64_t b = mul(e, scores);
  if (fp32Softmax(t, e)) b = add(b, mul(4, scores));
  // Grouped K and V heads are repeated for the matmuls (HF's eager_attention_forward:
  // repeat_kv expands, then reshape copies), and QK^T and AV keep the copies: heads / kv_heads
  // times the key and value widths attentionSaved counts (measured, docs/accuracy.md).
  if (t.kv_lora_rank == 0 && t.kv_heads > 0 && t.kv_heads < t.heads) {
    b = add(b, mul(e, t.heads / t.kv_heads - 1, add(keyWidth(t), valueWidth(t))));
  }
  if (t.attention_dropout) b = add(b, mul(1 + e, scores));
  return b;
}

/// Bytes per token the MLP sublayer keeps for backward. GPT (e = 2, f = 4h, dropout): norm
/// input 2h + fc1 input 2h + GeLU input 8h + GeLU output 8h + dropout mask h = 21h, i.e.
/// Korthikanti's 19sbh plus the other layer norm. Gated MLPs keep gate output, activation
/// output, up output and their product (4f); a parallel block with one shared norm reads the
/// attention's normed input, kept once.
int64_t mlpSaved(const Transformer& t, int64_t e, int64_t layer) {
  int64_t b = 0;
  const bool shared_input = t.parallel_block && t.norms_per_layer == 1;
  if (!shared_input) b = add(mul(2, e, t.hidden), normExtraSaved(t));           // norm, MLP input
  if (t.norms_per_layer == 4) b = add(b, mul(e, t.hidden), normExtraSaved(t));  // post-MLP norm
  const int64_t inner = mul(t.gated_mlp ? 4 : 2, e, ffnOf(t, layer));
  if (isMoeLayer(t, layer)) {
    // Router logits, each active expert's gathered copy of its tokens, its intermediates;
    // the shared expert's intermediates.
    b = add(b, mul(e, t.experts));
    b = add(b, mul(t.experts_per_token, add(mul(e, t.hidden), inner)));
    if (t.shared_expert_ffn > 0) b = add(b, mul(t.gated_mlp ? 4 : 2, e, t.shared_expert_ffn));
  } else {
    b = add(b, inner);
  }
  if (t.hidden_dropout) b = add(b, t.hidden);
  return b;
}

/// Bytes per decoder token a T5 cross-attention keeps (encoder keys/values per token of an
/// encoder as long as the decoder), without the core.
int64_t crossSaved(const Transformer& t, int64_t e) {
  int64_t b = mul(2, e, t.hidden);                                 // norm input, Q input
  b = add(b, mul(e, add(qWidth(t), keyWidth(t), valueWidth(t))));  // Q, K, V
  b = add(b, mul(e, qWidth(t)));                                   // output projection input
  if (t.hidden_dropout) b = add(b, t.hidden);
  return b;
}

int64_t activationBytes(const Workload& w) {
  return dtypeBits(layoutOf(w.precision).activations) / 8;
}

/// Parameters of one attention's own norms: q and k norms (Qwen3, OLMo 2), MLA's latents'.
int64_t qkNormParams(const Transformer& t) {
  return attentionNormParams(t);
}

/// One stack of identical layers run over `tokens` tokens per sequence.
struct Stack {
  std::string prefix;  ///< row names: "layers.", "encoder.layers.", "decoder.layers."
  int64_t layers = 0;
  bool encoder = false;       ///< an encoder stack (LoRA modules flagged encoder)
  bool cross = false;         ///< T5 decoder layers: cross-attention over the encoder output
  int64_t tokens = 0;         ///< tokens per sequence through the stack
  int64_t context = 0;        ///< keys each token attends to (full square in training/prefill)
  int64_t cross_context = 0;  ///< encoder tokens cross-attention reads
};

/// Per-token MACs of layer `layer` of `s`, attention core included (a local layer attends
/// to its window only).
int64_t layerMacsPerToken(const Transformer& t, const Stack& s, int64_t layer) {
  int64_t m = add(attentionLinearMacs(t), mlpMacs(t, layer),
                  attentionCoreMacs(t, attendedKeys(t, layer, s.context)));
  if (s.cross) m = add(m, crossQoMacs(t), attentionCoreMacs(t, s.cross_context));
  return m;
}

/// MACs of one layer of `s` for one sequence: per-token work plus, for cross-attention,
/// the K/V projections of the encoder output.
int64_t layerMacsPerSequence(const Transformer& t, const Stack& s, int64_t layer) {
  int64_t m = mul(s.tokens, layerMacsPerToken(t, s, layer));
  if (s.cross) m = add(m, mul(s.cross_context, mul(t.hidden, add(keyWidth(t), valueWidth(t)))));
  return m;
}

/// MACs of every layer of `s` for one sequence.
int64_t stackMacsPerSequence(const Transformer& t, const Stack& s) {
  int64_t m = 0;
  for (int64_t i = 0; i < s.layers; ++i) m = add(m, layerMacsPerSequence(t, s, i));
  return m;
}

/// Attention-core MACs (QK^T, AV) of every layer of `s` for one sequence.
int64_t stackCoreMacs(const Transformer& t, const Stack& s) {
  int64_t m = 0;
  for (int64_t i = 0; i < s.layers; ++i) {
    m = add(m, mul(s.tokens, attentionCoreMacs(t, attendedKeys(t, i, s.context))));
    if (s.cross) m = add(m, mul(s.tokens, attentionCoreMacs(t, s.cross_context)));
  }
  return m;
}

/// KV-cache elements of one sequence with `tokens` tokens in every layer's cache: a local
/// layer keeps at most its window, as HF's sliding and hybrid caches allocate it.
int64_t kvCacheElements(const Transformer& t, MlaCache mla, int64_t tokens) {
  int64_t n = 0;
  for (int64_t i = 0; i < t.layers; ++i)
    n = add(n, mul(kvCacheWidth(t, mla), attendedKeys(t, i, tokens)));
  return n;
}

/// Keys attended over g decode steps, step j (1..g) attending to start + j keys, capped
/// at `window` when window > 0: sum_j min(start + j, window), in closed form.
int64_t decodeContexts(int64_t start, int64_t g, int64_t window) {
  auto triangle = [](int64_t a, int64_t n) {  // sum_{j=1..n} (a + j)
    return add(mul(n, a), n % 2 == 0 ? mul(n / 2, n + 1) : mul(n, (n + 1) / 2));
  };
  if (window <= 0 || start + g <= window) return triangle(start, g);
  const int64_t uncapped = std::max<int64_t>(0, window - start);  // steps below the window
  return add(triangle(start, uncapped), mul(g - uncapped, window));
}

struct Adapters {
  int64_t params = 0;
  int64_t macs_per_token = 0;  ///< per token through every layer, active experts only
  /// r values per target module (lora_A's output, which lora_B keeps), bytes
  int64_t saved_per_token = 0;
  int64_t largest = 0;  ///< elements of the largest adapter matrix, r x max(in, out)
};

bool contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

/// LoRA adapters on the modules `w.lora_targets` names: a module's own name (what PEFT's
/// target_modules matches), a logical projection it computes (q_proj on GPT-2 adapts the
/// fused c_attn), or "all-linear" (every block module, as PEFT's all-linear). `value_bytes`:
/// of one adapter activation (Settings::adapter_bytes).
Adapters loraAdapters(const Transformer& t, const Workload& w, int64_t value_bytes) {
  const std::vector<LinearModule> modules = blockLinearModules(t);
  for (const std::string& target : w.lora_targets) {
    bool found = target == "all-linear";
    for (const LinearModule& m : modules)
      found = found || m.name == target || contains(m.logical, target);
    if (!found) {
      std::string names;
      for (const LinearModule& m : modules) {
        if (names.find(m.name + ",") == std::string::npos) names += m.name + ",";
      }
      names += "q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj or all-linear";
      throw InputError(
          ErrorCode::kValue, "/workload/lora_targets",
          "no module '" + target + "' in " + t.architecture + " layers (known: " + names + ")");
    }
  }
  Adapters a;
  const int64_t r = w.lora_rank;
  const bool all = contains(w.lora_targets, "all-linear");
  for (const LinearModule& m : modules) {
    bool targeted = all || contains(w.lora_targets, m.name);
    for (const std::string& l : m.logical) targeted = targeted || contains(w.lora_targets, l);
    if (!targeted) continue;
    const int64_t layers = m.layers > 0 ? m.layers
                           : t.kind == TransformerKind::kEncoderDecoder && m.encoder
                               ? t.encoder_layers
                               : t.layers;
    const int64_t per_copy = mul(r, add(m.in, m.out));
    a.largest = std::max(a.largest, mul(r, std::max(m.in, m.out)));
    a.params = add(a.params, mul(layers, m.copies, per_copy));
    const int64_t active = m.copies > 1 ? t.experts_per_token : 1;
    a.macs_per_token = add(a.macs_per_token, mul(layers, active, per_copy));
    // Full recomputation keeps each layer's input only: the adapters' outputs are recomputed
    // with their layer.
    if (w.recompute != Recompute::kFull)
      a.saved_per_token = add(a.saved_per_token, mul(layers, active, mul(r, value_bytes)));
  }
  return a;
}

/// Weight matrices of the blocks (what int8/int4/fp8 quantize): elements, matrices and the
/// number of quantization groups (each output row split into groups of `group` inputs).
struct BlockMatrices {
  int64_t elements = 0;
  int64_t matrices = 0;
  int64_t groups = 0;
  int64_t expert_elements = 0;  ///< of the routed experts (MoE)
};

BlockMatrices blockMatrices(const Transformer& t, int64_t group) {
  BlockMatrices b;
  for (const LinearModule& m : blockLinearModules(t)) {
    const int64_t layers = m.layers > 0 ? m.layers
                           : t.kind == TransformerKind::kEncoderDecoder && m.encoder
                               ? t.encoder_layers
                               : t.layers;
    const int64_t n = mul(layers, m.copies);
    b.elements = add(b.elements, mul(n, m.in, m.out));
    if (m.copies > 1) b.expert_elements = add(b.expert_elements, mul(n, m.in, m.out));
    b.matrices = add(b.matrices, n);
    b.groups = add(b.groups, mul(n, m.out, ceilDiv(m.in, group)));
  }
  return b;
}

}  // namespace

int64_t layerActivationBytesPerToken(const Transformer& t, const Workload& w, int64_t context,
                                     int64_t layer) {
  const int64_t e = activationBytes(w);
  if (w.recompute == Recompute::kFull) return mul(e, t.hidden);
  int64_t b = add(attentionSaved(t, e), mlpSaved(t, e, layer));
  const bool drop_core =
      w.recompute == Recompute::kSelective && w.attention == AttentionImpl::kEager;
  if (!drop_core) b = add(b, coreSaved(t, e, attendedKeys(t, layer, context), w.attention));
  return b;
}

namespace {

// --- stage 1: the workload as this model runs it ------------------------------------------

/// What LoRA adapts in every layer, by logical projection (GPT-2's c_attn adapts q, k and v),
/// and how many adapted modules read each norm's output.
struct LoraRoles {
  bool q = false, k = false, v = false, o = false, gate = false, up = false, down = false;
  int attention_inputs = 0;  ///< adapted modules reading the attention norm's output
  int mlp_inputs = 0;        ///< adapted modules reading the MLP norm's output
  bool attention() const { return q || k || v || o; }
  bool mlp() const { return gate || up || down; }
};

/// Modes, number formats and lengths resolved from the workload and the model.
struct Settings {
  bool train = false;
  bool lora = false;  ///< finetune lora or qlora
  /// Training LoRA on a dense decoder: the frozen-base rule for saved tensors applies
  /// (loraAttentionSaved); elsewhere the full fine-tuning count stands, an upper bound.
  bool lora_frozen_rule = false;
  LoraRoles lora_roles;
  int64_t adapter_bytes = 4;  ///< bytes of one adapter input or output value
  /// lora_A reads the base input itself (everything fp32), not a cast copy of its own
  bool adapter_input_shared = true;
  bool decoder_side = false;  ///< a decoder or encoder-decoder: logits, generation, KV cache
  bool full_recompute = false;
  bool drop_core = false;  ///< selective recomputation drops eager attention's scores
  PrecisionLayout layout;
  DType weight_dtype = DType::kFp32;  ///< of the block matrices
  DType kv_dtype = DType::kFp32;
  int64_t value_bytes = 0;  ///< bytes of one activation value
  int64_t seq = 0;          ///< training sequence (and default prompt)
  int64_t prompt = 0;
  int64_t generated = 0;
  int64_t cached = 0;        ///< inference: tokens in the KV cache before the prompt (decoders)
  int64_t images = 0;        ///< per sample (vision-language models)
  int64_t image_tokens = 0;  ///< positions the images fill, part of seq and prompt
  int64_t longest = 0;       ///< tokens of the longest sequence the step holds
  std::string longest_path;  ///< the workload field that sets `longest`
};

/// The roles of the modules `w.lora_targets` adapts (names as loraAdapters reads them).
LoraRoles loraRoles(const Transformer& t, const Workload& w) {
  LoraRoles r;
  for (const LinearModule& m : blockLinearModules(t)) {
    bool adapted = contains(w.lora_targets, "all-linear") || contains(w.lora_targets, m.name);
    for (const std::string& l : m.logical) adapted = adapted || contains(w.lora_targets, l);
    if (!adapted) continue;
    bool reads_attention_norm = false, reads_mlp_norm = false;
    for (const std::string& l : m.logical) {
      r.q = r.q || l == "q_proj";
      r.k = r.k || l == "k_proj";
      r.v = r.v || l == "v_proj";
      r.o = r.o || l == "o_proj";
      r.gate = r.gate || l == "gate_proj";
      r.up = r.up || l == "up_proj";
      r.down = r.down || l == "down_proj";
      reads_attention_norm =
          reads_attention_norm || l == "q_proj" || l == "k_proj" || l == "v_proj";
      reads_mlp_norm = reads_mlp_norm || l == "gate_proj" || l == "up_proj";
    }
    r.attention_inputs += reads_attention_norm ? 1 : 0;
    r.mlp_inputs += reads_mlp_norm ? 1 : 0;
  }
  return r;
}

/// Images per sample and the positions they add to the sequence: a vision-language model
/// takes one image per sample unless the workload says; a text model takes none.
void resolveImages(const Transformer& t, const Workload& w, Settings& s,
                   std::vector<std::string>& warnings) {
  if (!t.vision) {
    if (w.images && *w.images > 0) {
      throw InputError(ErrorCode::kValue, "/workload/images",
                       t.text_only_of.empty()
                           ? t.architecture + " is not a vision-language model: it takes no images"
                           : "the language model of '" + t.text_only_of +
                                 "' was read text only, as asked: it takes no images");
    }
    return;
  }
  if (w.serving.quant != QuantFormat::kNone) {
    throw InputError(ErrorCode::kValue, "/workload/quant",
                     "quantized checkpoints of a vision-language model (the tower and projector "
                     "usually stay 16-bit, in a file of their own) are not modelled; ask for "
                     "text_only to count the language model alone");
  }
  s.images = w.images.value_or(1);
  if (s.train && s.lora) {
    warnings.push_back(
        "LoRA of a vision-language model: adapters in the language model's "
        "layers only; the vision tower and projector stay frozen (their "
        "forward runs, nothing of theirs is saved or trained)");
  }
  try {
    s.image_tokens = checkedMul(s.images, t.vision->tokens_per_image);
    s.seq = checkedAdd(s.seq, s.image_tokens);
    s.prompt = checkedAdd(s.prompt, s.image_tokens);
  } catch (const ArithmeticOverflow&) {
    throw InputError(ErrorCode::kTooLarge, "/workload/images", "too many image tokens");
  }
}

/// The dtypes of weights, KV cache and activations, LoRA's adapters, and the refusals of
/// quantized weights where they are not modelled.
void resolvePrecision(const Transformer& t, const Workload& w, Settings& s,
                      std::vector<std::string>& warnings) {
  s.layout = layoutOf(w.precision);
  if (s.layout.autocast) {
    // The transformer estimator does not follow autocast's op lists or its cast cache (the
    // layer-graph simulation does, graph/autocast_policy.hpp): refused, not approximated.
    throw InputError(
        ErrorCode::kValue, "/workload/dtype",
        Text{"torch.autocast is modelled for layer graphs (CNNs, ONNX graphs) only; for a "
             "transformer choose mixed (16-bit weights and compute, fp32 master weights and "
             "states, as Megatron and Apex O2 keep them), bf16 or fp16",
             "torch.autocast 目前只对层图（CNN、ONNX 图）建模；Transformer 请选择 mixed（16 位"
             "权重与计算，fp32 主权重与优化器状态，同 Megatron 与 Apex O2）、bf16 或 fp16"});
  }
  s.weight_dtype = w.weight_dtype
                       ? *w.weight_dtype
                       : (w.finetune == Finetune::kQlora ? DType::kInt4 : s.layout.weights);
  s.kv_dtype = w.kv_dtype ? *w.kv_dtype : s.layout.activations;
  s.value_bytes = activationBytes(w);
  if (s.train && s.lora) {
    s.lora_roles = loraRoles(t, w);
    s.lora_frozen_rule = t.kind == TransformerKind::kDecoder && !isMoe(t) && t.kv_lora_rank == 0 &&
                         !t.parallel_block && !t.embedding_norm;
    if (!s.lora_frozen_rule) {
      warnings.push_back(
          "LoRA on " + t.architecture +
          ": saved activations are counted as in full fine-tuning, an upper bound (the "
          "frozen-weight rule is modelled for dense decoders without parallel blocks)");
    }
    // PEFT upcasts 16-bit adapters to fp32 and casts their input to fp32 (see loraAdapters);
    // under torch.autocast (precision mixed) their matmuls run in the activation dtype, on a
    // copy autocast makes of that fp32 input.
    s.adapter_bytes = s.layout.master_weights ? s.value_bytes : 4;
    s.adapter_input_shared = !s.layout.master_weights && s.value_bytes == 4;
  }
  if (s.train && !s.lora && isQuantized(s.weight_dtype)) {
    throw InputError(ErrorCode::kValue, "/workload/weight_dtype",
                     std::string("training updates every weight, which cannot stay ") +
                         dtypeName(s.weight_dtype) +
                         ": quantized weights go with inference or finetune lora/qlora");
  }
  if (w.serving.quant != QuantFormat::kNone) {
    if (s.train) {
      throw InputError(ErrorCode::kValue, "/workload/quant",
                       "quantization formats are modelled for inference (mode infer)");
    }
    if (w.weight_dtype) {
      throw InputError(ErrorCode::kValue, "/workload/weight_dtype",
                       "give weight_dtype or quant, not both");
    }
  }
  if (t.word_embed_proj > 0 &&
      (w.serving.quant != QuantFormat::kNone || isQuantized(s.weight_dtype))) {
    // Which of project_in / project_out a quantizer converts is not modelled.
    throw InputError(
        ErrorCode::kValue,
        w.serving.quant != QuantFormat::kNone ? "/workload/quant" : "/workload/weight_dtype",
        "quantized weights of " + t.architecture +
            " with word_embed_proj_dim != hidden_size (project_in / project_out) "
            "are not modelled");
  }
}

/// Sequence lengths, images and the longest context: the model's context caps the default;
/// learned positions cap any.
void resolveTokens(const Transformer& t, const Workload& w, Settings& s,
                   std::vector<std::string>& warnings) {
  const int64_t ctx = t.max_positions;
  s.seq = w.seq_len ? *w.seq_len : (ctx > 0 ? std::min<int64_t>(2048, ctx) : 2048);
  s.prompt = w.prompt_tokens ? *w.prompt_tokens : s.seq;
  s.generated = w.generated_tokens;
  s.cached = !s.train && t.kind == TransformerKind::kDecoder ? w.cached_tokens : 0;
  resolveImages(t, w, s, warnings);
  if (!s.decoder_side && !s.train && s.generated > 0) {
    throw InputError(ErrorCode::kValue, "/workload/generated_tokens",
                     "an encoder model generates no tokens");
  }
  try {
    s.longest = s.train ? s.seq : checkedAdd(checkedAdd(s.cached, s.prompt), s.generated);
  } catch (const ArithmeticOverflow&) {
    throw InputError(ErrorCode::kTooLarge, "/workload/generated_tokens", "too many tokens");
  }
  s.longest_path = s.train           ? "/workload/seq_len"
                   : s.generated > 0 ? "/workload/generated_tokens"
                   : w.prompt_tokens ? "/workload/prompt_tokens"
                                     : "/workload/seq_len";
  if (ctx > 0 && s.longest > ctx) {
    if (t.positions == PositionKind::kLearned) {
      throw InputError(ErrorCode::kValue, s.longest_path,
                       std::to_string(s.longest) + " tokens exceed the model's " +
                           std::to_string(ctx) + " learned positions");
    }
    warnings.push_back(std::to_string(s.longest) + " tokens exceed the model's context of " +
                       std::to_string(ctx) + " (max_position_embeddings)");
  }
}

Settings resolveSettings(const Transformer& t, const Workload& w,
                         std::vector<std::string>& warnings) {
  Settings s;
  s.train = w.mode == Mode::kTrain;
  s.lora = w.finetune == Finetune::kLora || w.finetune == Finetune::kQlora;
  s.decoder_side = t.kind != TransformerKind::kEncoder;
  s.full_recompute = w.recompute == Recompute::kFull;
  s.drop_core = w.recompute == Recompute::kSelective && w.attention == AttentionImpl::kEager;
  resolvePrecision(t, w, s, warnings);
  resolveTokens(t, w, s, warnings);
  return s;
}

/// Runs `stage`; a total beyond 64 bits becomes a too_large error at `path` saying what.
template <typename Stage>
auto overflowAt(const std::string& path, const std::string& what, Stage&& stage) {
  try {
    return stage();
  } catch (const ArithmeticOverflow&) {
    throw InputError(ErrorCode::kTooLarge, path, what + " overflow 64-bit arithmetic");
  }
}

// --- stage 2: the stacks of the forward pass -----------------------------------------------

/// The forward pass of one sequence (a training step, or the prefill).
struct Forward {
  std::vector<Stack> stacks;
  int64_t tokens = 0;                ///< tokens per sequence through the first stack
  int64_t logit_tokens = 0;          ///< tokens whose logits are computed
  int64_t head_macs_per_token = 0;   ///< the LM head's (and OPT's project_out before it)
  int64_t embed_macs_per_token = 0;  ///< OPT's project_in, per token of the first stack
};

Forward forwardPass(const Transformer& t, const Settings& s) {
  Forward f;
  f.tokens = s.train ? s.seq : s.prompt;
  if (t.kind == TransformerKind::kEncoderDecoder) {
    // Training: encoder and decoder both see seq_len tokens. Inference: the encoder reads
    // the prompt; the prefill runs the decoder on its start token.
    f.stacks.push_back({"encoder.layers.", t.encoder_layers, true, false, f.tokens, f.tokens, 0});
    const int64_t dec = s.train ? s.seq : 1;
    f.stacks.push_back({"decoder.layers.", t.layers, false, true, dec, dec, f.tokens});
  } else {
    // A prompt after cached tokens attends them too: each of its tokens counts every key.
    f.stacks.push_back({"layers.", t.layers, t.kind == TransformerKind::kEncoder, false, f.tokens,
                        add(s.cached, f.tokens), 0});
  }
  f.logit_tokens = !s.decoder_side ? 0 : (s.train ? f.stacks.back().tokens : 1);
  f.head_macs_per_token =
      s.decoder_side ? add(mul(tokenWidth(t), t.vocab), embedProjectionParams(t)) : 0;
  f.embed_macs_per_token = embedProjectionParams(t);
  return f;
}

// --- stage 3: MACs of one sequence ---------------------------------------------------------

struct SequenceMacs {
  int64_t forward = 0;         ///< the forward pass (prefill), adapters included
  int64_t backward = 0;        ///< training
  int64_t core = 0;            ///< attention matmuls (QK^T, AV) of the forward
  int64_t core_backward = 0;   ///< attention matmuls in the backward (recomputed ones too)
  int64_t adapter = 0;         ///< LoRA adapters' forward
  int64_t decode = 0;          ///< every generated token
  int64_t decode_context = 0;  ///< keys the last generated token attends to
  int64_t vision = 0;          ///< the vision tower and projector over the sample's images
};

/// MACs of one generated token per sequence against `context` cached tokens.
int64_t decodeStepMacs(const Transformer& t, const Forward& f, int64_t prompt, int64_t context) {
  const bool enc_dec = t.kind == TransformerKind::kEncoderDecoder;
  const Stack d{"", t.layers, false, enc_dec, 1, context, enc_dec ? prompt : 0};
  int64_t m = 0;
  for (int64_t i = 0; i < t.layers; ++i) m = add(m, layerMacsPerToken(t, d, i));
  return add(m, f.head_macs_per_token, f.embed_macs_per_token);
}

SequenceMacs sequenceMacs(const Transformer& t, const Workload& w, const Settings& s,
                          const Forward& f, const Adapters& ad) {
  SequenceMacs m;
  int64_t layers_fwd = 0;
  for (const Stack& st : f.stacks) {
    layers_fwd = add(layers_fwd, stackMacsPerSequence(t, st));
    m.core = add(m.core, stackCoreMacs(t, st));
  }
  m.forward = layers_fwd;
  if (t.pooler) m.forward = add(m.forward, mul(t.hidden, t.hidden));
  m.forward = add(m.forward, mul(f.logit_tokens, f.head_macs_per_token));
  m.forward = add(m.forward, mul(f.stacks.front().tokens, f.embed_macs_per_token));
  m.adapter = mul(f.stacks.back().tokens, ad.macs_per_token);
  m.forward = add(m.forward, m.adapter);
  // The tower and projector run once per image before the language model; in full training
  // they learn with it (their matmuls' backward 2x, the attention core's as the model's),
  // under LoRA they stay frozen: forward only (added after the backward below).
  const bool frozen_tower = s.train && s.lora;
  if (t.vision && s.images > 0) {
    const VisionCosts vc = visionCosts(*t.vision, w);
    m.vision = mul(s.images, vc.macs);
    if (!frozen_tower) {
      m.forward = add(m.forward, m.vision);
      m.core = add(m.core, mul(s.images, vc.core_macs));
    }
  }
  const int64_t linear = checkedSub(checkedSub(m.forward, m.core), m.adapter);  // weight matmuls
  if (s.train) {
    // Input and weight gradients: 2x forward each matmul; a frozen base computes input
    // gradients only (1x). The attention matmuls' backward is 2x theirs; FlashAttention
    // also recomputes QK^T, 2.5x (Dao 2023, FlashAttention-2, section 4). Recomputation
    // re-runs forward work inside the backward: full, the layers; selective, the attention
    // matmuls (which flash recomputes anyway).
    const bool flash = w.attention == AttentionImpl::kFlash;
    const int64_t core_bwd = flash ? mul(m.core / 2, 5) : mul(2, m.core);
    m.backward = add(mul(s.lora ? 1 : 2, linear), core_bwd, mul(2, m.adapter));
    m.core_backward = core_bwd;
    if (w.recompute == Recompute::kFull) {
      m.backward = add(m.backward, layers_fwd);
      m.core_backward = add(m.core_backward, m.core);
    }
    if (w.recompute == Recompute::kSelective && !flash) {
      m.backward = add(m.backward, m.core);
      m.core_backward = add(m.core_backward, m.core);
    }
  }
  if (frozen_tower) m.forward = add(m.forward, m.vision);
  const bool enc_dec = t.kind == TransformerKind::kEncoderDecoder;
  m.decode_context =
      enc_dec ? std::max<int64_t>(s.generated, 1) : add(s.cached, s.prompt, s.generated);
  if (!s.train && s.decoder_side && s.generated > 0) {
    // Sum over the g steps of step j attending to (start + j) tokens, in closed form:
    // g x (the step at context 0) + core MACs of sum_j context_j.
    const int64_t start = enc_dec ? 0 : add(s.cached, s.prompt);
    m.decode = mul(s.generated, decodeStepMacs(t, f, s.prompt, 0));
    for (int64_t i = 0; i < t.layers; ++i) {
      const int64_t window = isLocalLayer(t, i) ? t.sliding_window : 0;
      m.decode =
          add(m.decode, mul(decodeContexts(start, s.generated, window), attentionCoreMacs(t, 1)));
    }
  }
  return m;
}

// --- stage 4: model states -----------------------------------------------------------------

/// The large parameter tensors in the order `model.parameters()` yields them in Hugging Face
/// models (the order the for-loop optimizers step them): the embeddings, each block's linear
/// modules as registered (two layers, so a layer's first module follows the last one's), the
/// final norm, the LM head. Biases and block norms between them are left out, which can only
/// raise the for-loop's max of 2 s_i + s_(i-1) (GPT-2's biases follow each weight).
std::vector<int64_t> optimizerTensorOrder(const Transformer& t, const TransformerParams& tp) {
  std::vector<int64_t> out{tp.embeddings};
  const std::vector<LinearModule> modules = blockLinearModules(t);
  for (int layer = 0; layer < 2; ++layer) {
    for (const LinearModule& m : modules) {
      for (int64_t c = 0; c < std::min<int64_t>(m.copies, 2); ++c) out.push_back(mul(m.in, m.out));
    }
  }
  out.push_back(t.hidden);  // the final norm's weight
  if (tp.lm_head) out.push_back(tp.lm_head);
  return out;
}

std::vector<MemoryTerm> modelStates(const Transformer& t, const TransformerParams& tp,
                                    const Workload& w, const Settings& s, const BlockMatrices& bm,
                                    const Adapters& ad) {
  ModelStateCounts counts;
  counts.params = tp.total;
  counts.trainable = s.train && !s.lora ? tp.total : 0;
  counts.weight_dtype = s.weight_dtype;
  counts.quantized = bm.elements;
  counts.quant_matrices = bm.matrices;
  counts.quant_groups = bm.groups;
  counts.adapters = s.train && s.lora ? ad.params : 0;
  if (counts.trainable > 0) counts.tensors = optimizerTensorOrder(t, tp);
  std::vector<MemoryTerm> terms = modelStateTerms(counts, w);
  // A checkpoint format (GGUF, GPTQ, AWQ, bitsandbytes, FP8, MXFP4, NVFP4): its exact bytes.
  if (w.serving.quant != QuantFormat::kNone)
    applyQuantizedWeights(quantizedWeights(t, w), w, terms);
  return terms;
}

// --- stage 5: activations and KV cache of one sequence -------------------------------------

// LoRA over a frozen base. Autograd's generated code saves an input of a multi-input op only
// when the gradient that reads it is needed (tools/autograd/gen_variable_type.py, `guard_for`:
// `grad_fn->should_compute_output(edge)` around each saved tensor). A frozen linear
// (derivatives.yaml, mm: `self: mm_mat1_backward(grad, mat2, ...)`, `mat2:
// mm_mat2_backward(grad, self, ...)`) then keeps its weight and not its input, and a frozen
// RMSNorm weight (`self.weight * hidden_states`, mul.Tensor) does not keep the normalised
// tensor. An op whose inputs need no gradient keeps nothing: the embeddings are frozen, so
// the first layer's input needs none and its norm keeps nothing; its QK^T keeps Q only for
// K's gradient and K only for Q's. PEFT's lora_A (an nn.Linear that trains) keeps its input:
// the base input itself when the dtypes agree, else its own cast copy
// (src/peft/tuners/lora/layer.py, Linear.forward: `x = self._cast_input_dtype(x,
// lora_A.weight.dtype)`). Measured against PyTorch 1.13 (docs/accuracy.md, LoRA rows).

/// Bytes per token a norm keeps under LoRA when its input needs a gradient: RMSNorm its fp32
/// input (the input itself in fp32, its upcast copy otherwise) and rsqrt's value; LayerNorm
/// (native_layer_norm, one formula for input and weight, so no guard) its input and mean and
/// rstd.
int64_t loraNormSaved(const Transformer& t, int64_t e) {
  return t.norm == NormKind::kRmsNorm ? add(mul(4, t.hidden), 4) : add(mul(e, t.hidden), 8);
}

/// Bytes per token the adapted modules reading one tensor of `width` keep for lora_A.
int64_t loraInputsSaved(const Settings& s, int modules, int64_t width) {
  if (modules == 0) return 0;
  if (s.adapter_input_shared) return mul(s.value_bytes, width);  // the input itself
  return mul(modules, s.adapter_bytes, width);                   // a copy each
}

/// Bytes per token the attention keeps under LoRA; `input_grad`: the layer's input needs a
/// gradient (every layer but the first).
int64_t loraAttentionSaved(const Transformer& t, const Workload& w, const Settings& s,
                           bool input_grad, int64_t keys) {
  const LoraRoles& r = s.lora_roles;
  const int64_t e = s.value_bytes;
  const bool qg = input_grad || r.q, kg = input_grad || r.k, vg = input_grad || r.v;
  const int64_t rep = t.kv_heads > 0 && t.kv_heads < t.heads ? t.heads / t.kv_heads : 1;
  int64_t b = input_grad ? loraNormSaved(t, e) : 0;
  b = add(b, loraInputsSaved(s, r.attention_inputs, t.hidden));
  if (t.qk_norm) b = add(b, mul(e, add(qg ? qWidth(t) : 0, kg ? keyWidth(t) : 0)));
  const bool scores = qg || kg;
  if (w.attention == AttentionImpl::kFlash) {
    // One derivative formula for q, k and v: all kept, with the output and log-sum-exp.
    if (scores || vg) {
      b = add(b, mul(e, add(qWidth(t), keyWidth(t), add(valueWidth(t), outputWidth(t)))),
              mul(4, t.heads));
    }
    if (r.o && !s.adapter_input_shared) b = add(b, loraInputsSaved(s, 1, outputWidth(t)));
  } else {
    if (kg) b = add(b, mul(e, qWidth(t)));               // Q, for K's gradient
    if (qg) b = add(b, mul(e, rep, keyWidth(t)));        // K (repeat_kv's copy), for Q's
    if (scores) b = add(b, mul(e, rep, valueWidth(t)));  // V, for the probabilities'
    if ((scores || vg) && !s.drop_core) {
      const int64_t probs = mul(t.heads, keys);
      // Softmax keeps its output for the scores' gradient, AV the probabilities for V's: one
      // tensor, unless the softmax ran in fp32 (then each keeps its own when it needs it).
      if (!fp32Softmax(t, e)) {
        b = add(b, mul(e, probs));
      } else {
        if (vg) b = add(b, mul(e, probs));
        if (scores) b = add(b, mul(4, probs));
      }
      if (t.attention_dropout) b = add(b, mul(1 + e, probs));
    }
    b = add(b, loraInputsSaved(s, r.o ? 1 : 0, outputWidth(t)));
  }
  const bool out = input_grad || r.attention();
  if (out && t.hidden_dropout) b = add(b, t.hidden);  // residual dropout mask, 1 byte
  if (out && t.norms_per_layer == 4) b = add(b, loraNormSaved(t, e));
  return b;
}

/// Bytes per token the MLP keeps under LoRA; `input_grad`: its input needs a gradient (the
/// first layer's when its attention is adapted). SiLU keeps the gate's output, the product
/// the SiLU output (for up's gradient) and up's output (for the gate's); down_proj's input
/// only an adapter keeps. An ungated MLP's activation keeps its input.
int64_t loraMlpSaved(const Transformer& t, const Settings& s, bool input_grad, int64_t layer) {
  const LoraRoles& r = s.lora_roles;
  const int64_t e = s.value_bytes, f = ffnOf(t, layer);
  int64_t b = input_grad ? loraNormSaved(t, e) : 0;
  b = add(b, loraInputsSaved(s, r.mlp_inputs, t.hidden));
  const bool up = input_grad || r.up, gate = input_grad || r.gate;
  if (t.gated_mlp) {
    b = add(b, mul(e, f, (gate ? 2 : 0) + (up ? 1 : 0)));
  } else if (up) {
    b = add(b, mul(e, f));
  }
  b = add(b, loraInputsSaved(s, r.down ? 1 : 0, f));
  const bool out = input_grad || r.mlp();
  if (out && t.hidden_dropout) b = add(b, t.hidden);
  if (out && t.norms_per_layer == 4) b = add(b, loraNormSaved(t, e));
  return b;
}

/// Bytes per token the attention of layer `i` of `st` keeps for backward; inference keeps
/// nothing for backward, so rows show the tensor it writes. Full recomputation keeps the
/// layer input only (Korthikanti's 2sbh).
int64_t attentionKeptPerToken(const Transformer& t, const Workload& w, const Settings& s,
                              const Stack& st, int64_t i) {
  const int64_t e = s.value_bytes;
  if (!s.train || s.full_recompute) return mul(e, t.hidden);
  const int64_t keys = attendedKeys(t, i, st.context);
  if (s.lora_frozen_rule) return loraAttentionSaved(t, w, s, i > 0, keys);
  return add(attentionSaved(t, e), s.drop_core ? 0 : coreSaved(t, e, keys, w.attention));
}

int64_t mlpKeptPerToken(const Transformer& t, const Settings& s, int64_t i) {
  if (!s.train) return mul(s.value_bytes, t.hidden);
  if (s.full_recompute) return 0;
  // Every layer has the same adapters, so only the first layer's input needs no gradient.
  if (s.lora_frozen_rule) return loraMlpSaved(t, s, i > 0 || s.lora_roles.attention(), i);
  return mlpSaved(t, s.value_bytes, i);
}

int64_t crossKeptPerToken(const Transformer& t, const Workload& w, const Settings& s,
                          const Stack& st) {
  const int64_t e = s.value_bytes;
  if (!st.cross) return 0;
  if (!s.train) return mul(e, t.hidden);
  if (s.full_recompute) return 0;
  return add(crossSaved(t, e), s.drop_core ? 0 : coreSaved(t, e, st.cross_context, w.attention));
}

/// What one sequence holds besides the model states.
struct SequenceMemory {
  int64_t activations = 0;  ///< training: kept for backward; inference: the prefill's peak
  int64_t backward_peak_extra = 0;
  /// Training: the logits' backward and the widest layer's, on top of the saved tensors.
  int64_t logits_phase = 0, layer_phase = 0;
  int64_t kv_cache = 0;
  int64_t kv_tokens = 0;
  int64_t embed_saved = 0, final_saved = 0, head_saved = 0, pooler_saved = 0;  ///< rows
  /// OPT's project_in / project_out: the input each keeps for its weight's gradient.
  int64_t project_in_saved = 0, project_out_saved = 0;
  int64_t vision = 0;  ///< training: the images' saved tensors; inference: the tower's peak
};

/// The widest layer: its MLP intermediate, its MLP working set, the keys it attends to.
struct Widest {
  int64_t inner = 0, mlp = 0, keys = 0;
};

Widest widestLayer(const Transformer& t, const Forward& f) {
  Widest wd;
  for (int64_t i = 0; i < t.layers; ++i) {
    const int64_t shared = isMoeLayer(t, i) ? t.shared_expert_ffn : 0;
    const int64_t experts = add(mul(activeExperts(t, i), ffnOf(t, i)), shared);
    wd.inner = std::max(wd.inner, mul(t.gated_mlp ? 2 : 1, experts));
    wd.mlp = std::max(wd.mlp, mul(t.gated_mlp ? 3 : 2, experts));
    wd.keys = std::max(wd.keys, attendedKeys(t, i, f.stacks.front().context));
  }
  return wd;
}

/// Training: the saved tensors, and the backward peak on top of them: the larger of the fp32
/// logits gradient (decoders) and one layer's working set (its recomputed activations plus
/// the gradients of its input, output and MLP intermediate).
void trainingMemory(const Transformer& t, const Workload& w, const Settings& s, const Forward& f,
                    const Adapters& ad, SequenceMemory& m) {
  const int64_t e = s.value_bytes, h = t.hidden;
  for (const Stack& st : f.stacks)
    for (int64_t i = 0; i < st.layers; ++i)
      m.activations = add(m.activations, mul(st.tokens, add(attentionKeptPerToken(t, w, s, st, i),
                                                            mlpKeptPerToken(t, s, i),
                                                            crossKeptPerToken(t, w, s, st))));
  m.activations =
      add(m.activations, add(m.embed_saved, m.final_saved), add(m.head_saved, m.pooler_saved));
  m.activations = add(m.activations, add(m.project_in_saved, m.project_out_saved));
  m.activations = add(m.activations, mul(f.stacks.back().tokens, ad.saved_per_token));
  const Widest wd = widestLayer(t, f);
  const Stack& st = f.stacks.back();
  int64_t recomputed = 0;
  if (s.full_recompute) {
    Workload none = w;
    none.recompute = Recompute::kNone;
    for (int64_t i = 0; i < st.layers; ++i)
      recomputed = std::max(recomputed, layerActivationBytesPerToken(t, none, st.context, i));
  } else if (s.drop_core) {
    recomputed = coreSaved(t, e, std::min(st.context, wd.keys), AttentionImpl::kEager);
  }
  m.layer_phase = mul(st.tokens, add(recomputed, mul(e, add(mul(2, h), wd.inner))));
  // At log_softmax's backward the gradient nll_loss returns and log_softmax's own, both fp32
  // and as large as the logits, are alive with the saved log-probabilities (measured,
  // docs/accuracy.md).
  m.logits_phase = s.decoder_side ? mul(f.logit_tokens, 8, t.vocab) : 0;
  m.backward_peak_extra = std::max(m.layer_phase, m.logits_phase);
}

/// Inference: the peak of one prefill layer (the residual stream plus the larger working set
/// of attention (input, Q, K, V, output, and with eager attention the scores and
/// probabilities) and of the MLP; then the last token's logits and their fp32 copy), and the
/// KV cache: 2 (K and V) x layers x kv_heads x head_dim x tokens x bytes, a local layer's
/// tokens capped at its window, MLA in the workload's cache form.
void inferenceMemory(const Transformer& t, const Workload& w, const Settings& s, const Forward& f,
                     SequenceMemory& m) {
  const int64_t e = s.value_bytes, h = t.hidden;
  const Widest wd = widestLayer(t, f);
  const Stack& st = f.stacks.front();
  int64_t attn_ws =
      mul(st.tokens, e, add(add(h, qWidth(t)), add(keyWidth(t), valueWidth(t), outputWidth(t))));
  if (w.attention == AttentionImpl::kEager)
    attn_ws = add(attn_ws, mul(mul(2, e, t.heads), mul(st.tokens, wd.keys)));
  const int64_t mlp_ws = mul(st.tokens, e, add(h, wd.mlp));
  m.activations = add(mul(st.tokens, e, h), std::max(attn_ws, mlp_ws));
  if (s.decoder_side) m.activations = add(m.activations, mul(e + 4, t.vocab));
  const int kv_bits = dtypeBits(s.kv_dtype);
  if (t.kind == TransformerKind::kDecoder) {
    m.kv_tokens = add(s.cached, s.prompt, s.generated);
    m.kv_cache = bytesForBits(kvCacheElements(t, w.mla_cache, m.kv_tokens), kv_bits);
  } else if (t.kind == TransformerKind::kEncoderDecoder) {
    // Decoder self-attention over the generated tokens, cross-attention over the prompt.
    m.kv_tokens = add(std::max<int64_t>(s.generated, 1), s.prompt);
    m.kv_cache = bytesForBits(mul(t.layers, kvCacheWidth(t, w.mla_cache), m.kv_tokens), kv_bits);
  }
}

SequenceMemory sequenceMemory(const Transformer& t, const Workload& w, const Settings& s,
                              const Forward& f, const Adapters& ad) {
  const int64_t e = s.value_bytes, h = t.hidden;
  SequenceMemory m;
  for (const Stack& st : f.stacks) {
    // In training, the int64 token ids the embedding's backward keeps (derivatives.yaml,
    // embedding: embedding_backward(grad, indices, ...)).
    if (s.train) m.embed_saved = add(m.embed_saved, mul(st.tokens, 8));
    if (t.hidden_dropout) m.embed_saved = add(m.embed_saved, mul(st.tokens, h));  // 1-byte mask
    if (t.embedding_norm)
      m.embed_saved = add(m.embed_saved, mul(st.tokens, add(mul(e, h), normExtraSaved(t))));
    if (t.final_norm)
      m.final_saved = add(m.final_saved, mul(st.tokens, add(mul(e, h), normExtraSaved(t))));
  }
  // LM head input, the fp32 logits the cross-entropy keeps (Korthikanti's 4sbv) and, in
  // training, the int64 labels nll_loss keeps.
  if (s.decoder_side) {
    m.head_saved = add(mul(f.logit_tokens, e, tokenWidth(t)), mul(f.logit_tokens, 4, t.vocab));
    if (s.train) m.head_saved = add(m.head_saved, mul(f.logit_tokens, 8));
  }
  if (s.train && t.word_embed_proj > 0) {
    m.project_in_saved = mul(f.stacks.front().tokens, e, t.word_embed_proj);
    m.project_out_saved = mul(f.logit_tokens, e, h);
  }
  if (s.train && s.lora_frozen_rule) {
    // A frozen base (see loraAttentionSaved): the embedding keeps no token ids, its dropout
    // no mask (its input needs no gradient); the final norm keeps what a LoRA norm keeps;
    // the frozen LM head not its input.
    const int64_t tokens = f.stacks.back().tokens;
    m.embed_saved = 0;
    if (t.final_norm) m.final_saved = mul(tokens, loraNormSaved(t, e));
    m.head_saved = checkedSub(m.head_saved, mul(f.logit_tokens, e, tokenWidth(t)));
    m.project_in_saved = m.project_out_saved = 0;  // frozen: no weight gradient
  }
  if (t.pooler) m.pooler_saved = mul(2, e, h);  // first token's dense input and tanh output
  if (s.train) {
    trainingMemory(t, w, s, f, ad, m);
  } else {
    inferenceMemory(t, w, s, f, m);
  }
  if (t.vision && s.images > 0) {
    // Training keeps the tower's saved tensors beside the language model's; at inference
    // the tower runs (all of a sample's images at once) before the language model, so the
    // peak is the larger of the two.
    const VisionCosts vc = visionCosts(*t.vision, w);
    if (s.train && s.lora) {
      // A frozen tower's output needs no gradient: it saves nothing.
    } else if (s.train) {
      m.vision = mul(s.images, vc.saved_bytes);
      m.activations = add(m.activations, m.vision);
    } else {
      m.vision = mul(s.images, vc.peak_bytes);
      m.activations = std::max(m.activations, m.vision);
    }
  }
  return m;
}

/// Training: the gradients alive at the backward peak less all of them (sumTerms fills in
/// the value from backwardCandidates).
MemoryTerm gradientDeltaTerm(const std::vector<MemoryTerm>& terms) {
  int64_t grads = 0;
  for (const MemoryTerm& term : terms) {
    if (term.key == MemoryKey::kGradients || term.key == MemoryKey::kAdapterGradients)
      grads = add(grads, term.fixed);
  }
  MemoryTerm delta;
  delta.key = MemoryKey::kBackwardGradientDelta;
  delta.sharding = Sharding::kZero2;
  delta.phase = MemoryPhase::kBackward;
  delta.formula = "at_peak − all";
  delta.inputs = {{"at_peak", grads, "bytes"}, {"all", grads, "bytes of gradients"}};
  return delta;
}

/// Training with kept gradients (zero_grad zero): every gradient exists all step, and each
/// backward op computes its parameters' new gradients into fresh tensors that AccumulateGrad
/// then adds in and frees (torch/csrc/autograd/functions/accumulate_grad.h, accumulateGrad:
/// `variable_grad += new_grad` when grad mode is off). The autograd engine runs an
/// AccumulateGrad as soon as it is ready (accumulate_grad.cpp, its constructor:
/// `Node(/*sequence_nr=*/UINT64_MAX)`, the ready queue's highest priority), so one op's new
/// gradients are the transient: at the logits' backward none; at the LM head's its vocab x h
/// weight, while the logits' gradient (in the activation dtype) and the head input's are alive and
/// the loss's saved log-probabilities and labels are gone; in a layer its largest weight matrix; at
/// the embedding's the dense vocab x h table (embedding_dense_backward). A tied head's gradient
/// waits in the shared weight's input buffer from the head's backward to the embedding's
/// (the AccumulateGrad runs once both have contributed), so it is alive throughout. The
/// layer line pairs the largest weight with the widest working set, an upper bound. LoRA
/// trains the adapters only: a layer's transient is its largest adapter matrix's new fp32
/// gradient (r x width), and the frozen head and embeddings compute no weight gradient.
std::vector<BackwardCandidate> keptGradientCandidates(const Transformer& t, const Settings& s,
                                                      const TransformerParams& tp, const Forward& f,
                                                      const SequenceMemory& m, int64_t grads,
                                                      const Adapters& ad) {
  std::vector<BackwardCandidate> out{{0, m.logits_phase}, {0, m.layer_phase}};
  if (s.lora) out[1].gradient_delta = mul(4, ad.largest);
  if (s.lora || tp.total <= 0 || grads % tp.total != 0) return out;
  const int64_t per_param = grads / tp.total;  // gradient bytes per parameter
  int64_t largest = 0;
  for (const LinearModule& lm : blockLinearModules(t))
    largest = std::max(largest, mul(lm.in, lm.out));
  const int64_t table = mul(t.vocab, tokenWidth(t));
  const bool tied_head = s.decoder_side && t.tied_embeddings;
  const int64_t waiting = tied_head ? mul(per_param, table) : 0;
  out[1] = {add(mul(per_param, largest), waiting), m.layer_phase};
  const int64_t e = s.value_bytes;
  const int64_t tail = add(m.embed_saved, mul(f.stacks.back().tokens, e, t.hidden));
  out.push_back({add(mul(per_param, table), waiting), checkedSub(tail, m.activations)});
  if (s.decoder_side) {
    const int64_t head = tp.lm_head > 0 ? tp.lm_head : table;
    const int64_t loss_saved = mul(f.logit_tokens, add(mul(4, t.vocab), 8));
    out.push_back({mul(per_param, head),
                   checkedSub(mul(f.logit_tokens, e, add(t.vocab, tokenWidth(t))), loss_saved)});
  }
  return out;
}

/// Training: where the backward pass can peak, as (gradients then less all, activations then
/// beyond the saved ones per sequence). Backward runs the logits, the LM head and final norm,
/// the layers top down, the embeddings. Under zero_grad set_to_none a parameter's gradient
/// appears at its backward: none at the logits' (the peak of activations), all but the
/// embeddings' at the first layer's, when only its and the embedding's saved tensors remain.
/// For a decoder whose layers are alike (dense, no local layers) each layer's backward adds
/// as many gradients and frees as many saved bytes, so the layers' steps lie between the top
/// and the first layer's. Otherwise, and with kept gradients, every gradient is counted from the
/// top layer's backward on (an upper bound: the lower layers' gradients come as their saved
/// activations go).
std::vector<BackwardCandidate> backwardCandidates(const Transformer& t, const Workload& w,
                                                  const Settings& s, const TransformerParams& tp,
                                                  const Forward& f, const SequenceMemory& m,
                                                  const std::vector<MemoryTerm>& terms,
                                                  const Adapters& ad) {
  int64_t grads = 0;
  for (const MemoryTerm& term : terms) {
    if (term.key == MemoryKey::kGradients || term.key == MemoryKey::kAdapterGradients)
      grads = add(grads, term.fixed);
  }
  if (w.zero_grad == ZeroGrad::kZero) return keptGradientCandidates(t, s, tp, f, m, grads, ad);
  std::vector<BackwardCandidate> out{{-grads, m.logits_phase}, {0, m.layer_phase}};
  if (tp.total <= 0 || grads % tp.total != 0) return out;
  const int64_t per_param = grads / tp.total;  // gradient bytes per parameter
  // A tied head's gradient waits in the shared weight's input buffer from the head's
  // backward on (see keptGradientCandidates); at the embedding's backward the table's new
  // gradient joins it before the two are summed into .grad.
  const int64_t waiting =
      s.decoder_side && t.tied_embeddings && !s.lora ? mul(t.vocab, tokenWidth(t)) : 0;
  // The embeddings' backward: every gradient; the token ids and their output's gradient.
  const int64_t tail = add(m.embed_saved, mul(f.stacks.back().tokens, s.value_bytes, t.hidden));
  const BackwardCandidate embeddings{mul(per_param, waiting), checkedSub(tail, m.activations)};
  bool alike = t.kind == TransformerKind::kDecoder && !isMoe(t) && !s.lora && !t.embedding_norm &&
               f.stacks.size() == 1 && !t.vision;
  for (int64_t i = 0; alike && i < t.layers; ++i) alike = !isLocalLayer(t, i);
  const int64_t head = add(tp.lm_head, t.final_norm ? normParams(t) : 0);
  const int64_t blocks = checkedSub(tp.total, add(tp.embeddings, head, tp.other));
  const int64_t layer_saved =
      checkedSub(m.activations, add(m.embed_saved, m.final_saved, m.head_saved));
  if (!alike || t.layers < 1 || blocks % t.layers != 0 || layer_saved % t.layers != 0) {
    if (waiting > 0) out.push_back(embeddings);
    return out;
  }
  const int64_t layer = blocks / t.layers;
  // The top layer's backward: the head's and that layer's gradients; the LM head's and the
  // final norm's saved tensors are freed by then.
  out[1] = {-mul(per_param, checkedSub(tp.total, add(head, layer, waiting))),
            checkedSub(m.layer_phase, add(m.head_saved, m.final_saved))};
  const int64_t below_first = checkedSub(m.activations, add(m.embed_saved, layer_saved / t.layers));
  out.push_back({-mul(per_param, checkedSub(tp.embeddings, waiting)),
                 checkedSub(m.layer_phase, below_first)});
  out.push_back(embeddings);
  return out;
}

/// The first step's peak: no optimizer state exists during its backward (Adam's and momentum's
/// are made in step()), and no .grad to add into whatever zero_grad does, so its backward
/// peaks as with set_to_none (AccumulateGrad steals each new gradient).
int64_t firstStepTotal(const Transformer& t, const Workload& w, const Settings& s,
                       const TransformerParams& tp, const Forward& f, const SequenceMemory& mem,
                       const Adapters& ad, const MemoryBreakdown& m) {
  int64_t backward = m.phases[0].bytes;
  if (w.zero_grad == ZeroGrad::kZero) {
    Workload none = w;
    none.zero_grad = ZeroGrad::kSetToNone;
    const MemoryTerm& delta = *m.find(MemoryKey::kBackwardGradientDelta);
    const MemoryTerm& extra = *m.find(MemoryKey::kBackwardPeakExtra);
    std::optional<int64_t> change;  // the first step's backward peak less the steady one
    for (const BackwardCandidate& c : backwardCandidates(t, none, s, tp, f, mem, m.terms, ad)) {
      const int64_t d = add(checkedSub(c.gradient_delta, delta.bytes),
                            checkedSub(mul(w.batch, c.extra_per_sample), extra.bytes));
      change = std::max(change.value_or(d), d);
    }
    backward = add(backward, change.value_or(0));
  }
  const int64_t states =
      add(m.bytesOf(MemoryKey::kOptimizerStates), m.bytesOf(MemoryKey::kAdapterOptimizerStates));
  return std::max(checkedSub(backward, states), m.phases[1].bytes);
}

/// The activation terms (and the KV cache's) of `batch` sequences.
void addSequenceTerms(const Transformer& t, const Settings& s, const SequenceMemory& m, int64_t b,
                      std::vector<MemoryTerm>& terms) {
  terms.push_back(activationTerm(MemoryKey::kActivations, 0, m.activations, "batch × per_sequence",
                                 {{"batch", b, ""}, {"per_sequence", m.activations, "bytes"}}));
  if (s.train) {
    terms.back().phase = MemoryPhase::kBackward;
    terms.push_back(activationTerm(
        MemoryKey::kBackwardPeakExtra, 0, m.backward_peak_extra, "batch × per_sequence",
        {{"batch", b, ""}, {"per_sequence", m.backward_peak_extra, "bytes"}}));
    terms.back().phase = MemoryPhase::kBackward;
    terms.push_back(gradientDeltaTerm(terms));
    return;
  }
  if (!s.decoder_side) return;
  // Per sequence: every layer keeps K and V (or MLA's latent) for the tokens it attends to;
  // a sliding-window layer at most its window. Where every layer holds every token with
  // 2 x kv_heads x head_dim values, the term shows that product, else the sum.
  const int kv_bits = dtypeBits(s.kv_dtype);
  const int64_t full_cache =
      bytesForBits(mul(mul(2, t.layers), mul(t.kv_heads, t.head_dim), m.kv_tokens), kv_bits);
  if (full_cache == m.kv_cache) {
    terms.push_back(
        activationTerm(MemoryKey::kKvCache, 0, m.kv_cache,
                       "batch × tokens × 2 × layers × kv_heads × head_dim × bits_per_value / 8",
                       {{"batch", b, ""},
                        {"tokens", m.kv_tokens, ""},
                        {"layers", t.layers, ""},
                        {"kv_heads", t.kv_heads, ""},
                        {"head_dim", t.head_dim, ""},
                        {"bits_per_value", kv_bits, dtypeName(s.kv_dtype)}}));
  } else {
    terms.push_back(
        activationTerm(MemoryKey::kKvCache, 0, m.kv_cache, "batch × per_sequence",
                       {{"batch", b, ""},
                        {"tokens", m.kv_tokens, ""},
                        {"per_sequence", m.kv_cache,
                         "bytes: Σ over layers of min(tokens, window) × cached values per token × "
                         "bits_per_value / 8"}}));
  }
}

// --- stage 6: phases for the roofline ------------------------------------------------------

/// Share of a decoder's attention core (counted as every token against every attended key)
/// that fused kernels compute under the causal mask: token p (1..n) attends min(p, keys) of
/// a layer's keys. 1 for encoders, whose attention is not masked.
double causalComputedShare(const Transformer& t, int64_t tokens, int64_t cached) {
  if (t.kind != TransformerKind::kDecoder || tokens <= 0) return 1.0;
  const auto n = static_cast<double>(tokens);
  double counted = 0, computed = 0;
  for (int64_t i = 0; i < t.layers; ++i) {
    const int64_t keys = attendedKeys(t, i, add(cached, tokens));
    counted += n * static_cast<double>(keys);
    // The p-th prompt token sees cached + p keys, at most the layer's window.
    computed += static_cast<double>(decodeContexts(cached, tokens, keys));
  }
  return counted > 0 ? computed / counted : 1.0;
}

/// FLOPs of `macs` per sequence over `batch` sequences (128-bit: a step may pass 64 bits).
WideCount wideFlops(int64_t macs, int64_t batch) {
  return flopsOf(WideCount(macs) * batch);
}

std::vector<PhaseWork> rooflinePhases(const Transformer& t, const Workload& w, const Settings& s,
                                      const Forward& f, const SequenceMacs& macs,
                                      const MemoryBreakdown& m, const BlockMatrices& bm) {
  const int64_t b = w.batch;
  const int64_t weights_read =
      add(m.bytesOf(MemoryKey::kWeights), m.bytesOf(MemoryKey::kQuantScales),
          m.bytesOf(MemoryKey::kAdapterWeights));
  const int64_t activations = m.bytesOf(MemoryKey::kActivations);
  // Fused attention kernels run the core at their own share of the peak (time_model.hpp).
  const bool fused = fusedAttention(w);
  if (s.train) {
    // One micro-batch of `batch` sequences (what a roofline times); the step runs
    // grad_accum of them.
    const int64_t grads =
        add(m.bytesOf(MemoryKey::kGradients), m.bytesOf(MemoryKey::kAdapterGradients));
    const double computed = causalComputedShare(t, f.tokens, 0);
    return {
        {"forward", wideFlops(macs.forward, b), add(weights_read, activations), mul(b, f.tokens),
         fused ? wideFlops(macs.core, b) : WideCount(0), computed},
        {"backward", wideFlops(macs.backward, b),
         add(add(weights_read, grads), add(activations, m.bytesOf(MemoryKey::kBackwardPeakExtra))),
         mul(b, f.tokens), fused ? wideFlops(macs.core_backward, b) : WideCount(0), computed}};
  }
  std::vector<PhaseWork> phases;
  const int kv_bits = dtypeBits(s.kv_dtype);
  const int64_t prompt_kv =
      s.decoder_side
          ? mul(b, bytesForBits(kvCacheElements(t, w.mla_cache, add(s.cached, s.prompt)), kv_bits))
          : 0;
  // An encoder has no generation: its one pass is a plain forward.
  phases.push_back({s.decoder_side ? "prefill" : "forward", wideFlops(macs.forward, b),
                    add(weights_read, prompt_kv), mul(b, s.prompt),
                    fused ? wideFlops(macs.core, b) : WideCount(0),
                    causalComputedShare(t, s.prompt, s.cached)});
  if (s.decoder_side) {
    // One generated token per sequence: every weight read once (under MoE only the experts
    // the batch's tokens can reach), the whole KV cache read.
    int64_t read = weights_read;
    if (t.vision) {
      // The tower and projector do not run for a generated token (their weights are in
      // the layout's weight format, never quantized).
      const TransformerParams tp = countParams(t);
      read =
          checkedSub(read, bytesForBits(add(tp.vision, tp.projector), dtypeBits(s.layout.weights)));
    }
    if (isMoe(t)) {
      const int64_t reached = std::min(t.experts, mul(b, t.experts_per_token));
      const int64_t expert_bytes =
          w.serving.quant != QuantFormat::kNone
              ? quantizedWeights(t, w).expert_bytes
              : bytesForBits(bm.expert_elements, dtypeBits(s.weight_dtype));
      read = checkedSub(read, expert_bytes - expert_bytes / t.experts * reached);
    }
    phases.push_back({"decode", mul(2, decodeStepMacs(t, f, s.prompt, macs.decode_context), b),
                      add(read, m.bytesOf(MemoryKey::kKvCache)), b});
  }
  return phases;
}

// --- stage 7: the summary ------------------------------------------------------------------

void summarise(const Transformer& t, const Workload& w, const Settings& s, const Forward& f,
               TransformerSummary& sum) {
  const int64_t b = w.batch;
  sum.seq_len = s.train ? s.seq : s.prompt;
  sum.generated_tokens = s.train ? 0 : s.generated;
  sum.context_tokens = s.train ? s.seq : add(s.cached, s.prompt, s.generated);
  sum.tokens_per_step = s.train ? mul(b, s.seq, w.grad_accum) : mul(b, add(s.prompt, s.generated));
  int64_t core_per_token = 0;  // QK^T and AV of one token, local layers within their window
  for (int64_t i = 0; i < t.layers; ++i)
    core_per_token =
        add(core_per_token, attentionCoreMacs(t, attendedKeys(t, i, sum.context_tokens)));
  if (t.kind == TransformerKind::kEncoderDecoder)
    core_per_token =
        add(core_per_token, mul(t.encoder_layers, attentionCoreMacs(t, sum.context_tokens)));
  sum.forward_flops_per_token =
      mul(2, add(add(sum.params.block_linear_per_token, f.head_macs_per_token, core_per_token),
                 f.embed_macs_per_token));
  sum.kv_cache_bytes_per_token =
      s.decoder_side ? bytesForBits(kvCacheElements(t, w.mla_cache, 1), dtypeBits(s.kv_dtype)) : 0;
  sum.images = s.images;
  sum.image_tokens = s.image_tokens;
  if (t.vision) sum.vision_macs_per_image = visionCosts(*t.vision, w).macs;
  sum.text_only_of = t.text_only_of;
}

// --- stage 8: rows -------------------------------------------------------------------------

/// Parameters of one layer's attention and MLP (a dense and a MoE layer where they differ),
/// and of each sublayer's norms.
struct LayerParams {
  int64_t attention = 0, moe_mlp = 0, dense_mlp = 0;
  int64_t attention_norms = 0, mlp_norms = 0, norm = 0;
};

LayerParams layerParams(const Transformer& t) {
  auto oneLayer = [&](bool dense) {
    Transformer one = t;
    one.kind = TransformerKind::kDecoder;
    one.layers = 1;
    one.dense_layers = {dense};
    return countParams(one);
  };
  LayerParams lp;
  lp.attention = oneLayer(false).attention;
  lp.moe_mlp = oneLayer(false).mlp;
  lp.dense_mlp = oneLayer(true).mlp;
  lp.norm = normParams(t);
  // Norms by sublayer: before (BERT: after) attention and MLP; Gemma 2 both; q/k norms.
  lp.attention_norms = t.norms_per_layer == 4 ? 2 * lp.norm : lp.norm;
  if (t.qk_norm) lp.attention_norms = add(lp.attention_norms, qkNormParams(t));
  lp.mlp_norms = t.norms_per_layer == 4 ? 2 * lp.norm : t.norms_per_layer == 2 ? lp.norm : 0;
  return lp;
}

/// Sets `figure`'s formula of row `l` (replacing the row's plain one).
void setFormula(LayerReport& l, RowFormula f) {
  for (RowFormula& have : l.formulas) {
    if (have.figure == f.figure) {
      have = std::move(f);
      return;
    }
  }
  l.formulas.push_back(std::move(f));
}

/// Makes the language model's rows at the workload's batch: each row's figures and the
/// formulas they follow from (per sequence times the batch), which explain.cpp writes out.
struct RowMaker {
  const Transformer& t;
  const Workload& w;
  const Settings& s;
  Report& r;
  int64_t b, e, h;
  std::string value_note;  ///< the activations' dtype
  std::string recompute;   ///< "recompute none|selective|full", the note of kept bytes
  /// Rows' forward traffic: the weights they read (block matrices in weight_dtype, the rest
  /// in the precision's format) plus their input read and output written.
  int block_bits, other_bits;

  RowMaker(const Transformer& t_, const Workload& w_, const Settings& s_, Report& r_)
      : t(t_), w(w_), s(s_), r(r_), b(w_.batch), e(s_.value_bytes), h(t_.hidden) {
    value_note = dtypeName(s.layout.activations);
    recompute = std::string("recompute ") + recomputeName(w.recompute);
    block_bits = dtypeBits(s.weight_dtype);
    other_bits = isQuantized(s.weight_dtype) ? dtypeBits(s.layout.weights) : block_bits;
  }

  LayerReport& row(const std::string& row_name, const std::string& type, int64_t tokens,
                   int64_t width, int64_t params, int64_t weight_bytes, int64_t macs_per_seq,
                   int64_t saved_per_seq) {
    LayerReport l;
    l.name = row_name;
    l.type = type;
    l.output_shape = {tokens, width};
    l.params = params;
    l.macs = mul(macs_per_seq, b);
    l.activation_bytes = s.train ? mul(saved_per_seq, b) : mul(tokens, e, mul(width, b));
    l.bytes_accessed = add(weight_bytes, mul(e, add(h, width), mul(tokens, b)));
    if (macs_per_seq)
      l.formulas.push_back(
          {"macs", "batch × per_sequence", {{"batch", b, ""}, {"per_sequence", macs_per_seq, ""}}});
    if (s.train) {
      l.formulas.push_back({"activation_bytes",
                            "batch × per_sequence",
                            {{"batch", b, ""}, {"per_sequence", saved_per_seq, ""}}});
    } else {
      // Inference rows show the tensor each writes.
      l.formulas.push_back({"activation_bytes",
                            "batch × tokens × bytes_per_value × width",
                            {{"batch", b, ""},
                             {"tokens", tokens, ""},
                             {"bytes_per_value", e, value_note},
                             {"width", width, ""}}});
    }
    r.layers.push_back(std::move(l));
    return r.layers.back();
  }

  /// Training rows of a layer keep kept_per_token bytes for each token.
  void kept(LayerReport& l, int64_t tokens, int64_t per_token, std::string note = "") const {
    if (!s.train) return;
    setFormula(l,
               {"activation_bytes",
                "batch × tokens × kept_per_token",
                {{"batch", b, ""}, {"tokens", tokens, ""}, {"kept_per_token", per_token, note}}});
  }
};

/// The embeddings' row: an embedding lookup reads one table row per token.
void addEmbeddingRow(RowMaker& m, const LayerParams& lp, const Forward& f,
                     const SequenceMemory& mem) {
  const Transformer& t = m.t;
  const TransformerParams& tp = m.r.transformer->params;
  const int64_t first_tokens = f.stacks.front().tokens;
  LayerReport& embed =
      m.row("embeddings", "embedding", first_tokens, tokenWidth(t),
            add(tp.embeddings, t.embedding_norm ? lp.norm : 0),
            bytesForBits(mul(first_tokens, m.b, tokenWidth(t)), m.other_bits), 0, mem.embed_saved);
  setFormula(embed,
             {"params",
              "embeddings + norm",
              {{"embeddings", tp.embeddings, ""}, {"norm", t.embedding_norm ? lp.norm : 0, ""}}});
  if (const int64_t proj = embedProjectionParams(t); proj > 0) {
    m.row("project_in", "linear", first_tokens, m.h, proj, bytesForBits(proj, m.other_bits),
          mul(first_tokens, proj), mem.project_in_saved);
  }
}

/// Layer `i` of stack `st`: its self-attention row (projections, norms, T5's relative bias
/// in the first layer) and, in a decoder of an encoder-decoder, its cross-attention row.
void addAttentionRows(RowMaker& m, const LayerParams& lp, const Stack& st, int64_t i) {
  const Transformer& t = m.t;
  const int64_t b = m.b, h = m.h;
  // Attention projections: q and o are hidden x q_width, k and v hidden x their widths
  // (attentionMatrixElements); MLA's low-rank pairs are summed as one input.
  const int64_t attn_matrices = attentionMatrixElements(t);
  const bool mla = t.kv_lora_rank > 0;
  const int64_t keys = attendedKeys(t, i, st.context);
  const int64_t attn_macs = mul(st.tokens, add(attentionLinearMacs(t), attentionCoreMacs(t, keys)));
  const std::string base = st.prefix + std::to_string(i) + ".";
  int64_t attn_p = add(lp.attention, lp.attention_norms);
  const int64_t relative_bias =
      t.positions == PositionKind::kRelativeBias && i == 0 ? mul(t.relative_buckets, t.heads) : 0;
  attn_p = add(attn_p, relative_bias);
  const int64_t attn_per_token = attentionKeptPerToken(t, m.w, m.s, st, i);
  LayerReport& attn =
      m.row(base + "attention", "attention", st.tokens, h, attn_p,
            bytesForBits(attn_p, m.block_bits), attn_macs, mul(st.tokens, attn_per_token));
  const std::string rel = relative_bias ? " + relative_bias" : "";
  std::vector<TermInput> p_in;
  if (mla) {
    p_in = {{"mla_matrices", attn_matrices, ""}};
  } else {
    p_in = {{"hidden", h, ""},
            {"q_width", queryWidth(t), ""},
            {"k_width", keyWidth(t), ""},
            {"v_width", valueWidth(t), ""}};
  }
  p_in.push_back({"biases", lp.attention - attn_matrices, ""});
  p_in.push_back({"norms", lp.attention_norms, ""});
  if (relative_bias) p_in.push_back({"relative_bias", relative_bias, ""});
  setFormula(attn, {"params",
                    (mla ? "mla_matrices" : "2 × hidden × q_width + hidden × (k_width + v_width)") +
                        std::string(" + biases + norms") + rel,
                    std::move(p_in)});
  // The attention core's MACs per token are linear in the keys attended.
  setFormula(attn, {"macs",
                    "batch × tokens × (projections + keys × core_width)",
                    {{"batch", b, ""},
                     {"tokens", st.tokens, ""},
                     {"projections", attentionLinearMacs(t), ""},
                     {"keys", keys, ""},
                     {"core_width", attentionCoreMacs(t, 1), ""}}});
  m.kept(attn, st.tokens, attn_per_token, m.recompute);
  if (!st.cross) return;
  const int64_t cross_macs =
      add(mul(st.tokens, add(crossQoMacs(t), attentionCoreMacs(t, st.cross_context))),
          mul(st.cross_context, mul(h, add(keyWidth(t), valueWidth(t)))));
  const int64_t cross_p = add(lp.attention, lp.norm, qkNormParams(t));
  const int64_t cross_per_token = crossKeptPerToken(t, m.w, m.s, st);
  LayerReport& cross =
      m.row(base + "cross_attention", "cross_attention", st.tokens, h, cross_p,
            bytesForBits(cross_p, m.block_bits), cross_macs, mul(st.tokens, cross_per_token));
  m.kept(cross, st.tokens, cross_per_token, m.recompute);
}

/// Layer `i` of stack `st`: its MLP row (a dense MLP spelled out, or the MoE block).
void addMlpRow(RowMaker& m, const LayerParams& lp, const Stack& st, int64_t i) {
  const Transformer& t = m.t;
  const int64_t b = m.b, h = m.h;
  const int64_t mlp_kinds = t.gated_mlp ? 3 : 2;
  const bool moe = isMoeLayer(t, i);
  const std::string base = st.prefix + std::to_string(i) + ".";
  const int64_t mlp_p = add(moe ? lp.moe_mlp : lp.dense_mlp, lp.mlp_norms);
  const int64_t mlp_per_token = mlpKeptPerToken(t, m.s, i);
  LayerReport& mlp = m.row(base + (moe ? "moe" : "mlp"), moe ? "moe" : "mlp", st.tokens, h, mlp_p,
                           bytesForBits(mlp_p, m.block_bits), mul(st.tokens, mlpMacs(t, i)),
                           mul(st.tokens, mlp_per_token));
  if (moe) {
    setFormula(
        mlp,
        {"params", "experts + norms", {{"experts", lp.moe_mlp, ""}, {"norms", lp.mlp_norms, ""}}});
    setFormula(mlp, {"macs",
                     "batch × tokens × active",
                     {{"batch", b, ""}, {"tokens", st.tokens, ""}, {"active", mlpMacs(t, i), ""}}});
  } else {
    const int64_t matrices = mul(mlp_kinds, h, t.ffn);
    setFormula(mlp, {"params",
                     "matrices × hidden × ffn + biases + norms",
                     {{"matrices", mlp_kinds, ""},
                      {"hidden", h, ""},
                      {"ffn", t.ffn, ""},
                      {"biases", lp.dense_mlp - matrices, ""},
                      {"norms", lp.mlp_norms, ""}}});
    setFormula(mlp, {"macs",
                     "batch × tokens × matrices × hidden × ffn",
                     {{"batch", b, ""},
                      {"tokens", st.tokens, ""},
                      {"matrices", mlp_kinds, ""},
                      {"hidden", h, ""},
                      {"ffn", t.ffn, ""}}});
  }
  m.kept(mlp, st.tokens, mlp_per_token, m.recompute);
}

/// What follows the last layer: the pooler, the LM head, the adapters' row.
void addOutputRows(RowMaker& m, const Forward& f, const SequenceMacs& macs,
                   const SequenceMemory& mem, const Adapters& ad) {
  const Transformer& t = m.t;
  const TransformerParams& tp = m.r.transformer->params;
  const int64_t b = m.b, h = m.h;
  if (t.pooler)
    m.row("pooler", "linear", 1, h, tp.other, bytesForBits(tp.other, m.other_bits), mul(h, h),
          mem.pooler_saved);
  if (m.s.decoder_side) {
    const int64_t proj = embedProjectionParams(t), width = tokenWidth(t);
    if (proj > 0)
      m.row("project_out", "linear", f.logit_tokens, width, proj, bytesForBits(proj, m.other_bits),
            mul(f.logit_tokens, proj), mem.project_out_saved);
    // A tied head still reads the whole vocab x width matrix.
    LayerReport& head =
        m.row("lm_head", t.tied_embeddings ? "linear (tied)" : "linear", f.logit_tokens, t.vocab,
              tp.lm_head,
              bytesForBits(add(mul(t.vocab, width), t.lm_head_bias ? t.vocab : 0), m.other_bits),
              mul(f.logit_tokens, checkedSub(f.head_macs_per_token, proj)), mem.head_saved);
    setFormula(head, {"macs",
                      "batch × tokens × hidden × vocab",
                      {{"batch", b, ""},
                       {"tokens", f.logit_tokens, ""},
                       {"hidden", width, t.word_embed_proj > 0 ? "word_embed_proj_dim" : ""},
                       {"vocab", t.vocab, ""}}});
  }
  if (m.s.lora && m.s.train) {
    m.row("lora_adapters", "lora", f.stacks.back().tokens, m.w.lora_rank, ad.params,
          mul(4, ad.params), macs.adapter, mul(f.stacks.back().tokens, ad.saved_per_token));
  }
}

/// Appends the language model's rows: embeddings, each layer's attention (cross-attention)
/// and MLP, final norms, pooler, LM head and adapters, at the workload's batch.
void addRows(const Transformer& t, const Workload& w, const Settings& s, const Forward& f,
             const SequenceMacs& macs, const SequenceMemory& mem, const Adapters& ad, Report& r) {
  RowMaker m(t, w, s, r);
  const LayerParams lp = layerParams(t);
  addEmbeddingRow(m, lp, f, mem);
  for (size_t si = 0; si < f.stacks.size(); ++si) {
    const Stack& st = f.stacks[si];
    for (int64_t i = 0; i < st.layers; ++i) {
      addAttentionRows(m, lp, st, i);
      addMlpRow(m, lp, st, i);
    }
    if (t.final_norm) {
      const std::string norm_name = f.stacks.size() > 1
                                        ? (si == 0 ? "encoder.final_norm" : "decoder.final_norm")
                                        : "final_norm";
      LayerReport& norm = m.row(norm_name, "norm", st.tokens, m.h, lp.norm,
                                bytesForBits(lp.norm, m.other_bits), 0, mul(st.tokens, m.e, m.h));
      m.kept(norm, st.tokens, mul(m.e, m.h));
    }
  }
  addOutputRows(m, f, macs, mem, ad);
}

/// The vision tower's rows (embeddings, each encoder layer, post-norm and pooling head) and
/// the projector's, for the sample's images at the workload's batch: they run before the
/// language model, so they come first.
void addVisionRows(const Transformer& t, const Workload& w, const Settings& s, Report& r) {
  if (!t.vision) return;
  const VisionTower& v = *t.vision;
  const VisionParts parts = visionParamParts(v);
  const VisionCosts vc = visionCosts(v, w);
  const int64_t b = w.batch, e = s.value_bytes, n = s.images;
  const int64_t tokens = mul(vc.passes, vc.tokens);  // per image
  const int bits = dtypeBits(s.layout.weights);
  auto row = [&](const std::string& name, const std::string& type, int64_t rows, int64_t width,
                 int64_t params, int64_t macs_per_image, int64_t saved_per_image) {
    LayerReport l;
    l.name = name;
    l.type = type;
    l.output_shape = {rows, width};
    l.params = params;
    l.macs = mul(macs_per_image, n, b);
    const int64_t out_bytes = mul(mul(rows, width), e, mul(n, b));
    l.activation_bytes = s.train ? (s.lora ? 0 : mul(saved_per_image, n, b)) : out_bytes;
    l.bytes_accessed = add(bytesForBits(params, bits), out_bytes);
    if (macs_per_image) {
      l.formulas.push_back(
          {"macs",
           "batch × images × per_image",
           {{"batch", b, ""}, {"images", n, ""}, {"per_image", macs_per_image, ""}}});
    }
    r.layers.push_back(std::move(l));
  };
  row("vision_tower.embeddings", "patch_embedding", tokens, v.hidden, parts.embeddings,
      vc.embed_macs, vc.embed_saved_bytes);
  for (int64_t i = 0; i < v.layers; ++i) {
    row("vision_tower.layers." + std::to_string(i), "vision_layer", tokens, v.hidden, parts.layer,
        vc.layer_macs, vc.layer_saved_bytes);
  }
  if (parts.tail > 0)
    row("vision_tower.post_norm", "norm", tokens, v.hidden, parts.tail, vc.head_macs,
        vc.tail_saved_bytes);
  const ProjectorLinear& last = v.projector.back();
  row("multi_modal_projector", "projector", last.rows_per_image, last.out, visionProjectorParams(v),
      vc.projector_macs, vc.projector_saved_bytes);
}

// --- stage 8: the timeline's events at layer granularity ----------------------------------

/// The layers' names, in forward order over the stacks ("layers.0", "encoder.layers.0", ...).
std::vector<std::string> layerNames(const Forward& f) {
  std::vector<std::string> names;
  for (const Stack& st : f.stacks)
    for (int64_t i = 0; i < st.layers; ++i) names.push_back(st.prefix + std::to_string(i));
  return names;
}

/// An event whose gradients and activations are a floor of the straight line from `a` to
/// `b` at k / n: below the larger of the two at any batch, so it never outdoes the candidates.
TimelineEvent between(const TimelineEvent& a, const TimelineEvent& b, int64_t k, int64_t n) {
  TimelineEvent e;
  const auto line = [&](int64_t x, int64_t y) {
    const long double v = static_cast<long double>(x) + (static_cast<long double>(y) - x) * k / n;
    return std::min(std::max(static_cast<int64_t>(v), std::min(x, y)), std::max(x, y));
  };
  e.gradient_delta = line(a.gradient_delta, b.gradient_delta);
  e.live_per_sample = line(a.live_per_sample, b.live_per_sample);
  return e;
}

/// The training step's backward events: the loss, the LM head, each layer top down (its
/// forward re-run first under recomputation), the embeddings. The candidates sumTerms chose
/// from are placed where backwardCandidates computes them (index 0: the logits' backward,
/// 1: the top layer's; then under zero_grad zero the embeddings' and the head's, under
/// set_to_none for alike layers the first layer's and the embeddings', else the
/// embeddings'); the events between two are on the line joining them, those after the last
/// equal to it.
std::vector<TimelineEvent> backwardEvents(const std::vector<BackwardCandidate>& cands,
                                          const std::vector<std::string>& names, int64_t kept,
                                          bool kept_grads) {
  const auto n = static_cast<int64_t>(names.size());
  // Slots: 0 loss, 1 head, 2 + j the layer n-1-j, 2 + n the embeddings.
  std::vector<std::optional<BackwardCandidate>> anchor(static_cast<size_t>(n + 3));
  anchor[0] = cands[0];
  anchor[static_cast<size_t>(n > 0 ? 2 : 1)] = cands[1];
  if (kept_grads && cands.size() >= 3) {
    anchor[static_cast<size_t>(n + 2)] = cands[2];
    if (cands.size() == 4) anchor[1] = cands[3];
  } else if (cands.size() == 4) {
    anchor[static_cast<size_t>(n + 1)] = cands[2];
    anchor[static_cast<size_t>(n + 2)] = cands[3];
  } else if (cands.size() == 3) {
    anchor[static_cast<size_t>(n + 2)] = cands[2];
  }
  const auto event = [&](const BackwardCandidate& c) {
    TimelineEvent e;
    e.gradient_delta = c.gradient_delta;
    e.live_per_sample = checkedAdd(kept, c.extra_per_sample);
    return e;
  };
  std::vector<TimelineEvent> slots(anchor.size());
  size_t last = 0;
  for (size_t k = 0; k < anchor.size(); ++k) {
    if (!anchor[k]) continue;
    slots[k] = event(*anchor[k]);
    for (size_t j = last + 1; j < k; ++j)
      slots[j] = between(slots[last], slots[k], static_cast<int64_t>(j - last),
                         static_cast<int64_t>(k - last));
    last = k;
  }
  for (size_t j = last + 1; j < slots.size(); ++j) slots[j] = slots[last];
  slots[0].op = "loss";
  slots[1].op = "lm_head";
  for (int64_t j = 0; j < n; ++j)
    slots[static_cast<size_t>(2 + j)].op = names[static_cast<size_t>(n - 1 - j)];
  slots[static_cast<size_t>(n + 2)].op = "embeddings";
  return slots;
}

/// The saved bytes per sequence after each forward event: the embeddings (and image tower),
/// each layer an equal share of the layers' saved tensors, the head the rest.
std::vector<int64_t> savedAfter(const SequenceMemory& m, int64_t layers) {
  const int64_t first = add(m.embed_saved, m.vision, m.project_in_saved);
  const int64_t head = add(m.final_saved, m.head_saved, add(m.pooler_saved, m.project_out_saved));
  const int64_t body = std::max<int64_t>(0, checkedSub(m.activations, add(first, head)));
  std::vector<int64_t> out{std::min(first, m.activations)};
  for (int64_t i = 1; i <= layers; ++i)
    out.push_back(std::min(add(first, body / layers * i), m.activations));
  out.push_back(m.activations);
  return out;
}

/// Training: forward (embeddings, layers, head), then backwardEvents with each layer's
/// recomputation before its backward, then the optimizer step.
std::vector<TimelineEvent> trainingEvents(const Workload& w, const Forward& f,
                                          const SequenceMemory& m,
                                          const std::vector<BackwardCandidate>& cands,
                                          int64_t grads) {
  const std::vector<std::string> names = layerNames(f);
  const auto n = static_cast<int64_t>(names.size());
  const bool kept_grads = w.zero_grad == ZeroGrad::kZero;
  const std::vector<int64_t> saved = savedAfter(m, n);
  std::vector<TimelineEvent> out;
  for (size_t k = 0; k < saved.size(); ++k) {
    TimelineEvent& e = out.emplace_back();
    e.op = k == 0 ? "embeddings" : k + 1 == saved.size() ? "lm_head" : names[k - 1];
    e.gradient_delta = kept_grads ? 0 : -grads;
    e.live_per_sample = e.saved_per_sample = saved[k];
  }
  const std::vector<TimelineEvent> back = backwardEvents(cands, names, m.activations, kept_grads);
  for (size_t k = 0; k < back.size(); ++k) {
    TimelineEvent e = back[k];
    e.phase = TimelinePhase::kBackward;
    // Saved then: all of them at the loss and head, the layers' up to this one, the first's.
    const size_t layer =
        k < 2 ? saved.size() - 1 : std::min(saved.size() - 1, static_cast<size_t>(n) + 2 - k);
    e.saved_per_sample = std::max<int64_t>(0, std::min(saved[layer], e.live_per_sample));
    if (k >= 2 && k < back.size() - 1 && w.recompute != Recompute::kNone) {
      // The forward re-run: the gradients of the op before, the lesser activations of both.
      TimelineEvent r = e;
      r.phase = TimelinePhase::kRecompute;
      r.gradient_delta = std::min(e.gradient_delta, out.back().gradient_delta);
      r.live_per_sample = std::min(e.live_per_sample, out.back().live_per_sample);
      r.saved_per_sample = std::min(r.saved_per_sample, r.live_per_sample);
      out.push_back(r);
    }
    out.push_back(e);
  }
  TimelineEvent& step = out.emplace_back();
  step.op = "optimizer";
  step.phase = TimelinePhase::kOptimizerStep;
  return out;
}

/// Inference: the image tower, the embeddings, each layer's prefill (its working set, the
/// logits not yet made), the LM head with the last token's logits: the activations' peak.
std::vector<TimelineEvent> inferenceEvents(const Transformer& t, const Settings& s,
                                           const Forward& f, const SequenceMemory& m) {
  std::vector<TimelineEvent> out;
  const auto add_event = [&](std::string op, int64_t live) {
    TimelineEvent& e = out.emplace_back();
    e.op = std::move(op);
    e.live_per_sample = e.saved_per_sample = std::max<int64_t>(0, std::min(live, m.activations));
  };
  if (m.vision > 0) add_event("vision_tower", m.vision);
  const int64_t logits = s.decoder_side ? mul(s.value_bytes + 4, t.vocab) : 0;
  add_event("embeddings", mul(f.stacks.front().tokens, s.value_bytes, t.hidden));
  for (const std::string& name : layerNames(f)) add_event(name, checkedSub(m.activations, logits));
  add_event(s.decoder_side ? "lm_head" : "output", m.activations);
  return out;
}

}  // namespace

Report estimateTransformer(const std::string& name, const Transformer& t, const Workload& w,
                           std::vector<TimelineEvent>* events) {
  Report r;
  r.model_name = name;
  r.model_kind = "transformer";
  r.workload = w;
  TransformerSummary sum;
  sum.architecture = t.architecture;
  sum.approximate = t.approximate;
  sum.params = overflowAt("", "the model's sizes", [&] { return countParams(t); });
  const TransformerParams& tp = sum.params;

  const Settings s = resolveSettings(t, w, r.warnings);
  const std::string tokens = std::to_string(s.longest) + " tokens";
  const std::string batch = "batch " + std::to_string(w.batch) + " × " + tokens;
  // Per sequence: a sequence too long overflows at the field that sets its length.
  const Forward f =
      overflowAt(s.longest_path, tokens + " make the MACs", [&] { return forwardPass(t, s); });
  const Adapters ad = s.lora && s.train
                          ? overflowAt("/workload/lora_rank", "the adapters' sizes",
                                       [&] { return loraAdapters(t, w, s.adapter_bytes); })
                          : Adapters{};
  const SequenceMacs macs = overflowAt(s.longest_path, tokens + " make the MACs",
                                       [&] { return sequenceMacs(t, w, s, f, ad); });
  const SequenceMemory mem = overflowAt(s.longest_path, tokens + " make the activations",
                                        [&] { return sequenceMemory(t, w, s, f, ad); });
  const BlockMatrices bm =
      overflowAt("", "the model's sizes", [&] { return blockMatrices(t, w.quant_group_size); });
  r.params.adapters = ad.params;
  r.params.total = overflowAt("", "the model's sizes", [&] { return add(tp.total, ad.params); });
  r.params.trainable = s.lora && s.train ? ad.params : tp.total;

  // At the workload's batch: totals too large overflow at the batch.
  overflowAt("/workload/batch", batch + " make the totals", [&] {
    const int64_t b = w.batch;
    // The step's totals are 128-bit (a large training step passes 64 bits: wide_count.hpp).
    r.macs.forward = s.train ? WideCount(macs.forward) * b * w.grad_accum
                             : WideCount(add(macs.forward, macs.decode)) * b;
    r.macs.backward = WideCount(macs.backward) * b * w.grad_accum;
    std::vector<MemoryTerm> terms = modelStates(t, tp, w, s, bm, ad);
    addSequenceTerms(t, s, mem, b, terms);
    terms.push_back(overheadTerm(w));
    std::vector<BackwardCandidate> candidates;
    if (s.train) candidates = backwardCandidates(t, w, s, tp, f, mem, terms, ad);
    if (events && s.train) {
      int64_t grads = 0;  // as gradientDeltaTerm counts them
      for (const MemoryTerm& term : terms) {
        if (term.key == MemoryKey::kGradients || term.key == MemoryKey::kAdapterGradients)
          grads = add(grads, term.fixed);
      }
      *events = trainingEvents(w, f, mem, candidates, grads);
    } else if (events) {
      *events = inferenceEvents(t, s, f, mem);
    }
    r.memory = sumTerms(std::move(terms), b, std::move(candidates));
    for (MemoryTerm& term : r.memory.terms) {
      if (term.key == MemoryKey::kBackwardGradientDelta) term.inputs[0].value += term.fixed;
      if (term.key == MemoryKey::kBackwardPeakExtra) term.inputs[1].value = term.per_sample;
    }
    if (s.train) r.memory.first_step_total = firstStepTotal(t, w, s, tp, f, mem, ad, r.memory);
    if (w.memory_bytes) r.max_batch = r.memory.maxBatch(*w.memory_bytes);
    r.phases = rooflinePhases(t, w, s, f, macs, r.memory, bm);
    summarise(t, w, s, f, sum);
    r.transformer = sum;
    addVisionRows(t, w, s, r);
    addRows(t, w, s, f, macs, mem, ad, r);
    return 0;
  });
  if (!s.train && s.lora) r.warnings.push_back("finetune applies to training only");
  return r;
}

}  // namespace dlcost
