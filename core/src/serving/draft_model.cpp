#include "serving/draft_model.hpp"

#include <algorithm>
#include <cmath>

#include "dlcost/base/checked.hpp"
#include "dlcost/gpu/time_model.hpp"
#include "dlcost/memory/memory_terms.hpp"
#include "dlcost/memory/quant_formats.hpp"
#include "transformer/transformer_estimate.hpp"

namespace dlcost {

using namespace checked;

namespace {

/// Bits per value of the KV cache for HF, vLLM and SGLang: kv_dtype, else the activations'.
int kvBits(const Workload& w) {
  return dtypeBits(w.kv_dtype ? *w.kv_dtype : layoutOf(w.precision).activations);
}

/// KV values (K and V together) one sequence of `tokens` keeps in layer `layer`.
int64_t layerKvValues(const Transformer& t, const Workload& w, int64_t layer, int64_t tokens) {
  return mul(kvCacheWidth(t, w.mla_cache), attendedKeys(t, layer, tokens));
}

}  // namespace

int64_t kvBytes(const Transformer& t, const Workload& w, int64_t tokens) {
  int64_t values = 0;
  for (int64_t i = 0; i < t.layers; ++i) values = add(values, layerKvValues(t, w, i, tokens));
  const int64_t tp = w.hardware.parallel.tp;
  const int64_t split = t.kv_lora_rank > 0 ? 1 : std::min(tp, std::max<int64_t>(1, t.kv_heads));
  return bytesForBits(values / split, kvBits(w));
}

int64_t draftWeightBytes(const Workload& w) {
  Workload d = w;
  d.serving.quant = QuantFormat::kNone;
  d.weight_dtype.reset();
  return ceilDiv(quantizedWeights(*w.serving.draft, d).total, w.hardware.parallel.tp);
}

double tokensPerStep(double acceptance, int64_t proposed) {
  return (1.0 - std::pow(acceptance, static_cast<double>(proposed + 1))) / (1.0 - acceptance);
}

ForwardWork draftDecodeWork(const Workload& w, const Network& net, double sequences,
                            int64_t context, double flops_per_token) {
  const Transformer& d = *w.serving.draft;
  const double act_bytes = dtypeBits(layoutOf(w.precision).activations) / 8.0;
  ForwardWork f;
  f.op.flops = sequences * flops_per_token / static_cast<double>(w.hardware.parallel.tp);
  f.op.rows = sequences;
  f.op.bytes = static_cast<double>(draftWeightBytes(w)) +
               sequences * static_cast<double>(kvBytes(d, w, context));
  f.layers = d.layers;
  f.tp = w.hardware.parallel.tp;
  f.allreduce_bytes = sequences * static_cast<double>(d.hidden) * act_bytes;
  f.network = &net;
  return f;
}

}  // namespace dlcost
