// The workload schema's table. Each row is one field; see workload_schema.hpp for what the
// columns drive. Enum values come from the enums' own lists (kOptimizers, ...), so a new value
// reaches the CLI's help and the page's menus without edits elsewhere.

#include "dlcost/schema/workload_schema.hpp"

#include <cmath>

#include "dlcost/base/engine_limits.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/base/units.hpp"
#include "dlcost/base/units_json.hpp"
#include "dlcost/gpu/gpu_json.hpp"
#include "dlcost/gpu/interconnect_table.hpp"
#include "dlcost/schema/presets.hpp"
#include "dlcost/schema/task_defaults.hpp"
#include "dlcost/types/interconnect.hpp"
#include "dlcost/types/parallel.hpp"
#include "transformer/hf_config.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

constexpr double kMaxBytes = 1152921504606846976.0;  // 2^60: sums of a few stay in int64
constexpr double kMaxGpus = 1048576.0;               // 2^20

/// A row under construction: each setter fills one column, so a row reads as a sentence.
struct Row {
  WorkloadField f;
  Row(const char* key, FieldType type, const char* flag) {
    f.key = key;
    f.type = type;
    f.flag = flag;
  }
  Row& range(double min, double max, const char* unit) {
    f.min = min;
    f.max = max;
    f.unit = unit;
    return *this;
  }
  Row& below(double max) {
    f.max = max;
    f.max_exclusive = true;
    return *this;
  }
  template <typename E, size_t N>
  Row& values(const E (&all)[N], const char* (*name)(E)) {
    for (E e : all) f.values.push_back({name(e), {}});
    return *this;
  }
  Row& names(const std::vector<std::string>& all) {
    for (const std::string& n : all) f.values.push_back({n, {}});
    return *this;
  }
  Row& valueLabel(const char* value, Text label) {
    for (EnumValue& v : f.values) {
      if (v.name == value) {
        v.label = std::move(label);
        break;
      }
    }
    return *this;
  }
  Row& alias(const char* other, const char* value) {
    f.aliases.emplace_back(other, value);
    return *this;
  }
  Row& byDefault(json value) {
    f.default_value = std::move(value);
    return *this;
  }
  Row& derived(Text note) {
    f.default_note = std::move(note);
    return *this;
  }
  Row& when(unsigned conditions, const char* group) {
    f.when = conditions;
    f.group = group;
    return *this;
  }
  Row& text(Text label, Text help) {
    f.label = std::move(label);
    f.help = std::move(help);
    return *this;
  }
  Row& io(void (*apply)(const json&, Workload&, const std::string&),
          json (*write)(const Workload&)) {
    f.apply = apply;
    f.write = write;
    return *this;
  }
};

/// An optional field's JSON: its value, or null when unset.
template <typename T>
json orNull(const std::optional<T>& v) {
  return v ? json(*v) : json();
}

/// What one step does: training or inference, its batch and precision.
void addStepFields(std::vector<Row>& rows) {
  rows.push_back(Row("mode", FieldType::kEnum, "--mode")
                     .values(kModes, modeName)
                     .valueLabel("train", {"Training", "训练"})
                     .valueLabel("infer", {"Inference", "推理"})
                     .alias("inference", "infer")
                     .byDefault("train")
                     .when(0, "workload")
                     .text({"Mode", "模式"},
                           {"train: forward, backward and optimizer step; infer: forward only",
                            "train：前向、反向与优化器更新；infer：仅前向"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.mode = *parseMode(v.get<std::string>()); },
                         [](const Workload& w) { return json(modeName(w.mode)); }));
  rows.push_back(
      Row("batch", FieldType::kInteger, "--batch")
          .range(1, static_cast<double>(kMaxBatch), "samples")
          .byDefault(1)
          .when(0, "workload")
          .text({"Batch size", "批大小"}, {"samples per step (with several GPUs, the global batch)",
                                           "每步样本数（多 GPU 时为全局批大小）"})
          .io([](const json& v, Workload& w, const std::string&) { w.batch = v.get<int64_t>(); },
              [](const Workload& w) { return json(w.batch); }));
  rows.push_back(
      Row("dtype", FieldType::kEnum, "--dtype")
          .values(kPrecisions, precisionName)
          .valueLabel("mixed", {"mixed (Apex O2: fp16 + fp32 master)",
                                "混合精度（Apex O2：fp16 + fp32 主权重）"})
          .valueLabel("autocast_fp16", {"torch.autocast fp16", "torch.autocast fp16"})
          .valueLabel("autocast_bf16", {"torch.autocast bf16", "torch.autocast bf16"})
          .byDefault("fp32")
          .when(0, "workload")
          .text({"Precision", "精度"},
                {"mixed (Apex O2 / Megatron): 16-bit weights/activations, fp32 master weights "
                 "and states; autocast: fp32 weights and states, 16-bit ops per "
                 "torch.autocast's lists, a 16-bit copy of each weight kept for backward",
                 "mixed（Apex O2 / Megatron）：16 位权重与激活，fp32 主权重与优化器状态；"
                 "autocast：fp32 权重与状态，按 torch.autocast 的算子列表以 16 位计算，"
                 "每个权重的 16 位副本留作反向"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.precision = *parsePrecision(v.get<std::string>()); },
              [](const Workload& w) { return json(precisionName(w.precision)); }));
}

/// The optimizer and how PyTorch runs it (training only).
void addOptimizerFields(std::vector<Row>& rows) {
  rows.push_back(
      Row("optimizer", FieldType::kEnum, "--optimizer")
          .values(kOptimizers, optimizerName)
          .valueLabel("sgd", {"SGD", "SGD"})
          .valueLabel("momentum", {"SGD + momentum", "SGD + 动量"})
          .valueLabel("adam", {"Adam", "Adam"})
          .valueLabel("adamw", {"AdamW", "AdamW"})
          .valueLabel("rmsprop", {"RMSprop", "RMSprop"})
          .valueLabel("adagrad", {"Adagrad", "Adagrad"})
          .valueLabel("adam8bit", {"Adam 8-bit (bitsandbytes)", "8 位 Adam（bitsandbytes）"})
          .byDefault("adam")
          // Training only: inference keeps no optimizer states (the report still echoes it).
          .when(kWhenTrain, "workload")
          .text({"Optimizer", "优化器"},
                {"sets the optimizer states kept per parameter", "决定每个参数保存的优化器状态"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.optimizer = *parseOptimizer(v.get<std::string>()); },
              [](const Workload& w) { return json(optimizerName(w.optimizer)); }));
  rows.push_back(
      Row("zero_grad", FieldType::kEnum, "--zero-grad")
          .values(kZeroGrads, zeroGradName)
          .valueLabel("set_to_none", {"set to None (PyTorch 2.x)", "置为 None（PyTorch 2.x）"})
          .valueLabel("zero", {"filled with zeros (PyTorch 1.x)", "填零（PyTorch 1.x）"})
          .byDefault("set_to_none")
          .when(kWhenTrain, "workload")
          .text({"Gradients between steps", "步间梯度"},
                {"set_to_none: zero_grad frees the gradients and backward creates them layer by "
                 "layer (PyTorch 2.x's default); zero: they stay allocated and backward adds "
                 "into them",
                 "set_to_none：zero_grad 释放梯度，反向逐层重新创建（PyTorch 2.x 默认）；"
                 "zero：梯度常驻，反向累加进去"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.zero_grad = *parseZeroGrad(v.get<std::string>()); },
              [](const Workload& w) { return json(zeroGradName(w.zero_grad)); }));
  rows.push_back(
      Row("optimizer_impl", FieldType::kEnum, "--optimizer-impl")
          .values(kOptimizerImpls, optimizerImplName)
          .valueLabel("foreach",
                      {"foreach (PyTorch 2.x on CUDA)", "foreach（PyTorch 2.x CUDA 默认）"})
          .valueLabel("for_loop", {"for-loop (one tensor at a time)", "逐张量循环"})
          .valueLabel("fused", {"fused", "融合内核"})
          .byDefault("foreach")
          .when(kWhenTrain, "workload")
          .text({"Optimizer implementation", "优化器实现"},
                {"PyTorch's optimizer step: foreach (the 2.x default on CUDA) makes a temporary "
                 "copy of the parameters, for_loop one of the largest tensors, fused none",
                 "PyTorch 优化器实现：foreach（2.x CUDA 默认）临时复制一份参数，for_loop "
                 "复制最大的张量，fused 不复制"})
          .io(
              [](const json& v, Workload& w, const std::string&) {
                w.optimizer_impl = *parseOptimizerImpl(v.get<std::string>());
              },
              [](const Workload& w) { return json(optimizerImplName(w.optimizer_impl)); }));
}

