#pragma once
// The workload schema: one table that says, for every workload field, its JSON key, type,
// range and unit, default, allowed values, when it applies, its help text (English and
// Chinese) and its command-line flag. The workload reader and writer (workload_json.hpp), the
// CLI's flags and --help, `dlcost schema --json`, the wasm module and the page's form are all
// driven by it, so adding a field is: a row here, the estimator that uses it, a test.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dlcost/base/text.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

enum class FieldType {
  kInteger,   ///< a whole number (JSON 8, 8.0 and 8e0 alike; text by parseNumberText)
  kNumber,    ///< a real number
  kEnum,      ///< one of `values`
  kBoolean,   ///< true or false
  kNameList,  ///< names: a JSON array of strings, or one comma-separated string
  kGpu,       ///< a GPU preset id or a custom GPU object (gpu_json.hpp)
};

/// Stable lower-case name: "integer", "number", "enum", "boolean", "name_list", "gpu".
const char* fieldTypeName(FieldType type);

/// When a field applies: all the listed conditions hold (none = always). Exported by name so
/// that front ends hide and stop sending a field that does not apply.
enum Condition : unsigned {
  kWhenTransformer = 1u << 0,  ///< the model is a transformer (not a layer graph)
  kWhenTrain = 1u << 1,        ///< mode is train
  kWhenInfer = 1u << 2,        ///< mode is infer
  kWhenGpu = 1u << 3,          ///< a GPU is given (the field "gpu")
  kWhenLora = 1u << 4,         ///< finetune is lora or qlora
  kWhenQuantized = 1u << 5,    ///< weight_dtype is int8 or int4
  kWhenServing = 1u << 6,      ///< engine is set (not none)
};

/// One allowed value of an enum field; `label` is empty where the name says it all.
struct EnumValue {
  std::string name;
  Text label;
};

/// One workload field. The reader validates type and range first, then `apply` stores the
/// checked value (an int64 for integers, a double for numbers, the canonical name for enums,
/// an array of names for name lists, the raw value for a GPU).
struct WorkloadField {
  std::string key;  ///< JSON key in the workload object
  FieldType type = FieldType::kInteger;
  std::string flag;  ///< the CLI flag, e.g. "--batch"
  std::string unit;  ///< "bytes", "GiB", "samples", "tokens", ...; empty for a plain number
  double min = 0;    ///< integers and numbers: the smallest allowed value
  double max = 0;    ///< the largest allowed value (excluded when max_exclusive)
  bool max_exclusive = false;
  std::vector<EnumValue> values;                             ///< enums, in menu order
  std::vector<std::pair<std::string, std::string>> aliases;  ///< other spelling -> value
  /// The value when absent; null when it is derived (default_note says from what).
  nlohmann::json default_value;
  Text default_note;
  unsigned when = 0;  ///< Condition bits, all of which must hold
  std::string group;  ///< "workload", "transformer", "gpu" or "parallel"
  Text label;         ///< short name for a form
  Text help;          ///< one line for --help and the form's hint
  void (*apply)(const nlohmann::json& checked, Workload& workload, const std::string& path);
  /// The field's value in `workload`, as JSON; null when it is unset.
  nlohmann::json (*write)(const Workload& workload);
};

/// Every workload field, in the order forms and --help list them.
const std::vector<WorkloadField>& workloadFields();
/// The field with this JSON key (or flag, "--batch"); null when there is none.
const WorkloadField* findWorkloadField(const std::string& key);
const WorkloadField* findWorkloadFlag(const std::string& flag);

/// Whether every condition of `field.when` holds for this workload on a transformer
/// (`transformer`) or a layer graph.
bool fieldApplies(const WorkloadField& field, const Workload& workload, bool transformer);

/// "an integer from 1 to 4294967296 samples", "one of sgd, momentum, ...": what the field
/// accepts, as error messages and --help say it.
std::string describeAccepted(const WorkloadField& field);
/// The same in both languages ("1 到 4294967296 个样本的整数").
Text describeAcceptedText(const WorkloadField& field);

/// A range bound as text: whole numbers in full ("1152921504606846976"), others as JSON.
std::string formatBound(double value);

/// The schema as JSON: {"version", "number_text", "conditions", "fields": [...]}.
nlohmann::json workloadSchemaJson();

/// Byte units a size typed as text may carry ("1.5 GiB"): B, kB, MB, GB, TB, KiB, MiB, GiB,
/// TiB. Returns bytes per unit, 0 when `name` is none of them.
double bytesPerUnitName(const std::string& name);

}  // namespace dlcost
