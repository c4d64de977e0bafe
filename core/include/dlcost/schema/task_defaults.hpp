#pragma once
// Starting points for the four tasks people price: inference, full training, LoRA and QLoRA.
// Each is a set of workload fields (keys of the workload schema) with the public recipe they
// come from, so that choosing a task on the page starts from what such runs actually use
// instead of the schema's bare defaults (fp32, no recomputation). Exported with the schema
// (`dlcost schema --json`, the wasm module's workloadSchema) and applied by the page.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dlcost/schema/workload_schema.hpp"

namespace dlcost {

/// One task's starting point for one kind of model.
struct TaskDefaults {
  std::string task;                  ///< "infer", "train", "lora", "qlora"
  std::string model_kind;            ///< "transformer" or "layer_graph"
  Text label;                        ///< the task's name in a menu
  nlohmann::json set;                ///< workload fields the task sets, as workload JSON
  Text note;                         ///< what the settings are, in one line
  std::vector<std::string> sources;  ///< where each setting comes from
};

/// Every task's starting point, in menu order (tasks a layer graph cannot run are absent for
/// it: LoRA and QLoRA need a transformer).
const std::vector<TaskDefaults>& taskDefaults();

/// The table as JSON: [{task, model_kind, label, set, note, sources}].
nlohmann::json taskDefaultsJson();

/// Where a first visit starts, for every front end: the task `kStartTask` of the model's kind
/// on a custom capacity of `kStartMemoryGib` GiB (a 24 GB consumer card: RTX 3090/4090, the
/// most common card people price). `dlcost estimate --preset NAME --task train --memory-gib
/// 24` is the page's first screen for that preset.
inline constexpr const char* kStartTask = "train";
inline constexpr double kStartMemoryGib = 24;

/// The starting point as JSON: {task, memory_gib} (exported with the schema as "start").
nlohmann::json startingPointJson();

/// `task`'s starting point for a transformer (`transformer`) or a layer graph; null when
/// that kind of model has no such task.
const TaskDefaults* findTask(const std::string& task, bool transformer);

/// `workload` (a workload JSON object) started from `task`'s settings: the task's fields set,
/// its null fields removed; fields of `workload` the task does not name are kept.
nlohmann::json applyTask(const TaskDefaults& task, nlohmann::json workload);

/// The task a workload that names none starts from: inference when it asks for it (mode infer
/// or a serving engine), else `kStartTask`. What the page's task menu shows for it.
std::string defaultTaskOf(const nlohmann::json& workload);

/// `workload` over `task`'s settings: the workload's own fields win, the task fills the rest.
/// The CLI's starting point when no --task is given, so that a command with only a model and
/// the page's first screen for that model (`kStartTask`) compute the same run.
nlohmann::json underTask(const TaskDefaults& task, nlohmann::json workload);

/// `document` (a model document, {model, workload} or a config.json) with its workload started
/// from the task that workload implies (`defaultTaskOf`, for the document's kind of model):
/// what the CLI estimates when no --task is given, and the page's first screen for the same
/// model and fields. Anything unreadable is returned as it is, for the reader to report.
nlohmann::json startingDocument(nlohmann::json document);

}  // namespace dlcost