/// The memory size and GPU a model is run on, and the host it sits in.
void addMemoryFields(std::vector<Row>& rows) {
  rows.push_back(
      Row("overhead_bytes", FieldType::kInteger, "--overhead-bytes")
          .range(0, kMaxBytes, "bytes")
          .byDefault(0)
          .when(0, "workload")
          .text({"Fixed overhead (CUDA context, workspace)", "固定开销（CUDA 上下文、工作区）"},
                {"fixed bytes added to the total (framework, CUDA context)",
                 "加到总量上的固定字节数（框架、CUDA 上下文）"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.overhead_bytes = v.get<int64_t>(); },
              [](const Workload& w) { return json(w.overhead_bytes); }));
  rows.push_back(Row("memory_gib", FieldType::kNumber, "--memory-gib")
                     .range(0, 1073741824.0, "GiB")
                     .derived({"none", "无"})
                     .when(0, "gpu")
                     .text({"Memory available", "可用显存"},
                           {"memory available: the report adds the largest batch that fits",
                            "可用显存：报告给出能放下的最大批大小"})
                     .io(
                         [](const json& v, Workload& w, const std::string&) {
                           w.memory_bytes =
                               static_cast<int64_t>(std::floor(v.get<double>() * 1073741824.0));
                         },
                         [](const Workload&) { return json(); }));  // written back as memory_bytes
  rows.push_back(Row("memory_bytes", FieldType::kInteger, "--memory-bytes")
                     .range(0, kMaxBytes, "bytes")
                     .derived({"none", "无"})
                     .when(0, "gpu")
                     .text({"Memory available", "可用显存"},
                           {"as --memory-gib, in bytes", "同 --memory-gib，以字节计"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.memory_bytes = v.get<int64_t>(); },
                         [](const Workload& w) { return orNull(w.memory_bytes); }));
  rows.push_back(
      Row("gpu", FieldType::kGpu, "--gpu")
          .derived({"none", "无"})
          .when(0, "gpu")
          .text({"GPU", "GPU"},
                {"run on this GPU (`dlcost gpus` lists them): fit, largest batch, step time, "
                 "advice",
                 "在此 GPU 上运行（`dlcost gpus` 列出全部）：是否放得下、最大批、单步时间、建议"})
          .io([](const json& v, Workload& w,
                 const std::string& path) { w.hardware.gpu = parseGpu(v, path); },
              [](const Workload& w) { return hardwareToJson(w.hardware).value("gpu", json()); }));
  rows.push_back(
      Row("system_ram_gib", FieldType::kNumber, "--system-ram-gib")
          .range(1, 1048576, "GiB")
          .derived({"a CPU row's default size; else not checked", "CPU 行的默认容量；否则不检查"})
          .when(kWhenGpu, "parallel")
          .text({"System RAM (GiB)", "系统内存（GiB）"},
                {"RAM installed: a CPU device's memory, and where llama.cpp keeps the layers it "
                 "leaves off the GPU; the OS keeps 4 GiB of it",
                 "已安装内存：CPU 设备的内存，以及 llama.cpp 未放上 GPU 的层所在之处；操作系统保留 "
                 "4 GiB"})
          .io(
              [](const json& v, Workload& w, const std::string&) {
                w.hardware.system_ram_bytes =
                    static_cast<int64_t>(std::floor(v.get<double>() * 1073741824.0));
              },
              [](const Workload& w) {
                return w.hardware.system_ram_bytes
                           ? json(static_cast<double>(*w.hardware.system_ram_bytes) / 1073741824.0)
                           : json();
              }));
}

/// The tokens a transformer reads and writes (docs/transformers.md).
void addSequenceFields(std::vector<Row>& rows) {
  rows.push_back(
      Row("seq_len", FieldType::kInteger, "--seq-len")
          .range(1, static_cast<double>(kMaxSequence), "tokens")
          .derived({"min(2048, context)", "min(2048, 上下文)"})
          .when(kWhenTransformer, "transformer")
          .text({"Sequence length (tokens)", "序列长度（token）"},
                {"training tokens per sequence", "训练时每条序列的 token 数"})
          .io([](const json& v, Workload& w, const std::string&) { w.seq_len = v.get<int64_t>(); },
              [](const Workload& w) { return orNull(w.seq_len); }));
  rows.push_back(Row("prompt_tokens", FieldType::kInteger, "--prompt-tokens")
                     .range(1, static_cast<double>(kMaxSequence), "tokens")
                     .derived({"= sequence length", "同序列长度"})
                     .when(kWhenTransformer | kWhenInfer, "transformer")
                     .text({"Prompt tokens", "提示词 token 数"},
                           {"inference prompt length (prefill)", "推理时提示词长度（prefill）"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.prompt_tokens = v.get<int64_t>(); },
                         [](const Workload& w) { return orNull(w.prompt_tokens); }));
  rows.push_back(Row("generated_tokens", FieldType::kInteger, "--generated-tokens")
                     .range(0, static_cast<double>(kMaxSequence), "tokens")
                     .byDefault(0)
                     .when(kWhenTransformer | kWhenInfer, "transformer")
                     .text({"Generated tokens", "生成 token 数"},
                           {"inference tokens generated after the prompt",
                            "推理时在提示词之后生成的 token 数"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.generated_tokens = v.get<int64_t>(); },
                         [](const Workload& w) { return json(w.generated_tokens); }));
}

