// The task table (inference, full training, LoRA, QLoRA): every starting point is a workload
// the engine reads, and the QLoRA recipe answers the question people ask of it.

#include <catch2/catch.hpp>

#include "dlcost/api.hpp"
#include "dlcost/schema/task_defaults.hpp"
#include "dlcost/schema/workload_json.hpp"

using nlohmann::json;

namespace {

/// A task's fields without the nulls ("back to the engine's default"), as a document sends them.
json sentFields(const json& set) {
  json out = json::object();
  for (const auto& [key, value] : set.items())
    if (!value.is_null()) out[key] = value;
  return out;
}

}  // namespace

TEST_CASE("every task's starting point is a workload of known fields", "[tasks]") {
  for (const dlcost::TaskDefaults& d : dlcost::taskDefaults()) {
    CAPTURE(d.task, d.model_kind);
    CHECK_FALSE(d.label.en.empty());
    CHECK_FALSE(d.label.zh.empty());
    CHECK_FALSE(d.sources.empty());
    for (const auto& [key, value] : d.set.items()) {
      CAPTURE(key);
      CHECK(dlcost::findWorkloadField(key) != nullptr);
    }
    CHECK_NOTHROW(dlcost::parseWorkload(sentFields(d.set), "/workload"));
  }
}

TEST_CASE("each model kind has inference and training: LoRA and QLoRA need a transformer",
          "[tasks]") {
  auto has = [](const char* task, const char* kind) {
    for (const dlcost::TaskDefaults& d : dlcost::taskDefaults())
      if (d.task == task && d.model_kind == kind) return true;
    return false;
  };
  for (const char* kind : {"layer_graph", "transformer"}) {
    CHECK(has("infer", kind));
    CHECK(has("train", kind));
  }
  CHECK(has("lora", "transformer"));
  CHECK(has("qlora", "transformer"));
  CHECK_FALSE(has("lora", "layer_graph"));
}

TEST_CASE("the schema export carries the task table", "[tasks][workload_schema]") {
  const json schema = dlcost::workloadSchemaJson();
  REQUIRE(schema["tasks"].size() == dlcost::taskDefaults().size());
  CHECK(schema["tasks"][0].contains("set"));
}

TEST_CASE("QLoRA's recipe fits Llama-3-8B at sequence 2048, batch 4 on a 24 GB card", "[tasks]") {
  // Dettmers et al. 2023 (QLoRA, arXiv:2305.14314) fine-tune 7B-13B models on one consumer
  // 24 GB GPU with this recipe (qlora.py: 4-bit nf4 base, bf16 compute, gradient
  // checkpointing, paged 32-bit AdamW, rank-64 adapters on every linear layer). Llama-3-8B:
  // 8,030,261,248 parameters (meta-llama/Meta-Llama-3-8B safetensors total).
  json workload;
  for (const dlcost::TaskDefaults& d : dlcost::taskDefaults())
    if (d.task == "qlora") workload = sentFields(d.set);
  workload["seq_len"] = 2048;
  workload["batch"] = 4;
  workload["gpu"] = "rtx-4090";
  const json report =
      dlcost::estimateDocument({{"model", {{"preset", "llama-3-8b"}}}, {"workload", workload}});
  CHECK(report["gpu_fit"]["fits"] == true);
  CHECK(report["gpu_fit"]["max_batch"].get<int64_t>() >= 4);
  // The schema's bare defaults (fp32 compute, no recomputation) do not fit: the reason the
  // table exists.
  const json bare = dlcost::estimateDocument({{"model", {{"preset", "llama-3-8b"}}},
                                              {"workload",
                                               {{"mode", "train"},
                                                {"finetune", "qlora"},
                                                {"seq_len", 2048},
                                                {"batch", 4},
                                                {"gpu", "rtx-4090"}}}});
  CHECK(bare["gpu_fit"]["fits"] == false);
}

namespace {

/// `task`'s fields for a transformer, as the page and `--task` send them.
json transformerTask(const char* task) {
  const dlcost::TaskDefaults* d = dlcost::findTask(task, true);
  REQUIRE(d != nullptr);
  return sentFields(d->set);
}

}  // namespace

