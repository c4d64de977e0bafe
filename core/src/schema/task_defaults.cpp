// The task table: what each kind of run starts from, with the recipe each setting comes from.
// The values are workload JSON read by the same reader as any document, so a key or value the
// schema does not know fails the schema's tests, not the page.

#include "dlcost/schema/task_defaults.hpp"

#include <variant>

#include "dlcost/base/error.hpp"
#include "dlcost/schema/config_json.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

// Sources, cited once each.
constexpr const char* kTorchvisionRecipe =
    "torchvision references/classification/train.py: --opt sgd, --momentum 0.9, "
    "--batch-size 32, --amp off (fp32) by default";
constexpr const char* kHfTrainer =
    "Hugging Face TrainingArguments: optim adamw_torch, per_device_train_batch_size 8, "
    "gradient_accumulation_steps 1 by default; bf16=True is how LLM recipes train (16-bit "
    "compute, fp32 master weights and Adam states)";
constexpr const char* kModelCardDtype =
    "Llama, Mistral, Qwen config.json: torch_dtype bfloat16; vLLM --dtype auto serves in it; "
    "one request at a time (a serving engine's users and context are fields of their own), on "
    "one GPU until tensor parallelism is asked for";
constexpr const char* kLlama2Pretrain =
    "Llama 2 paper (Touvron et al. 2023, section 2.2): AdamW, bf16 mixed precision, context "
    "4096, global batch 4M tokens (1024 sequences of 4096), 2.0T training tokens; the layout "
    "(data x tensor x pipeline) is chosen per GPU count";
constexpr const char* kPeftLora =
    "PEFT LoraConfig: r=8, lora_alpha=8; target modules for Llama-family models q_proj, v_proj "
    "(peft/utils/constants.py)";
constexpr const char* kTrlSft =
    "TRL SFT examples (trl/scripts/sft.py docstring): model loaded in torch_dtype bfloat16, "
    "--per_device_train_batch_size 2, --gradient_accumulation_steps 8, "
    "--gradient_checkpointing";
constexpr const char* kQloraScript =
    "QLoRA paper's qlora.py (artidoro/qlora): bits 4 nf4 with double quant, --bf16 compute, "
    "gradient_checkpointing=True, optim paged_adamw_32bit (32-bit AdamW states, paged to CPU "
    "only under pressure), lora_r 64, lora_alpha 16, adapters on all linear layers, "
    "per_device_train_batch_size 1, gradient_accumulation_steps 16";

/// The fields every task clears back to the engine's default unless it sets them: a task
/// leaves nothing of the previous one behind (QLoRA's int4 base in an inference run, a 64-GPU
/// layout in a one-GPU serving question).
json cleared() {
  json j = json::object();
  for (const char* key :
       {"weight_dtype", "kv_dtype", "recompute", "grad_accum", "gpus", "zero", "tp", "pp", "sp",
        "ep", "cp", "cp_load_balance", "microbatches", "virtual_stages"})
    j[key] = nullptr;
  return j;
}

TaskDefaults task(const char* name, const char* kind, Text label, json set, Text note,
                  std::vector<std::string> sources) {
  json all = cleared();
  all.update(set);
  return {name, kind, std::move(label), std::move(all), std::move(note), std::move(sources)};
}

