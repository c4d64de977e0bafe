// Every preset GPU for one model and workload.

#include "dlcost/explore/compare.hpp"

#include <algorithm>
#include <optional>

#include "dlcost/base/error.hpp"
#include "dlcost/gpu/gpu_compute.hpp"
#include "dlcost/gpu/gpu_table.hpp"
#include "dlcost/report/estimate.hpp"

namespace dlcost {

const std::vector<std::string>& compareSortFields() {
  static const std::vector<std::string> kFields = {
      "name",      "year",          "memory",       "per_gpu_memory", "fits",    "max_batch",
      "step_time", "samples_per_s", "tokens_per_s", "per_1000usd",    "per_watt"};
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

namespace {

/// The row's value for a numeric field, oriented so that larger is better (step time and the
/// memory each GPU needs are negated); absent where the row has none (no launch price).
std::optional<double> bestIsLarger(const CompareRow& r, const std::string& field) {
  if (field == "year") return r.gpu.release_year;
  if (field == "memory") return static_cast<double>(r.usable_bytes);
  if (field == "per_gpu_memory") return -static_cast<double>(r.per_gpu_bytes);
  if (field == "fits") return r.fits ? 1.0 : 0.0;
  if (field == "max_batch") return static_cast<double>(r.max_batch);
  if (field == "step_time") return -r.step_time_s;
  if (field == "samples_per_s") return r.samples_per_s;
  if (field == "tokens_per_s") return r.tokens_per_s;
  if (field == "per_1000usd") return r.samples_per_s_per_1000usd;
  return r.samples_per_s_per_watt;
}

/// "FIELD", "FIELD:asc" or "FIELD:desc", checked against compareSortFields().
CompareSort parseCompareSort(const std::string& spec, const std::string& path) {
  CompareSort s;
  const auto colon = spec.find(':');
  s.field = spec.substr(0, colon);
  const std::string dir = colon == std::string::npos ? "" : spec.substr(colon + 1);
  const auto& fields = compareSortFields();
  if (std::find(fields.begin(), fields.end(), s.field) == fields.end()) {
    std::string list;
    for (const auto& f : fields) list += (list.empty() ? "" : ", ") + f;
    throw InputError(ErrorCode::kValue, path,
                     "cannot sort by '" + s.field + "' (fields: " + list +
                         "; add :asc or :desc for a plain order)");
  }
  if (dir == "asc") {
    s.order = CompareSort::Order::kAscending;
  } else if (dir == "desc") {
    s.order = CompareSort::Order::kDescending;
  } else if (colon != std::string::npos) {
    throw InputError(ErrorCode::kValue, path,
                     "sort direction must be asc or desc, not '" + dir + "'");
  }
  return s;
}

/// Plain order by the field's own value (not the best-first orientation): a column a user
/// clicks. Rows without a value stay last either way.
void sortPlain(std::vector<CompareRow>& rows, const CompareSort& s) {
  const bool asc = s.order == CompareSort::Order::kAscending;
  if (s.field == "name") {
    std::stable_sort(rows.begin(), rows.end(), [asc](const CompareRow& a, const CompareRow& b) {
      return asc ? a.gpu.id < b.gpu.id : b.gpu.id < a.gpu.id;
    });
    return;
  }
  // Undo bestIsLarger's negation so that ascending means "smallest figure first".
  const bool negated = s.field == "step_time" || s.field == "per_gpu_memory";
  std::stable_sort(rows.begin(), rows.end(), [&](const CompareRow& a, const CompareRow& b) {
    auto ka = bestIsLarger(a, s.field), kb = bestIsLarger(b, s.field);
    if (ka.has_value() != kb.has_value()) return ka.has_value();
    if (!ka) return false;
    const double va = negated ? -*ka : *ka, vb = negated ? -*kb : *kb;
    return asc ? va < vb : va > vb;
  });
}

}  // namespace

std::string CompareSort::spec() const {
  switch (order) {
    case Order::kAscending:
      return field + ":asc";
    case Order::kDescending:
      return field + ":desc";
    case Order::kBestFirst:
      break;
  }
  return field;
}

CompareSort sortCompareRows(std::vector<CompareRow>& rows, const std::string& spec,
                            const std::string& path) {
  const CompareSort s = parseCompareSort(spec, path);
  if (s.order != CompareSort::Order::kBestFirst) {
    sortPlain(rows, s);
    return s;
  }
  if (s.field == "name") {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const CompareRow& a, const CompareRow& b) { return a.gpu.id < b.gpu.id; });
    return s;
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const CompareRow& a, const CompareRow& b) {
    if (a.fits != b.fits) return a.fits;
    const auto ka = bestIsLarger(a, s.field), kb = bestIsLarger(b, s.field);
    if (ka.has_value() != kb.has_value()) return ka.has_value();
    return ka && *ka > *kb;
  });
  return s;
}

}  // namespace dlcost