/// How a transformer stores its weights and KV cache, and its attention.
void addStorageFields(std::vector<Row>& rows) {
  rows.push_back(
      Row("images", FieldType::kInteger, "--images")
          .range(0, 1024, "images")
          .derived({"1 for a vision-language model", "视觉语言模型为 1"})
          .when(kWhenTransformer, "transformer")
          .text({"Images per sample", "每个样本的图像数"},
                {"images a vision-language model reads per sample; each adds its "
                 "image tokens to the sequence and a pass of the vision tower",
                 "视觉语言模型每个样本读取的图像数；每张图像把它的图像 token 加入序列，"
                 "并让视觉塔运行一次"})
          .io([](const json& v, Workload& w, const std::string&) { w.images = v.get<int64_t>(); },
              [](const Workload& w) { return orNull(w.images); }));
  rows.push_back(
      Row("weight_dtype", FieldType::kEnum, "--weight-dtype")
          .values(kStorageDTypes, dtypeName)
          .derived({"the precision's weights", "随精度"})
          .when(kWhenTransformer, "transformer")
          .text({"Weight storage", "权重存储格式"},
                {"weight storage; int8/int4 add one fp16 scale per group of block linear weights",
                 "权重存储格式；int8/int4 每组线性层权重另存一个 fp16 缩放因子"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.weight_dtype = *parseDType(v.get<std::string>()); },
              [](const Workload& w) {
                return w.weight_dtype ? json(dtypeName(*w.weight_dtype)) : json();
              }));
  rows.push_back(Row("quant_group_size", FieldType::kInteger, "--quant-group-size")
                     .range(1, static_cast<double>(kMaxDimension), "weights")
                     .byDefault(128)
                     .when(kWhenTransformer | kWhenQuantized, "transformer")
                     .text({"Quantization group size", "量化分组大小"},
                           {"weights per quantization group", "每个量化分组的权重数"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.quant_group_size = v.get<int64_t>(); },
                         [](const Workload& w) { return json(w.quant_group_size); }));
  rows.push_back(
      Row("kv_dtype", FieldType::kEnum, "--kv-dtype")
          .values(kStorageDTypes, dtypeName)
          .derived({"the activations'", "同激活"})
          .when(kWhenTransformer | kWhenInfer, "transformer")
          .text({"KV cache storage", "KV 缓存存储格式"}, {"KV cache storage", "KV 缓存的存储格式"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.kv_dtype = *parseDType(v.get<std::string>()); },
              [](const Workload& w) {
                return w.kv_dtype ? json(dtypeName(*w.kv_dtype)) : json();
              }));
  rows.push_back(
      Row("attention", FieldType::kEnum, "--attention")
          .values(kAttentionImpls, attentionName)
          .byDefault("flash")
          .when(kWhenTransformer, "transformer")
          .text({"Attention", "注意力实现"}, {"eager keeps the s x s scores; flash does not",
                                              "eager 保存 s×s 注意力分数；flash 不保存"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.attention = *parseAttention(v.get<std::string>()); },
              [](const Workload& w) { return json(attentionName(w.attention)); }));
  rows.push_back(
      Row("mla_cache", FieldType::kEnum, "--mla-cache")
          .values(kMlaCaches, mlaCacheName)
          .byDefault("latent")
          .when(kWhenTransformer | kWhenInfer, "transformer")
          .text({"MLA KV cache form", "MLA KV 缓存形式"},
                {"DeepSeek MLA models: latent (kv_lora_rank + qk_rope_head_dim per token and "
                 "layer, as vLLM and SGLang keep it) or decompressed (per-head K and V, as HF "
                 "transformers' cache keeps it)",
                 "DeepSeek MLA 模型：latent（每词元每层 kv_lora_rank + qk_rope_head_dim，vLLM 与 "
                 "SGLang 的做法）或 decompressed（按头展开的 K 和 V，HF transformers 缓存的做法）"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.mla_cache = *parseMlaCache(v.get<std::string>()); },
              [](const Workload& w) { return json(mlaCacheName(w.mla_cache)); }));
}

/// How a transformer trains: recomputation, fine-tuning, LoRA, accumulation.
void addTrainingFields(std::vector<Row>& rows) {
  rows.push_back(
      Row("recompute", FieldType::kEnum, "--recompute")
          .values(kRecomputes, recomputeName)
          .byDefault("none")
          .when(kWhenTransformer | kWhenTrain, "transformer")
          .text({"Activation recomputation", "激活重计算"},
                {"activation recomputation (Korthikanti et al. 2022)",
                 "激活重计算（Korthikanti 等，2022）"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.recompute = *parseRecompute(v.get<std::string>()); },
              [](const Workload& w) { return json(recomputeName(w.recompute)); }));
  rows.push_back(
      Row("finetune", FieldType::kEnum, "--finetune")
          .values(kFinetunes, finetuneName)
          .byDefault("none")
          .when(kWhenTransformer | kWhenTrain, "transformer")
          .text({"Fine-tuning", "微调方式"},
                {"what training updates (none: from scratch); qlora stores the base in int4",
                 "训练更新哪些参数（none：从头训练）；qlora 以 int4 存储基座"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.finetune = *parseFinetune(v.get<std::string>()); },
              [](const Workload& w) { return json(finetuneName(w.finetune)); }));
  rows.push_back(Row("lora_rank", FieldType::kInteger, "--lora-rank")
                     .range(1, static_cast<double>(kMaxDimension), "")
                     .byDefault(8)
                     .when(kWhenTransformer | kWhenTrain | kWhenLora, "transformer")
                     .text({"LoRA rank", "LoRA 秩"}, {"LoRA rank r", "LoRA 的秩 r"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.lora_rank = v.get<int64_t>(); },
                         [](const Workload& w) { return json(w.lora_rank); }));
  rows.push_back(Row("lora_alpha", FieldType::kNumber, "--lora-alpha")
                     .range(0, 1e9, "")
                     .byDefault(8)
                     .when(kWhenTransformer | kWhenTrain | kWhenLora, "transformer")
                     .text({"LoRA alpha", "LoRA alpha"},
                           {"LoRA alpha (changes no cost)", "LoRA alpha（不影响开销）"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.lora_alpha = v.get<double>(); },
                         [](const Workload& w) { return json(w.lora_alpha); }));
  rows.push_back(
      Row("lora_targets", FieldType::kNameList, "--lora-targets")
          .byDefault({"q_proj", "v_proj"})
          .when(kWhenTransformer | kWhenTrain | kWhenLora, "transformer")
          .text({"LoRA target modules (comma-separated)", "LoRA 目标模块（逗号分隔）"},
                {"modules with adapters: the model's own names, q_proj ... down_proj, or "
                 "all-linear",
                 "加适配器的模块：模型自己的模块名、q_proj … down_proj 或 all-linear"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.lora_targets = v.get<std::vector<std::string>>(); },
              [](const Workload& w) { return json(w.lora_targets); }));
  rows.push_back(
      Row("grad_accum", FieldType::kInteger, "--grad-accum")
          .range(1, static_cast<double>(kMaxBatch), "micro-batches")
          .byDefault(1)
          .when(kWhenTransformer | kWhenTrain, "transformer")
          .text({"Gradient accumulation steps", "梯度累积步数"},
                {"micro-batches per optimizer step: memory is one micro-batch's, MACs the step's",
                 "每次优化器更新的微批次数：显存按单个微批次，计算量按整步"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.grad_accum = v.get<int64_t>(); },
              [](const Workload& w) { return json(w.grad_accum); }));
}

/// Where the GPUs sit and what links them (dlcost/interconnect.hpp).
void addNetworkFields(std::vector<Row>& rows) {
  rows.push_back(Row("nodes", FieldType::kInteger, "--nodes")
                     .range(1, kMaxGpus, "nodes")
                     .derived({"gpus / gpus_per_node", "gpus / gpus_per_node"})
                     .when(kWhenGpu, "parallel")
                     .text({"Nodes", "节点数"},
                           {"servers the GPUs are spread over (gpus = nodes x GPUs per node)",
                            "GPU 分布的服务器数（gpus = 节点数 × 每节点 GPU 数）"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.hardware.network.nodes = v.get<int64_t>(); },
                         [](const Workload& w) { return orNull(w.hardware.network.nodes); }));
  rows.push_back(
      Row("gpus_per_node", FieldType::kInteger, "--gpus-per-node")
          .range(1, 1024, "GPUs")
          .derived(
              {"8, or gpus when fewer, or gpus / nodes", "8；GPU 较少时为 gpus；或 gpus / nodes"})
          .when(kWhenGpu, "parallel")
          .text({"GPUs per node", "每节点 GPU 数"},
                {"GPUs in one server, linked by the intra-node link",
                 "一台服务器内的 GPU 数，由节点内互连相连"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.hardware.network.gpus_per_node = v.get<int64_t>(); },
              [](const Workload& w) { return orNull(w.hardware.network.gpus_per_node); }));
  rows.push_back(
      Row("intra_node_link", FieldType::kEnum, "--intra-node-link")
          .names(interconnectIds(LinkScope::kIntraNode))
          .derived({"the GPU's (NVLink for SXM parts, else its PCIe)",
                    "随 GPU（SXM 为 NVLink，否则其 PCIe）"})
          .when(kWhenGpu, "parallel")
          .text({"Link inside a node", "节点内互连"},
                {"link between the GPUs of one node (per GPU, each direction)",
                 "同一节点内 GPU 之间的互连（每 GPU 单向带宽）"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.hardware.network.intra_link = v.get<std::string>(); },
              [](const Workload& w) { return orNull(w.hardware.network.intra_link); }));
  rows.push_back(
      Row("inter_node_link", FieldType::kEnum, "--inter-node-link")
          .names(interconnectIds(LinkScope::kInterNode))
          .derived({"the GPU's DGX network", "随 GPU 的 DGX 网络"})
          .when(kWhenGpu, "parallel")
          .text({"Link between nodes", "节点间互连"},
                {"network between nodes, one adapter per GPU", "节点之间的网络，每 GPU 一块网卡"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.hardware.network.inter_link = v.get<std::string>(); },
              [](const Workload& w) { return orNull(w.hardware.network.inter_link); }));
}

