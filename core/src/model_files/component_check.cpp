// When a model file's tensors are checked against the engine's components: the one rule the
// CLI (`estimate --weights`) and the page (a dropped checkpoint) both call.
#include <variant>

#include "dlcost/base/checked.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/model_files/weight_components.hpp"
#include "dlcost/report/report_json.hpp"
#include "dlcost/schema/config_json.hpp"

namespace dlcost {

namespace {

using nlohmann::json;

/// Refuses a "tensors" entry checkComponents could not read. The page passes back a summary
/// the engine wrote, but the binding takes any text, so the summary is checked, not trusted.
void requireTensor(const json& t, size_t i) {
  const std::string path = childPath("/tensors", i);
  if (!t.is_object()) throw InputError(ErrorCode::kType, path, "must be an object");
  if (!t.contains("name") || !t["name"].is_string()) {
    throw InputError(ErrorCode::kType, childPath(path, "name"), "must be the tensor's name");
  }
  if (!t.contains("parameters") || !t["parameters"].is_number_integer() ||
      (t["parameters"].is_number_unsigned() && t["parameters"].get<uint64_t>() > INT64_MAX) ||
      t["parameters"].get<int64_t>() < 0) {
    throw InputError(ErrorCode::kType, childPath(path, "parameters"),
                     "must be the tensor's element count, a whole number >= 0");
  }
}

}  // namespace

json componentCheck(const json& summary, const Model& model) {
  const auto* t = std::get_if<Transformer>(&model.body);
  if (!t || !summary.is_object()) return nullptr;
  const json format = summary.value("format", json());
  if (format != "safetensors" && format != "safetensors_index") return nullptr;
  const auto tensors = summary.find("tensors");
  if (tensors == summary.end()) return nullptr;
  if (!tensors->is_array()) {
    throw InputError(ErrorCode::kType, "/tensors", "must be the file's list of tensors");
  }
  for (size_t i = 0; i < tensors->size(); ++i) requireTensor((*tensors)[i], i);
  return componentCheckJson(checkComponents(*t, *tensors));
}

std::string componentCheckText(const std::string& summary_text, const std::string& document_text) {
  try {
    const json summary =
        json::parse(summary_text.data(), summary_text.data() + summary_text.size(), nullptr,
                    /*allow_exceptions=*/false);
    if (summary.is_discarded()) throw InputError(ErrorCode::kParse, "", "the summary is not JSON");
    json doc = parseDocumentText(document_text);
    if (doc.is_object()) doc.erase("workload");
    return dumpJson(componentCheck(summary, parseConfig(doc).model));
  } catch (const InputError& e) {
    return dumpJson(errorToJson(e.error()));
  } catch (const ArithmeticOverflow&) {
    return dumpJson(errorToJson({ErrorCode::kTooLarge, "", "sizes overflow 64-bit arithmetic"}));
  }
}

}  // namespace dlcost
