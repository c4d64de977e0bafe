#include "model_files/tensor_summary.hpp"

#include <algorithm>
#include <map>

#include "dlcost/base/checked.hpp"
#include "dlcost/types/file_weights.hpp"

namespace dlcost {

namespace {

struct TypeTotals {
  size_t first_seen = 0;
  int64_t tensors = 0;
  int64_t parameters = 0;
  int64_t bytes = 0;
};

}  // namespace

void addTensorSummary(nlohmann::json& summary, const std::vector<TensorEntry>& tensors) {
  std::map<std::string, TypeTotals> by_type;
  int64_t parameters = 0;
  int64_t bytes = 0;
  nlohmann::json list = nlohmann::json::array();
  for (const TensorEntry& t : tensors) {
    auto [it, inserted] = by_type.try_emplace(t.dtype);
    if (inserted) it->second.first_seen = by_type.size();
    it->second.tensors += 1;
    it->second.parameters = checkedAdd(it->second.parameters, t.parameters);
    it->second.bytes = checkedAdd(it->second.bytes, t.bytes);
    parameters = checkedAdd(parameters, t.parameters);
    bytes = checkedAdd(bytes, t.bytes);
    list.push_back({{"name", t.name},
                    {"dtype", t.dtype},
                    {"shape", t.shape},
                    {"parameters", t.parameters},
                    {"bytes", t.bytes},
                    {"offset", t.offset}});
  }
  std::vector<std::pair<std::string, TypeTotals>> order(by_type.begin(), by_type.end());
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second.bytes != b.second.bytes ? a.second.bytes > b.second.bytes
                                            : a.second.first_seen < b.second.first_seen;
  });
  nlohmann::json types = nlohmann::json::array();
  for (const auto& [name, totals] : order) {
    nlohmann::json row = {{"dtype", name},
                          {"tensors", totals.tensors},
                          {"parameters", totals.parameters},
                          {"bytes", totals.bytes}};
    // Storage per value including the blocks' scales (4.5 for Q4_K): a derived figure, so
    // the front ends need not compute it.
    if (totals.parameters > 0) {
      row["bits_per_weight"] =
          static_cast<double>(totals.bytes) * 8.0 / static_cast<double>(totals.parameters);
    }
    types.push_back(std::move(row));
  }
  summary["parameters"] = parameters;
  summary["weight_bytes"] = bytes;
  summary["tensor_count"] = tensors.size();
  summary["by_dtype"] = std::move(types);
  summary["tensors"] = std::move(list);
  // What a model document carries beside its config so that the weights term is the file's
  // bytes (file_weights.hpp): the front ends copy it, they compute nothing.
  if (summary.contains("format") && summary["format"].is_string()) {
    summary["weights_file"] = fileWeightsToJson({summary["format"], bytes, parameters});
  }
}

}  // namespace dlcost