/// How many GPUs, and how ZeRO shards the data-parallel copies (docs/gpu-fit.md).
void addDataParallelFields(std::vector<Row>& rows) {
  rows.push_back(Row("gpus", FieldType::kInteger, "--gpus")
                     .range(1, kMaxGpus, "GPUs")
                     .byDefault(1)
                     .when(kWhenGpu, "parallel")
                     .text({"GPUs in all", "GPU 总数"},
                           {"GPUs in all (data parallel x tp x pp); batch is the global batch",
                            "GPU 总数（数据并行 × tp × pp）；批大小为全局批"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.hardware.parallel.gpus = v.get<int64_t>(); },
                         [](const Workload& w) { return json(w.hardware.parallel.gpus); }));
  rows.push_back(
      Row("zero", FieldType::kInteger, "--zero")
          .range(0, 3, "")
          .byDefault(0)
          .when(kWhenGpu | kWhenTrain, "parallel")
          .text({"ZeRO stage", "ZeRO 阶段"},
                {"ZeRO stage over the data-parallel GPUs (1 states, 2 +gradients, 3 +weights)",
                 "数据并行上的 ZeRO 阶段（1 切分状态，2 再切梯度，3 再切权重）"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.hardware.parallel.zero = v.get<int>(); },
              [](const Workload& w) { return json(w.hardware.parallel.zero); }));
}

/// How the model is split: tensor, pipeline, sequence and expert parallelism
/// (docs/gpu-fit.md).
void addModelParallelFields(std::vector<Row>& rows) {
  rows.push_back(
      Row("tp", FieldType::kInteger, "--tp")
          .range(1, kMaxGpus, "GPUs")
          .byDefault(1)
          .when(kWhenGpu, "parallel")
          .text({"Tensor parallel", "张量并行度"}, {"tensor-parallel degree", "张量并行度"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.hardware.parallel.tp = v.get<int64_t>(); },
              [](const Workload& w) { return json(w.hardware.parallel.tp); }));
  rows.push_back(Row("pp", FieldType::kInteger, "--pp")
                     .range(1, kMaxGpus, "stages")
                     .byDefault(1)
                     .when(kWhenGpu, "parallel")
                     .text({"Pipeline parallel", "流水线并行度"},
                           {"pipeline-parallel degree (stages)", "流水线并行度（阶段数）"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.hardware.parallel.pp = v.get<int64_t>(); },
                         [](const Workload& w) { return json(w.hardware.parallel.pp); }));
  rows.push_back(
      Row("sp", FieldType::kBoolean, "--sp")
          .byDefault(false)
          .when(kWhenGpu, "parallel")
          .text({"Sequence parallel (with tensor parallel)", "序列并行（配合张量并行）"},
                {"sequence parallelism with tp: also splits LayerNorm and dropout activations",
                 "配合张量并行的序列并行：LayerNorm 与 dropout 的激活也被切分"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.hardware.parallel.sp = v.get<bool>(); },
              [](const Workload& w) { return json(w.hardware.parallel.sp); }));
  rows.push_back(
      Row("microbatches", FieldType::kInteger, "--microbatches")
          .range(1, kMaxGpus, "micro-batches")
          .derived({"pp", "pp"})
          .when(kWhenGpu, "parallel")
          .text({"Pipeline micro-batches", "流水线微批次数"},
                {"pipeline micro-batches per step", "流水线每步的微批次数"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.hardware.parallel.microbatches = v.get<int64_t>(); },
              [](const Workload& w) {
                const int64_t m = w.hardware.parallel.microbatches;
                return m > 0 ? json(m) : json();
              }));
  rows.push_back(
      Row("virtual_stages", FieldType::kInteger, "--virtual-stages")
          .range(1, kMaxGpus, "model chunks per GPU")
          .byDefault(1)
          .when(kWhenGpu | kWhenTrain | kWhenTransformer, "parallel")
          .text({"Interleaved pipeline chunks", "交错流水线分块数"},
                {"virtual pipeline stages per GPU (interleaved 1F1B; 1 = plain 1F1B)",
                 "每 GPU 的虚拟流水线阶段数（交错 1F1B；1 为普通 1F1B）"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.hardware.parallel.virtual_stages = v.get<int64_t>(); },
              [](const Workload& w) { return json(w.hardware.parallel.virtual_stages); }));
  rows.push_back(Row("ep", FieldType::kInteger, "--ep")
                     .range(1, kMaxGpus, "GPUs")
                     .byDefault(1)
                     .when(kWhenGpu | kWhenTransformer, "parallel")
                     .text({"Expert parallel (MoE)", "专家并行度（MoE）"},
                           {"expert-parallel degree: each MoE layer's experts split over ep of the "
                            "data-parallel GPUs",
                            "专家并行度：每个 MoE 层的专家切分到 ep 块数据并行 GPU 上"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.hardware.parallel.ep = v.get<int64_t>(); },
                         [](const Workload& w) { return json(w.hardware.parallel.ep); }));
  rows.push_back(
      Row("cp", FieldType::kInteger, "--cp")
          .range(1, kMaxGpus, "GPUs")
          .byDefault(1)
          .when(kWhenGpu | kWhenTrain | kWhenTransformer, "parallel")
          .text({"Context parallel", "上下文并行度"},
                {"context-parallel degree: each sequence split over cp of the data-parallel GPUs, "
                 "attention run as a ring passing K/V blocks (training)",
                 "上下文并行度：每条序列切分到 cp 块数据并行 GPU 上，注意力以环形传递 K/V "
                 "块计算（训练）"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.hardware.parallel.cp = v.get<int64_t>(); },
              [](const Workload& w) { return json(w.hardware.parallel.cp); }));
  rows.push_back(
      Row("cp_load_balance", FieldType::kEnum, "--cp-load-balance")
          .names({"head_tail", "none"})
          .valueLabel("head_tail", {"head-tail: 2 x cp chunks, one from each end per GPU",
                                    "首尾：2 × cp 块，每块 GPU 取首尾各一块"})
          .valueLabel("none", {"none: cp contiguous chunks", "无：cp 个连续块"})
          .byDefault("head_tail")
          .when(kWhenGpu | kWhenTrain | kWhenTransformer, "parallel")
          .text({"Context parallel load balancing", "上下文并行负载均衡"},
                {"head_tail splits the sequence into 2 x cp chunks, one from each end per GPU, so "
                 "causal attention costs every GPU the same (torchtitan, Megatron); none keeps "
                 "cp contiguous chunks",
                 "head_tail 将序列切成 2 × cp 块，每块 GPU 取首尾各一块，使因果注意力在各 GPU "
                 "上的计算量相同（torchtitan、Megatron）；none 为 cp 个连续块"})
          .io(
              [](const json& v, Workload& w, const std::string&) {
                w.hardware.parallel.cp_load_balance = v.get<std::string>() == "head_tail";
              },
              [](const Workload& w) {
                return json(w.hardware.parallel.cp_load_balance ? "head_tail" : "none");
              }));
}

