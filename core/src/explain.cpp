#include "dlcost/explain.hpp"

#include "dlcost/gpu.hpp"

#include <algorithm>
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

int bitsOf(DType d) {
  return dtypeBits(d);
}

std::string bytesPerValue(int bits) {
  return bits % 8 ? Writer::real(bits / 8.0, "%.1f") + " B" : std::to_string(bits / 8) + " B";
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
                     "2 × " + Writer::num(r.macs.forward), Writer::num(2 * r.macs.forward)));
  if (wl.mode == Mode::kTrain) {
    const int64_t skipped = 2 * r.macs.forward - r.macs.backward;
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

void explainMemory(const Report& r, const Writer& t, std::vector<Explanation>& out) {
  const Workload& wl = r.workload;
  const MemoryBreakdown& m = r.memory;
  const PrecisionLayout lay = layoutOf(wl.precision);
  const std::string prec = precisionName(wl.precision);
  const int64_t p = r.params.total, pt = r.params.trainable, b = wl.batch;

  auto perValue = [&](const char* id, Words title, int64_t count, int64_t bytes, DType dtype,
                      Words what) {
    const int bits = bitsOf(dtype);
    if ((count * bits + 7) / 8 == bytes) {
      out.push_back(make(id, t.w(title), "n × b",
                         {{"n", t.w(what), Writer::num(count)},
                          {"b", t.w({"bytes per value", "每个值的字节数"}),
                           bytesPerValue(bits) + " (" + dtypeName(dtype) + ")"}},
                         Writer::num(count) + " × " + bytesPerValue(bits), t.bytes(bytes)));
    } else if (count > 0) {
      out.push_back(make(id, t.w(title), "n × b̄",
                         {{"n", t.w(what), Writer::num(count)},
                          {"b̄", t.w({"average bytes per value", "平均每个值的字节数"}),
                           Writer::real(static_cast<double>(bytes) / count) + " B"}},
                         "", t.bytes(bytes)));
    }
  };
  perValue("/memory/weights", {"weights", "权重"}, p, m.weights, lay.weights,
           {"parameters", "参数"});
  if (wl.mode == Mode::kTrain) {
    perValue("/memory/gradients", {"gradients", "梯度"}, pt, m.gradients, lay.gradients,
             {"trainable parameters (one gradient each)", "可训练参数（每个一个梯度）"});
    if (m.master_weights) {
      perValue("/memory/master_weights", {"fp32 master weights", "fp32 主权重"}, pt,
               m.master_weights, DType::kFp32,
               {"trainable parameters (mixed precision keeps an fp32 copy)",
                "可训练参数（混合精度保留一份 fp32 副本）"});
    }
    const int k = optimizerStateCount(wl.optimizer);
    const int64_t values = static_cast<int64_t>(k) * pt;
    if (k > 0 && values > 0) {
      const double per = static_cast<double>(m.optimizer_states) / static_cast<double>(values);
      out.push_back(
          make("/memory/optimizer_states", t.w({"optimizer states", "优化器状态"}), "k × P × b",
               {{"k", t.w({"state tensors per parameter", "每个参数的状态张量数"}),
                 std::to_string(k) + " (" + optimizerName(wl.optimizer) + ")"},
                {"P", t.w({"trainable parameters", "可训练参数"}), Writer::num(pt)},
                {"b", t.w({"bytes per state value", "每个状态值的字节数"}),
                 Writer::real(per) + " B (" + (lay.master_weights ? "fp32" : prec) + ")"}},
               std::to_string(k) + " × " + Writer::num(pt) + " × " + Writer::real(per) + " B",
               t.bytes(m.optimizer_states)));
    } else {
      out.push_back(make("/memory/optimizer_states", t.w({"optimizer states", "优化器状态"}),
                         "k × P × b",
                         {{"k", t.w({"state tensors per parameter", "每个参数的状态张量数"}),
                           std::string("0 (") + optimizerName(wl.optimizer) + ")"}},
                         "0 × " + Writer::num(pt), t.bytes(m.optimizer_states)));
    }
  }
  // Activations: batch x per-sample bytes, plus per-batch statistics (batchnorm).
  const int64_t states = m.weights + m.buffers + m.gradients + m.master_weights +
                         m.optimizer_states + m.quant_scales + m.adapter_weights +
                         m.adapter_gradients + m.adapter_optimizer_states + m.overhead;
  const int64_t act_fixed = m.fixed - states;
  const int64_t kept_ps = b > 0 ? (m.activations - act_fixed) / b : 0;
  const bool train = wl.mode == Mode::kTrain;
  out.push_back(
      make("/memory/activations",
           t.w(train ? Words{"activations kept for backward", "为反向传播保存的激活值"}
                     : Words{"activations (peak of live tensors)", "激活值（同时存活张量的峰值）"}),
           "B × a + c",
           {{"B", t.w({"batch size", "批量大小"}), Writer::num(b)},
            {"a",
             t.w(train ? Words{"bytes each sample keeps (inputs, outputs, masks, indices per op)",
                               "每个样本保存的字节（各算子的输入、输出、掩码、索引）"}
                       : Words{"peak live bytes per sample", "每个样本的存活峰值字节"}),
             t.bytes(kept_ps)},
            {"c",
             t.w({"per-batch statistics (batchnorm mean and inverse std)",
                  "每批统计量（批归一化的均值与标准差倒数）"}),
             t.bytes(act_fixed)}},
           Writer::num(b) + " × " + Writer::num(kept_ps) + " B + " + Writer::num(act_fixed) + " B",
           t.bytes(m.activations)));
  if (train && b > 0) {
    out.push_back(make("/memory/activation_gradients",
                       t.w({"backward peak extra", "反向传播峰值额外内存"}), "B × g",
                       {{"B", t.w({"batch size", "批量大小"}), Writer::num(b)},
                        {"g",
                         t.w({"live activation gradients at the backward peak, less the saved "
                              "tensors freed by then, per sample",
                              "反向传播峰值时存活的激活梯度减去已释放的保存张量（每个样本）"}),
                         t.bytes(m.activation_gradients / b)}},
                       Writer::num(b) + " × " + Writer::num(m.activation_gradients / b) + " B",
                       t.bytes(m.activation_gradients)));
  }
  if (m.kv_cache && r.transformer && b > 0) {
    const TransformerSummary& ts = *r.transformer;
    // Sliding-window layers hold at most their window: the cache is then less than
    // B x T x per-token bytes, and the explanation says so rather than show a wrong product.
    const bool capped = m.kv_cache / b < ts.context_tokens * ts.kv_cache_bytes_per_token;
    if (capped) {
      out.push_back(make(
          "/memory/kv_cache", t.w({"KV cache", "KV 缓存"}),
          "B × Σ_layers min(T, window) × (2 × h_kv × d × b)",
          {{"B", t.w({"batch size (sequences)", "批量大小（序列数）"}), Writer::num(b)},
           {"T", t.w({"tokens in the cache (prompt + generated)", "缓存中的词元数（提示 + 生成）"}),
            Writer::num(ts.context_tokens)},
           {"Σ",
            t.w({"bytes of one sequence: a sliding-window layer holds at most its window, "
                 "a global layer all T tokens",
                 "一个序列的字节数：滑动窗口层最多保存其窗口，全局层保存全部 T 个词元"}),
            t.bytes(m.kv_cache / b)}},
          Writer::num(b) + " × " + Writer::num(m.kv_cache / b) + " B", t.bytes(m.kv_cache)));
    } else
      out.push_back(make(
          "/memory/kv_cache", t.w({"KV cache", "KV 缓存"}), "B × T × (2 × L × h_kv × d × b)",
          {{"B", t.w({"batch size (sequences)", "批量大小（序列数）"}), Writer::num(b)},
           {"T", t.w({"tokens in the cache (prompt + generated)", "缓存中的词元数（提示 + 生成）"}),
            Writer::num(ts.context_tokens)},
           {"2 × L × h_kv × d × b",
            t.w({"bytes per token: K and V of every layer and KV head (MLA: its latent or "
                 "per-head form)",
                 "每个词元的字节数：每层每个 KV 头的 K 与 V"}),
            t.bytes(ts.kv_cache_bytes_per_token)}},
          Writer::num(b) + " × " + Writer::num(ts.context_tokens) + " × " +
              Writer::num(ts.kv_cache_bytes_per_token) + " B",
          t.bytes(m.kv_cache)));
  }
  std::string sum;
  for (int64_t v :
       {m.weights, m.buffers, m.gradients, m.master_weights, m.optimizer_states, m.quant_scales,
        m.adapter_weights, m.adapter_gradients, m.adapter_optimizer_states, m.activations,
        m.activation_gradients, m.kv_cache, m.overhead}) {
    if (v) sum += (sum.empty() ? "" : " + ") + Writer::num(v);
  }
  out.push_back(
      make("/memory/total", t.w({"total memory", "总内存"}), "Σ m_i", {}, sum, t.bytes(m.total)));
  out.push_back(
      make("/memory/per_sample", t.w({"memory per sample", "每个样本的内存"}),
           "(total − fixed) / B", {{"B", t.w({"batch size", "批量大小"}), Writer::num(b)}},
           "(" + Writer::num(m.total) + " − " + Writer::num(m.fixed) + ") / " + Writer::num(b),
           t.bytes(m.per_sample)));
  if (r.max_batch && wl.memory_bytes) {
    out.push_back(make("/max_batch", t.w({"largest batch", "最大批量"}), "⌊(M − F) / S⌋",
                       {{"M", t.w({"memory available", "可用内存"}), t.bytes(*wl.memory_bytes)},
                        {"F", t.w({"fixed memory", "固定内存"}), t.bytes(m.fixed)},
                        {"S", t.w({"memory per sample", "每个样本的内存"}), t.bytes(m.per_sample)}},
                       "⌊(" + Writer::num(*wl.memory_bytes) + " − " + Writer::num(m.fixed) +
                           ") / " + Writer::num(m.per_sample) + "⌋",
                       Writer::num(*r.max_batch)));
  }
}

void explainGpu(const Report& r, const Writer& t, std::vector<Explanation>& out) {
  if (!r.gpu_fit) return;
  const GpuFit& f = *r.gpu_fit;
  out.push_back(make(
      "/gpu_memory/usable_bytes", t.w({"usable GPU memory", "可用显存"}), "C − R − F",
      {{"C", t.w({"capacity as nvidia-smi reports it", "nvidia-smi 报告的容量"}),
        t.bytes(f.capacity_bytes)},
       {"R", t.w({"reserve (CUDA context, framework, NCCL)", "预留（CUDA 上下文、框架、NCCL）"}),
        t.bytes(f.reserve_bytes)},
       {"F", t.w({"allocator fragmentation", "分配器碎片"}), t.bytes(f.fragmentation_bytes)}},
      Writer::num(f.capacity_bytes) + " − " + Writer::num(f.reserve_bytes) + " − " +
          Writer::num(f.fragmentation_bytes),
      t.bytes(f.usable_bytes)));
  out.push_back(make("/headroom_bytes", t.w({"headroom", "剩余空间"}), "usable − per-GPU total", {},
                     Writer::num(f.usable_bytes) + " − " + Writer::num(f.per_gpu.total),
                     t.bytes(f.headroom_bytes)));
  out.push_back(
      make("/step_time_s", t.w({"step time (roofline)", "单步时间（屋顶线模型）"}),
           "Σ max(FLOPs / (peak × u), bytes / bandwidth)",
           {{"peak", t.w({"dense peak for the math format", "该数值格式的稠密峰值"}),
             Writer::real(f.peak_flops / 1e12) + " TFLOP/s (" + mathFormatName(f.math) + ")"},
            {"u", t.w({"achievable utilisation", "可达利用率"}), Writer::real(f.utilization)},
            {"bandwidth", t.w({"memory bandwidth", "显存带宽"}),
             Writer::real(f.gpu.bandwidth_bytes_per_s / 1e9) + " GB/s"}},
           t.w({"compute ", "计算 "}) + Writer::real(f.time.compute_s * 1e3) + " ms, " +
               t.w({"memory ", "访存 "}) + Writer::real(f.time.memory_s * 1e3) + " ms",
           Writer::real(f.time.step_s * 1e3) + " ms"));
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
  return out;
}

std::vector<Dominance> dominantTerms(const Report& r, Language language) {
  const Writer t(language, ByteUnits::kBinary);
  std::vector<Dominance> out;
  struct Quantity {
    const char* name;
    int64_t LayerReport::*field;
    Words verb;
  };
  const Quantity quantities[] = {
      {"params", &LayerReport::params, {"hold", "占有"}},
      {"macs", &LayerReport::macs, {"do", "完成"}},
      {"activation_bytes", &LayerReport::activation_bytes, {"keep", "保存"}},
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
                    : std::to_string(best.layers) + " " + best.layer_type + " layer" +
                          (best.layers == 1 ? "" : "s") + " " + t.w(quantities[q].verb) + " " +
                          pct + " " + t.w(what[q]);
    out.push_back(std::move(best));
  }
  const MemoryBreakdown& m = r.memory;
  const std::pair<Words, int64_t> lines[] = {
      {{"weights", "权重"}, m.weights},
      {{"gradients", "梯度"}, m.gradients},
      {{"master weights", "主权重"}, m.master_weights},
      {{"optimizer states", "优化器状态"}, m.optimizer_states},
      {{"activations", "激活值"}, m.activations},
      {{"backward peak extra", "反向峰值额外内存"}, m.activation_gradients},
  };
  if (m.total > 0) {
    const auto* top = &lines[0];
    for (const auto& l : lines) top = l.second > top->second ? &l : top;
    Dominance d;
    d.quantity = "memory";
    d.layer_type = top->first.en;
    d.share = static_cast<double>(top->second) / static_cast<double>(m.total);
    const std::string pct = Writer::real(100 * d.share, "%.1f") + " %";
    d.text = language == Language::kChinese
                 ? t.w(top->first) + "占总内存的 " + pct
                 : t.w(top->first) + " are " + pct + " of the total memory";
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace dlcost