TEST_CASE("QLoRA's own batch fits Llama-3.1-8B at sequence 2048 on an RTX 4090", "[tasks]") {
  // Issue #27: the task sets its batch (qlora.py: 1 per device, 16 accumulation steps), so no
  // batch inherited from an earlier question makes the first screen "does not fit".
  json workload = transformerTask("qlora");
  CHECK(workload["batch"] == 1);
  CHECK(workload["grad_accum"] == 16);
  workload["seq_len"] = 2048;
  workload["gpu"] = "rtx-4090";
  const json report =
      dlcost::estimateDocument({{"model", {{"preset", "llama-3.1-8b"}}}, {"workload", workload}});
  CHECK(report["gpu_fit"]["fits"] == true);
}

TEST_CASE("a task leaves no multi-GPU layout of the previous question behind", "[tasks]") {
  const dlcost::TaskDefaults* infer = dlcost::findTask("infer", true);
  REQUIRE(infer != nullptr);
  const json w = dlcost::applyTask(*infer, {{"gpus", 64}, {"tp", 8}, {"pp", 4}, {"zero", 3}});
  for (const char* key : {"gpus", "tp", "pp", "zero"}) {
    CAPTURE(key);
    CHECK_FALSE(w.contains(key));
  }
}

TEST_CASE("a serving question is answered and advised by its serving plan",
          "[tasks][serving][advice]") {
  // Issue #27: Qwen2-7B on an L4 with vLLM at context 4096 and more users than the pool holds.
  // The verdict is the plan's (users at the context), and the advice is an operator's (a
  // quant, a shorter context, fewer users, TP, a bigger GPU), never a training batch or data
  // parallelism.
  json workload = transformerTask("infer");
  workload.update({{"gpu", "l4"}, {"engine", "vllm"}, {"context", 4096}, {"users", 200}});
  const json r =
      dlcost::estimateDocument({{"model", {{"preset", "qwen2-7b"}}}, {"workload", workload}});
  const json& fit = r["gpu_fit"];
  CHECK(fit["answered_by"] == "serving");
  CHECK(fit["fits"] == r["serving"]["fits"]);
  CHECK(fit["fits"] == false);
  REQUIRE_FALSE(fit["advice"].empty());
  bool fewer_users = false;
  for (const json& a : fit["advice"]) {
    CAPTURE(a["change"]);
    const json& set = a["set"];
    CHECK_FALSE(set.contains("batch"));
    CHECK_FALSE((set.contains("gpus") && !set.contains("tp")));
    fewer_users = fewer_users || set.contains("users");
    // Applying the advice gives a plan that holds its users.
    json applied = workload;
    applied.update(set);
    CHECK(dlcost::estimateDocument({{"model", {{"preset", "qwen2-7b"}}},
                                    {"workload", applied}})["serving"]["fits"] == true);
  }
  CHECK(fewer_users);
  // At the default one user the same question fits, and says so.
  workload["users"] = 1;
  const json one =
      dlcost::estimateDocument({{"model", {{"preset", "qwen2-7b"}}}, {"workload", workload}});
  CHECK(one["gpu_fit"]["fits"] == true);
  CHECK(one["serving"]["fits"] == true);
}

TEST_CASE("the schema says where a first visit starts", "[tasks][workload_schema]") {
  const json start = dlcost::workloadSchemaJson()["start"];
  CHECK(start["task"] == "train");
  CHECK(start["memory_gib"] == 24);
  CHECK(dlcost::findTask(start["task"], true) != nullptr);
  CHECK(dlcost::findTask(start["task"], false) != nullptr);
}

TEST_CASE("a document without a task starts from the task its workload implies", "[tasks]") {
  // Issue #27: the CLI's starting workload is the page's (one table): training for a preset
  // alone, inference when the workload says infer or names a serving engine; the document's
  // own fields win, a document that is not an object is left for the reader to report.
  using dlcost::startingDocument;
  const json cnn = startingDocument({{"model", {{"preset", "resnet50"}}}});
  CHECK(cnn["workload"]["optimizer"] == "momentum");
  CHECK(cnn["workload"]["batch"] == 32);
  const json llm = startingDocument(
      {{"model", {{"preset", "qwen2-7b"}}}, {"workload", {{"engine", "vllm"}, {"batch", 4}}}});
  CHECK(llm["workload"]["mode"] == "infer");
  CHECK(llm["workload"]["dtype"] == "bf16");
  CHECK(llm["workload"]["batch"] == 4);
  CHECK(dlcost::defaultTaskOf({{"mode", "infer"}}) == "infer");
  CHECK(dlcost::defaultTaskOf({{"engine", "none"}}) == "train");
  CHECK(startingDocument(json::array({1})) == json::array({1}));
}
