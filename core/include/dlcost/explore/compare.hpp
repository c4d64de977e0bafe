#pragma once
// One model and workload on every preset GPU: fit, largest batch, speed and
// price/performance, sortable.

#include <optional>
#include <string>
#include <vector>

#include "dlcost/base/error.hpp"
#include "dlcost/types/gpu.hpp"
#include "dlcost/types/model.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

struct CompareRow {
  Gpu gpu;
  bool fits = false;
  int64_t per_gpu_bytes = 0;  ///< what each GPU needs
  int64_t usable_bytes = 0;   ///< what each GPU offers after the reserve
  int64_t max_batch = 0;      ///< largest global batch that fits (0 = none)
  double step_time_s = 0;
  double samples_per_s = 0;
  std::optional<double> tokens_per_s;
  std::optional<double> samples_per_s_per_1000usd;  ///< absent without a launch price
  double samples_per_s_per_watt = 0;
};

/// Fields rows can be sorted by: "name", "year", "memory" (what the GPU offers),
/// "per_gpu_memory" (what the run needs on each GPU), "fits", "max_batch", "step_time",
/// "samples_per_s", "tokens_per_s", "per_1000usd", "per_watt".
const std::vector<std::string>& compareSortFields();

/// A parsed sort: a field and an order. Best first (the spec "FIELD") puts configurations
/// that fit first, then the best value first (largest; smallest for step_time and
/// per_gpu_memory; alphabetical for name). "FIELD:asc" and "FIELD:desc" order by the
/// field's own value alone, as a clicked table column does. Rows without a value (no launch
/// price) come last in every order.
struct CompareSort {
  enum class Order { kBestFirst, kAscending, kDescending };
  std::string field;
  Order order = Order::kBestFirst;
  std::string spec() const;  ///< back to "FIELD" or "FIELD:asc"/"FIELD:desc"
};

/// Estimates `w` (its own "gpu" replaced) on every preset GPU, advisor off. Throws InputError
/// for a workload that no GPU can take (e.g. a batch that does not split over its GPUs).
/// GPUs whose links between GPUs or nodes dlcost does not know (and the workload does not
/// name) are left out, each with the reason in `skipped` when given.
std::vector<CompareRow> compareGpus(const Model& model, const Workload& w,
                                    std::vector<Error>* skipped = nullptr);

/// Sorts rows by a spec ("FIELD", "FIELD:asc" or "FIELD:desc"; see CompareSort) and returns
/// it parsed. Throws InputError with path `path` for an unknown field or direction.
CompareSort sortCompareRows(std::vector<CompareRow>& rows, const std::string& spec,
                            const std::string& path);

}  // namespace dlcost
