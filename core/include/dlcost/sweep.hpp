#pragma once
// Memory over a range of batch sizes, computed from one estimate: every report's total is
// fixed + batch x per_sample (see MemoryBreakdown), so a sweep needs no re-estimate per point.

#include <cstdint>
#include <optional>
#include <vector>

#include "dlcost/report.hpp"

namespace dlcost {

/// Most batch sizes one sweep accepts (a chart needs tens, not thousands).
constexpr size_t kMaxSweepPoints = 1024;

/// One point of a sweep: total memory in bytes at `batch`.
struct BatchPoint {
  int64_t batch = 1;
  int64_t total = 0;  ///< fixed + batch x per_sample, bytes
};

/// Memory versus batch for the model and workload of `report`.
struct BatchSweep {
  int64_t fixed = 0;                    ///< bytes that do not grow with batch
  int64_t per_sample = 0;               ///< bytes each sample adds
  std::optional<int64_t> memory_bytes;  ///< the workload's capacity, when given
  std::optional<int64_t> max_batch;     ///< the report's largest batch that fits, when given
  std::vector<BatchPoint> points;       ///< one per requested batch, in the order given
};

/// Evaluates `report`'s memory line at each batch (each >= 1). Throws InputError (kValue for
/// an empty, too long or non-positive list, kTooLarge when a total overflows 64 bits) with
/// the path "/batches/i" of the offending entry.
BatchSweep sweepBatch(const Report& report, const std::vector<int64_t>& batches);

}  // namespace dlcost