/// The roofline's settings and what the allocator keeps back (docs/gpu-fit.md).
void addRooflineFields(std::vector<Row>& rows) {
  rows.push_back(Row("utilization", FieldType::kNumber, "--utilization")
                     .range(kMinUtilization, 1, "")
                     .derived({"fitted per device family and engine (docs/accuracy.md)",
                               "按设备系列与引擎拟合（docs/accuracy.md）"})
                     .when(kWhenGpu, "parallel")
                     .text({"Achievable share of peak", "可达峰值比例"},
                           {"achievable fraction of the dense peak for large GEMMs",
                            "大矩阵乘可达到的稠密峰值算力比例"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.hardware.utilization = v.get<double>(); },
                         [](const Workload& w) {
                           return w.hardware.utilization ? json(*w.hardware.utilization) : json();
                         }));
  rows.push_back(Row("reserve_bytes", FieldType::kInteger, "--reserve-bytes")
                     .range(0, kMaxBytes, "bytes")
                     .derived({"1 GiB, +1 GiB for NCCL with several GPUs; a CPU: 4 GiB for the OS",
                               "1 GiB，多 GPU 时另加 1 GiB NCCL；CPU：为操作系统预留 4 GiB"})
                     .when(kWhenGpu, "parallel")
                     .text({"Per-GPU reserve", "每 GPU 预留"},
                           {"bytes per GPU held back (CUDA context, memory PyTorch cannot see)",
                            "每块 GPU 预留的字节（CUDA 上下文、PyTorch 看不到的显存）"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.hardware.reserve_bytes = v.get<int64_t>(); },
                         [](const Workload& w) { return orNull(w.hardware.reserve_bytes); }));
  rows.push_back(Row("fragmentation", FieldType::kNumber, "--fragmentation")
                     .range(0, 0.5, "")
                     .below(0.5)
                     .byDefault(kDefaultFragmentation)
                     .when(kWhenGpu, "parallel")
                     .text({"Allocator fragmentation", "分配器碎片比例"},
                           {"share of the memory left after the reserve lost to fragmentation",
                            "扣除预留后因碎片损失的显存比例"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.hardware.fragmentation = v.get<double>(); },
                         [](const Workload& w) {
                           // A CPU's default is 0, so it is written only when set.
                           if (w.hardware.gpu && w.hardware.gpu->cpu)
                             return orNull(w.hardware.fragmentation);
                           return json(w.hardware.fragmentation.value_or(kDefaultFragmentation));
                         }));
  rows.push_back(
      Row("gpu_dtype", FieldType::kEnum, "--gpu-dtype")
          .values(kMathFormats, mathFormatName)
          .derived({"from the precision", "随精度"})
          .when(kWhenGpu, "parallel")
          .text({"Matmul arithmetic", "矩阵乘法算术格式"},
                {"matmul arithmetic (fp32 means FP32 math: PyTorch leaves TF32 off)",
                 "矩阵乘法的算术格式（fp32 即 FP32 运算：PyTorch 默认不开 TF32）"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.hardware.math = *parseMathFormat(v.get<std::string>()); },
              [](const Workload& w) {
                return w.hardware.math ? json(mathFormatName(*w.hardware.math)) : json();
              }));
}

// The serving rows apply to an LLM in inference; most of them only with an engine.
constexpr unsigned kInferLlm = kWhenTransformer | kWhenInfer;
constexpr unsigned kServing = kInferLlm | kWhenServing;

/// Which engine serves an LLM, to how many users, with what context
/// (docs/serving.md).
void addEngineFields(std::vector<Row>& rows) {
  rows.push_back(
      Row("engine", FieldType::kEnum, "--engine")
          .values(kEngines, engineName)
          .valueLabel("none", {"none (one forward pass)", "无（单次前向）"})
          .valueLabel("hf", {"HF transformers", "HF transformers"})
          .valueLabel("vllm", {"vLLM", "vLLM"})
          .valueLabel("sglang", {"SGLang", "SGLang"})
          .valueLabel("trtllm", {"TensorRT-LLM", "TensorRT-LLM"})
          .alias("tensorrt-llm", "trtllm")
          .valueLabel("llamacpp", {"llama.cpp / Ollama", "llama.cpp / Ollama"})
          .alias("ollama", "llamacpp")
          .alias("llama.cpp", "llamacpp")
          .alias("transformers", "hf")
          .byDefault("none")
          .when(kInferLlm, "transformer")
          .text({"Serving engine", "推理引擎"},
                {"plan memory, users and speed as this engine lays them out",
                 "按该引擎的内存布局规划显存、并发用户数与速度"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.serving.engine = *parseEngine(v.get<std::string>()); },
              [](const Workload& w) { return json(engineName(w.serving.engine)); }));
  rows.push_back(Row("users", FieldType::kInteger, "--users")
                     .range(1, kMaxGpus, "sequences")
                     .byDefault(1)
                     .when(kServing, "transformer")
                     .text({"Concurrent users", "并发用户数"},
                           {"sequences served at once, each with `context` tokens",
                            "同时服务的序列数，每条含 context 个 token"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.serving.users = v.get<int64_t>(); },
                         [](const Workload& w) { return json(w.serving.users); }));
  rows.push_back(Row("context", FieldType::kInteger, "--context")
                     .range(1, static_cast<double>(kMaxSequence), "tokens")
                     .derived({"prompt + generated tokens", "提示词 + 生成 token 数"})
                     .when(kServing, "transformer")
                     .text({"Context per user (tokens)", "每用户上下文（token）"},
                           {"tokens per sequence the engine is set up for (max_model_len, n_ctx "
                            "per slot)",
                            "引擎为每条序列预留的 token 数（max_model_len、每槽 n_ctx）"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.serving.context = v.get<int64_t>(); },
                         [](const Workload& w) { return orNull(w.serving.context); }));
}

/// The checkpoint format an engine loads (docs/serving.md).
void addCheckpointFields(std::vector<Row>& rows) {
  rows.push_back(
      Row("quant", FieldType::kEnum, "--quant")
          .values(kQuantFormats, quantFormatName)
          .byDefault("none")
          .when(kInferLlm, "transformer")
          .text({"Checkpoint format", "权重量化格式"},
                {"quantization format of the checkpoint, with its exact bytes (scales, zero "
                 "points, 16-bit layers)",
                 "权重文件的量化格式，按其精确字节计（缩放因子、零点、保留 16 位的层）"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.serving.quant = *parseQuantFormat(v.get<std::string>()); },
              [](const Workload& w) { return json(quantFormatName(w.serving.quant)); }));
  rows.push_back(Row("quant_bits", FieldType::kInteger, "--quant-bits")
                     .range(2, 8, "bits")
                     .byDefault(4)
                     .when(kInferLlm, "transformer")
                     .text({"GPTQ/AWQ bits", "GPTQ/AWQ 位数"},
                           {"bits per weight of GPTQ (2, 3, 4, 8) and AWQ (4)",
                            "GPTQ（2、3、4、8）与 AWQ（4）每个权重的位数"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.serving.quant_bits = v.get<int>(); },
                         [](const Workload& w) { return json(w.serving.quant_bits); }));
  rows.push_back(
      Row("gguf_type", FieldType::kEnum, "--gguf-type")
          .values(kGgufFileTypes, ggufFileTypeName)
          .byDefault("Q4_K_M")
          .when(kInferLlm, "transformer")
          .text({"GGUF file type", "GGUF 文件类型"},
                {"llama-quantize type of a GGUF checkpoint (quant gguf, llama.cpp)",
                 "GGUF 文件的 llama-quantize 类型（quant 为 gguf 或 llama.cpp）"})
          .io(
              [](const json& v, Workload& w, const std::string&) {
                w.serving.gguf_type = *parseGgufFileType(v.get<std::string>());
              },
              [](const Workload& w) { return json(ggufFileTypeName(w.serving.gguf_type)); }));
  rows.push_back(Row("bnb_double_quant", FieldType::kBoolean, "--bnb-double-quant")
                     .byDefault(false)
                     .when(kInferLlm, "transformer")
                     .text({"bitsandbytes double quantization", "bitsandbytes 双重量化"},
                           {"bnb_4bit_use_double_quant: 8-bit absmax with fp32 second-level scales",
                            "bnb_4bit_use_double_quant：absmax 以 8 位存储并带 fp32 二级缩放"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.serving.bnb_double_quant = v.get<bool>(); },
                         [](const Workload& w) { return json(w.serving.bnb_double_quant); }));
}

