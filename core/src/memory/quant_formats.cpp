// Exact weight bytes per checkpoint quantization format. Each format's per-matrix layout is
// cited where it is computed; which tensors stay unquantized follows each tool's defaults.
#include "dlcost/memory/quant_formats.hpp"

#include <algorithm>

#include "dlcost/base/checked.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/types/ggml_types.hpp"
#include "dlcost/types/memory.hpp"

namespace dlcost {

namespace {

// Every product and sum of sizes goes through checked arithmetic.
using namespace checked;

/// Bytes of one quantized matrix: its packed values and everything stored beside them.
struct MatrixBytes {
  int64_t values = 0;
  int64_t scales = 0;
};

/// A matrix of `in` inputs and `out` outputs (nn.Linear's in_features, out_features).
MatrixBytes formatMatrix(const ServingSettings& s, int64_t group, int64_t in, int64_t out) {
  const int64_t n = mul(in, out);
  const int64_t g = group >= in ? in : group;
  const int64_t groups = ceilDiv(in, g);
  const int b = s.quant_bits;
  switch (s.quant) {
    case QuantFormat::kGptq:
      // AutoGPTQ / GPTQModel QuantLinear buffers: qweight int32 [in * bits / 32, out],
      // qzeros int32 [groups, out * bits / 32], scales fp16 [groups, out], g_idx int32 [in]
      // (always saved, act-order or not).
      return {bytesForBits(n, b),
              add(add(bytesForBits(mul(groups, out), b), mul(2, mul(groups, out))), mul(4, in))};
    case QuantFormat::kAwq:
      // AutoAWQ WQLinear_GEMM: qweight int32 [in, out / 8], qzeros int32 [groups, out / 8],
      // scales fp16 [groups, out].
      return {bytesForBits(n, 4), add(bytesForBits(mul(groups, out), 4), mul(2, mul(groups, out)))};
    case QuantFormat::kBnbNf4:
    case QuantFormat::kBnbFp4: {
      // bitsandbytes.functional.quantize_4bit, blocksize 64: two values per byte; absmax one
      // fp32 per block, or (compress_statistics, i.e. double quant) one byte per block plus
      // one fp32 per 256 blocks and an fp32 offset; the 16-entry fp32 code of each QuantState.
      const int64_t blocks = ceilDiv(n, 64);
      const int64_t absmax =
          s.bnb_double_quant ? add(add(blocks, mul(4, ceilDiv(blocks, 256))), 4) : mul(4, blocks);
      return {ceilDiv(n, 2), add(absmax, 64)};
    }
    case QuantFormat::kFp8Tensor:
      return {n, 4};  // one fp32 weight_scale per matrix
    case QuantFormat::kFp8Channel:
      return {n, mul(4, out)};  // one fp32 scale per output channel
    case QuantFormat::kFp8Block:
      // DeepSeek-V3's weight_scale_inv: fp32 [ceil(out / 128), ceil(in / 128)].
      return {n, mul(4, mul(ceilDiv(out, 128), ceilDiv(in, 128)))};
    case QuantFormat::kMxfp4:
      // OCP MX v1.0: 32 E2M1 values (16 bytes) share one E8M0 scale byte.
      return {n / 2, n / 32};
    case QuantFormat::kNvfp4:
      // 16 E2M1 values (8 bytes) share one FP8 E4M3 scale; one fp32 weight global scale and
      // one fp32 input global scale per matrix (compressed-tensors / ModelOpt NVFP4).
      return {n / 2, add(n / 16, 8)};
    case QuantFormat::kNone:
    case QuantFormat::kGguf:
      break;
  }
  return {};
}

/// ggml type ids (ggml.h's enum ggml_type).
constexpr uint32_t kF32 = 0, kF16 = 1, kQ4_0 = 2, kQ5_0 = 6, kQ5_1 = 7, kQ8_0 = 8, kQ4_K = 12,
                   kQ5_K = 13, kQ6_K = 14, kBf16 = 30, kMxfp4 = 39;

uint32_t defaultGgmlType(GgufFileType f) {
  switch (f) {
    case GgufFileType::kF16:
      return kF16;
    case GgufFileType::kBf16:
      return kBf16;
    case GgufFileType::kQ8_0:
      return kQ8_0;
    case GgufFileType::kQ6_K:
      return kQ6_K;
    case GgufFileType::kQ5_K_M:
      return kQ5_K;
    case GgufFileType::kQ4_K_M:
    case GgufFileType::kQ4_K_S:
      return kQ4_K;
    case GgufFileType::kQ4_0:
      return kQ4_0;
    case GgufFileType::kMxfp4Moe:
      return kQ8_0;  // the matrices that are not experts; ggufExpertType gives the experts'
  }
  return kF16;
}

bool isQuantizedGgml(uint32_t id) {
  return id != kF32 && id != kF16 && id != kBf16;
}

/// What llama-quant.cpp's llama_tensor_get_type_impl tells tensors apart by.
enum class Category { kOther, kAttnV, kAttnK, kAttnOutput, kFfnDown };

Category categoryOf(const LinearModule& m) {
  const auto has = [&](const char* l) {
    return std::find(m.logical.begin(), m.logical.end(), l) != m.logical.end();
  };
  // category_is_attn_v: attn_v, the fused attn_qkv and MLA's attn_kv_b.
  if (has("v_proj")) return Category::kAttnV;
  if (has("k_proj")) return Category::kAttnK;
  if (has("o_proj")) return Category::kAttnOutput;
  if (has("down_proj")) return Category::kFfnDown;
  return Category::kOther;
}

/// llama-quant.cpp: use_more_bits(i_layer, n_layers).
bool useMoreBits(int64_t i, int64_t n) {
  return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

/// A tensor's ggml type after the shape fallback of tensor_type_fallback (llama-quant.cpp):
/// rows must be whole blocks; K-quants fall back to legacy types, then to F16.
uint32_t fitRow(uint32_t id, int64_t row) {
  const GgmlType* type = ggmlType(id);
  if (row % type->block_size == 0) return id;
  uint32_t fallback = kF16;
  if (id == kQ4_K) fallback = kQ5_0;
  if (id == kQ5_K) fallback = kQ5_1;
  if (id == kQ6_K) fallback = kQ8_0;
  return row % ggmlType(fallback)->block_size == 0 ? fallback : kF16;
}

/// The type of block tensor `m` of layer `i` under llama_tensor_get_type_impl for the file
/// types dlcost offers (the Q4_K_M/Q5_K_M/Q4_K_S branches; Q8_0, Q6_K, Q4_0 keep the default).
/// MXFP4_MOE has a branch of its own before every name rule: a 3-D tensor (ne[2] > 1, the
/// experts stacked) is MXFP4, any other Q8_0.
uint32_t ggufBlockType(const Transformer& t, GgufFileType f, Category c, int64_t i, int64_t n,
                       bool expert) {
  if (f == GgufFileType::kMxfp4Moe) return expert ? kMxfp4 : kQ8_0;
  uint32_t type = defaultGgmlType(f);
  if (!isQuantizedGgml(type)) return type;
  const bool k_m = f == GgufFileType::kQ4_K_M || f == GgufFileType::kQ5_K_M;
  const bool eight_experts = t.experts == 8;
  const bool falcon = t.architecture == "falcon";
  switch (c) {
    case Category::kAttnV:
      if (k_m && useMoreBits(i, n)) type = kQ6_K;
      if (f == GgufFileType::kQ4_K_S && i < 4) type = kQ5_K;
      // LLM_TYPE_70B (llama with 80 layers and GQA): attn_v Q4_K becomes Q5_K.
      if (t.architecture == "llama" && t.layers == 80 && t.kv_heads != t.heads && type == kQ4_K)
        type = kQ5_K;
      if (eight_experts) type = kQ8_0;
      break;
    case Category::kAttnK:
      if (eight_experts) type = kQ8_0;
      break;
    case Category::kFfnDown:
      if (f == GgufFileType::kQ4_K_M) {
        if (falcon)
          type = i < n / 16 ? kQ6_K : useMoreBits(i, n) ? kQ5_K : kQ4_K;
        else if (useMoreBits(i, n))
          type = kQ6_K;
      } else if (f == GgufFileType::kQ5_K_M && useMoreBits(i, n)) {
        type = kQ6_K;
      } else if (f == GgufFileType::kQ4_K_S && !falcon && i < n / 8) {
        type = kQ5_K;
      }
      break;
    case Category::kAttnOutput:
      if (!falcon && eight_experts && (f == GgufFileType::kQ4_K_M || f == GgufFileType::kQ4_K_S))
        type = kQ5_K;
      break;
    case Category::kOther:
      break;
  }
  return type;
}

/// The output tensor's type (and a tied token embedding's): Q6_K unless the default is Q8_0,
/// Q8_0 for Falcon, MXFP4_MOE or rows that are not whole blocks (llama-quant.cpp).
uint32_t ggufOutputType(const Transformer& t, GgufFileType f) {
  const uint32_t type = defaultGgmlType(f);
  if (!isQuantizedGgml(type)) return type;
  if (t.architecture == "falcon" || t.hidden % ggmlType(type)->block_size != 0) return kQ8_0;
  return type == kQ8_0 ? kQ8_0 : kQ6_K;
}

/// One decoder layer as its own model, to count what a dense or a MoE layer holds.
Transformer oneLayer(const Transformer& t, bool dense) {
  Transformer one = t;
  one.layers = 1;
  one.dense_layers = {dense};
  one.local_layers.clear();
  return one;
}

std::string path(const char* field) {
  return std::string("/workload/") + field;
}

void checkFormat(const Transformer& t, const Workload& w) {
  const ServingSettings& s = w.serving;
  if (t.kind != TransformerKind::kDecoder) {
    throw InputError(
        ErrorCode::kValue, path("quant"),
        "quantization formats are modelled for decoder LLMs; " + t.architecture + " is not one");
  }
  if (s.quant == QuantFormat::kGptq && s.quant_bits != 2 && s.quant_bits != 3 &&
      s.quant_bits != 4 && s.quant_bits != 8) {
    throw InputError(ErrorCode::kValue, path("quant_bits"), "GPTQ stores 2, 3, 4 or 8 bits");
  }
  if (s.quant == QuantFormat::kAwq && s.quant_bits != 4) {
    throw InputError(ErrorCode::kValue, path("quant_bits"), "AWQ stores 4 bits only");
  }
}

}  // namespace

namespace {

/// The block tensors, layer by layer (a dense and a MoE layer differ): their values and
/// scales as the format stores them, the rest of each layer kept.
void addBlockTensors(const Transformer& t, const Workload& w, QuantizedWeights& q) {
  const ServingSettings& s = w.serving;
  // Unquantized (quant none): every tensor as stored, in weight_dtype or the precision's.
  const int kept_bits = s.quant == QuantFormat::kNone && w.weight_dtype
                            ? dtypeBits(*w.weight_dtype)
                            : dtypeBits(layoutOf(w.precision).weights);
  const bool gguf = s.quant == QuantFormat::kGguf;
  q.layer_bytes.assign(static_cast<size_t>(t.layers), 0);
  int64_t n_down = 0;  // llama-quant's n_ffn_down: tensors named ffn_down*
  for (int64_t i = 0; i < t.layers; ++i)
    for (const LinearModule& m : blockLinearModules(oneLayer(t, !isMoeLayer(t, i))))
      if (categoryOf(m) == Category::kFfnDown) ++n_down;
  int64_t down_seen = 0;
  for (int64_t i = 0; i < t.layers; ++i) {
    const Transformer one = oneLayer(t, !isMoeLayer(t, i));
    const TransformerParams p = countParams(one);
    int64_t linear = 0, bytes = 0;
    for (const LinearModule& m : blockLinearModules(one)) {
      const int64_t n = mul(m.in, m.out);
      linear = add(linear, mul(n, m.copies));
      const bool expert = m.copies > 1;
      int64_t values = 0, scales = 0;
      if (gguf) {
        const Category c = categoryOf(m);
        // ffn_down's layer: parsed from the name under MoE, the running count otherwise.
        const int64_t index = c == Category::kFfnDown ? (t.experts > 1 ? i : down_seen++) : i;
        const int64_t count =
            c == Category::kFfnDown ? (t.experts > 1 ? t.layers : n_down) : t.layers;
        const uint32_t type = fitRow(ggufBlockType(t, s.gguf_type, c, index, count, expert), m.in);
        values = mul(ggmlBytes(*ggmlType(type), n), m.copies);
        if (isQuantizedGgml(type)) q.quantized = add(q.quantized, mul(n, m.copies));
      } else if (s.quant == QuantFormat::kNone) {
        values = bytesForBits(mul(n, m.copies), kept_bits);
      } else if (s.quant == QuantFormat::kMxfp4 && t.experts > 0 && !expert) {
        // gpt-oss's checkpoint: only the experts are MXFP4; attention stays bf16.
        values = bytesForBits(mul(n, m.copies), kept_bits);
      } else {
        const int64_t row = s.quant == QuantFormat::kMxfp4   ? 32
                            : s.quant == QuantFormat::kNvfp4 ? 16
                                                             : 1;
        if (m.in % row != 0) {
          throw InputError(ErrorCode::kValue, path("quant"),
                           m.name + " has " + std::to_string(m.in) + " inputs, not a multiple of " +
                               quantFormatName(s.quant) + "'s " + std::to_string(row) +
                               "-value blocks");
        }
        const MatrixBytes mb = formatMatrix(s, w.quant_group_size, m.in, m.out);
        values = mul(mb.values, m.copies);
        scales = mul(mb.scales, m.copies);
        q.quantized = add(q.quantized, mul(n, m.copies));
      }
      q.values = add(q.values, values);
      q.scales = add(q.scales, scales);
      if (expert) q.expert_bytes = add(q.expert_bytes, add(values, scales));
      bytes = add(bytes, add(values, scales));
    }
    // The rest of the layer (norms, biases, router): 16-bit, F32 in GGUF files (the converter
    // writes 1-D tensors and ffn_gate_inp as F32).
    const int64_t final_norm = t.final_norm ? normParams(t) : 0;
    const int64_t rest =
        checkedSub(checkedSub(add(add(p.attention, p.mlp), p.norms), final_norm), linear);
    const int64_t rest_bytes = bytesForBits(rest, gguf ? 32 : kept_bits);
    q.kept = add(q.kept, rest_bytes);
    q.layer_bytes[static_cast<size_t>(i)] = add(bytes, rest_bytes);
  }
}

/// The embeddings, LM head and final norm.
void addEmbeddingsAndHead(const Transformer& t, const Workload& w, const TransformerParams& all,
                          QuantizedWeights& q) {
  const ServingSettings& s = w.serving;
  const int kept_bits = dtypeBits(layoutOf(w.precision).weights);
  const bool gguf = s.quant == QuantFormat::kGguf;
  const int64_t token_table = mul(t.vocab, t.hidden);
  const int64_t other_tables = checkedSub(all.embeddings, token_table);  // positions, types
  const int64_t final_norm = t.final_norm ? normParams(t) : 0;
  if (gguf) {
    // token_embd: the output's type when tied (one tensor serves both), else the default.
    const uint32_t out_type = fitRow(ggufOutputType(t, s.gguf_type), t.hidden);
    const uint32_t embd_type =
        t.tied_embeddings ? out_type : fitRow(defaultGgmlType(s.gguf_type), t.hidden);
    q.input_bytes = add(ggmlBytes(*ggmlType(embd_type), token_table), mul(2, other_tables));
    q.output_bytes = mul(4, final_norm);
    if (all.lm_head > 0) {
      const int64_t head = mul(t.vocab, t.hidden);
      q.output_bytes = add(q.output_bytes, ggmlBytes(*ggmlType(out_type), head));
      q.output_bytes = add(q.output_bytes, mul(4, checkedSub(all.lm_head, head)));  // bias
    }
    q.values = add(q.values, add(q.input_bytes, q.output_bytes));
    q.kept_note =
        "norms, biases and routers in F32; token_embd and output by llama-quantize's "
        "rules";
  } else {
    q.input_bytes = bytesForBits(all.embeddings, kept_bits);
    q.output_bytes = bytesForBits(add(all.lm_head, final_norm), kept_bits);
    q.kept = add(q.kept, add(q.input_bytes, q.output_bytes));
    q.kept_note = s.quant == QuantFormat::kMxfp4 && t.experts > 0
                      ? "attention, embeddings, LM head, norms and router in 16 bits (gpt-oss)"
                      : "embeddings, LM head, norms, biases and routers in 16 bits";
  }
}

}  // namespace

QuantizedWeights quantizedWeights(const Transformer& t, const Workload& w) {
  checkFormat(t, w);
  const TransformerParams all = countParams(t);
  QuantizedWeights q;
  addBlockTensors(t, w, q);
  addEmbeddingsAndHead(t, w, all, q);
  q.total = add(add(q.values, q.scales), q.kept);
  return q;
}

void applyQuantizedWeights(const QuantizedWeights& q, const Workload& w,
                           std::vector<MemoryTerm>& terms) {
  for (MemoryTerm& term : terms) {
    if (term.key == MemoryKey::kWeights) {
      term.fixed = add(q.values, q.kept);
      term.formula = "quantized values + unquantized tensors";
      term.inputs = {{"quantized", q.quantized, quantFormatName(w.serving.quant)},
                     {"quantized_values_bytes", q.values, ""},
                     {"unquantized_bytes", q.kept, q.kept_note}};
    }
  }
  terms.erase(std::remove_if(terms.begin(), terms.end(),
                             [](const MemoryTerm& t) { return t.key == MemoryKey::kQuantScales; }),
              terms.end());
  if (q.scales == 0) return;
  MemoryTerm s;
  s.key = MemoryKey::kQuantScales;
  s.sharding = Sharding::kZero3;
  s.fixed = q.scales;
  s.formula = "scales, zero points and indices of the quantized matrices";
  s.inputs = {{"bytes", q.scales, quantFormatName(w.serving.quant)}};
  terms.insert(terms.begin() + 1, std::move(s));
}

}  // namespace dlcost
