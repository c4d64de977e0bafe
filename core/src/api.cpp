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
    return reportToJson(estimate(config.model, config.workload)).dump();
  } catch (const InputError& e) {
    return errorToJson(e.error()).dump();
  } catch (const std::exception& e) {
    return errorToJson(Error{ErrorCode::kValue, "", std::string("internal error: ") + e.what()})
        .dump();
  }
}

}  // namespace dlcost
