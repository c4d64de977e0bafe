#include "serving/vllm_stages.hpp"

#include "dlcost/base/checked.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/memory/memory_terms.hpp"
#include "dlcost/memory/quant_formats.hpp"

namespace dlcost {

std::vector<int64_t> vllmStageLayers(int64_t layers, int64_t pp) {
  std::vector<int64_t> parts(static_cast<size_t>(pp), layers / pp);
  const int64_t remaining = layers % pp;
  // for i in range(2, remaining + 2): partitions[-i] += 1
  for (int64_t i = 2; i < remaining + 2; ++i) ++parts[static_cast<size_t>(pp - i)];
  return parts;
}

std::vector<PipelineStage> vllmStages(const Transformer& t, const Workload& w) {
  if (w.serving.quant == QuantFormat::kNone && w.weight_dtype && isQuantized(*w.weight_dtype)) {
    throw InputError(ErrorCode::kValue, "/workload/pp",
                     "pipeline stages are planned from a checkpoint format's tensors: give the "
                     "quantized weights as quant (gptq, awq, fp8, ...), not weight_dtype");
  }
  const int64_t pp = w.hardware.parallel.pp, tp = w.hardware.parallel.tp;
  const QuantizedWeights q = quantizedWeights(t, w);
  std::vector<PipelineStage> stages;
  int64_t first = 0;
  for (const int64_t n : vllmStageLayers(t.layers, pp)) {
    PipelineStage s;
    s.first_layer = first;
    s.layers = n;
    int64_t bytes = 0;
    for (int64_t i = first; i < first + n; ++i)
      bytes = checkedAdd(bytes, q.layer_bytes[static_cast<size_t>(i)]);
    const bool is_first = first == 0, is_last = first + n == t.layers;
    if (is_first) bytes = checkedAdd(bytes, q.input_bytes);
    if (is_last) {
      bytes = checkedAdd(bytes, q.output_bytes);
      // Tied: the last rank builds embed_tokens too, and the LM head shares it.
      if (t.tied_embeddings && !is_first) bytes = checkedAdd(bytes, q.input_bytes);
    }
    s.weight_bytes = ceilDiv(bytes, tp);
    stages.push_back(s);
    first += n;
  }
  return stages;
}

}  // namespace dlcost
