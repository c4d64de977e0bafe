// Every preset GPU for one model and workload.

#include "dlcost/compare.hpp"

#include <algorithm>
#include <functional>

#include "dlcost/error.hpp"
#include "dlcost/estimate.hpp"
#include "dlcost/gpu_compute.hpp"

namespace dlcost {

const std::vector<std::string>& compareSortFields() {
  static const std::vector<std::string> kFields = {
      "name",      "year",          "memory",       "fits",        "max_batch",
      "step_time", "samples_per_s", "tokens_per_s", "per_1000usd", "per_watt"};
  return kFields;
}

std::vector<CompareRow> compareGpus(const Model& model, const Workload& w,
                                    std::vector<Error>* skipped) {
  std::vector<CompareRow> rows;
  for (const Gpu& g : gpuPresets()) {
    if (!gpuComputePublished(g)) {
      // Compare ranks speeds; a part with no published compute rate has none to rank.
      if (skipped) {
        skipped->push_back({ErrorCode::kValue, "/workload/gpu",
                            g.id + ": no published compute rate, so no speed to compare"});
      }
      continue;
    }
    Workload c = w;
    c.hardware.gpu = g;
    c.hardware.advise = false;
    Report r;
    try {
      r = estimate(model, c);
    } catch (const InputError& e) {
      const std::string& path = e.error().path;
      if (path != "/workload/intra_node_link" && path != "/workload/inter_node_link") throw;
      if (skipped) skipped->push_back({e.error().code, path, g.id + ": " + e.error().message});
      continue;
    }
    const GpuFit& f = *r.gpu_fit;
    CompareRow row;
    row.gpu = g;
    row.fits = f.fits;
    row.per_gpu_bytes = f.per_gpu.total;
    row.usable_bytes = f.usable_bytes;
    row.max_batch = f.max_batch;
    row.step_time_s = f.time.step_s;
    row.samples_per_s = f.time.samples_per_s;
    row.tokens_per_s = f.time.tokens_per_s;
    row.samples_per_s_per_1000usd = f.samples_per_s_per_1000usd;
    row.samples_per_s_per_watt = f.samples_per_s_per_watt;
    rows.push_back(std::move(row));
  }
  return rows;
}

void sortCompareRows(std::vector<CompareRow>& rows, const std::string& field,
                     const std::string& path) {
  const auto& fields = compareSortFields();
  if (std::find(fields.begin(), fields.end(), field) == fields.end()) {
    std::string list;
    for (const auto& f : fields) list += (list.empty() ? "" : ", ") + f;
    throw InputError(ErrorCode::kValue, path,
                     "cannot sort by '" + field + "' (fields: " + list + ")");
  }
  if (field == "name") {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const CompareRow& a, const CompareRow& b) { return a.gpu.id < b.gpu.id; });
    return;
  }
  // A value per row (absent = sorts last); larger is better except for step time.
  const std::function<std::optional<double>(const CompareRow&)> key =
      [&field](const CompareRow& r) -> std::optional<double> {
    if (field == "year") return r.gpu.release_year;
    if (field == "memory") return static_cast<double>(r.usable_bytes);
    if (field == "fits") return r.fits ? 1.0 : 0.0;
    if (field == "max_batch") return static_cast<double>(r.max_batch);
    if (field == "step_time") return -r.step_time_s;
    if (field == "samples_per_s") return r.samples_per_s;
    if (field == "tokens_per_s") return r.tokens_per_s;
    if (field == "per_1000usd") return r.samples_per_s_per_1000usd;
    return r.samples_per_s_per_watt;
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const CompareRow& a, const CompareRow& b) {
    if (a.fits != b.fits) return a.fits;
    const auto ka = key(a), kb = key(b);
    if (ka.has_value() != kb.has_value()) return ka.has_value();
    return ka && *ka > *kb;
  });
}

}  // namespace dlcost