/// How vLLM and SGLang size their KV cache and batches (docs/serving.md).
void addEngineMemoryFields(std::vector<Row>& rows) {
  rows.push_back(
      Row("gpu_memory_utilization", FieldType::kNumber, "--gpu-memory-utilization")
          .range(0.01, 1, "")
          .derived({"vLLM 0.9; SGLang 0.79-0.88 by tp; TensorRT-LLM 0.9 of the free memory",
                    "vLLM 0.9；SGLang 按 tp 取 0.79-0.88；TensorRT-LLM 为空闲显存的 0.9"})
          .when(kServing, "transformer")
          .text({"GPU memory share (vLLM/SGLang)", "显存占用比例（vLLM/SGLang）"},
                {"vLLM gpu_memory_utilization / SGLang mem_fraction_static / TensorRT-LLM "
                 "kv_cache_free_gpu_mem_fraction (of the memory free after loading)",
                 "vLLM 的 gpu_memory_utilization / SGLang 的 mem_fraction_static / "
                 "TensorRT-LLM 的 kv_cache_free_gpu_mem_fraction（加载后空闲显存的比例）"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.serving.gpu_memory_utilization = v.get<double>(); },
              [](const Workload& w) { return orNull(w.serving.gpu_memory_utilization); }));
  rows.push_back(Row("max_num_seqs", FieldType::kInteger, "--max-num-seqs")
                     .range(1, kMaxGpus, "sequences")
                     .derived({"vLLM 256, or 1024 on 70 GiB cards but the A100; TensorRT-LLM 2048",
                               "vLLM 256；70 GiB 以上且非 A100 为 1024；TensorRT-LLM 2048"})
                     .when(kServing, "transformer")
                     .text({"Max running sequences (vLLM)", "最大并行序列数（vLLM）"},
                           {"the scheduler's cap on sequences per step", "调度器每步的序列上限"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.serving.max_num_seqs = v.get<int64_t>(); },
                         [](const Workload& w) { return orNull(w.serving.max_num_seqs); }));
  rows.push_back(
      Row("max_num_batched_tokens", FieldType::kInteger, "--max-num-batched-tokens")
          .range(1, static_cast<double>(kMaxSequence), "tokens")
          .derived({"vLLM 2048, or 8192 on 70 GiB cards but the A100; TensorRT-LLM 8192",
                    "vLLM 2048；70 GiB 以上且非 A100 为 8192；TensorRT-LLM 8192"})
          .when(kServing, "transformer")
          .text({"Tokens per step (vLLM/SGLang)", "每步 token 数（vLLM/SGLang）"},
                {"chunked-prefill budget: vLLM profiles its activations at this many tokens",
                 "分块预填充预算：vLLM 按此 token 数测量激活峰值"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.serving.max_num_batched_tokens = v.get<int64_t>(); },
              [](const Workload& w) { return orNull(w.serving.max_num_batched_tokens); }));
  rows.push_back(
      Row("block_size", FieldType::kInteger, "--block-size")
          .range(1, 1024, "tokens")
          .derived({"vLLM 16, SGLang 1, TensorRT-LLM 64", "vLLM 16，SGLang 1，TensorRT-LLM 64"})
          .when(kServing, "transformer")
          .text({"KV block size (tokens)", "KV 块大小（token）"},
                {"tokens per paged KV block", "每个分页 KV 块的 token 数"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.serving.block_size = v.get<int64_t>(); },
              [](const Workload& w) { return orNull(w.serving.block_size); }));
  rows.push_back(
      Row("vllm_version", FieldType::kEnum, "--vllm-version")
          .values(kVllmVersions, vllmVersionName)
          .valueLabel("0.19", {"0.19 (FlashInfer sampler)", "0.19（FlashInfer 采样器）"})
          .valueLabel("0.11", {"0.8-0.11 (V1, PyTorch sampler)", "0.8-0.11（V1，PyTorch 采样器）"})
          .valueLabel("v0", {"V0 engine (before 0.8)", "V0 引擎（0.8 之前）"})
          .alias("0.19.0", "0.19")
          .alias("0.11.0", "0.11")
          .alias("0.10", "0.11")
          .alias("0.9", "0.11")
          .alias("0.8", "0.11")
          .byDefault("0.19")
          .when(kServing, "transformer")
          .text({"vLLM version", "vLLM 版本"},
                {"what vLLM's start-up profiling holds beside the weights (sampler, NCCL "
                 "buffers) differs between releases; the KV pool follows this one",
                 "vLLM 启动时的显存分析在权重之外占用的显存（采样器、NCCL 缓冲）因版本而异；"
                 "KV 池按所选版本计算"})
          .io(
              [](const json& v, Workload& w, const std::string&) {
                w.serving.vllm_version = *parseVllmVersion(v.get<std::string>());
              },
              [](const Workload& w) { return json(vllmVersionName(w.serving.vllm_version)); }));
  rows.push_back(
      Row("cached_tokens", FieldType::kInteger, "--cached-tokens")
          .range(0, static_cast<double>(kMaxSequence), "tokens")
          .byDefault(0)
          .when(kServing, "transformer")
          .text({"Tokens already cached", "已缓存的 token 数"},
                {"tokens each sequence holds in its KV cache before the prompt (the "
                 "conversation so far, a cached prefix): the prompt attends to them, "
                 "the prefill does not compute them",
                 "每个序列在提示词之前已在 KV 缓存中的 token（此前的对话、已缓存的前缀）："
                 "提示词会关注它们，prefill 不再计算它们"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.cached_tokens = v.get<int64_t>(); },
              [](const Workload& w) { return json(w.cached_tokens); }));
  rows.push_back(
      Row("trtllm_version", FieldType::kEnum, "--trtllm-version")
          .values(kTrtllmVersions, trtllmVersionName)
          .valueLabel("1.0", {"0.7 and later (XQA kernels)", "0.7 及以后（XQA 内核）"})
          .valueLabel("0.6", {"0.5-0.6 (masked MHA only)", "0.5-0.6（仅 masked MHA）"})
          .alias("0.6.1", "0.6")
          .alias("0.5", "0.6")
          .byDefault("1.0")
          .when(kServing, "transformer")
          .text({"TensorRT-LLM version", "TensorRT-LLM 版本"},
                {"before 0.7 each query head's decode kernel read its group's KV cache itself; "
                 "from 0.7 the XQA kernels read a shared KV head once",
                 "0.7 之前解码注意力内核按查询头各自读取所在组的 KV 缓存；"
                 "0.7 起 XQA 内核每个共享的 KV 头只读一次"})
          .io(
              [](const json& v, Workload& w, const std::string&) {
                w.serving.trtllm_version = *parseTrtllmVersion(v.get<std::string>());
              },
              [](const Workload& w) { return json(trtllmVersionName(w.serving.trtllm_version)); }));
}

/// llama.cpp's offload and cache settings (docs/serving.md).
void addLlamaCppFields(std::vector<Row>& rows) {
  rows.push_back(Row("n_gpu_layers", FieldType::kInteger, "--n-gpu-layers")
                     .range(0, static_cast<double>(kMaxDimension), "layers")
                     .derived({"as many as fit", "能放下的最多层数"})
                     .when(kServing, "transformer")
                     .text({"GPU layers (llama.cpp -ngl)", "GPU 层数（llama.cpp -ngl）"},
                           {"decoder layers on the GPU; one more than the layers adds the output "
                            "layer; the rest run from system RAM",
                            "放在 GPU 上的解码层数；比层数多 1 则输出层也在 GPU；其余在内存中运行"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.serving.n_gpu_layers = v.get<int64_t>(); },
                         [](const Workload& w) { return orNull(w.serving.n_gpu_layers); }));
  rows.push_back(
      Row("cache_type", FieldType::kEnum, "--cache-type")
          .values(kCacheTypes, cacheTypeName)
          .byDefault("f16")
          .when(kServing, "transformer")
          .text({"KV cache type (llama.cpp)", "KV 缓存类型（llama.cpp）"},
                {"--cache-type-k/-v; q8_0 and q4_0 need flash attention",
                 "--cache-type-k/-v；q8_0 与 q4_0 需要 flash attention"})
          .io(
              [](const json& v, Workload& w, const std::string&) {
                w.serving.cache_type = *parseCacheType(v.get<std::string>());
              },
              [](const Workload& w) { return json(cacheTypeName(w.serving.cache_type)); }));
  rows.push_back(
      Row("host_bandwidth_gb_s", FieldType::kNumber, "--host-bandwidth-gb-s")
          .range(0.1, 100000, "GB/s")
          .derived({"76.8 (dual-channel DDR5-4800)", "76.8（双通道 DDR5-4800）"})
          .when(kServing, "transformer")
          .text({"System RAM bandwidth (GB/s)", "内存带宽（GB/s）"},
                {"what layers left in system RAM are read at", "留在内存中的层的读取带宽"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.serving.host_bandwidth = v.get<double>() * 1e9; },
              [](const Workload& w) {
                return w.serving.host_bandwidth ? json(*w.serving.host_bandwidth / 1e9) : json();
              }));
}

