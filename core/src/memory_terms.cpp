#include "dlcost/memory_terms.hpp"

#include "dlcost/checked.hpp"

namespace dlcost {

const char* memoryKeyName(MemoryKey key) {
  switch (key) {
    case MemoryKey::kWeights:
      return "weights";
    case MemoryKey::kQuantScales:
      return "quant_scales";
    case MemoryKey::kBuffers:
      return "buffers";
    case MemoryKey::kGradients:
      return "gradients";
    case MemoryKey::kMasterWeights:
      return "master_weights";
    case MemoryKey::kOptimizerStates:
      return "optimizer_states";
    case MemoryKey::kAdapterWeights:
      return "adapter_weights";
    case MemoryKey::kAdapterGradients:
      return "adapter_gradients";
    case MemoryKey::kAdapterOptimizerStates:
      return "adapter_optimizer_states";
    case MemoryKey::kActivations:
      return "activations";
    case MemoryKey::kBackwardPeakExtra:
      return "backward_peak_extra";
    case MemoryKey::kKvCache:
      return "kv_cache";
    case MemoryKey::kOverhead:
      return "overhead";
    case MemoryKey::kComputeBuffer:
      return "compute_buffer";
  }
  return "";
}

const char* memoryKeyLabel(MemoryKey key, Mode mode) {
  switch (key) {
    case MemoryKey::kWeights:
      return "weights";
    case MemoryKey::kQuantScales:
      return "quantization scales";
    case MemoryKey::kBuffers:
      return "buffers";
    case MemoryKey::kGradients:
      return "gradients";
    case MemoryKey::kMasterWeights:
      return "master weights (fp32)";
    case MemoryKey::kOptimizerStates:
      return "optimizer states";
    case MemoryKey::kAdapterWeights:
      return "LoRA adapter weights";
    case MemoryKey::kAdapterGradients:
      return "LoRA adapter gradients";
    case MemoryKey::kAdapterOptimizerStates:
      return "LoRA optimizer states";
    case MemoryKey::kActivations:
      return mode == Mode::kTrain ? "activations (saved)" : "activations (peak)";
    case MemoryKey::kBackwardPeakExtra:
      return "backward peak extra";
    case MemoryKey::kKvCache:
      return "KV cache";
    case MemoryKey::kOverhead:
      return "overhead";
    case MemoryKey::kComputeBuffer:
      return "compute buffer";
  }
  return "";
}

const char* shardingName(Sharding s) {
  switch (s) {
    case Sharding::kReplicated:
      return "replicated";
    case Sharding::kModelParallel:
      return "model_parallel";
    case Sharding::kZero3:
      return "zero3";
    case Sharding::kZero2:
      return "zero2";
    case Sharding::kZero1:
      return "zero1";
    case Sharding::kActivation:
      return "activation";
  }
  return "";
}

const MemoryTerm* MemoryBreakdown::find(MemoryKey key) const {
  for (const MemoryTerm& t : terms) {
    if (t.key == key) return &t;
  }
  return nullptr;
}

int64_t MemoryBreakdown::bytesOf(MemoryKey key) const {
  const MemoryTerm* t = find(key);
  return t ? t->bytes : 0;
}

int64_t MemoryBreakdown::bytesSharded(Sharding s) const {
  int64_t sum = 0;
  for (const MemoryTerm& t : terms) {
    if (t.sharding == s) sum = checkedAdd(sum, t.bytes);
  }
  return sum;
}

int64_t MemoryBreakdown::totalAt(int64_t batch) const {
  return checkedAdd(fixed, checkedMul(per_sample, batch));
}

MemoryBreakdown sumTerms(std::vector<MemoryTerm> terms, int64_t batch) {
  MemoryBreakdown m;
  for (MemoryTerm& t : terms) {
    t.bytes = checkedAdd(t.fixed, checkedMul(t.per_sample, batch));
    m.fixed = checkedAdd(m.fixed, t.fixed);
    m.per_sample = checkedAdd(m.per_sample, t.per_sample);
    m.total = checkedAdd(m.total, t.bytes);
  }
  m.terms = std::move(terms);
  return m;
}

bool isQuantized(DType d) {
  return d == DType::kInt8 || d == DType::kInt4 || d == DType::kFp8;
}

namespace {

/// A fixed term of `count` values of `bits` each.
MemoryTerm valuesTerm(MemoryKey key, Sharding sharding, int64_t count, int bits, const char* what,
                      const std::string& format) {
  MemoryTerm t;
  t.key = key;
  t.sharding = sharding;
  t.fixed = bytesForBits(count, bits);
  t.formula = std::string(what) + " × bits_per_value / 8";
  t.inputs = {{what, count, ""}, {"bits_per_value", bits, format}};
  return t;
}

}  // namespace

std::vector<MemoryTerm> modelStateTerms(const ModelStateCounts& c, const Workload& w) {
  const PrecisionLayout lay = layoutOf(w.precision);
  const bool train = w.mode == Mode::kTrain;
  std::vector<MemoryTerm> out;

  if (isQuantized(c.weight_dtype)) {
    // Block linear weights quantized; embeddings, norms, biases, routers and the LM head stay
    // in the compute format (as GPTQ, AWQ and bitsandbytes leave them).
    const int qbits = dtypeBits(c.weight_dtype), bits = dtypeBits(lay.weights);
    const int64_t rest = checkedSub(c.params, c.quantized);
    MemoryTerm t;
    t.key = MemoryKey::kWeights;
    t.sharding = Sharding::kZero3;
    t.fixed = checkedAdd(bytesForBits(c.quantized, qbits), bytesForBits(rest, bits));
    t.formula = "quantized × quantized_bits / 8 + other × bits_per_value / 8";
    t.inputs = {{"quantized", c.quantized, ""},
                {"quantized_bits", qbits, dtypeName(c.weight_dtype)},
                {"other", rest, ""},
                {"bits_per_value", bits, dtypeName(lay.weights)}};
    out.push_back(std::move(t));
    MemoryTerm s;
    s.key = MemoryKey::kQuantScales;
    s.sharding = Sharding::kZero3;
    if (c.weight_dtype == DType::kFp8) {
      s.fixed = checkedMul(4, c.quant_matrices);
      s.formula = "matrices × 4";  // one fp32 scale per matrix
      s.inputs = {{"matrices", c.quant_matrices, "fp32 scale each"}};
    } else {
      s.fixed = checkedMul(2, c.quant_groups);
      s.formula = "groups × 2";  // one fp16 scale per group
      s.inputs = {{"groups", c.quant_groups, "fp16 scale each"}};
    }
    out.push_back(std::move(s));
  } else {
    out.push_back(valuesTerm(MemoryKey::kWeights, Sharding::kZero3, c.params,
                             dtypeBits(c.weight_dtype), "parameters", dtypeName(c.weight_dtype)));
  }
  if (!train) return out;

  const auto stateBits = [&](DType format) {
    const int own = optimizerStateBits(w.optimizer);
    return own ? own : dtypeBits(format);
  };
  const auto optimizerTerm = [&](MemoryKey key, Sharding sharding, int64_t trainable, int bits,
                                 DType format) {
    const int k = optimizerStateCount(w.optimizer);
    MemoryTerm t;
    t.key = key;
    t.sharding = sharding;
    t.fixed = bytesForBits(checkedMul(trainable, k), bits);
    t.formula = "states × trainable × bits_per_value / 8";
    t.inputs = {
        {"states", k, optimizerName(w.optimizer)},
        {"trainable", trainable, ""},
        {"bits_per_value", bits, optimizerStateBits(w.optimizer) ? "8-bit" : dtypeName(format)}};
    return t;
  };
  // Only adapters train under LoRA: the base model has no gradients or optimizer states.
  if (c.trainable > 0 || c.adapters == 0) {
    out.push_back(valuesTerm(MemoryKey::kGradients, Sharding::kZero2, c.trainable,
                             dtypeBits(lay.gradients), "trainable", dtypeName(lay.gradients)));
    if (lay.master_weights) {
      out.push_back(valuesTerm(MemoryKey::kMasterWeights, Sharding::kZero1, c.trainable, 32,
                               "trainable", "fp32"));
    }
    out.push_back(optimizerTerm(MemoryKey::kOptimizerStates, Sharding::kZero1, c.trainable,
                                stateBits(lay.optimizer_states), lay.optimizer_states));
  }
  if (c.adapters > 0) {
    // PEFT keeps adapters in fp32 even over a 16-bit base (LoraConfig's
    // autocast_adapter_dtype=True upcasts fp16/bf16 adapters), so their gradients and
    // optimizer states are fp32 as well (8-bit under Adam8bit). They shard like the states
    // they belong to.
    out.push_back(valuesTerm(MemoryKey::kAdapterWeights, Sharding::kZero3, c.adapters, 32,
                             "adapters", "fp32"));
    out.push_back(valuesTerm(MemoryKey::kAdapterGradients, Sharding::kZero2, c.adapters, 32,
                             "adapters", "fp32"));
    out.push_back(optimizerTerm(MemoryKey::kAdapterOptimizerStates, Sharding::kZero1, c.adapters,
                                stateBits(DType::kFp32), DType::kFp32));
  }
  return out;
}

MemoryTerm activationTerm(MemoryKey key, int64_t fixed, int64_t per_sample, std::string formula,
                          std::vector<TermInput> inputs) {
  MemoryTerm t;
  t.key = key;
  t.sharding = Sharding::kActivation;
  t.fixed = fixed;
  t.per_sample = per_sample;
  t.formula = std::move(formula);
  t.inputs = std::move(inputs);
  return t;
}

MemoryTerm overheadTerm(const Workload& w) {
  MemoryTerm t;
  t.key = MemoryKey::kOverhead;
  t.sharding = Sharding::kReplicated;
  t.fixed = w.overhead_bytes;
  t.formula = "overhead_bytes";
  t.inputs = {{"overhead_bytes", w.overhead_bytes, ""}};
  return t;
}

}  // namespace dlcost
