#include "dlcost/api.hpp"

#include "dlcost/config_json.hpp"
#include "dlcost/error.hpp"
#include "dlcost/estimate.hpp"
#include "dlcost/report_json.hpp"

namespace dlcost {

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
    return dumpJson(
        errorToJson(Error{ErrorCode::kInternal, "", std::string("internal error: ") + e.what()}));
  }
}

}  // namespace dlcost
