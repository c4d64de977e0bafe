// Serving plans over users and contexts (see serving_sweep.hpp): one estimate per point.
#include "dlcost/explore/serving_sweep.hpp"

#include <algorithm>

#include "dlcost/base/error.hpp"
#include "dlcost/report/estimate.hpp"
#include "dlcost/report/report_json.hpp"
#include "dlcost/schema/config_json.hpp"
#include "dlcost/serving/serving_json.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

/// The list's integers, {0} (the workload's own value) for null, {-1} for "auto".
std::vector<int64_t> readList(const std::string& text, const std::string& path) {
  const json list = parseDocumentText(text);
  if (list.is_null()) return {0};
  if (list.is_string() && list.get<std::string>() == "auto") return {-1};
  if (!list.is_array() || list.empty()) {
    throw InputError(ErrorCode::kType, path, "must be a non-empty array of integers >= 1");
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_number_integer() || list[i].get<int64_t>() < 1) {
      throw InputError(ErrorCode::kValue, path + "/" + std::to_string(i),
                       "must be an integer >= 1");
    }
    out.push_back(list[i].get<int64_t>());
  }
  return out;
}

}  // namespace

std::string servingSweepText(const std::string& document_text, const std::string& users_json_text,
                             const std::string& contexts_json_text) {
  try {
    const json doc = parseDocumentText(document_text);
    std::vector<int64_t> users = readList(users_json_text, "/users");
    std::vector<int64_t> contexts = readList(contexts_json_text, "/contexts");
    if (users.size() * contexts.size() > static_cast<size_t>(kMaxServingSweepPoints)) {
      throw InputError(ErrorCode::kTooLarge, "/users",
                       "at most " + std::to_string(kMaxServingSweepPoints) + " points per sweep");
    }
    const Config base = parseConfig(doc);
    if (base.workload.serving.engine == Engine::kNone) {
      throw InputError(ErrorCode::kMissingField, "/workload/engine",
                       "a serving sweep needs an engine");
    }
    if (users == std::vector<int64_t>{0}) {
      // The chart's users: powers of two up past the most the plan holds.
      const ServingPlan first = *estimate(base.model, base.workload).serving;
      const int64_t top = std::max(first.users, 2 * first.max_users);
      users.clear();
      for (int64_t u = 1; users.size() < 24; u *= 2) {
        users.push_back(u);
        if (u >= top) break;
      }
    }
    if (contexts == std::vector<int64_t>{-1}) {
      // The context chart's points: powers of two from 1024 up to the model's context
      // (max_position_embeddings; without one, 8 times the workload's context).
      const ServingPlan first = *estimate(base.model, base.workload).serving;
      const auto* t = std::get_if<Transformer>(&base.model.body);
      const int64_t top = t && t->max_positions > 0 ? t->max_positions : 8 * first.context;
      contexts.clear();
      for (int64_t c = 1024; c < top && contexts.size() < 16; c *= 2) contexts.push_back(c);
      contexts.push_back(top);
      if (users.size() * contexts.size() > static_cast<size_t>(kMaxServingSweepPoints)) {
        throw InputError(ErrorCode::kTooLarge, "/users",
                         "at most " + std::to_string(kMaxServingSweepPoints) + " points per sweep");
      }
    }
    json points = json::array();
    for (int64_t c : contexts) {
      for (int64_t u : users) {
        Workload w = base.workload;
        if (u > 0) w.serving.users = u;
        if (c > 0) {
          w.serving.context = c;
          // A context shorter than the prompt: the prompt fills it. Without a prompt the
          // engine's defaults fill the context (less a vision-language model's image tokens).
          if (w.prompt_tokens) {
            w.prompt_tokens = std::min(*w.prompt_tokens, c);
            w.generated_tokens = std::min(w.generated_tokens, c - *w.prompt_tokens);
          } else {
            w.generated_tokens = 0;
          }
        }
        const Report r = estimate(base.model, w);
        const ServingPlan& p = *r.serving;
        json point = {{"users", p.users},
                      {"context", p.context},
                      {"fits", p.fits},
                      {"max_users", p.max_users},
                      {"device_bytes", p.device.total},
                      {"host_bytes", p.host.total}};
        if (p.speed.itl_s > 0) point["speed"] = servingSpeedToJson(p.speed);
        points.push_back(std::move(point));
      }
    }
    return json{{"schema", "dlcost.serving_sweep/1"},
                {"engine", engineName(base.workload.serving.engine)},
                {"points", std::move(points)}}
        .dump();
  } catch (const InputError& e) {
    return errorToJson(e.error()).dump();
  } catch (const std::exception& e) {
    return errorToJson(Error{ErrorCode::kInternal, "", e.what()}).dump();
  }
}

}  // namespace dlcost
