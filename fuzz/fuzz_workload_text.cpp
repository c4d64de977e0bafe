// libFuzzer target: any text typed into any workload field (as a CLI flag or a page field)
// reads to a value or raises InputError; a value read reads back through the workload parser
// and, written as text again, reads to the same value.
#include <cstddef>
#include <cstdint>
#include <string>

#include "dlcost/base/error.hpp"
#include "dlcost/schema/workload_json.hpp"
#include "dlcost/schema/workload_schema.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const auto& fields = dlcost::workloadFields();
  const dlcost::WorkloadField& field = fields[data[0] % fields.size()];
  static const char* const kUnits[] = {"B", "GiB", "GB", "MiB"};
  const std::string unit = kUnits[data[1] % 4];
  const std::string text(reinterpret_cast<const char*>(data) + 2, size - 2);
  nlohmann::json workload;
  try {
    workload = dlcost::workloadFromText({{field.key, text}}, unit);
  } catch (const dlcost::InputError&) {
    return 0;
  }
  try {
    dlcost::parseWorkload(workload, "/workload");
  } catch (const dlcost::InputError&) {
    // Only what needs more than the field itself may fail here: an unknown GPU name, or a
    // split (tp, pp) that the default gpus = 1 cannot hold.
    if (field.type != dlcost::FieldType::kGpu && field.key != "tp" && field.key != "pp") {
      __builtin_trap();
    }
  }
  const auto again = dlcost::workloadToText(workload, unit);
  if (!again.count(field.key)) return 0;  // a GPU object, which has no text form
  nlohmann::json reread;
  try {
    reread = dlcost::workloadFromText({{field.key, again.at(field.key)}}, unit);
  } catch (const dlcost::InputError&) {
    // A real number written in 6+ digits may land an ulp past its range; nothing else may fail.
    if (field.type != dlcost::FieldType::kNumber) __builtin_trap();
    return 0;
  }
  if (field.type != dlcost::FieldType::kNumber && reread != workload) __builtin_trap();
  return 0;
}
