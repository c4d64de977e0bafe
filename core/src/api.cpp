#include "dlcost/api.hpp"

#include <cstdint>

#include "dlcost/config_json.hpp"
#include "dlcost/error.hpp"
#include "dlcost/estimate.hpp"
#include "dlcost/presets.hpp"
#include "dlcost/report_json.hpp"
#include "dlcost/sweep.hpp"

namespace dlcost {

namespace {

std::string internalError(const std::exception& e) {
  return dumpJson(
      errorToJson(Error{ErrorCode::kInternal, "", std::string("internal error: ") + e.what()}));
}

std::vector<int64_t> readBatches(const std::string& text) {
  const nlohmann::json list = parseDocumentText(text);
  if (!list.is_array()) {
    throw InputError(ErrorCode::kType, "/batches", "must be an array of batch sizes");
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < list.size() && i <= kMaxSweepPoints; ++i) {
    if (!list[i].is_number_integer()) {
      throw InputError(ErrorCode::kType, childPath("/batches", i), "must be an integer");
    }
    if (list[i].is_number_unsigned() &&
        list[i].get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      throw InputError(ErrorCode::kTooLarge, childPath("/batches", i),
                       "is larger than 64-bit arithmetic allows");
    }
    out.push_back(list[i].get<int64_t>());
  }
  return out;
}

nlohmann::json sweepToJson(const BatchSweep& s) {
  nlohmann::json points = nlohmann::json::array();
  for (const BatchPoint& p : s.points) {
    nlohmann::json point = {{"batch", p.batch}, {"total", p.total}};
    if (s.memory_bytes) point["fits"] = p.total <= *s.memory_bytes;
    points.push_back(std::move(point));
  }
  nlohmann::json j = {{"schema", "dlcost.sweep/1"},
                      {"fixed", s.fixed},
                      {"per_sample", s.per_sample},
                      {"points", std::move(points)}};
  if (s.memory_bytes) j["memory_bytes"] = *s.memory_bytes;
  if (s.max_batch) j["max_batch"] = *s.max_batch;
  return j;
}

}  // namespace

nlohmann::json estimateDocument(const nlohmann::json& document) {
  const Config config = parseConfig(document);
  return reportToJson(estimate(config.model, config.workload));
}

std::string estimateText(const std::string& document_text) {
  try {
    const Config config = parseConfigText(document_text);
    return dumpJson(reportToJson(estimate(config.model, config.workload)));
  } catch (const InputError& e) {
    return dumpJson(errorToJson(e.error()));
  } catch (const std::exception& e) {
    return internalError(e);
  }
}

std::string sweepBatchText(const std::string& document_text, const std::string& batches_json_text) {
  try {
    const Config config = parseConfigText(document_text);
    const Report report = estimate(config.model, config.workload);
    return dumpJson(sweepToJson(sweepBatch(report, readBatches(batches_json_text))));
  } catch (const InputError& e) {
    return dumpJson(errorToJson(e.error()));
  } catch (const std::exception& e) {
    return internalError(e);
  }
}

std::string estimateWithSweepText(const std::string& document_text, int points) {
  try {
    const Config config = parseConfigText(document_text);
    const Report report = estimate(config.model, config.workload);
    nlohmann::json out = {{"report", reportToJson(report)},
                          {"sweep", sweepToJson(sweepBatch(report, chartBatches(report, points)))}};
    return dumpJson(out);
  } catch (const InputError& e) {
    return dumpJson(errorToJson(e.error()));
  } catch (const std::exception& e) {
    return internalError(e);
  }
}

nlohmann::json presetListJson() {
  nlohmann::json list = nlohmann::json::array();
  for (const PresetInfo& p : presetList()) {
    list.push_back({{"name", p.name}, {"family", p.family}, {"source", p.source}});
  }
  return list;
}

std::string presetText(const std::string& name) {
  const char* text = presetJson(name);
  if (!text) {
    return dumpJson(
        errorToJson(Error{ErrorCode::kValue, "/model/preset",
                          "unknown preset '" + name + "' (`dlcost presets` lists them)"}));
  }
  return text;
}

}  // namespace dlcost
