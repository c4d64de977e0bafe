#include "dlcost/api.hpp"

#include "dlcost/compare.hpp"
#include "dlcost/config_json.hpp"
#include "dlcost/error.hpp"
#include "dlcost/estimate.hpp"
#include "dlcost/gpu_json.hpp"
#include "dlcost/report_json.hpp"

namespace dlcost {

nlohmann::json estimateDocument(const nlohmann::json& document) {
  const Config config = parseConfig(document);
  return reportToJson(estimate(config.model, config.workload));
}

nlohmann::json compareDocument(const nlohmann::json& document, const std::string& sort) {
  const Config config = parseConfig(document);
  std::vector<CompareRow> rows = compareGpus(config.model, config.workload);
  sortCompareRows(rows, sort, "/sort");
  nlohmann::json out = nlohmann::json::array();
  for (const CompareRow& r : rows) {
    out.push_back(
        {{"gpu", r.gpu.id},
         {"name", r.gpu.name},
         {"fits", r.fits},
         {"per_gpu_bytes", r.per_gpu_bytes},
         {"usable_bytes", r.usable_bytes},
         {"max_batch", r.max_batch},
         {"step_time_s", r.step_time_s},
         {"samples_per_s", r.samples_per_s},
         {"tokens_per_s", r.tokens_per_s ? nlohmann::json(*r.tokens_per_s) : nullptr},
         {"samples_per_s_per_1000usd",
          r.samples_per_s_per_1000usd ? nlohmann::json(*r.samples_per_s_per_1000usd) : nullptr},
         {"samples_per_s_per_watt", r.samples_per_s_per_watt},
         {"price_usd", r.gpu.price_usd},
         {"tdp_watts", r.gpu.tdp_watts}});
  }
  Workload base = config.workload;  // the GPU-independent part of the report
  base.hardware.gpu.reset();
  const nlohmann::json report = reportToJson(estimate(config.model, base));
  return {{"schema", "dlcost.compare/1"},
          {"model", report["model"]},
          {"workload", report["workload"]},
          {"sort", sort},
          {"rows", std::move(out)}};
}

nlohmann::json gpuTable() {
  return gpuTableJson();
}

std::string estimateText(const std::string& document_text) {
  try {
    const Config config = parseConfigText(document_text);
    return dumpJson(reportToJson(estimate(config.model, config.workload)));
  } catch (const InputError& e) {
    return dumpJson(errorToJson(e.error()));
  } catch (const std::exception& e) {
    return dumpJson(
        errorToJson(Error{ErrorCode::kInternal, "", std::string("internal error: ") + e.what()}));
  }
}

}  // namespace dlcost