/// "none" and every preset read from a Hugging Face config: what a draft model may be.
std::vector<std::string> draftPresetNames() {
  std::vector<std::string> names = {"none"};
  for (const PresetInfo& p : presetList())
    if (p.family == "hf") names.push_back(p.name);
  return names;
}

/// The draft model of `name` (a decoder LLM preset), or none for "none".
void applyDraftPreset(const std::string& name, Workload& w, const std::string& path) {
  w.serving.draft.reset();
  w.serving.draft_preset.clear();
  w.serving.draft_id.clear();
  if (name == "none") return;
  std::vector<std::string> warnings;
  const json config = json::parse(presetJson(name));
  // A multimodal preset drafts with its language model.
  Transformer d = readHfConfig(config, path, warnings, false, true);
  if (d.kind != TransformerKind::kDecoder) {
    throw InputError(ErrorCode::kValue, path,
                     name + " is not a decoder LLM: a draft model proposes next tokens");
  }
  w.serving.draft = std::move(d);
  w.serving.draft_preset = name;
  w.serving.draft_id = config.value("_name_or_path", name);
}

/// Speculative decoding with a draft model (docs/serving.md).
void addSpeculativeFields(std::vector<Row>& rows) {
  rows.push_back(
      Row("draft_preset", FieldType::kEnum, "--draft-preset")
          .names(draftPresetNames())
          .byDefault("none")
          .when(kServing, "transformer")
          .text({"Draft model (speculative decoding)", "草稿模型（投机解码）"},
                {"a smaller model of the same vocabulary that proposes tokens the model checks "
                 "in one forward (vLLM's draft_model method)",
                 "词表相同的小模型先提出 token，由主模型一次前向验证（vLLM 的 draft_model 方法）"})
          .io([](const json& v, Workload& w,
                 const std::string& path) { applyDraftPreset(v.get<std::string>(), w, path); },
              [](const Workload& w) {
                return json(w.serving.draft_preset.empty() ? "none" : w.serving.draft_preset);
              }));
  rows.push_back(Row("draft_tokens", FieldType::kInteger, "--draft-tokens")
                     .range(1, 64, "tokens")
                     .byDefault(5)
                     .when(kServing, "transformer")
                     .text({"Draft tokens per step", "每步草稿 token 数"},
                           {"tokens the draft proposes per step (num_speculative_tokens)",
                            "草稿模型每步提出的 token 数（num_speculative_tokens）"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.serving.draft_tokens = v.get<int64_t>(); },
                         [](const Workload& w) { return json(w.serving.draft_tokens); }));
  rows.push_back(
      Row("draft_acceptance", FieldType::kNumber, "--draft-acceptance")
          .range(0.01, 0.99, "")
          .derived({"none: required with a draft model", "无：使用草稿模型时必填"})
          .when(kServing, "transformer")
          .text({"Draft acceptance rate", "草稿接受率"},
                {"chance that the model accepts one proposed token (0.01-0.99); it depends on "
                 "the prompts and the pair of models: measure it (vLLM logs it) or assume",
                 "主模型接受单个草稿 token 的概率（0.01–0.99）；取决于提示与模型搭配：请实测"
                 "（vLLM 日志给出）或自行假设"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.serving.draft_acceptance = v.get<double>(); },
              [](const Workload& w) { return orNull(w.serving.draft_acceptance); }));
}

/// What a whole training run processes and what it costs (dlcost/run_cost.hpp).
void addRunFields(std::vector<Row>& rows) {
  rows.push_back(
      Row("tokens", FieldType::kInteger, "--tokens")
          .range(1, kMaxBytes, "tokens")
          .derived({"none", "无"})
          .when(kWhenTransformer | kWhenTrain | kWhenGpu, "run")
          .text({"Training tokens", "训练 token 总数"},
                {"tokens of the whole run: the report adds steps, wall time, GPU-hours and cost",
                 "整个训练的 token 数：报告给出步数、耗时、GPU 时与费用"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.run.tokens = v.get<int64_t>(); },
              [](const Workload& w) { return orNull(w.run.tokens); }));
  rows.push_back(
      Row("samples", FieldType::kInteger, "--samples")
          .range(1, kMaxBytes, "samples")
          .derived({"none", "无"})
          .when(kWhenTrain | kWhenGpu, "run")
          .text({"Samples per epoch", "每轮样本数"},
                {"samples (sequences) in one epoch: the report adds the run's time and cost",
                 "一轮的样本（序列）数：报告给出整个训练的耗时与费用"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.run.samples = v.get<int64_t>(); },
              [](const Workload& w) { return orNull(w.run.samples); }));
  rows.push_back(Row("epochs", FieldType::kNumber, "--epochs")
                     .range(0.001, 1e6, "epochs")
                     .byDefault(1)
                     .when(kWhenTrain | kWhenGpu, "run")
                     .text({"Epochs", "轮数"}, {"passes over the samples", "遍历样本的轮数"})
                     .io([](const json& v, Workload& w,
                            const std::string&) { w.run.epochs = v.get<double>(); },
                         [](const Workload& w) { return json(w.run.epochs); }));
  rows.push_back(
      Row("price_per_gpu_hour", FieldType::kNumber, "--price")
          .range(0.001, 1e6, "USD per GPU-hour")
          .derived({"a dated list price where dlcost has one", "如有，使用注明日期的公开价格"})
          .when(kWhenTrain | kWhenGpu, "run")
          .text({"Price per GPU-hour (USD)", "每 GPU 小时价格（美元）"},
                {"what one GPU-hour costs you; the default is a dated cloud list price",
                 "每 GPU 小时的费用；默认值为注明日期的云厂商公开价格"})
          .io([](const json& v, Workload& w,
                 const std::string&) { w.run.price_per_gpu_hour = v.get<double>(); },
              [](const Workload& w) { return orNull(w.run.price_per_gpu_hour); }));
}

std::vector<WorkloadField> buildFields() {
  std::vector<Row> rows;
  // In the schema's order (the page's form and `dlcost schema` list them so).
  addStepFields(rows);
  addOptimizerFields(rows);
  addMemoryFields(rows);
  addSequenceFields(rows);
  addStorageFields(rows);
  addTrainingFields(rows);
  addDataParallelFields(rows);
  addModelParallelFields(rows);
  addNetworkFields(rows);
  addRooflineFields(rows);
  addEngineFields(rows);
  addCheckpointFields(rows);
  addEngineMemoryFields(rows);
  addLlamaCppFields(rows);
  addSpeculativeFields(rows);
  addRunFields(rows);
  std::vector<WorkloadField> fields;
  for (Row& r : rows) fields.push_back(std::move(r.f));
  return fields;
}

const char* conditionName(unsigned bit) {
  switch (bit) {
    case kWhenTransformer:
      return "transformer";
    case kWhenTrain:
      return "train";
    case kWhenInfer:
      return "infer";
    case kWhenGpu:
      return "gpu";
    case kWhenLora:
      return "lora";
    case kWhenQuantized:
      return "quantized";
    case kWhenServing:
      return "serving";
  }
  return "";
}

