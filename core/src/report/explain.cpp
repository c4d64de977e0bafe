#include "dlcost/report/explain.hpp"

#include "dlcost/types/gpu.hpp"
#include "dlcost/types/gpu_fit.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

namespace dlcost {

namespace {

/// The two languages' words side by side; the numbers are filled in by the caller.
struct Words {
  const char* en;
  const char* zh;
};

class Writer {
 public:
  Writer(Language language, ByteUnits units) : zh_(language == Language::kChinese), units_(units) {}

  std::string w(Words words) const { return zh_ ? words.zh : words.en; }
  std::string bytes(int64_t b) const {
    return groupDigits(b) + " B (" + formatBytes(b, units_) + ")";
  }
  static std::string num(int64_t n) { return groupDigits(n); }
  static std::string num(WideCount n) { return groupDigits(n); }
  static std::string real(double v, const char* fmt = "%.4g") {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
  }

 private:
  bool zh_;
  ByteUnits units_;
};

/// Builds "title = a × b = result" from the formula's inputs and records them.
Explanation make(std::string id, std::string title, std::string formula,
                 std::vector<FormulaTerm> inputs, std::string derivation, std::string result) {
  Explanation e;
  e.id = std::move(id);
  e.title = title;
  e.formula = std::move(formula);
  e.inputs = std::move(inputs);
  e.result = result;
  e.text = title + " = " + derivation + (derivation.empty() ? "" : " = ") + result;
  return e;
}

void explainTotals(const Report& r, const Writer& t, std::vector<Explanation>& out) {
  std::map<std::string, std::pair<int64_t, int>> by_type;
  int64_t counted = 0;
  for (const LayerReport& l : r.layers) {
    if (l.params == 0) continue;
    by_type[l.type].first += l.params;
    by_type[l.type].second += 1;
    counted += l.params;
  }
  std::string parts;
  for (const auto& [type, v] : by_type) {
    parts += (parts.empty() ? "" : " + ") + Writer::num(v.first) + " (" + std::to_string(v.second) +
             " " + type + ")";
  }
  if (counted == r.params.total && !parts.empty()) {
    out.push_back(make("/params/total", t.w({"parameters", "参数量"}), "P = Σ P_layer",
                       {{"P_layer", t.w({"parameters of each layer", "各层参数"}), parts}}, parts,
                       Writer::num(r.params.total)));
  }
  const Workload& wl = r.workload;
  const int64_t b = wl.batch;
  if (b > 0 && r.macs.forward % b == 0) {
    out.push_back(make(
        "/macs/forward", t.w({"forward MACs", "前向乘加运算 (MACs)"}), "MACs = B × Σ MACs_layer",
        {{"B", t.w({"batch size", "批量大小"}), Writer::num(b)},
         {"Σ MACs_layer",
          t.w({"MACs of one sample (conv and linear layers)",
               "单个样本的乘加运算（卷积层和全连接层）"}),
          Writer::num(r.macs.forward / b)}},
        Writer::num(b) + " × " + Writer::num(r.macs.forward / b), Writer::num(r.macs.forward)));
  }
  out.push_back(make("/flops/forward", t.w({"forward FLOPs", "前向浮点运算 (FLOPs)"}),
                     "FLOPs = 2 × MACs",
                     {{"MACs", t.w({"forward multiply-accumulates", "前向乘加运算"}),
                       Writer::num(r.macs.forward)}},
                     "2 × " + Writer::num(r.macs.forward), Writer::num(flopsOf(r.macs.forward))));
  // The FLOPs card: the step's passes (forward only in inference), as report_json writes it.
  out.push_back(
      make("/flops/total", t.w({"FLOPs of one step", "单步浮点运算 (FLOPs)"}),
           "FLOPs = 2 × (MACs_fwd + MACs_bwd)",
           {{"MACs_fwd", t.w({"forward multiply-accumulates", "前向乘加运算"}),
             Writer::num(r.macs.forward)},
            {"MACs_bwd",
             t.w({"backward multiply-accumulates (0 in inference)", "反向乘加运算（推理时为 0）"}),
             Writer::num(r.macs.backward)}},
           "2 × (" + Writer::num(r.macs.forward) + " + " + Writer::num(r.macs.backward) + ")",
           Writer::num(flopsOf(r.macs.forward + r.macs.backward))));
  if (wl.mode == Mode::kTrain) {
    const WideCount skipped = WideCount(2) * r.macs.forward - r.macs.backward;
    out.push_back(
        make("/macs/backward", t.w({"backward MACs", "反向乘加运算"}),
             "MACs_bwd = 2 × MACs_fwd − MACs_0",
             {{"MACs_fwd",
               t.w({"forward MACs (weight gradients cost as much again, input gradients too)",
                    "前向乘加运算（权重梯度与输入梯度各需同样多）"}),
               Writer::num(r.macs.forward)},
              {"MACs_0",
               t.w({"MACs of layers whose input needs no gradient (the first layer)",
                    "输入不需要梯度的层（第一层）的乘加运算"}),
               Writer::num(skipped)}},
             "2 × " + Writer::num(r.macs.forward) + " − " + Writer::num(skipped),
             Writer::num(r.macs.backward)));
  }
}

/// Title of a memory term in both languages (the CLI's English labels are memoryKeyLabel's).
Words termTitle(MemoryKey key, Mode mode) {
  switch (key) {
    case MemoryKey::kWeights:
      return {"weights", "权重"};
    case MemoryKey::kQuantScales:
      return {"quantization scales", "量化缩放因子"};
    case MemoryKey::kBuffers:
      return {"buffers", "缓冲区"};
    case MemoryKey::kGradients:
      return {"gradients", "梯度"};
    case MemoryKey::kMasterWeights:
      return {"fp32 master weights", "fp32 主权重"};
    case MemoryKey::kOptimizerStates:
      return {"optimizer states", "优化器状态"};
    case MemoryKey::kAdapterWeights:
      return {"LoRA adapter weights", "LoRA 适配器权重"};
    case MemoryKey::kAdapterGradients:
      return {"LoRA adapter gradients", "LoRA 适配器梯度"};
    case MemoryKey::kAdapterOptimizerStates:
      return {"LoRA optimizer states", "LoRA 优化器状态"};
    case MemoryKey::kActivations:
      return mode == Mode::kTrain
                 ? Words{"activations kept for backward", "为反向传播保存的激活值"}
                 : Words{"activations (peak of live tensors)", "激活值（同时存活张量的峰值）"};
    case MemoryKey::kBackwardPeakExtra:
      return {"backward peak extra", "反向传播峰值额外内存"};
    case MemoryKey::kBackwardGradientDelta:
      return {"gradients at the backward peak, less all gradients", "反向峰值时的梯度减去全部梯度"};
    case MemoryKey::kOptimizerStep:
      return {"optimizer step temporaries and the batch held", "优化器更新的临时张量与持有的批次"};
    case MemoryKey::kKvCache:
      return {"KV cache", "KV 缓存"};
    case MemoryKey::kOverhead:
      return {"overhead", "额外开销"};
    case MemoryKey::kComputeBuffer:
      return {"compute buffer", "计算缓冲区"};
    case MemoryKey::kCpRingBuffers:
      return {"context-parallel ring K/V buffers", "上下文并行环形注意力的 K/V 缓冲区"};
  }
  return {"", ""};
}

/// What a term's formula input is, in both languages.
Words inputLabel(const std::string& name) {
  static const std::map<std::string, Words> labels = {
      {"parameters", {"parameters", "参数"}},
      {"trainable", {"trainable parameters", "可训练参数"}},
      {"adapters", {"LoRA adapter parameters", "LoRA 适配器参数"}},
      {"bits_per_value", {"bits per value", "每个值的位数"}},
      {"quantized", {"elements of the quantized matrices", "量化矩阵的元素数"}},
      {"quantized_bits", {"bits per quantized value", "每个量化值的位数"}},
      {"other", {"parameters kept in the compute format", "保持计算格式的参数"}},
      {"matrices", {"quantized matrices", "量化矩阵数"}},
      {"groups", {"quantization groups", "量化分组数"}},
      {"states", {"state tensors per parameter", "每个参数的状态张量数"}},
      {"buffer_values", {"buffer values (running statistics)", "缓冲区数值（运行统计量）"}},
      {"counters", {"counters (8 bytes each)", "计数器（每个 8 字节）"}},
      {"batch", {"batch size", "批量大小"}},
      {"per_sample",
       {"bytes per sample (inputs, outputs, masks, indices per op)",
        "每个样本的字节（各算子的输入、输出、掩码、索引）"}},
      {"per_batch",
       {"per-batch statistics (batchnorm mean and inverse std)",
        "每批统计量（批归一化的均值与标准差倒数）"}},
      {"per_sequence", {"bytes per sequence", "每个序列的字节数"}},
      {"tokens",
       {"tokens in the cache (cached + prompt + generated)",
        "缓存中的词元数（已缓存 + 提示 + 生成）"}},
      {"layers", {"layers", "层数"}},
      {"kv_heads", {"key/value heads", "KV 头数"}},
      {"head_dim", {"head dimension", "头维度"}},
      {"overhead_bytes", {"the workload's fixed overhead", "工作负载的固定额外开销"}},
  };
  const auto it = labels.find(name);
  return it != labels.end() ? it->second : Words{name.c_str(), name.c_str()};
}

/// `formula` with each input name replaced by its value (longest names first, whole words).
std::string substitute(std::string formula, const std::vector<TermInput>& inputs) {
  std::vector<const TermInput*> sorted;
  for (const TermInput& in : inputs) sorted.push_back(&in);
  std::sort(sorted.begin(), sorted.end(),
            [](const TermInput* a, const TermInput* b) { return a->name.size() > b->name.size(); });
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (const TermInput* in : sorted) {
    const std::string value = Writer::num(in->value);
    for (size_t at = formula.find(in->name); at != std::string::npos;
         at = formula.find(in->name, at)) {
      const size_t end = at + in->name.size();
      if ((at > 0 && word(formula[at - 1])) || (end < formula.size() && word(formula[end]))) {
        at = end;
        continue;
      }
      formula.replace(at, in->name.size(), value);
      at += value.size();
    }
  }
  return formula;
}

/// Every memory term from its own formula and inputs (the rule that computed it), then the
/// totals, which are sums over the same list.
void explainMemory(const Report& r, const Writer& t, std::vector<Explanation>& out) {
  const Workload& wl = r.workload;
  const MemoryBreakdown& m = r.memory;
  for (size_t i = 0; i < m.terms.size(); ++i) {
    const MemoryTerm& term = m.terms[i];
    std::vector<FormulaTerm> inputs;
    for (const TermInput& in : term.inputs) {
      inputs.push_back({in.name, t.w(inputLabel(in.name)),
                        Writer::num(in.value) + (in.note.empty() ? "" : " (" + in.note + ")")});
    }
    // The id is the JSON pointer of the term's bytes in the report.
    out.push_back(make("/memory/terms/" + std::to_string(i) + "/bytes",
                       t.w(termTitle(term.key, wl.mode)), term.formula, std::move(inputs),
                       substitute(term.formula, term.inputs), t.bytes(term.bytes)));
  }
  // The total counts the terms alive in the peak phase (all of them outside training).
  const auto counted = [&](const MemoryTerm& term) {
    return term.phase == MemoryPhase::kAlways || term.phase == m.peak_phase;
  };
  std::string sum;
  for (const MemoryTerm& term : m.terms) {
    if (term.bytes && counted(term)) sum += (sum.empty() ? "" : " + ") + Writer::num(term.bytes);
  }
  out.push_back(make("/memory/total", t.w({"total memory", "总内存"}),
                     m.phases.empty() ? "Σ m_i" : "Σ m_i over the peak phase's terms", {}, sum,
                     t.bytes(m.total)));
  std::string per_sample;
  for (const MemoryTerm& term : m.terms) {
    if (term.per_sample && counted(term)) {
      per_sample += (per_sample.empty() ? "" : " + ") + Writer::num(term.per_sample);
    }
  }
  out.push_back(make("/memory/per_sample", t.w({"memory per sample", "每个样本的内存"}),
                     "Σ per_sample_i", {}, per_sample, t.bytes(m.per_sample)));
  if (r.max_batch && wl.memory_bytes && !m.phases.empty()) {
    std::string each;
    for (const PhaseTotal& p : m.phases) {
      each += std::string(each.empty() ? "" : ", ") + "⌊(" + Writer::num(*wl.memory_bytes) + " − " +
              Writer::num(p.fixed) + ") / " + Writer::num(p.per_sample) + "⌋";
    }
    out.push_back(
        make("/memory_fit/max_batch", t.w({"largest batch", "最大批量"}),
             "min over the peak's lines (backward steps, optimizer step) of ⌊(M − F) / S⌋",
             {{"M", t.w({"memory available", "可用内存"}), t.bytes(*wl.memory_bytes)}},
             "min(" + each + ", …)", Writer::num(*r.max_batch)));
  } else if (r.max_batch && wl.memory_bytes) {
    out.push_back(make("/memory_fit/max_batch", t.w({"largest batch", "最大批量"}), "⌊(M − F) / S⌋",
                       {{"M", t.w({"memory available", "可用内存"}), t.bytes(*wl.memory_bytes)},
                        {"F", t.w({"fixed memory", "固定内存"}), t.bytes(m.fixed)},
                        {"S", t.w({"memory per sample", "每个样本的内存"}), t.bytes(m.per_sample)}},
                       "⌊(" + Writer::num(*wl.memory_bytes) + " − " + Writer::num(m.fixed) +
                           ") / " + Writer::num(m.per_sample) + "⌋",
                       Writer::num(*r.max_batch)));
  }
  if (r.max_batch && wl.memory_bytes) {
    out.push_back(make("/memory_fit/headroom_bytes", t.w({"headroom", "剩余空间"}),
                       "memory − total", {},
                       Writer::num(*wl.memory_bytes) + " − " + Writer::num(m.total),
                       t.bytes(*wl.memory_bytes - m.total)));
  }
}

/// Usable memory per GPU and the headroom left in it.
void explainGpuMemory(const GpuFit& f, const Writer& t, std::vector<Explanation>& out) {
  out.push_back(make(
      "/gpu_fit/gpu_memory/usable_bytes", t.w({"usable GPU memory", "可用显存"}), "C − R − F",
      {{"C", t.w({"capacity as nvidia-smi reports it", "nvidia-smi 报告的容量"}),
        t.bytes(f.capacity_bytes)},
       {"R", t.w({"reserve (CUDA context, framework, NCCL)", "预留（CUDA 上下文、框架、NCCL）"}),
        t.bytes(f.reserve_bytes)},
       {"F", t.w({"allocator fragmentation", "分配器碎片"}), t.bytes(f.fragmentation_bytes)}},
      Writer::num(f.capacity_bytes) + " − " + Writer::num(f.reserve_bytes) + " − " +
          Writer::num(f.fragmentation_bytes),
      t.bytes(f.usable_bytes)));
  out.push_back(make("/gpu_fit/headroom_bytes", t.w({"headroom", "剩余空间"}),
                     "usable − per-GPU total", {},
                     Writer::num(f.usable_bytes) + " − " + Writer::num(f.per_gpu.total),
                     t.bytes(f.headroom_bytes)));
}

/// The roofline's step time, then the step with communication, bubble and optimizer.
void explainStepTime(const GpuFit& f, const Writer& t, std::vector<Explanation>& out) {
  out.push_back(
      make("/gpu_fit/step_time_s", t.w({"step time (roofline)", "单步时间（屋顶线模型）"}),
           "Σ max(FLOPs / (peak × u), bytes / bandwidth)",
           {{"peak", t.w({"dense peak for the math format", "该数值格式的稠密峰值"}),
             Writer::real(f.peak_flops / 1e12) + " TFLOP/s (" + mathFormatName(f.math) + ")"},
            {"u", t.w({"achievable utilisation", "可达利用率"}), Writer::real(f.utilization)},
            {"bandwidth", t.w({"memory bandwidth", "显存带宽"}),
             Writer::real(f.gpu.bandwidth_bytes_per_s / 1e9) + " GB/s"}},
           t.w({"compute ", "计算 "}) + Writer::real(f.time.compute_s * 1e3) + " ms, " +
               t.w({"memory ", "访存 "}) + Writer::real(f.time.memory_s * 1e3) + " ms",
           Writer::real(f.time.step_s * 1e3) + " ms"));
  // step_breakdown.cpp: the roofline per micro-batch and stage, plus communication and bubble.
  const StepBreakdown& s = f.step;
  auto ms = [](double seconds) { return Writer::real(seconds * 1e3) + " ms"; };
  out.push_back(
      make("/gpu_fit/step_time/step_s", t.w({"step time with communication", "含通信的单步时间"}),
           "C + T + P + E + X + D + B + O",
           {{"C", t.w({"roofline compute of every micro-batch", "各微批次的屋顶线计算"}),
             ms(s.compute_s)},
            {"T", t.w({"tensor-parallel collectives", "张量并行集合通信"}), ms(s.tp_comm_s)},
            {"P", t.w({"pipeline sends", "流水线传输"}), ms(s.pp_comm_s)},
            {"E", t.w({"expert all-to-alls", "专家 all-to-all"}), ms(s.ep_comm_s)},
            {"X", t.w({"context-parallel K/V ring (exposed)", "上下文并行 K/V 环（未被掩盖部分）"}),
             ms(s.cp_comm_s)},
            {"D", t.w({"exposed data-parallel communication", "未被掩盖的数据并行通信"}),
             ms(s.dp_comm_s)},
            {"B", t.w({"pipeline bubble", "流水线气泡"}), ms(s.bubble_s)},
            {"O", t.w({"optimizer update", "优化器更新"}), ms(s.optimizer_s)}},
           ms(s.compute_s) + " + " + ms(s.tp_comm_s) + " + " + ms(s.pp_comm_s) + " + " +
               ms(s.ep_comm_s) + " + " + ms(s.cp_comm_s) + " + " + ms(s.dp_comm_s) + " + " +
               ms(s.bubble_s) + " + " + ms(s.optimizer_s),
           ms(s.step_s)));
}

/// The largest batch that fits on the GPUs.
void explainGpuMaxBatch(const Report& r, const Writer& t, std::vector<Explanation>& out) {
  const GpuFit& f = *r.gpu_fit;
  const int64_t mb = r.workload.hardware.parallel.microbatchCount();
  if (f.max_batch < kMaxBatchReported && !f.per_gpu.phases.empty()) {
    // Training peaks in the larger of a few lines (backward steps, the optimizer step): the
    // replica batch is the smallest ⌊(U − F) / S⌋ over them (MemoryBreakdown::maxBatch).
    const int64_t replica = f.per_gpu.maxBatch(f.usable_bytes);
    out.push_back(make(
        "/gpu_fit/max_batch", t.w({"largest batch that fits", "可容纳的最大批大小"}),
        "⌊B / m⌋ × m × d",
        {{"B",
          t.w({"largest replica batch: the smallest ⌊(U − F) / S⌋ over the peak's phases",
               "最大副本批大小：各阶段 ⌊(U − F) / S⌋ 的最小值"}),
          Writer::num(replica)},
         {"m", t.w({"pipeline micro-batches", "流水线微批次数"}), Writer::num(mb)},
         {"d", t.w({"data-parallel replicas", "数据并行副本数"}), Writer::num(f.data_parallel)}},
        "⌊" + Writer::num(replica) + " / " + Writer::num(mb) + "⌋ × " + Writer::num(mb) + " × " +
            Writer::num(f.data_parallel),
        Writer::num(f.max_batch)));
  } else if (f.max_batch < kMaxBatchReported) {
    // fit.cpp: the largest replica batch, whole micro-batches, times the data-parallel replicas.
    out.push_back(make(
        "/gpu_fit/max_batch", t.w({"largest batch that fits", "可容纳的最大批大小"}),
        "⌊⌊(U − F) / S⌋ / m⌋ × m × d",
        {{"U", t.w({"usable memory per GPU", "每 GPU 可用显存"}), t.bytes(f.usable_bytes)},
         {"F", t.w({"fixed memory per GPU", "每 GPU 固定内存"}), t.bytes(f.per_gpu.fixed)},
         {"S", t.w({"memory per sample per GPU", "每 GPU 每样本内存"}),
          t.bytes(f.per_gpu.per_sample)},
         {"m", t.w({"pipeline micro-batches", "流水线微批次数"}), Writer::num(mb)},
         {"d", t.w({"data-parallel replicas", "数据并行副本数"}), Writer::num(f.data_parallel)}},
        "⌊⌊(" + Writer::num(f.usable_bytes) + " − " + Writer::num(f.per_gpu.fixed) + ") / " +
            Writer::num(f.per_gpu.per_sample) + "⌋ / " + Writer::num(mb) + "⌋ × " +
            Writer::num(mb) + " × " + Writer::num(f.data_parallel),
        Writer::num(f.max_batch)));
  }
}

/// What bounds the step, the decode speed and the samples per second.
void explainGpuRates(const Report& r, const Writer& t, std::vector<Explanation>& out) {
  const GpuFit& f = *r.gpu_fit;
  const Parallelism& p = r.workload.hardware.parallel;
  // gpu_json.cpp's stepBound: whichever of the step's two sums takes longer.
  out.push_back(make("/gpu_fit/roofline/bound", t.w({"bound by", "瓶颈"}),
                     "compute if t_compute ≥ t_memory, else memory",
                     {{"t_compute", t.w({"FLOP terms alone", "仅计算项"}),
                       Writer::real(f.time.compute_s * 1e3) + " ms"},
                      {"t_memory", t.w({"traffic terms alone", "仅访存项"}),
                       Writer::real(f.time.memory_s * 1e3) + " ms"}},
                     "", stepBound(f.time)));
  if (f.time.tokens_per_s) {
    for (const PhaseWork& ph : r.phases) {
      if (ph.name != "decode") continue;
      // roofline.cpp: each decode step reads every weight once per replica.
      out.push_back(make(
          "/gpu_fit/tokens_per_s", t.w({"decode speed", "解码速度"}),
          "tokens / max(FLOPs / (d × tp × peak × u), bytes / (tp × bandwidth))",
          {{"tokens",
            t.w({"tokens per decode step (one per sequence)", "每个解码步的 token（每序列一个）"}),
            Writer::num(ph.tokens)},
           {"FLOPs", t.w({"FLOPs of one decode step", "一个解码步的浮点运算"}),
            Writer::num(ph.flops)},
           {"bytes", t.w({"bytes one decode step moves", "一个解码步的访存字节"}),
            Writer::num(ph.bytes)},
           {"d", t.w({"data-parallel replicas", "数据并行副本数"}), Writer::num(f.data_parallel)},
           {"tp", t.w({"tensor-parallel degree", "张量并行度"}), Writer::num(p.tp)},
           {"peak × u", t.w({"achievable FLOP/s", "可达浮点速率"}),
            Writer::real(f.peak_flops * f.utilization / 1e12) + " TFLOP/s"},
           {"bandwidth", t.w({"memory bandwidth", "显存带宽"}),
            Writer::real(f.gpu.bandwidth_bytes_per_s / 1e9) + " GB/s"}},
          "", Writer::real(*f.time.tokens_per_s) + " /s"));
    }
  }
  if (f.time.step_s > 0) {
    // roofline.cpp: the global batch over the step time (in LLM inference, the prefill's).
    out.push_back(make(
        "/gpu_fit/samples_per_s", t.w({"samples per second", "每秒样本数"}), "B / t_step",
        {{"B", t.w({"global batch", "全局批大小"}), Writer::num(r.workload.batch)},
         {"t_step", t.w({"step time", "单步时间"}), Writer::real(f.time.step_s * 1e3) + " ms"}},
        Writer::num(r.workload.batch) + " / " + Writer::real(f.time.step_s) + " s",
        Writer::real(f.time.samples_per_s) + " /s"));
  }
}

void explainGpu(const Report& r, const Writer& t, std::vector<Explanation>& out) {
  if (!r.gpu_fit) return;
  explainGpuMemory(*r.gpu_fit, t, out);
  explainStepTime(*r.gpu_fit, t, out);
  explainGpuMaxBatch(r, t, out);
  explainGpuRates(r, t, out);
}

std::string shapeText(const Shape& s) {
  return shapeToString(s);
}

void explainLayers(const Model& model, const Report& r, const Writer& t,
                   std::vector<Explanation>& out) {
  const LayerGraph* g = std::get_if<LayerGraph>(&model.body);
  if (!g || r.layers.size() != g->layers.size() + 1) return;
  const int64_t b = r.workload.batch;
  for (size_t i = 0; i < g->layers.size(); ++i) {
    const Layer& layer = g->layers[i];
    const LayerReport& row = r.layers[i + 1];
    const std::string base = "/layers/" + std::to_string(i + 1);
    const Shape& in = r.layers[static_cast<size_t>(layer.inputs[0] + 1)].output_shape;
    if (const auto* c = std::get_if<Conv2d>(&layer.spec); c && in.size() == 3) {
      const int64_t cin = in[0];
      out.push_back(make(
          base + "/params", row.name + ": " + t.w({"parameters", "参数量"}),
          "K_h × K_w × C_in / g × C_out + bias",
          {{"K", t.w({"kernel", "卷积核"}),
            std::to_string(c->kernel.h) + " × " + std::to_string(c->kernel.w)},
           {"C_in", t.w({"input channels", "输入通道"}), Writer::num(cin)},
           {"g", t.w({"groups", "分组数"}), Writer::num(c->groups)},
           {"C_out", t.w({"output channels", "输出通道"}), Writer::num(c->out_channels)}},
          std::to_string(c->kernel.h) + " × " + std::to_string(c->kernel.w) + " × " +
              Writer::num(cin) + " / " + Writer::num(c->groups) + " × " +
              Writer::num(c->out_channels) + (c->bias ? " + " + Writer::num(c->out_channels) : ""),
          Writer::num(row.params)));
      out.push_back(make(
          base + "/macs", row.name + ": MACs", "B × H_out × W_out × C_out × K_h × K_w × C_in / g",
          {{"B", t.w({"batch size", "批量大小"}), Writer::num(b)},
           {"out", t.w({"output shape", "输出形状"}), shapeText(row.output_shape)}},
          Writer::num(b) + " × " + Writer::num(row.output_shape[1]) + " × " +
              Writer::num(row.output_shape[2]) + " × " + Writer::num(c->out_channels) + " × " +
              std::to_string(c->kernel.h) + " × " + std::to_string(c->kernel.w) + " × " +
              Writer::num(cin) + " / " + Writer::num(c->groups),
          Writer::num(row.macs)));
    } else if (const auto* l = std::get_if<Linear>(&layer.spec); l && !in.empty()) {
      const int64_t fin = in.back();
      const int64_t rows = row.macs / std::max<int64_t>(1, b * fin * l->out_features);
      out.push_back(
          make(base + "/params", row.name + ": " + t.w({"parameters", "参数量"}), "in × out + bias",
               {{"in", t.w({"input features", "输入特征"}), Writer::num(fin)},
                {"out", t.w({"output features", "输出特征"}), Writer::num(l->out_features)}},
               Writer::num(fin) + " × " + Writer::num(l->out_features) +
                   (l->bias ? " + " + Writer::num(l->out_features) : ""),
               Writer::num(row.params)));
      out.push_back(make(base + "/macs", row.name + ": MACs", "B × rows × in × out",
                         {{"B", t.w({"batch size", "批量大小"}), Writer::num(b)}},
                         Writer::num(b) + (rows > 1 ? " × " + Writer::num(rows) : "") + " × " +
                             Writer::num(fin) + " × " + Writer::num(l->out_features),
                         Writer::num(row.macs)));
    } else if (std::holds_alternative<BatchNorm2d>(layer.spec) && !in.empty() && row.params) {
      out.push_back(
          make(base + "/params", row.name + ": " + t.w({"parameters", "参数量"}), "2 × C",
               {{"C",
                 t.w({"channels (a scale and a shift each; running statistics are buffers)",
                      "通道数（各一个缩放与平移；运行统计量是缓冲区而非参数）"}),
                 Writer::num(in[0])}},
               "2 × " + Writer::num(in[0]), Writer::num(row.params)));
    } else if (const auto* e = std::get_if<Embedding>(&layer.spec)) {
      out.push_back(
          make(base + "/params", row.name + ": " + t.w({"parameters", "参数量"}), "V × d",
               {{"V", t.w({"vocabulary", "词表大小"}), Writer::num(e->num_embeddings)},
                {"d", t.w({"embedding size", "嵌入维度"}), Writer::num(e->embedding_dim)}},
               Writer::num(e->num_embeddings) + " × " + Writer::num(e->embedding_dim),
               Writer::num(row.params)));
    }
    if (row.activation_bytes || row.inplace) {
      out.push_back(make(
          base + "/activation_bytes", row.name + ": " + t.w({"activation memory", "激活内存"}),
          "B × a", {{"B", t.w({"batch size", "批量大小"}), Writer::num(b)}},
          row.inplace && row.activation_bytes == 0
              ? t.w({"0: in place, it reuses its input's memory", "0：原地运算，复用输入的内存"})
              : Writer::num(b) + " × " + Writer::num(b ? row.activation_bytes / b : 0) + " B",
          t.bytes(row.activation_bytes)));
    }
  }
}

/// What an input of a row's formula is (transformer_estimate.cpp's addRows names them).
Words rowInputLabel(const std::string& figure, const std::string& name) {
  static const std::map<std::string, Words> labels = {
      {"batch", {"batch size", "批量大小"}},
      {"tokens", {"tokens per sequence through the row", "每个序列经过该行的词元数"}},
      {"macs/per_sequence", {"MACs of one sequence", "单个序列的乘加运算"}},
      {"activation_bytes/per_sequence",
       {"bytes one sequence keeps for backward", "单个序列为反向传播保存的字节数"}},
      {"bytes_per_value", {"bytes per activation value", "每个激活值的字节数"}},
      {"width", {"width of the tensor the row writes", "该行写出张量的宽度"}},
      {"kept_per_token",
       {"bytes kept for backward per token (Korthikanti et al. 2022, measured)",
        "每个词元为反向传播保存的字节数（Korthikanti 等 2022，实测）"}},
      {"hidden", {"hidden size", "隐藏维度"}},
      {"q_width", {"query width (heads × head dimension)", "查询宽度（头数 × 头维度）"}},
      {"k_width", {"key width (key/value heads × head dimension)", "键宽度（KV 头数 × 头维度）"}},
      {"v_width", {"value width", "值宽度"}},
      {"biases", {"biases (and attention sinks)", "偏置（及注意力汇聚参数）"}},
      {"norms", {"norm parameters of the sublayer", "该子层的归一化参数"}},
      {"relative_bias", {"relative position bias table (first layer)", "相对位置偏置表（第一层）"}},
      {"mla_matrices", {"projection matrix elements (MLA)", "投影矩阵元素数（MLA）"}},
      {"projections",
       {"MACs per token of the q, k, v, o projections", "每个词元 q、k、v、o 投影的乘加运算"}},
      {"keys", {"keys each token attends to", "每个词元关注的键数"}},
      {"core_width", {"QKᵀ and AV MACs per token and key", "每个词元每个键的 QKᵀ 与 AV 乘加运算"}},
      {"matrices",
       {"MLP matrices (3 gated: gate, up, down; else 2)",
        "MLP 矩阵数（门控为 3：gate、up、down；否则为 2）"}},
      {"ffn", {"MLP intermediate size", "MLP 中间维度"}},
      {"experts",
       {"parameters of every expert, shared expert and router",
        "全部专家、共享专家与路由器的参数"}},
      {"active",
       {"MACs per token of the active experts, shared expert and router",
        "每个词元激活的专家、共享专家与路由器的乘加运算"}},
      {"embeddings", {"embedding tables (token, position, type)", "嵌入表（词元、位置、类型）"}},
      {"norm", {"embedding norm", "嵌入归一化"}},
      {"vocab", {"vocabulary", "词表大小"}},
  };
  auto it = labels.find(figure + "/" + name);
  if (it == labels.end()) it = labels.find(name);
  return it != labels.end() ? it->second : Words{name.c_str(), name.c_str()};
}

/// Transformer rows: each figure from the formula the estimator recorded with it.
void explainRowFormulas(const Report& r, const Writer& t, std::vector<Explanation>& out) {
  for (size_t i = 0; i < r.layers.size(); ++i) {
    const LayerReport& row = r.layers[i];
    for (const RowFormula& f : row.formulas) {
      std::vector<FormulaTerm> inputs;
      for (const TermInput& in : f.inputs) {
        inputs.push_back({in.name, t.w(rowInputLabel(f.figure, in.name)),
                          Writer::num(in.value) + (in.note.empty() ? "" : " (" + in.note + ")")});
      }
      const bool bytes = f.figure == "activation_bytes";
      const int64_t value = bytes                ? row.activation_bytes
                            : f.figure == "macs" ? row.macs
                                                 : row.params;
      const Words title = bytes                ? Words{"activation memory", "激活内存"}
                          : f.figure == "macs" ? Words{"MACs", "乘加运算 (MACs)"}
                                               : Words{"parameters", "参数量"};
      out.push_back(make("/layers/" + std::to_string(i) + "/" + f.figure,
                         row.name + ": " + t.w(title), f.formula, std::move(inputs),
                         substitute(f.formula, f.inputs),
                         bytes ? t.bytes(value) : Writer::num(value)));
    }
  }
}

}  // namespace

std::optional<Language> parseLanguage(const std::string& name) {
  if (name == "en") return Language::kEnglish;
  if (name == "zh" || name == "zh-CN" || name == "zh-Hans") return Language::kChinese;
  return std::nullopt;
}

std::vector<Explanation> explainReport(const Model& model, const Report& report, Language language,
                                       ByteUnits units) {
  const Writer t(language, units);
  std::vector<Explanation> out;
  explainTotals(report, t, out);
  explainMemory(report, t, out);
  explainGpu(report, t, out);
  explainLayers(model, report, t, out);
  explainRowFormulas(report, t, out);
  return out;
}

std::vector<Dominance> dominantTerms(const Report& r, Language language) {
  const Writer t(language, ByteUnits::kBinary);
  std::vector<Dominance> out;
  struct Quantity {
    const char* name;
    int64_t LayerReport::*field;
    Words verb;            ///< after several layers ("5 conv2d layers keep")
    const char* verb_one;  ///< after one ("1 linear layer keeps")
  };
  const Quantity quantities[] = {
      {"params", &LayerReport::params, {"hold", "占有"}, "holds"},
      {"macs", &LayerReport::macs, {"do", "完成"}, "does"},
      {"activation_bytes", &LayerReport::activation_bytes, {"keep", "保存"}, "keeps"},
  };
  const Words what[] = {{"of the parameters", "的参数"},
                        {"of the MACs", "的乘加运算"},
                        {"of the activation memory", "的激活内存"}};
  for (size_t q = 0; q < 3; ++q) {
    int64_t total = 0;
    std::map<std::string, Dominance> by_type;
    for (const LayerReport& l : r.layers) {
      const int64_t v = l.*(quantities[q].field);
      total += v;
      if (v == 0) continue;
      Dominance& d = by_type[l.type];
      d.quantity = quantities[q].name;
      d.layer_type = l.type;
      d.layers += 1;
      d.share += static_cast<double>(v);
      d.names.push_back(l.name);
    }
    if (total <= 0 || by_type.empty()) continue;
    Dominance best;
    for (auto& [type, d] : by_type) {
      if (d.share > best.share) best = d;
    }
    best.share /= static_cast<double>(total);
    const std::string pct = Writer::real(100 * best.share, "%.1f") + " %";
    best.text = language == Language::kChinese
                    ? std::to_string(best.layers) + " 个 " + best.layer_type + " 层" +
                          t.w(quantities[q].verb) + " " + pct + " " + t.w(what[q])
                    : std::to_string(best.layers) + " " + best.layer_type +
                          (best.layers == 1 ? std::string(" layer ") + quantities[q].verb_one
                                            : " layers " + t.w(quantities[q].verb)) +
                          " " + pct + " " + t.w(what[q]);
    out.push_back(std::move(best));
  }
  const MemoryBreakdown& m = r.memory;
  if (m.total > 0 && !m.terms.empty()) {
    const MemoryTerm* top = &m.terms.front();
    for (const MemoryTerm& term : m.terms) top = term.bytes > top->bytes ? &term : top;
    Dominance d;
    d.quantity = "memory";
    d.layer_type = memoryKeyName(top->key);  // the term's key, as in the report's list
    d.share = static_cast<double>(top->bytes) / static_cast<double>(m.total);
    const std::string pct = Writer::real(100 * d.share, "%.1f") + " %";
    const std::string title = t.w(termTitle(top->key, r.workload.mode));
    d.text = language == Language::kChinese ? title + "占总内存的 " + pct
                                            : title + " are " + pct + " of the total memory";
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace dlcost