std::vector<TaskDefaults> buildTable() {
  const Text infer{"Inference", "推理"};
  const Text train{"Full training", "全量训练"};
  std::vector<TaskDefaults> t;
  // Layer graphs (CNNs and the like): the torchvision recipe.
  t.push_back(task("train", "layer_graph", train,
                   {{"mode", "train"}, {"batch", 32}, {"dtype", "fp32"}, {"optimizer", "momentum"}},
                   {"fp32, SGD with momentum", "fp32，带动量的 SGD"}, {kTorchvisionRecipe}));
  t.push_back(task("infer", "layer_graph", infer,
                   {{"mode", "infer"}, {"batch", 32}, {"dtype", "fp32"}},
                   {"fp32 forward passes", "fp32 前向"}, {kTorchvisionRecipe}));
  // Transformers.
  t.push_back(task("train", "transformer", train,
                   {{"mode", "train"},
                    {"batch", 8},
                    {"finetune", "none"},
                    {"dtype", "mixed"},
                    {"optimizer", "adamw"}},
                   {"mixed precision (16-bit compute, fp32 master weights), AdamW, every weight "
                    "trained",
                    "混合精度（16 位计算，fp32 主权重），AdamW，训练全部权重"},
                   {kHfTrainer}));
  t.push_back(task("pretrain", "transformer", {"Pretraining", "预训练"},
                   {{"mode", "train"},
                    {"batch", 1024},
                    {"seq_len", 4096},
                    {"finetune", "none"},
                    {"dtype", "mixed"},
                    {"optimizer", "adamw"},
                    {"tokens", 2000000000000}},
                   {"global batch 1024 × 4096 tokens, mixed precision, AdamW, 2T tokens; "
                    "give the GPUs to see every layout ranked",
                    "全局批 1024 × 4096 token，混合精度，AdamW，2T token；填写 GPU 数量即可"
                    "看到每种并行布局的排名"},
                   {kLlama2Pretrain}));
  t.push_back(task("infer", "transformer", infer,
                   {{"mode", "infer"}, {"batch", 1}, {"dtype", "bf16"}},
                   {"bf16 weights and KV cache", "bf16 权重与 KV 缓存"}, {kModelCardDtype}));
  t.push_back(task("lora", "transformer", {"LoRA", "LoRA"},
                   {{"mode", "train"},
                    {"batch", 2},
                    {"grad_accum", 8},
                    {"finetune", "lora"},
                    {"dtype", "bf16"},
                    {"optimizer", "adamw"},
                    {"recompute", "full"},
                    {"lora_rank", 8},
                    {"lora_alpha", 8},
                    {"lora_targets", {"q_proj", "v_proj"}}},
                   {"bf16 base, rank-8 adapters on q_proj and v_proj, AdamW, gradient "
                    "checkpointing",
                    "bf16 基座，q_proj 与 v_proj 上秩 8 适配器，AdamW，梯度检查点"},
                   {kPeftLora, kTrlSft}));
  t.push_back(task("qlora", "transformer", {"QLoRA", "QLoRA"},
                   {{"mode", "train"},
                    {"batch", 1},
                    {"grad_accum", 16},
                    {"finetune", "qlora"},
                    {"weight_dtype", "int4"},
                    {"dtype", "bf16"},
                    {"optimizer", "adamw"},
                    {"recompute", "full"},
                    {"lora_rank", 64},
                    {"lora_alpha", 16},
                    {"lora_targets", {"all-linear"}}},
                   {"4-bit base, bf16 compute, rank-64 adapters on every linear layer, 32-bit "
                    "AdamW, gradient checkpointing",
                    "4 位基座，bf16 计算，所有线性层上秩 64 适配器，32 位 AdamW，梯度检查点"},
                   {kQloraScript}));
  return t;
}

json textJson(const Text& t) {
  return {{"en", t.en}, {"zh", t.zh}};
}

}  // namespace

const std::vector<TaskDefaults>& taskDefaults() {
  static const std::vector<TaskDefaults> kTable = buildTable();
  return kTable;
}

json taskDefaultsJson() {
  json out = json::array();
  for (const TaskDefaults& d : taskDefaults()) {
    out.push_back({{"task", d.task},
                   {"model_kind", d.model_kind},
                   {"label", textJson(d.label)},
                   {"set", d.set},
                   {"note", textJson(d.note)},
                   {"sources", d.sources}});
  }
  return out;
}

json startingPointJson() {
  return {{"task", kStartTask}, {"memory_gib", kStartMemoryGib}};
}

const TaskDefaults* findTask(const std::string& task, bool transformer) {
  const char* kind = transformer ? "transformer" : "layer_graph";
  for (const TaskDefaults& d : taskDefaults())
    if (d.task == task && d.model_kind == kind) return &d;
  return nullptr;
}

json applyTask(const TaskDefaults& task, json workload) {
  if (!workload.is_object()) workload = json::object();
  for (auto it = task.set.begin(); it != task.set.end(); ++it) {
    if (it->is_null()) {
      workload.erase(it.key());
    } else {
      workload[it.key()] = *it;
    }
  }
  return workload;
}

std::string defaultTaskOf(const json& workload) {
  if (!workload.is_object()) return kStartTask;
  const auto mode = workload.find("mode");
  const auto engine = workload.find("engine");
  const bool infer = (mode != workload.end() && *mode == "infer") ||
                     (engine != workload.end() && engine->is_string() && *engine != "none");
  return infer ? "infer" : kStartTask;
}

json underTask(const TaskDefaults& task, json workload) {
  if (!workload.is_object()) return workload;  // the reader reports the type error
  json out = json::object();
  for (auto it = task.set.begin(); it != task.set.end(); ++it)
    if (!it->is_null()) out[it.key()] = *it;
  for (auto it = workload.begin(); it != workload.end(); ++it) out[it.key()] = *it;
  return out;
}

namespace {

/// Whether `document`'s model (its workload aside) is a transformer; reading errors are left
/// to the full read that follows.
bool isTransformerDocument(json document) {
  document.erase("workload");
  try {
    return std::holds_alternative<Transformer>(parseConfig(document).model.body);
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace

json startingDocument(json document) {
  if (!document.is_object()) return document;
  const json workload = document.value("workload", json::object());
  if (!workload.is_object()) return document;
  const TaskDefaults* task = findTask(defaultTaskOf(workload), isTransformerDocument(document));
  if (task) document["workload"] = underTask(*task, workload);
  return document;
}

}  // namespace dlcost