constexpr unsigned kConditions[] = {kWhenTransformer, kWhenTrain,     kWhenInfer,  kWhenGpu,
                                    kWhenLora,        kWhenQuantized, kWhenServing};

json textJson(const Text& t) {
  return {{"en", t.en}, {"zh", t.zh}};
}

json fieldJson(const WorkloadField& f) {
  json when = json::array();
  for (unsigned c : kConditions)
    if (f.when & c) when.push_back(conditionName(c));
  json j = {{"key", f.key},
            {"type", fieldTypeName(f.type)},
            {"flag", f.flag},
            {"group", f.group},
            {"when", when},
            {"label", textJson(f.label)},
            {"help", textJson(f.help)},
            {"accepts", describeAccepted(f)},
            {"default", f.default_value}};
  if (!f.default_note.en.empty()) j["default_note"] = textJson(f.default_note);
  if (f.type == FieldType::kInteger || f.type == FieldType::kNumber) {
    j["min"] = f.min;
    j["max"] = f.max;
    if (f.type == FieldType::kInteger) {
      j["min"] = static_cast<int64_t>(f.min);
      j["max"] = static_cast<int64_t>(f.max);
    }
    j["max_exclusive"] = f.max_exclusive;
    j["unit"] = f.unit;
  }
  if (f.type == FieldType::kEnum) {
    json values = json::array();
    for (const EnumValue& v : f.values) {
      json one = {{"name", v.name}};
      if (!v.label.en.empty()) one["label"] = textJson(v.label);
      values.push_back(one);
    }
    j["values"] = values;
  }
  return j;
}

}  // namespace

std::string formatBound(double v) {
  // Whole numbers print without a fraction (4294967296, not 4.29497e+09); bounds are at most
  // 2^60, exact in a double and in an int64.
  if (std::floor(v) == v && std::fabs(v) <= 9.2e18) return std::to_string(static_cast<int64_t>(v));
  return json(v).dump();
}

const char* fieldTypeName(FieldType type) {
  switch (type) {
    case FieldType::kInteger:
      return "integer";
    case FieldType::kNumber:
      return "number";
    case FieldType::kEnum:
      return "enum";
    case FieldType::kBoolean:
      return "boolean";
    case FieldType::kNameList:
      return "name_list";
    case FieldType::kGpu:
      return "gpu";
  }
  return "integer";
}

const std::vector<WorkloadField>& workloadFields() {
  static const std::vector<WorkloadField> kFields = buildFields();
  return kFields;
}

const WorkloadField* findWorkloadField(const std::string& key) {
  for (const WorkloadField& f : workloadFields())
    if (f.key == key) return &f;
  return nullptr;
}

const WorkloadField* findWorkloadFlag(const std::string& flag) {
  for (const WorkloadField& f : workloadFields())
    if (f.flag == flag) return &f;
  return nullptr;
}

namespace {

/// A field's unit in Chinese (byte units and GB/s read the same).
std::string unitZh(const std::string& unit) {
  static const std::pair<const char*, const char*> kUnits[] = {
      {"bytes", "字节"},
      {"samples", "个样本"},
      {"tokens", "个词元"},
      {"sequences", "个序列"},
      {"GPUs", "个 GPU"},
      {"stages", "个阶段"},
      {"nodes", "个节点"},
      {"micro-batches", "个微批次"},
      {"bits", "位"},
      {"epochs", "轮"},
      {"USD per GPU-hour", "美元/GPU·小时"}};
  for (const auto& [en, zh] : kUnits)
    if (unit == en) return zh;
  return unit;
}

}  // namespace

Text describeAcceptedText(const WorkloadField& f) {
  const std::string unit = f.unit.empty() ? "" : " " + f.unit;
  // Chinese puts no space between the unit's characters and 的; a number or a Latin unit
  // keeps one.
  std::string unit_zh = f.unit.empty() ? " " : " " + unitZh(f.unit);
  if (static_cast<unsigned char>(unit_zh.back()) < 0x80 && unit_zh.back() != ' ') unit_zh += " ";
  const std::string lo = formatBound(f.min), hi = formatBound(f.max);
  switch (f.type) {
    case FieldType::kInteger:
      return {"an integer from " + lo + " to " + hi + unit, lo + " 到 " + hi + unit_zh + "的整数"};
    case FieldType::kNumber:
      return {"a number from " + lo + (f.max_exclusive ? " to below " : " to ") + hi + unit,
              lo + (f.max_exclusive ? " 到小于 " : " 到 ") + hi + unit_zh + "的数字"};
    case FieldType::kEnum: {
      std::string list;
      for (const EnumValue& v : f.values) list += (list.empty() ? "" : ", ") + v.name;
      return {"one of " + list, list + " 之一"};
    }
    case FieldType::kBoolean:
      return {"true or false", "true 或 false"};
    case FieldType::kNameList:
      return {"module names: an array, or one comma-separated string",
              "模块名：数组，或一个以逗号分隔的字符串"};
    case FieldType::kGpu:
      return {"a GPU preset name or a custom GPU object", "GPU 预设名或自定义 GPU 对象"};
  }
  return {};
}

std::string describeAccepted(const WorkloadField& f) {
  return describeAcceptedText(f).en;
}

double bytesPerUnitName(const std::string& name) {
  if (name == "KB") return 1e3;  // the common spelling of kB
  // B to TiB and TB: the units the text rule names (describeAccepted's number_text).
  for (const ByteUnits units : {ByteUnits::kBinary, ByteUnits::kDecimal}) {
    const UnitPrefixes p = bytePrefixes(units);
    double bytes = 1;
    for (int i = 0; i < 5; ++i, bytes *= p.step)
      if (name == p.names[i]) return bytes;
  }
  return 0;
}

bool fieldApplies(const WorkloadField& f, const Workload& w, bool transformer) {
  const bool lora = w.finetune == Finetune::kLora || w.finetune == Finetune::kQlora;
  const bool quantized =
      w.weight_dtype && (*w.weight_dtype == DType::kInt8 || *w.weight_dtype == DType::kInt4);
  const std::pair<Condition, bool> holds[] = {{kWhenTransformer, transformer},
                                              {kWhenTrain, w.mode == Mode::kTrain},
                                              {kWhenInfer, w.mode == Mode::kInfer},
                                              {kWhenGpu, w.hardware.gpu.has_value()},
                                              {kWhenLora, lora},
                                              {kWhenQuantized, quantized},
                                              {kWhenServing, w.serving.engine != Engine::kNone}};
  for (const auto& [condition, held] : holds) {
    if ((f.when & condition) != 0 && !held) return false;
  }
  return true;
}

json workloadSchemaJson() {
  json fields = json::array();
  for (const WorkloadField& f : workloadFields()) fields.push_back(fieldJson(f));
  json conditions = json::object();
  conditions["transformer"] = "the model is a transformer (a config.json or transformer preset)";
  conditions["train"] = "mode is train";
  conditions["infer"] = "mode is infer";
  conditions["gpu"] = "a GPU is given (gpu)";
  conditions["lora"] = "finetune is lora or qlora";
  conditions["quantized"] = "weight_dtype is int8 or int4";
  conditions["serving"] = "engine is set (not none)";
  return {{"version", 1},
          {"number_text",
           "Numbers typed as text (CLI flags, the page's fields): surrounding spaces are "
           "ignored; a decimal literal with optional sign, fraction and exponent (4, +4, 2.0, "
           "1e3, .5); no hex, separators, inf or nan. Integer fields take any exact whole "
           "value (2.0 and 1e3 are 2 and 1000; 2.5 is refused). Byte fields may end in a unit "
           "(B, kB, MB, GB, TB, KiB, MiB, GiB, TiB; a bare number is in the caller's unit) and "
           "are rounded to the nearest byte."},
          {"conditions", conditions},
          {"number_units", numberUnitsJson()},
          {"fields", fields},
          {"tasks", taskDefaultsJson()},
          {"start", startingPointJson()}};
}

}  // namespace dlcost
